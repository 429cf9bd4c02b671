import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodTemplateManifest } from '../../model/manifest.js';
import { compileLabelSelector } from '../../model/selector.js';
import { createSimulation } from '../simulation.js';
import { clusterWithNodes, node } from '../fixtures.test-support.js';
import type { DaemonSetUpdateStrategy } from './daemonset.js';

const tmpl = (image: string): PodTemplateManifest => ({
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ name: 'c', image, resources: { requests: { cpu: '10m' } } }], terminationGracePeriodSeconds: 5 },
});

function setup(names: string[], updateStrategy?: DaemonSetUpdateStrategy) {
  const sim = createSimulation(clusterWithNodes(names.map((name) => ({ name }))), { seed: 4 });
  const ds = sim.daemonSets.add({ namespace: 'default', name: 'agent', uid: 'ds-agent', selector: compileLabelSelector({ matchLabels: { app: 'agent' } }), template: tmpl('v1'), ...(updateStrategy ? { updateStrategy } : {}) });
  sim.engine.run(10_000);
  return { sim, ds };
}

describe('DaemonSet controller', () => {
  it('creates one pod per node, pinned by node affinity and bound by the scheduler, with the default tolerations', () => {
    const { sim, ds } = setup(['n1', 'n2']);
    const pods = sim.daemonSets.podsOf(ds);
    assert.deepEqual(pods.map((p) => p.nodeName).sort(), ['n1', 'n2']);
    for (const p of pods) {
      assert.match(p.name, /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(p.labels['pod-template-generation'], '1');
      assert.ok(p.tolerations.some((t) => t.key === 'node.kubernetes.io/unschedulable' && t.effect === 'NoSchedule'));
    }
    assert.deepEqual(sim.daemonSets.status(ds), { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberMisscheduled: 0, numberReady: 2, numberAvailable: 2, updatedNumberScheduled: 2 });
  });

  it('runs a pod on a node added later and removes it when the node becomes tainted NoExecute', () => {
    const { sim, ds } = setup(['n1']);
    sim.world.addNode(node('n3'));
    sim.engine.run(sim.engine.now + 10_000);
    assert.deepEqual(sim.daemonSets.podsOf(ds).map((p) => p.nodeName).sort(), ['n1', 'n3']);
    const n3 = sim.world.cluster.nodeInfo('n3')!.node;
    sim.world.updateNode({ ...n3, taints: [{ key: 'gone', value: '', effect: 'NoExecute' }] }, 'test');
    sim.engine.run(sim.engine.now + 10_000);
    assert.deepEqual(sim.daemonSets.podsOf(ds).map((p) => p.nodeName), ['n1']);
  });

  // Upstream's updateNode (pkg/controller/daemon): a DaemonSet is synced on a node update only when
  // the node's should-run or should-continue-running answer for it changes.
  it('a node update that changes no should-run answer (updateNode) syncs no DaemonSet; one that does, syncs it', () => {
    const { sim } = setup(['n1', 'n2']);
    let queued = 0;
    const at = sim.engine.at.bind(sim.engine);
    sim.engine.at = (time, type, run) => {
      if (type === 'ds-sync') queued++;
      at(time, type, run);
    };
    const n2 = () => sim.world.cluster.nodeInfo('n2')!.node;
    // A label the DaemonSet does not select on.
    sim.world.updateNode({ ...n2(), labels: { ...n2().labels, team: 'a' } }, 'test');
    assert.equal(queued, 0);
    // A NoExecute taint its pods do not tolerate: they must not continue running there.
    sim.world.updateNode({ ...n2(), taints: [{ key: 'gone', value: '', effect: 'NoExecute' }] }, 'test');
    assert.equal(queued, 1);
  });

  it('once a sync changed nothing, a sync whose only news is pods turning NotReady or Ready reads nothing; a template change after them still rolls out', () => {
    const { sim, ds } = setup(['n1', 'n2', 'n3']);
    let reads = 0;
    const podsOf = sim.daemonSets.podsOf.bind(sim.daemonSets);
    sim.daemonSets.podsOf = (d) => {
      reads++;
      return podsOf(d);
    };
    for (const p of sim.daemonSets.podsOf(ds)) sim.world.markNotReady(p.key, 'test');
    reads = 0;
    sim.engine.run(sim.engine.now + 1_000);
    assert.equal(reads, 0, 'readiness alone: the queued syncs are skipped');
    for (const p of sim.daemonSets.podsOf(ds)) sim.world.markReady(p.key);
    sim.engine.run(sim.engine.now + 1_000);
    assert.equal(reads, 1, 'only the test read the pods');
    sim.daemonSets.setTemplate('default/agent', tmpl('v2'));
    sim.engine.run(sim.engine.now + 120_000);
    assert.ok(reads > 1, 'a template change syncs again');
    assert.deepEqual(sim.daemonSets.status(ds).updatedNumberScheduled, 3);
  });

  /** Counts the nodes syncs work out creations and deletions for. */
  function countNodeLooks(sim: ReturnType<typeof setup>['sim']): { nodes: string[] } {
    const seen = { nodes: [] as string[] };
    const controller = sim.daemonSets as unknown as { nodeActions(ds: unknown, node: string, ...rest: unknown[]): void };
    const nodeActions = controller.nodeActions.bind(controller);
    controller.nodeActions = (ds, node, ...rest) => {
      seen.nodes.push(node);
      nodeActions(ds, node, ...rest);
    };
    return seen;
  }

  it('once a sync changed nothing, a node whose should-run answer or pods changed is looked at alone, and a change there still acts', () => {
    const { sim, ds } = setup(['n1', 'n2', 'n3'], { type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 0 });
    const looks = countNodeLooks(sim);
    const n2 = sim.world.cluster.nodeInfo('n2')!.node;
    // Cordoned: its pod no longer should run there, but continues to.
    sim.world.updateNode({ ...n2, taints: [{ key: 'node.kubernetes.io/unreachable', value: '', effect: 'NoSchedule' }] }, 'test');
    sim.engine.run(sim.engine.now + 1_000);
    assert.deepEqual(looks.nodes, ['n2'], 'a should-run change that leaves the pod running there: n2 alone is read');
    looks.nodes.length = 0;
    const onN3 = sim.daemonSets.podsOf(ds).find((p) => p.nodeName === 'n3')!;
    sim.world.deletePod(onN3.key, 'test');
    sim.engine.run(sim.engine.now + 120_000);
    assert.ok(looks.nodes.length > 0 && looks.nodes.every((n) => n === 'n3'), 'n3 lost its pod: n3 alone is looked at, and its pod replaced');
    assert.deepEqual(sim.daemonSets.podsOf(ds).filter((p) => !p.terminating).map((p) => p.nodeName).sort(), ['n1', 'n2', 'n3']);
  });

  it('a rolling update looks again only at the nodes whose pods changed, not at every node for every replaced pod', () => {
    const names = Array.from({ length: 30 }, (_, i) => `n${i}`);
    const { sim, ds } = setup(names);
    const looks = countNodeLooks(sim);
    sim.daemonSets.setTemplate(ds.key, tmpl('v2'));
    sim.engine.run(sim.engine.now + 3_600_000);
    assert.equal(sim.daemonSets.status(ds).updatedNumberScheduled, 30);
    // The first sync walks all 30; each of the 30 replacements then touches its own node a few times
    // (a walk of every node per sync would be 30 × 30 × 4 or more).
    assert.ok(looks.nodes.length <= 30 + 30 * 6, `${looks.nodes.length} node looks`);
  });

  // The incremental syncs must decide exactly what a walk over every node and pod at every sync decides.
  const strategies: { name: string; strategy?: DaemonSetUpdateStrategy; minReadySeconds?: number }[] = [
    { name: 'maxUnavailable 1' },
    { name: 'maxUnavailable 3', strategy: { type: 'RollingUpdate', maxUnavailable: 3 } },
    { name: 'maxSurge 2', strategy: { type: 'RollingUpdate', maxSurge: 2, maxUnavailable: 0 } },
    { name: 'maxSurge 25% with minReadySeconds 20', strategy: { type: 'RollingUpdate', maxSurge: '25%', maxUnavailable: 0 }, minReadySeconds: 20 },
  ];
  for (const c of strategies) {
    it(`${c.name}: a rollout through taints, lost readiness, deleted pods and a new node gives the event log of a full walk at every sync`, () => {
      const run = (fullWalk: boolean) => {
        const sim = createSimulation(clusterWithNodes(Array.from({ length: 12 }, (_, i) => ({ name: `n${i}`, zone: `z${i % 3}` }))), { seed: 9 });
        if (fullWalk) {
          // Without its views, every sync starts from scratch: the walk over every node.
          const views = (sim.daemonSets as unknown as { views: Map<unknown, unknown> }).views;
          const at = sim.engine.at.bind(sim.engine);
          sim.engine.at = (time, type, act) => at(time, type, type === 'ds-sync' ? () => (views.clear(), act()) : act);
        }
        const ds = sim.daemonSets.add({ namespace: 'default', name: 'agent', uid: 'ds-agent', selector: compileLabelSelector({ matchLabels: { app: 'agent' } }), template: tmpl('v1'), ...(c.strategy ? { updateStrategy: c.strategy } : {}), ...(c.minReadySeconds ? { minReadySeconds: c.minReadySeconds } : {}) });
        sim.engine.run(60_000);
        sim.daemonSets.setTemplate(ds.key, tmpl('v2'));
        const taint = (name: string, effect: 'NoSchedule' | 'NoExecute') => {
          const n = sim.world.cluster.nodeInfo(name)!.node;
          sim.world.updateNode({ ...n, taints: [{ key: 'test', value: '', effect }] }, 'test');
        };
        sim.engine.run(sim.engine.now + 1_000);
        taint('n10', 'NoSchedule');
        sim.engine.run(sim.engine.now + 6_000);
        for (const p of sim.daemonSets.podsOf(ds).slice(0, 4)) sim.world.markNotReady(p.key, 'test');
        sim.engine.run(sim.engine.now + 9_000);
        taint('n7', 'NoExecute');
        const live = sim.daemonSets.podsOf(ds).filter((p) => !p.terminating);
        for (const p of [live[2], live[8]]) if (p) sim.world.deletePod(p.key, 'test');
        sim.engine.run(sim.engine.now + 13_000);
        sim.world.addNode(node('n12'));
        for (const p of sim.daemonSets.podsOf(ds).slice(-3)) sim.world.markReady(p.key);
        sim.engine.run(sim.engine.now + 3_600_000);
        return { log: JSON.stringify(sim.engine.log), status: sim.daemonSets.status(ds) };
      };
      const incremental = run(false);
      const full = run(true);
      assert.equal(incremental.status.updatedNumberScheduled, incremental.status.desiredNumberScheduled);
      assert.ok(incremental.log === full.log, 'the same event log');
    });
  }

  it('does not replace the pod of a deleted node (the pod garbage collector removes it)', () => {
    const { sim, ds } = setup(['n1', 'n2']);
    sim.world.deleteNode('n2', 'test');
    sim.engine.run(sim.engine.now + 120_000);
    assert.deepEqual(sim.daemonSets.podsOf(ds).map((p) => p.nodeName), ['n1']);
    assert.equal(sim.daemonSets.status(ds).desiredNumberScheduled, 1);
  });

  const rollouts: { name: string; strategy?: DaemonSetUpdateStrategy; firstStep: { created: number; deleted: number } }[] = [
    { name: 'maxUnavailable 1 deletes one old pod first', firstStep: { created: 0, deleted: 1 } },
    { name: 'maxSurge 1 creates a new pod beside the old one first', strategy: { type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 0 }, firstStep: { created: 1, deleted: 0 } },
    { name: 'maxSurge 50% of 3 rounds up to 2', strategy: { type: 'RollingUpdate', maxSurge: '50%', maxUnavailable: 0 }, firstStep: { created: 2, deleted: 0 } },
  ];
  for (const c of rollouts) {
    it(c.name, () => {
      const { sim, ds } = setup(['n1', 'n2', 'n3'], c.strategy);
      const t0 = sim.engine.now;
      const before = sim.engine.log.length;
      sim.daemonSets.setTemplate(ds.key, tmpl('v2'));
      sim.engine.run(t0);
      const step = sim.engine.log.slice(before);
      assert.deepEqual({ created: step.filter((r) => r.type === 'PodCreated').length, deleted: step.filter((r) => r.type === 'PodTerminating').length }, c.firstStep);
      sim.engine.run(t0 + 120_000);
      const st = sim.daemonSets.status(ds);
      assert.equal(st.updatedNumberScheduled, 3);
      assert.equal(sim.daemonSets.podsOf(ds).length, 3);
    });
  }

  /** The rollout's creations and deletions, one [created, deleted] pair per instant something happened. */
  function rolloutSteps(names: string[], strategy: DaemonSetUpdateStrategy): [number, number][] {
    const { sim, ds } = setup(names, strategy);
    const before = sim.engine.log.length;
    sim.daemonSets.setTemplate(ds.key, tmpl('v2'));
    sim.engine.run(sim.engine.now + 300_000);
    const steps = new Map<number, [number, number]>();
    for (const r of sim.engine.log.slice(before)) {
      if (r.type !== 'PodCreated' && r.type !== 'PodTerminating') continue;
      const s = steps.get(r.t) ?? [0, 0];
      s[r.type === 'PodCreated' ? 0 : 1]++;
      steps.set(r.t, s);
    }
    return [...steps.values()];
  }
  it('upstream TestDaemonSetUpdatesPods (kube-controller-manager update_test.go): maxUnavailable 2 over 5 nodes deletes 2, creates 2, deletes 2, creates 2, deletes 1, creates 1', () => {
    const steps = rolloutSteps(['n1', 'n2', 'n3', 'n4', 'n5'], { type: 'RollingUpdate', maxUnavailable: 2 });
    assert.deepEqual(steps, [[0, 2], [2, 0], [0, 2], [2, 0], [0, 1], [1, 0]]);
  });
  it('upstream TestDaemonSetUpdatesPodsWithMaxSurge: maxSurge 2 over 5 nodes creates 2; then, as they are ready, creates 2 and deletes the 2 they replace; then 1 and 2; then deletes the last 1', () => {
    const steps = rolloutSteps(['n1', 'n2', 'n3', 'n4', 'n5'], { type: 'RollingUpdate', maxSurge: 2, maxUnavailable: 0 });
    assert.deepEqual(steps, [[2, 0], [2, 2], [1, 2], [0, 1]]);
  });
});
