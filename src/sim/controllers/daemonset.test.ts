import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodTemplateManifest } from '../../model/manifest.js';
import type { Pod } from '../../model/pod.js';
import { compileLabelSelector } from '../../model/selector.js';
import { createSimulation } from '../simulation.js';
import { clusterWithNodes, node } from '../fixtures.test-support.js';
import type { DaemonSetUpdateStrategy } from './daemonset.js';

const NEVER_MS = 1e12;
const tmpl = (image: string): PodTemplateManifest => ({
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ name: 'c', image, resources: { requests: { cpu: '10m' } } }], terminationGracePeriodSeconds: 5 },
});

/** A DaemonSet on `names`; pods of the `neverReady` images run but never turn Ready (the upstream tests' pods a test did not mark ready). */
function setup(names: string[], updateStrategy?: DaemonSetUpdateStrategy, neverReady: readonly string[] = []) {
  const timingFor = (p: Pod) => (p.images.some((i) => neverReady.includes(i)) ? { readyDelayMs: NEVER_MS } : undefined);
  const sim = createSimulation(clusterWithNodes(names.map((name) => ({ name }))), { seed: 4, pods: { timingFor } });
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
    return stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v2')));
  }
  /** The creations and deletions `change` leads to within `horizonMs`, one [created, deleted] pair per instant something happened. */
  function stepsAfter(sim: ReturnType<typeof setup>['sim'], change: () => void, horizonMs = 300_000): [number, number][] {
    const before = sim.engine.log.length;
    change();
    sim.engine.run(sim.engine.now + horizonMs);
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

  // The rest of upstream's update_test.go. Upstream calls the sync by hand and its
  // fake pods turn Ready only when the test marks them; here the controller syncs
  // on every event, so each of upstream's syncs is an instant of the event log, and
  // pods upstream never marks ready run an image that never turns Ready.
  const five = ['n1', 'n2', 'n3', 'n4', 'n5'];
  const unavailable = (n: number | string): DaemonSetUpdateStrategy => ({ type: 'RollingUpdate', maxUnavailable: n });
  const readyPods = (sim: ReturnType<typeof setup>['sim'], ds: ReturnType<typeof setup>['ds']) =>
    new Set(sim.daemonSets.podsOf(ds).filter((p) => sim.world.isReady(p.key)).map((p) => p.name));

  it('upstream TestDaemonSetUpdatesWhenNewPodIsNotReady: maxUnavailable 3 over 5 nodes deletes 3 and creates 3; the new pods never turn ready, so nothing more', () => {
    const { sim, ds } = setup(five, unavailable(3), ['v2']);
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v2'))), [[0, 3], [3, 0]]);
    assert.deepEqual(sim.daemonSets.status(ds).updatedNumberScheduled, 3);
    assert.equal(readyPods(sim, ds).size, 2);
  });

  it('upstream TestDaemonSetUpdatesSomeOldPodsNotReady: maxUnavailable 2 replaces 2; a second update replaces the same 2 (unavailable) and leaves the 3 ready old pods', () => {
    const { sim, ds } = setup(five, unavailable(2), ['v2', 'v3']);
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v2'))), [[0, 2], [2, 0]]);
    const oldReady = readyPods(sim, ds);
    assert.equal(oldReady.size, 3);
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v3'))), [[0, 2], [2, 0]]);
    assert.deepEqual(readyPods(sim, ds), oldReady, 'the 3 ready old pods are untouched');
  });

  it('upstream TestDaemonSetUpdatesSaveOldHealthyPods: over 20 nodes, 10 unavailable pods are replaced at every update whatever maxUnavailable below 10 says, and the 10 ready old pods never; maxUnavailable 11 takes one of them', () => {
    const names = Array.from({ length: 20 }, (_, i) => `n${i}`);
    const images = ['v2', ...Array.from({ length: 10 }, (_, i) => `v3-${i}`), 'v4'];
    const { sim, ds } = setup(names, unavailable(10), images);
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v2'))), [[0, 10], [10, 0]]);
    const oldReady = readyPods(sim, ds);
    assert.equal(oldReady.size, 10);
    // Upstream draws maxUnavailable at random below 10; here every value once.
    for (const [i, maxUnavailable] of [3, 7, 0, 9, 1, 5, 8, 2, 6, 4].entries()) {
      const steps = stepsAfter(sim, () => {
        sim.daemonSets.setUpdateStrategy(ds.key, unavailable(maxUnavailable));
        sim.daemonSets.setTemplate(ds.key, tmpl(`v3-${i}`));
      });
      assert.deepEqual(steps, [[0, 10], [10, 0]], `maxUnavailable ${maxUnavailable}`);
      assert.deepEqual(readyPods(sim, ds), oldReady, `maxUnavailable ${maxUnavailable}: the ready old pods are untouched`);
    }
    const steps = stepsAfter(sim, () => {
      sim.daemonSets.setUpdateStrategy(ds.key, unavailable(11));
      sim.daemonSets.setTemplate(ds.key, tmpl('v4'));
    });
    assert.deepEqual(steps, [[0, 11], [11, 0]]);
    assert.equal(readyPods(sim, ds).size, 9);
  });

  it('upstream TestDaemonSetUpdatesAllOldNotReadyPodsAndNewNotReadyPods: 100 nodes roll out 10 at a time; then with 2 unavailable and 10 available old pods and 88 unavailable new ones, maxUnavailable 10 replaces just the 2', () => {
    const names = Array.from({ length: 100 }, (_, i) => `n${String(i).padStart(3, '0')}`);
    const { sim, ds } = setup(names, unavailable(10));
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v2'))), Array.from({ length: 10 }, () => [[0, 10], [10, 0]]).flat());
    // Upstream relabels 12 pods to the old hash; here 88 pods are replaced by a newer template under OnDelete.
    sim.daemonSets.setUpdateStrategy(ds.key, { type: 'OnDelete' });
    sim.daemonSets.setTemplate(ds.key, tmpl('v3'));
    for (const p of sim.daemonSets.podsOf(ds).slice(12)) sim.world.deletePod(p.key, 'test');
    sim.engine.run(sim.engine.now + 60_000);
    const pods = sim.daemonSets.podsOf(ds);
    const old = pods.filter((p) => p.images.includes('v2'));
    assert.equal(old.length, 12);
    for (const p of [...pods.filter((q) => q.images.includes('v3')), ...old.slice(10)]) sim.world.markNotReady(p.key, 'test');
    const oldUnavailable = old.slice(10).map((p) => p.name);
    const steps = stepsAfter(sim, () => sim.daemonSets.setUpdateStrategy(ds.key, unavailable(10)));
    assert.deepEqual(steps, [[0, 2], [2, 0]]);
    const names2 = new Set(sim.daemonSets.podsOf(ds).map((p) => p.name));
    assert.ok(oldUnavailable.every((n) => !names2.has(n)), 'the 2 unavailable old pods were replaced');
    assert.equal(sim.daemonSets.podsOf(ds).filter((p) => p.images.includes('v2')).length, 10);
  });

  it('upstream TestDaemonSetUpdatesAllOldPodsNotReady: with every old pod unavailable, maxUnavailable 3 still replaces all 5', () => {
    const { sim, ds } = setup(five, unavailable(3));
    for (const p of sim.daemonSets.podsOf(ds)) sim.world.markNotReady(p.key, 'test');
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v2'))), [[0, 5], [5, 0]]);
  });

  it('upstream TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge: unavailable old pods are replaced beyond maxSurge; with minReadySeconds 15 an old pod goes only once its new one has been ready 15 s', () => {
    const surge = (n: number): DaemonSetUpdateStrategy => ({ type: 'RollingUpdate', maxSurge: n, maxUnavailable: 0 });
    const { sim, ds } = setup(five, surge(3), ['v3']);
    for (const p of sim.daemonSets.podsOf(ds)) sim.world.markNotReady(p.key, 'test');
    // Upstream's first two syncs: 5 new pods (every old one is unavailable), then the 5 old pods beside them.
    // The controller here syncs again as the new pods appear, in the same instant.
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setTemplate(ds.key, tmpl('v2')), 60_000), [[5, 5]]);
    // Every pod ready (v2 pods turn Ready by themselves); minReadySeconds 15 and a new template: 3 surge pods.
    assert.deepEqual(stepsAfter(sim, () => {
      sim.daemonSets.setUpdateStrategy(ds.key, surge(3), 15);
      sim.daemonSets.setTemplate(ds.key, tmpl('v3'));
    }, 5_000), [[3, 0]]);
    const surged = sim.daemonSets.podsOf(ds).filter((p) => p.images.includes('v3'));
    const alone = sim.daemonSets.podsOf(ds).find((p) => !surged.some((q) => q.nodeName === p.nodeName))!;
    const before = sim.engine.log.length;
    // Two surge pods turn ready, and an old pod on a node without a new one turns unready: that node gets a new pod
    // at once (upstream's sync at 310) and, as it appears, its old pod goes (upstream's sync at 320, which also makes
    // the next two moves); once the two are available (ready 15 s), their old pods go and the freed surge slot makes
    // the last node's new pod.
    const steps = stepsAfter(sim, () => {
      for (const p of surged.slice(0, 2)) sim.world.markReady(p.key);
      sim.world.markNotReady(alone.key, 'test');
    }, 20_000);
    assert.deepEqual(steps, [[1, 1], [1, 2]]);
    const created = sim.engine.log.slice(before).filter((r) => r.type === 'PodCreated');
    assert.equal(created[1]!.t - created[0]!.t, 15_001, 'available strictly after 15 s ready');
    assert.equal(sim.world.cluster.getPod(String(created[0]!['pod']))?.nodeName, alone.nodeName);
    // Every new pod ready: 15 s later the last 2 old pods go; then the rollout is done.
    const waiting = sim.daemonSets.podsOf(ds).filter((p) => p.images.includes('v3') && !sim.world.isReady(p.key));
    assert.deepEqual(stepsAfter(sim, () => waiting.forEach((p) => sim.world.markReady(p.key)), 60_000), [[0, 2]]);
    assert.equal(sim.daemonSets.status(ds).updatedNumberScheduled, 5);
    assert.equal(sim.daemonSets.podsOf(ds).length, 5);
  });

  it('upstream TestDaemonSetUpdatesNoTemplateChanged: a strategy change alone replaces nothing', () => {
    const { sim, ds } = setup(five);
    assert.deepEqual(stepsAfter(sim, () => sim.daemonSets.setUpdateStrategy(ds.key, unavailable(3))), []);
  });

  // upstream TestGetUnavailableNumbers (updatedDesiredNodeCounts): maxSurge and maxUnavailable scaled on the nodes
  // that should run a pod, percentages rounded up, and maxUnavailable 1 when both come out 0. Upstream's cases also
  // hand in pods per node, which enter none of the three numbers (only the map it fills in for nodes without pods).
  const surgeOf = (n: number | string): DaemonSetUpdateStrategy => ({ type: 'RollingUpdate', maxUnavailable: 0, maxSurge: n });
  const unavailableNumbers: { name: string; nodes: number; strategy: DaemonSetUpdateStrategy; maxSurge: number; maxUnavailable: number; desired: number }[] = [
    { name: 'No nodes', nodes: 0, strategy: unavailable(0), maxSurge: 0, maxUnavailable: 0, desired: 0 },
    { name: 'Two nodes with ready pods', nodes: 2, strategy: unavailable(1), maxSurge: 0, maxUnavailable: 1, desired: 2 },
    { name: 'Two nodes, one node without pods', nodes: 2, strategy: unavailable(0), maxSurge: 0, maxUnavailable: 1, desired: 2 },
    { name: 'Two nodes, one node without pods, surge', nodes: 2, strategy: surgeOf(0), maxSurge: 0, maxUnavailable: 1, desired: 2 },
    { name: 'Two nodes with pods, MaxUnavailable in percents', nodes: 2, strategy: unavailable('50%'), maxSurge: 0, maxUnavailable: 1, desired: 2 },
    { name: 'Two nodes with pods, MaxUnavailable in percents, surge', nodes: 2, strategy: surgeOf('50%'), maxSurge: 1, maxUnavailable: 0, desired: 2 },
    { name: 'Two nodes with pods, MaxUnavailable is 100%, surge', nodes: 2, strategy: surgeOf('100%'), maxSurge: 2, maxUnavailable: 0, desired: 2 },
    { name: 'Two nodes with pods, MaxUnavailable in percents, pod terminating', nodes: 3, strategy: unavailable('50%'), maxSurge: 0, maxUnavailable: 2, desired: 3 },
  ];
  for (const c of unavailableNumbers) {
    it(`upstream TestGetUnavailableNumbers: ${c.name}`, () => {
      const { sim, ds } = setup(Array.from({ length: c.nodes }, (_, i) => `node-${i}`), c.strategy);
      const desired = sim.daemonSets.status(ds).desiredNumberScheduled;
      const controller = sim.daemonSets as unknown as { surgeAndUnavailable(d: typeof ds, desired: number): { maxSurge: number; maxUnavailable: number } };
      assert.deepEqual({ ...controller.surgeAndUnavailable(ds, desired), desired }, { maxSurge: c.maxSurge, maxUnavailable: c.maxUnavailable, desired: c.desired });
    });
  }
});
