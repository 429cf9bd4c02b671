import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frameAt, readySeries, recordHistory } from './history.js';
import { createSimulation } from './simulation.js';
import { app, clusterWithNodes, node } from './fixtures.test-support.js';

/** web: 2 replicas with required hostname anti-affinity on 2 nodes; node b fails at 60 s, node c joins at 20 min. */
function run(record: boolean, maxFrames?: number) {
  const sim = createSimulation(clusterWithNodes([{ name: 'a', zone: 'z1' }, { name: 'b', zone: 'z2' }]), { seed: 1 });
  sim.deployments.add(app('web', { replicas: 2, antiAffinity: true }));
  const history = record ? recordHistory(sim, maxFrames) : () => undefined;
  sim.engine.at(60_000, 'fail', () => sim.world.setKubeletRunning('b', false));
  sim.engine.at(1_200_000, 'add', () => sim.world.addNode(node('c')));
  sim.engine.run(1_500_000);
  return { sim, history: history() };
}

describe('history', () => {
  const { sim, history: recorded } = run(true);
  const history = recorded!;

  it('has one frame per changed instant, in time order, the last one equal to the end state', () => {
    const times = history.frames.map((f) => f.t);
    assert.deepEqual(times, [...new Set(times)].sort((x, y) => x - y));
    const last = history.frames.at(-1)!;
    assert.deepEqual(last.pods.map((p) => `${p.key}@${p.node}`).sort(), [...sim.world.cluster.pods()].map((p) => `${p.key}@${p.nodeName}`).sort());
    assert.equal(history.truncated, false);
  });

  it('frameAt shows the cluster as it was: both replicas ready before the failure, node b down after it', () => {
    const before = frameAt(history, 59_000)!;
    assert.equal(before.pods.filter((p) => p.ready).length, 2);
    assert.deepEqual(before.nodes.map((n) => `${n.name}:${n.up}`), ['a:true', 'b:true']);
    const after = frameAt(history, 61_000)!;
    assert.equal(after.nodes.find((n) => n.name === 'b')?.up, false);
    const end = frameAt(history, 1_500_000)!;
    assert.deepEqual(end.nodes.map((n) => n.name).sort(), ['a', 'b', 'c']);
  });

  it('names pods by their Deployment, not the ReplicaSet, and tracks ready replicas over time', () => {
    assert.ok(history.frames.every((f) => f.pods.every((p) => p.workload === 'web')));
    const web = readySeries(history).get('web')!;
    // 2 ready, then 1 once the lost node's pod is NotReady, then 2 again once node c takes the replacement.
    assert.deepEqual(web.map((s) => s.ready).filter((r, i, a) => i === 0 || a[i - 1] !== r).slice(-3), [2, 1, 2]);
    assert.ok(web.find((s) => s.ready === 1)!.t > 60_000);
    assert.ok(web.at(-1)!.t >= 1_200_000);
  });

  it('records each node\'s requested cpu and memory and the cloud\'s $/h at every instant', () => {
    const last = history.frames.at(-1)!;
    for (const n of last.nodes) {
      const info = sim.world.cluster.nodeInfos().find((i) => i.node.name === n.name)!;
      assert.equal(n.cpuRequested, info.requested['cpu'] ?? 0);
      assert.equal(n.memoryRequested, info.requested['memory'] ?? 0);
    }
    assert.ok(last.nodes.some((n) => n.cpuRequested > 0), 'the replicas request cpu');
    // No NodePool: nothing launched, nothing billed.
    assert.ok(history.frames.every((f) => f.costPerHour === 0));
  });

  it('stops at maxFrames and says so', () => {
    const small = run(true, 3).history!;
    assert.equal(small.frames.length, 3);
    assert.equal(small.truncated, true);
  });

  it('recording does not change the run', () => {
    const plain = run(false).sim;
    assert.equal(JSON.stringify(plain.engine.log), JSON.stringify(sim.engine.log));
  });
});
