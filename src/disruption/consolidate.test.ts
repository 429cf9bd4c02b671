import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterState } from '../cluster/state.js';
import { compileNode } from '../model/node.js';
import { compileNodePool, type NodePoolManifest } from '../model/nodepool.js';
import { compilePod, type Pod } from '../model/pod.js';
import { consolidate, simulateRemoval } from './consolidate.js';
import { findCandidates, type CandidateInput } from './candidates.js';
import { compilePdb } from '../model/pdb.js';
import { remainingDisruptions } from './budgets.js';

let order = 0;
function pool(budgetNodes = '100%'): ReturnType<typeof compileNodePool> {
  const m: NodePoolManifest = {
    metadata: { name: 'default' },
    spec: {
      template: { spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'Exists' }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
      disruption: { budgets: [{ nodes: budgetNodes }] },
    },
  };
  return compileNodePool(m);
}
function node(name: string, annotations: Record<string, string> = {}, labels: Record<string, string> = { 'karpenter.sh/capacity-type': 'on-demand' }) {
  return compileNode({ metadata: { name, annotations, labels: { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': 'a', ...labels } }, status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } } }, order++);
}
function pod(name: string, nodeName: string, opts: { anti?: boolean; annotations?: Record<string, string> } = {}): Pod {
  const affinity = opts.anti ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'kubernetes.io/hostname' }] } } : undefined;
  return compilePod({ metadata: { name, namespace: 'default', labels: { app: 'x' }, annotations: opts.annotations ?? {} }, spec: { nodeName, affinity, containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } }, { order: order++ });
}
function cluster(nodes: ReturnType<typeof node>[], pods: Pod[]): ClusterState {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod(p);
  return c;
}
const price = () => 1;

describe('candidates', () => {
  const cases = [
    { name: 'node annotation blocks', nodes: [node('n1', { 'karpenter.sh/do-not-disrupt': 'true' })], pods: [], want: /annotation/ },
    { name: 'pod annotation blocks', nodes: [node('n1')], pods: [pod('p', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })], want: /^Pod has "karpenter.sh\/do-not-disrupt" annotation \(Pod=default\/p\)$/ },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const r = findCandidates({ cluster: cluster(tc.nodes, tc.pods), pools: [pool()], nowMs: 1e12 });
      assert.equal(r.candidates.length, 0);
      assert.match(r.rejected[0]!.reason, tc.want);
    });
  }
});

describe('candidates of some nodes only', () => {
  it('looks at the named nodes alone, each as the whole look finds it', () => {
    const c = cluster([node('n1'), node('n2', { 'karpenter.sh/do-not-disrupt': 'true' }), node('n3')], [pod('p1', 'n1'), pod('p3', 'n3')]);
    const input: CandidateInput = { cluster: c, pools: [pool()], nowMs: 1e12 };
    const all = findCandidates(input);
    const some = findCandidates({ ...input, only: new Set(['n2', 'n3']) });
    assert.deepEqual(some.candidates, all.candidates.filter((x) => x.node.name === 'n3'));
    assert.deepEqual(some.rejected, all.rejected.filter((r) => r.node === 'n2'));
    assert.equal(all.candidates.length, 2);
  });
});

describe('candidates (upstream disruption/suite_test.go)', () => {
  const NOW = 1e12;
  type PodOpts = { annotations?: Record<string, string>; owner?: string; terminating?: boolean; phase?: string; startTime?: number; labels?: Record<string, string> };
  const podOn = (name: string, o: PodOpts = {}): Pod => {
    const p = compilePod({ metadata: { name, namespace: 'default', labels: o.labels ?? { app: 'x' }, annotations: o.annotations ?? {}, ...(o.owner && { ownerReferences: [{ apiVersion: 'apps/v1', kind: o.owner, name: 'o', uid: 'o', controller: true }] }), ...(o.terminating && { deletionTimestamp: '2026-01-01T00:00:00Z' }) }, spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] }, ...(o.phase && { status: { phase: o.phase } }) }, { order: order++ });
    return o.startTime === undefined ? p : { ...p, startTime: o.startTime };
  };
  const pdb = (name: string, maxUnavailable: number | string) => compilePdb({ metadata: { name, namespace: 'default' }, spec: { maxUnavailable, selector: { matchLabels: { app: 'x' } } } });
  const candidates = (pods: Pod[], o: { pdbs?: ReturnType<typeof pdb>[]; tgp?: boolean; eventual?: boolean } = {}) => {
    const c = cluster([node('n1')], pods);
    c.pdbs = o.pdbs ?? [];
    const p = o.tgp ? compileNodePool({ metadata: { name: 'default' }, spec: { template: { spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, terminationGracePeriod: '1h' } } } }) : pool();
    const input: CandidateInput = { cluster: c, pools: [p], nowMs: NOW, ...(o.eventual && { terminationGracePeriodOverridesPods: true }) };
    return findCandidates(input);
  };
  const dnd = { 'karpenter.sh/do-not-disrupt': 'true' };
  const cases: [string, () => ReturnType<typeof candidates>, boolean][] = [
    ['should not consider candidates that have do-not-disrupt pods scheduled and no terminationGracePeriod', () => candidates([podOn('p', { annotations: dnd })]), false],
    ['should not consider candidates that have do-not-disrupt daemonset pods scheduled', () => candidates([podOn('p', { annotations: dnd, owner: 'DaemonSet' })]), false],
    ['should consider candidates that have do-not-disrupt pods scheduled with a terminationGracePeriod set for eventual disruption', () => candidates([podOn('p', { annotations: dnd })], { tgp: true, eventual: true }), true],
    ['should consider candidates that have PDB-blocked pods scheduled with a terminationGracePeriod set for eventual disruption', () => candidates([podOn('p')], { pdbs: [pdb('web', 0)], tgp: true, eventual: true }), true],
    ['should not consider candidates that have do-not-disrupt pods scheduled with a terminationGracePeriod set for graceful disruption', () => candidates([podOn('p', { annotations: dnd })], { tgp: true }), false],
    ['should not consider candidates that have do-not-disrupt pods scheduled without a terminationGracePeriod set for eventual disruption', () => candidates([podOn('p', { annotations: dnd })], { eventual: true }), false],
    ['should consider candidates that have do-not-disrupt terminating pods', () => candidates([podOn('p', { annotations: dnd, terminating: true })]), true],
    ['should consider candidates that have do-not-disrupt terminal pods', () => candidates([podOn('p', { annotations: dnd, phase: 'Succeeded' })]), true],
    ['should not consider candidates that have multiple PDBs on the same pod', () => candidates([podOn('p')], { pdbs: [pdb('a', 1), pdb('b', 1)] }), false],
    ['should not consider candidates that have fully blocking PDBs', () => candidates([podOn('p')], { pdbs: [pdb('web', 0)] }), false],
    ['should not consider candidates that have fully blocking PDBs on daemonset pods', () => candidates([podOn('p', { owner: 'DaemonSet' })], { pdbs: [pdb('web', 0)] }), false],
    ['should consider candidates that have fully blocking PDBs on mirror pods', () => candidates([podOn('p', { owner: 'Node' })], { pdbs: [pdb('web', 0)] }), true],
    ['should consider candidates that have fully blocking PDBs on terminal pods', () => candidates([podOn('p', { phase: 'Failed' })], { pdbs: [pdb('web', 0)] }), true],
    ['should consider candidates that have fully blocking PDBs on terminating pods', () => candidates([podOn('p', { terminating: true })], { pdbs: [pdb('web', 0)] }), true],
    ['should not drift nodes with pods that have a duration-based do-not-disrupt annotation that is still active', () => candidates([podOn('p', { annotations: { 'karpenter.sh/do-not-disrupt': '1h' }, startTime: NOW - 60_000 })]), false],
    ['should drift nodes with pods that have an invalid do-not-disrupt annotation format', () => candidates([podOn('p', { annotations: { 'karpenter.sh/do-not-disrupt': 'invalid' } })]), true],
  ];
  for (const [name, run, candidate] of cases) {
    it(`upstream: "${name}"`, () => assert.equal(run().candidates.length, candidate ? 1 : 0, JSON.stringify(run().rejected)));
  }
  it('a duration-valued do-not-disrupt stops protecting the pod once it has run that long; an unknown start time protects it', () => {
    const ann = { 'karpenter.sh/do-not-disrupt': '2m' };
    assert.equal(candidates([podOn('p', { annotations: ann, startTime: NOW - 121_000 })]).candidates.length, 1);
    assert.equal(candidates([podOn('p', { annotations: ann })]).candidates.length, 0);
  });
  it('a PDB whose selector has a legacy label value (in any namespace) stops every disruption, with no event: Karpenter cannot build its PDB limits', () => {
    const legacy = compilePdb({ metadata: { name: 'old', namespace: 'other' }, spec: { maxUnavailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['bad value!'] }] } } });
    assert.equal(legacy.selector.matches({ app: 'x' }), false);
    const r = candidates([podOn('p')], { pdbs: [legacy] });
    assert.equal(r.candidates.length, 0);
    assert.equal(r.rejected[0]?.event, undefined);
    assert.match(r.rejected[0]!.reason, /^tracking PodDisruptionBudgets, values\[0\]\[app\]: Invalid value: "bad value!": .* \(PodDisruptionBudget=other\/old\)$/);
  });
  it('rejections name the PDBs as Karpenter\'s DisruptionBlocked events do', () => {
    assert.equal(candidates([podOn('p')], { pdbs: [pdb('web', 0)] }).rejected[0]?.reason, 'Pdb prevents pod evictions (PodDisruptionBudget=[default/web])');
    assert.equal(candidates([podOn('p')], { pdbs: [pdb('a', 1), pdb('b', 1)] }).rejected[0]?.reason, 'Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[default/a default/b])');
  });
  it('a terminating StatefulSet pod still needs a place; another terminating pod does not', () => {
    const [sts] = candidates([podOn('s', { owner: 'StatefulSet', terminating: true })]).candidates;
    const [rs] = candidates([podOn('r', { owner: 'ReplicaSet', terminating: true })]).candidates;
    assert.deepEqual([sts?.reschedulable.length, rs?.reschedulable.length], [1, 0]);
  });
});

describe('budgets', () => {
  it('a count budget of 1 allows one disruption, none while one is in progress', () => {
    const c = cluster([node('a'), node('b'), node('c')], []);
    assert.equal(remainingDisruptions({ cluster: c, pools: [pool('1')], nowMs: 0 }, 'Empty').get('default'), 1);
    assert.equal(remainingDisruptions({ cluster: c, pools: [pool('1')], nowMs: 0, disrupting: new Set(['a']) }, 'Empty').get('default'), 0);
  });
  it('a NotReady node counts toward the total and spends a disruption, as one being disrupted does', () => {
    const c = cluster([node('a'), node('b'), node('c'), node('d')], []);
    assert.equal(remainingDisruptions({ cluster: c, pools: [pool('50%')], nowMs: 0, notReady: new Set(['a']) }, 'Empty').get('default'), 1);
    assert.equal(remainingDisruptions({ cluster: c, pools: [pool('50%')], nowMs: 0, notReady: new Set(['a']), disrupting: new Set(['b']) }, 'Empty').get('default'), 0);
  });
  it('emptiness deletes only as many empty nodes as the budget allows', () => {
    const c = cluster([node('a'), node('b'), node('c')], []);
    const r = consolidate({ cluster: c, pools: [pool('2')], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions.map((d) => [d.reason, d.nodes.length]), [['Empty', 2]]);
  });
});

describe('consolidation', () => {
  it('upstream: "should consider candidates that do not have the karpenter.sh/capacity-type label" (suite_test.go): a candidate, but Unconsolidatable', () => {
    const c = cluster([node('a', {}, {}), node('b')], [pod('p1', 'a'), pod('p2', 'b')]);
    const input = { cluster: c, pools: [pool()], nowMs: 1e12, pricePerHour: price };
    assert.equal(findCandidates(input).candidates.length, 2);
    const r = consolidate(input);
    assert.deepEqual(r.rejected.find((x) => x.node === 'a'), { node: 'a', reason: 'Node does not have label "karpenter.sh/capacity-type"', event: 'Unconsolidatable' });
    assert.ok(r.decisions.every((d) => !d.nodes.includes('a')));
  });
  it('an empty node without the capacity-type label is still deleted by emptiness', () => {
    const r = consolidate({ cluster: cluster([node('a', {}, {})], []), pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions.map((d) => [d.reason, d.nodes]), [['Empty', ['a']]]);
  });
  it('a node whose pods all have a negative eviction cost is empty (v1.14 IsEmpty)', () => {
    const cheap = pod('p', 'a', { annotations: { 'controller.kubernetes.io/pod-deletion-cost': String(-(2 ** 28)) } });
    const r = consolidate({ cluster: cluster([node('a'), node('b')], [cheap, pod('q', 'b')]), pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions.map((d) => [d.reason, d.nodes]), [['Empty', ['a']]]);
  });
  it('moves pods off underutilized nodes (multi-node delete), predicting targets', () => {
    const c = cluster([node('a'), node('b'), node('c')], [pod('p1', 'a'), pod('p2', 'b'), pod('p3', 'c')]);
    const r = consolidate({ cluster: c, pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.equal(r.decisions.length, 1);
    assert.equal(r.decisions[0]!.nodes.length, 2);
    assert.equal(r.decisions[0]!.displacedPods.length, 2);
    assert.equal(r.decisions[0]!.savingsPerHour, 2);
  });
  it('multi-node batches reach one past the bound, as upstream\'s binary search counts it from the second candidate (multinodeconsolidation.go: 101 of more than 100)', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const c = cluster(names.map((n) => node(n)), names.map((n) => pod(`p-${n}`, n)));
    const r = consolidate({ cluster: c, pools: [pool()], nowMs: 1e12, pricePerHour: price, maxMultiNodeCandidates: 3 });
    assert.deepEqual(r.decisions.map((d) => d.nodes), [['a', 'b', 'c', 'd']]);
  });
  it('a running legacy pod whose spread selector upstream cannot parse moves as Karpenter reads it (the selector matches nothing), not as kube-scheduler fails it', () => {
    const legacy = compilePod(
      {
        metadata: { name: 'p1', namespace: 'default', labels: { app: 'x' } },
        spec: {
          nodeName: 'a',
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['bad value!'] }] } }],
          containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
        },
      },
      { order: order++ },
    );
    assert.ok(legacy.topologySpreadConstraints[0]!.selectorError, 'kube-scheduler cannot parse the selector');
    const c = cluster([node('a'), node('b'), node('c')], [legacy, pod('p2', 'b'), pod('p3', 'c')]);
    const r = consolidate({ cluster: c, pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions.map((d) => d.nodes), [['a', 'b']]);
    assert.ok(r.decisions[0]!.displacedPods.some((p) => p.pod === 'default/p1'));
  });
  it("a running legacy pod whose anti-affinity selector upstream cannot parse moves as Karpenter reads it (that term selects nothing; Karpenter's NewTopologyGroup), not as InterPodAffinity's PreFilter fails it", () => {
    const legacy = (name: string, kind: 'podAffinity' | 'podAntiAffinity') =>
      compilePod(
        {
          metadata: { name, namespace: 'default', labels: { app: 'x' } },
          spec: {
            nodeName: 'a',
            affinity: { [kind]: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['bad value!'] }] } }] } },
            containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
          },
        },
        { order: order++ },
      );
    const anti = legacy('p1', 'podAntiAffinity');
    assert.ok(anti.affinityParseError, 'kube-scheduler cannot parse the selector');
    const r = consolidate({ cluster: cluster([node('a'), node('b'), node('c')], [anti, pod('p2', 'b'), pod('p3', 'c')]), pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions.map((d) => d.nodes), [['a', 'b']]);
    assert.ok(r.decisions[0]!.displacedPods.some((p) => p.pod === 'default/p1'));
    // Required affinity to a selector matching nothing: no node takes the pod, for Karpenter as for kube-scheduler, so its node stays.
    const affine = legacy('p1', 'podAffinity');
    const stays = consolidate({ cluster: cluster([node('a'), node('b'), node('c')], [affine, pod('p2', 'b'), pod('p3', 'c')]), pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.ok(stays.decisions.every((d) => !d.nodes.includes('a')), JSON.stringify(stays.decisions.map((d) => d.nodes)));
  });
  it('never breaks required anti-affinity', () => {
    const c = cluster([node('a'), node('b')], [pod('p1', 'a', { anti: true }), pod('p2', 'b', { anti: true })]);
    const r = consolidate({ cluster: c, pools: [pool()], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions, []);
  });
  it('WhenEmpty leaves underutilized nodes alone', () => {
    const p = pool();
    const whenEmpty = { ...p, disruption: { ...p.disruption, consolidationPolicy: 'WhenEmpty' as const } };
    const c = cluster([node('a'), node('b')], [pod('p1', 'a'), pod('p2', 'b')]);
    assert.deepEqual(consolidate({ cluster: c, pools: [whenEmpty], nowMs: 1e12, pricePerHour: price }).decisions, []);
  });
});

describe('destinations inside their consolidateAfter window (v1.14.1 IsUnderConsolidateAfter in the consolidation simulation)', () => {
  const poolNamed = (name: string, consolidateAfter: string) => compileNodePool({
    metadata: { name },
    spec: {
      template: { spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'Exists' }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
      disruption: { consolidateAfter, budgets: [{ nodes: '100%' }] },
    },
  });
  const MIN = 60_000;
  it('upstream: "should not consolidate pods onto a destination node that is under its consolidateAfter window" (consolidation_test.go)', () => {
    // n1 has been quiet for 2m; a pod event 30s ago keeps n0 inside its 1m window.
    const c = cluster([node('n0'), node('n1')], [pod('p0', 'n0'), pod('p1', 'n0'), pod('p2', 'n1')]);
    const input = { cluster: c, pools: [poolNamed('default', '1m')], pricePerHour: price, lastPodEventMs: new Map([['n0', 10 * MIN - MIN / 2], ['n1', 8 * MIN]]) };
    const now = consolidate({ ...input, nowMs: 10 * MIN });
    assert.deepEqual(now.decisions, []);
    assert.match(now.rejected.find((r) => r.node === 'n1')!.reason, /^Not all pods would schedule, default\/p2 => 0\/1 nodes are available: 1 node\(s\) had untolerated taint/);
    // The scratch taint that marks the window is berth's own: the user never sees its key.
    assert.doesNotMatch(now.rejected.find((r) => r.node === 'n1')!.reason, /simulation\.berth\.dev/);
    const later = consolidate({ ...input, nowMs: 12 * MIN });
    assert.deepEqual(later.decisions.map((d) => [d.kind, d.nodes, d.displacedPods]), [['delete', ['n1'], [{ pod: 'default/p2', node: 'n0' }]]]);
  });
  it('upstream: "should consolidate pods onto a destination node with consolidateAfter set to Never" (consolidation_test.go)', () => {
    const dest = node('dest', {}, { 'karpenter.sh/capacity-type': 'on-demand', 'karpenter.sh/nodepool': 'never' });
    const c = cluster([node('n0'), dest], [pod('p0', 'n0'), pod('q', 'dest')]);
    const r = consolidate({ cluster: c, pools: [poolNamed('default', '0s'), poolNamed('never', 'Never')], nowMs: 1e12, pricePerHour: price });
    assert.deepEqual(r.decisions.map((d) => [d.nodes, d.displacedPods]), [[['n0'], [{ pod: 'default/p0', node: 'dest' }]]]);
  });
  it('drift is not consolidation: it moves pods onto a node inside its window', () => {
    const c = cluster([node('n0'), node('n1')], [pod('p0', 'n0')]);
    const input = { cluster: c, pools: [poolNamed('default', '1h')], nowMs: MIN, pricePerHour: price };
    const [cand] = findCandidates(input).candidates.filter((x) => x.node.name === 'n0');
    assert.deepEqual(simulateRemoval(input, [cand!])?.moves, [{ pod: 'default/p0', node: 'n1' }]);
    assert.equal(simulateRemoval(input, [cand!], true), null);
  });
});

