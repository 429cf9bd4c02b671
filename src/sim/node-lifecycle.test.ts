import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSimulation } from './simulation.js';
import { app, clusterWithNodes } from './fixtures.test-support.js';

const times = (log: readonly { t: number; type: string }[], type: string) => log.filter((r) => r.type === type).map((r) => r.t);

describe('node failure timing', () => {
  it('NotReady after the 50 s lease grace (at a 5 s monitor pass), eviction 300 s after the NoExecute taint, replacement on the other node', () => {
    const sim = createSimulation(clusterWithNodes([{ name: 'a' }, { name: 'b' }]), { seed: 3 });
    sim.deployments.add(app('web', { replicas: 2, antiAffinity: true }));
    sim.engine.at(60_000, 'fail', () => sim.world.setKubeletRunning('a', false));
    sim.engine.run(20 * 60_000);
    const log = sim.engine.log;
    const notReady = times(log, 'NodeNotReady')[0]!;
    // The last lease renewal was at most 10 s before the failure; detection is the first 5 s pass past renewal + 50 s.
    assert.ok(notReady > 60_000 + 40_000 && notReady <= 60_000 + 50_000 + 5_000, `NotReady at ${notReady}`);
    assert.equal(notReady % 5_000, 0);
    const noExecute = log.find((r) => r.type === 'NodeUpdated' && r['reason'] === 'NodeUnreachable')!;
    assert.equal(noExecute.t, notReady, 'the first node of a healthy zone is tainted at once');
    const evicted = log.filter((r) => r.type === 'PodTerminating' && r['reason'] === 'TaintManagerEviction');
    assert.equal(evicted.length, 1);
    assert.equal(evicted[0]!.t, notReady + 300_000);
    // The pod on the dead node stays terminating (no kubelet); its replacement cannot join b (anti-affinity) and waits.
    assert.equal([...sim.world.cluster.pods()].filter((p) => !p.nodeName).length, 1);
  });

  it('noExecuteTaintNotBefore never comes after the taint a zone loss gives each queued node (one per 10 s), and is exact for the head of the queue', () => {
    const nodes = [...Array.from({ length: 12 }, (_, i) => ({ name: `a${i}`, zone: 'za' })), ...Array.from({ length: 4 }, (_, i) => ({ name: `b${i}`, zone: 'zb' }))];
    const sim = createSimulation(clusterWithNodes(nodes), { seed: 5 });
    sim.deployments.add(app('web', { replicas: 8 }));
    const lost = nodes.filter((n) => n.zone === 'za').map((n) => n.name);
    sim.engine.at(30_000, 'fail', () => lost.forEach((n) => sim.world.setKubeletRunning(n, false)));
    const bounds = new Map<string, number[]>();
    sim.engine.afterEach(() => {
      for (const n of lost) {
        const b = sim.nodeLifecycle.noExecuteTaintNotBefore(n);
        if (b !== undefined) bounds.set(n, [...(bounds.get(n) ?? []), b]);
      }
    });
    sim.engine.run(10 * 60_000);
    const tainted = new Map(sim.engine.log.filter((r) => r.type === 'NodeUpdated' && r['reason'] === 'NodeUnreachable').map((r) => [String(r['node']), r.t]));
    assert.equal(tainted.size, lost.length);
    const order = [...tainted.values()].sort((x, y) => x - y);
    const intervals = order.slice(1).map((t, i) => t - order[i]!);
    assert.ok(intervals.every((d) => d >= 10_000), `taints ${intervals.join(', ')} ms apart`);
    for (const n of lost) {
      assert.ok(bounds.get(n)!.length > 0, `${n} was queued`);
      assert.ok(bounds.get(n)!.every((b) => b <= tainted.get(n)!), `${n}: bounds ${bounds.get(n)!.join(', ')}, tainted at ${tainted.get(n)}`);
    }
    assert.ok(lost.some((n) => bounds.get(n)!.at(-1) === tainted.get(n)), 'a node next in line is tainted at its bound');
    assert.equal(sim.nodeLifecycle.noExecuteTaintNotBefore('b0'), undefined, 'a Ready node waits for no taint');
  });

  it('a returning kubelet clears the taints at the next monitor pass and its pods come back', () => {
    const sim = createSimulation(clusterWithNodes([{ name: 'a' }]), { seed: 1 });
    sim.deployments.add(app('web', { replicas: 1 }));
    sim.engine.at(10_000, 'fail', () => sim.world.setKubeletRunning('a', false));
    sim.engine.at(120_000, 'recover', () => sim.world.setKubeletRunning('a', true));
    sim.engine.run(10 * 60_000);
    assert.deepEqual(times(sim.engine.log, 'NodeReady'), [125_000]);
    assert.deepEqual(sim.world.cluster.nodeInfo('a')!.node.taints, []);
    assert.equal(times(sim.engine.log, 'PodTerminating').length, 0, 'recovered before tolerationSeconds ran out');
    assert.equal(sim.deployments.objects.get('default/web')!.status.availableReplicas, 1);
  });

  it('a deleted node: orphaned pods are removed by pod GC after the 40 s quarantine and recreated elsewhere', () => {
    const sim = createSimulation(clusterWithNodes([{ name: 'a' }, { name: 'b' }]), { seed: 1 });
    sim.deployments.add(app('web', { replicas: 2 }));
    sim.engine.at(30_000, 'delete', () => sim.world.deleteNode('a', 'test'));
    sim.engine.run(5 * 60_000);
    const gc = sim.engine.log.filter((r) => r.type === 'PodDeleted' && r['reason'] === 'PodGCOrphaned');
    assert.ok(gc.length >= 1);
    assert.equal(gc[0]!.t, 40_000 + 40_000, 'first GC pass after the deletion (40 s) + quarantine');
    assert.ok([...sim.world.cluster.pods()].every((p) => p.nodeName === 'b'));
  });

  it("pod GC deletes a lost node's orphans one after another, each replaced and scheduled before the next goes", () => {
    // Found by conformance/sim-vs-real (s2-94): upstream's gcOrphaned deletes serially, so a
    // replacement that fails to schedule is requeued by the deletions after it.
    const sim = createSimulation(clusterWithNodes([{ name: 'a' }, { name: 'b' }]), { seed: 1 });
    sim.deployments.add(app('web', { replicas: 2 }));
    sim.deployments.add(app('api', { replicas: 2 }));
    sim.engine.at(30_000, 'delete', () => sim.world.deleteNode('a', 'test'));
    sim.engine.run(5 * 60_000);
    const log = sim.engine.log.filter((r) => r.t >= 80_000 && r.t < 80_010 && (r.type === 'PodDeleted' || r.type === 'PodCreated'));
    const gc = log.filter((r) => r.type === 'PodDeleted');
    assert.ok(gc.length >= 2, `orphans on a: ${gc.length}`);
    assert.deepEqual(gc.map((r) => r.t), gc.map((_, i) => 80_000 + i));
    // Each orphan's replacement is created before the next orphan is deleted.
    assert.deepEqual(log.map((r) => r.type), gc.flatMap(() => ['PodDeleted', 'PodCreated']));
  });
});
