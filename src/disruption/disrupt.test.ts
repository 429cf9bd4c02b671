import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { catalogPrices } from './pricing.js';
import { consolidate, consolidationCandidates, MIN_SPOT_TO_SPOT_OPTIONS, notAllPodsWouldSchedule, type ConsolidationInput } from './consolidate.js';
import { drift, expiry, nextDisruption } from './disrupt.js';
import { driftReason, hashAnnotations, NODEPOOL_HASH_ANNOTATION, NODEPOOL_HASH_VERSION_ANNOTATION } from './drift.js';
import { boundPod, CATALOG, catalogNode, clusterOf, nodePool } from './fixtures.test-support.js';
import type { ClusterState } from '../cluster/state.js';
import type { NodePool } from '../model/nodepool.js';
import { compilePod } from '../model/pod.js';
import { compileNodePool } from '../model/nodepool.js';

const price = catalogPrices(CATALOG);
const HOUR = 3_600_000;

function input(cluster: ClusterState, pool: NodePool, o: Partial<ConsolidationInput> & { spotToSpot?: boolean } = {}): ConsolidationInput {
  return { cluster, pools: [pool], nowMs: HOUR, pricePerHour: price, replacement: { instanceTypes: CATALOG, spotToSpot: o.spotToSpot ?? false }, ...o };
}

describe('removal simulation: existing nodes in Karpenter order', () => {
  it('a displaced pod goes to an initialized node before one not initialized yet, whatever their names', () => {
    const pool = nodePool();
    const nodes = [catalogNode('a-launching', pool, 'm5.xlarge'), catalogNode('b-ready', pool, 'm5.xlarge', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }), catalogNode('c-candidate', pool, 'm5.xlarge')];
    const c = clusterOf(nodes, [boundPod('filler-a', 'a-launching', '100m'), boundPod('filler-b', 'b-ready', '100m'), boundPod('moving', 'c-candidate', '500m')]);
    const o = { uninitialized: new Set(['a-launching']), initializing: new Set(['a-launching']) };
    const [d] = consolidate(input(c, pool, o)).decisions;
    assert.deepEqual(d?.displacedPods, [{ pod: 'default/moving', node: 'b-ready' }]);
  });
});

describe('single-node replace', () => {
  it('replaces an oversized node by the cheapest type that fits its pods', () => {
    const pool = nodePool();
    const c = clusterOf([catalogNode('big', pool, 'm5.4xlarge')], [boundPod('p', 'big', '500m')]);
    const [d] = consolidate(input(c, pool)).decisions;
    assert.equal(d?.kind, 'replace');
    const r = d!.replacements[0]!;
    assert.ok(r.pricePerHour < 0.768, `replacement ${r.instanceType} at ${r.pricePerHour}`);
    assert.equal(r.instanceType, r.instanceTypeOptions[0]);
    assert.equal(r.capacityType, 'on-demand');
    assert.equal(d!.savingsPerHour, Math.round((0.768 - r.pricePerHour) * 1e6) / 1e6);
    assert.deepEqual(d!.displacedPods, [{ pod: 'default/p', node: '<replacement>' }]);
  });
  it('does not replace when no type is strictly cheaper', () => {
    const pool = nodePool();
    const c = clusterOf([catalogNode('n', pool, 't3.medium')], [boundPod('p', 'n', '1800m')]);
    const r = consolidate(input(c, pool));
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected.find((x) => x.node === 'n')!.reason, /cheaper node/);
  });
  it('replaces on-demand with spot when the NodePool allows both, and requires spot for it', () => {
    const pool = nodePool({ capacityTypes: ['on-demand', 'spot'] });
    const c = clusterOf([catalogNode('big', pool, 'm5.4xlarge')], [boundPod('p', 'big', '500m')]);
    const r = consolidate(input(c, pool)).decisions[0]!.replacements[0]!;
    assert.equal(r.capacityType, 'spot');
  });
});

describe('why not: pods that would not schedule (v1.14.1 NonPendingPodSchedulingErrors)', () => {
  it('names each displaced pod with its scheduling error', () => {
    const pool = nodePool();
    const c = clusterOf([catalogNode('big', pool, 'm5.4xlarge')], [boundPod('p', 'big', '500m', { spec: { nodeSelector: { 'example.com/team': 'a' } } })]);
    const r = consolidate(input(c, pool));
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected.find((x) => x.node === 'big')!.reason, /^Not all pods would schedule, default\/p => .*nodepool "default".*example\.com\/team/);
  });
  it('lists five pods at most, then how many others', () => {
    const errors = (n: number) => Array.from({ length: n }, (_, i) => ({ pod: `default/p${i}`, message: 'e' }));
    assert.equal(notAllPodsWouldSchedule(errors(2)), 'Not all pods would schedule, default/p0 => e default/p1 => e ');
    assert.match(notAllPodsWouldSchedule(errors(6)), /default\/p4 => e {2}and 1 other\(s\)$/);
    assert.match(notAllPodsWouldSchedule(errors(5)), / and 0 other\(s\)$/);
  });
});

describe('candidates and blockers (upstream emptiness_test.go, consolidation_test.go)', () => {
  const pool = nodePool();
  // The cheapest on-demand type in us-west-2a: no replacement can be cheaper.
  const cheapest = [...CATALOG].filter((t) => t.offerings.some((o) => o.zone === 'us-west-2a' && o.capacityType === 'on-demand')).sort((a, b) => price(catalogNode('x', pool, a.name))! - price(catalogNode('x', pool, b.name))!)[0]!.name;
  it('upstream: "will not consider a node with a terminating StatefulSet pod as empty" (emptiness_test.go)', () => {
    const sts = compilePod({ metadata: { name: 'web-0', namespace: 'default', deletionTimestamp: '2026-01-01T00:00:00Z', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }] }, spec: { nodeName: 'n', containers: [{ name: 'c', resources: { requests: { cpu: '10m' } } }] } }, { order: 0 });
    const c = clusterOf([catalogNode('n', pool, cheapest)], [sts]);
    assert.equal(nextDisruption(input(c, pool)).decision, undefined);
  });
  it('upstream: "should fire an event when a candidate does not have the capacity type label" (consolidation_test.go)', () => {
    // A NodePool that does not require a capacity type (else the node would be requirement-drifted).
    const open = compileNodePool({ metadata: { name: 'default' }, spec: { template: { spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } } } });
    const n = catalogNode('n', open, 'm5.xlarge');
    const { 'karpenter.sh/capacity-type': _, ...labels } = n.labels;
    const r = nextDisruption(input(clusterOf([{ ...n, labels }], [boundPod('p', 'n', '100m')]), open));
    assert.equal(r.decision, undefined);
    assert.deepEqual(r.rejected, [{ node: 'n', reason: 'Node does not have label "karpenter.sh/capacity-type"', event: 'Unconsolidatable' }]);
  });
});

describe('spot-to-spot', () => {
  const pool = nodePool({ capacityTypes: ['spot'] });
  const big = () => clusterOf([catalogNode('big', pool, 'm5.4xlarge', { capacityType: 'spot' })], [boundPod('p', 'big', '500m')]);
  it('is refused while the feature is off', () => {
    const r = consolidate(input(big(), pool));
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected.find((x) => x.node === 'big')!.reason, /SpotToSpotConsolidation is disabled/);
  });
  it('launches from the 15 cheapest spot types when on', () => {
    const d = consolidate(input(big(), pool, { spotToSpot: true })).decisions[0]!;
    const r = d.replacements[0]!;
    assert.equal(r.capacityType, 'spot');
    assert.equal(r.instanceTypeOptions.length, MIN_SPOT_TO_SPOT_OPTIONS);
    assert.ok(r.pricePerHour < 0.27994);
  });
  it('needs at least 15 cheaper options for a single node', () => {
    const c = clusterOf([catalogNode('n', pool, 'm5.large', { capacityType: 'spot' })], [boundPod('p', 'n', '1500m')]);
    const r = consolidate(input(c, pool, { spotToSpot: true }));
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected.find((x) => x.node === 'n')!.reason, /requires 15 cheaper instance type options .* got \d+$/);
  });
});

describe('multi-node consolidation', () => {
  it('replaces three nodes by one cheaper node when their pods fit on none of the others', () => {
    const pool = nodePool();
    const nodes = ['a', 'b', 'c'].map((n) => catalogNode(n, pool, 'm5.xlarge'));
    const c = clusterOf(nodes, nodes.map((n) => boundPod(`p-${n.name}`, n.name, '2500m')));
    const d = consolidate(input(c, pool)).decisions[0]!;
    assert.equal(d.kind, 'replace');
    assert.deepEqual([...d.nodes].sort(), ['a', 'b', 'c']);
    assert.equal(d.replacements.length, 1);
    assert.ok(d.replacements[0]!.pricePerHour < 3 * 0.192);
  });
});

describe('consolidation policy and consolidateAfter', () => {
  const nodes = (pool: NodePool) => [catalogNode('a', pool, 'm5.xlarge'), catalogNode('b', pool, 'm5.xlarge'), catalogNode('e', pool, 'm5.xlarge')];
  const pods = () => [boundPod('p1', 'a', '500m'), boundPod('p2', 'b', '500m')];
  it('WhenEmpty deletes the empty node and leaves underutilized ones alone', () => {
    const pool = nodePool({ disruption: { consolidationPolicy: 'WhenEmpty', budgets: [{ nodes: '100%' }] } });
    const c = clusterOf(nodes(pool), pods());
    const first = consolidate(input(c, pool)).decisions;
    assert.deepEqual(first.map((d) => [d.reason, d.nodes]), [['Empty', ['e']]]);
    c.removeNode('e');
    assert.deepEqual(consolidate(input(c, pool)).decisions, []);
  });
  it('a node running only DaemonSet and mirror (static) pods is empty', () => {
    const pool = nodePool({ disruption: { consolidationPolicy: 'WhenEmpty', budgets: [{ nodes: '100%' }] } });
    const owned = (name: string, kind: string) => ({ ...boundPod(name, 'e', '100m'), ownerReferences: [{ apiVersion: 'v1', kind, name: 'x', uid: `uid-${kind}`, controller: true }] });
    const c = clusterOf([catalogNode('e', pool, 'm5.xlarge')], [owned('ds', 'DaemonSet'), owned('static', 'Node')]);
    assert.deepEqual(consolidate(input(c, pool)).decisions.map((d) => [d.reason, d.nodes]), [['Empty', ['e']]]);
  });

  it('consolidateAfter Never disables consolidation', () => {
    const pool = nodePool({ disruption: { consolidateAfter: 'Never', budgets: [{ nodes: '100%' }] } });
    const r = consolidate(input(clusterOf(nodes(pool), pods()), pool));
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected[0]!.reason, /consolidation disabled/);
  });
  it('a node is not consolidated before consolidateAfter has passed since its last pod event', () => {
    const pool = nodePool({ disruption: { consolidateAfter: '10m', budgets: [{ nodes: '100%' }] } });
    const c = clusterOf(nodes(pool), pods());
    const recent = new Map([['a', HOUR - 60_000], ['b', HOUR - 60_000], ['e', HOUR - 60_000]]);
    assert.deepEqual(consolidate(input(c, pool, { lastPodEventMs: recent })).decisions, []);
    assert.equal(consolidate(input(c, pool, { lastPodEventMs: new Map() })).decisions.length, 1);
  });
});

describe('drift', () => {
  const v1 = nodePool({ labels: { team: 'a' } });
  const v2 = nodePool({ labels: { team: 'b' } });
  const hashed = (name: string, type = 'm5.xlarge') => catalogNode(name, v1, type, { annotations: hashAnnotations(v1) });
  it('a template change drifts nodes stamped with the old hash; a requirement change drifts nodes whose labels no longer fit', () => {
    assert.equal(driftReason(hashed('n'), v1), undefined);
    assert.equal(driftReason(hashed('n'), v2), 'NodePoolDrifted');
    const noLarge = nodePool({ labels: { team: 'a' }, requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['m5.xlarge'] }] });
    assert.equal(driftReason(hashed('n'), noLarge), 'RequirementsDrifted');
  });
  it('replaces a drifted node from the current NodePool, one under a budget of 1', () => {
    const pool = nodePool({ labels: { team: 'b' }, disruption: { budgets: [{ nodes: '1' }] } });
    const c = clusterOf([hashed('a'), hashed('b')], [boundPod('p1', 'a', '3'), boundPod('p2', 'b', '3')]);
    const d = drift(input(c, pool))!;
    assert.equal(d.reason, 'Drifted');
    assert.deepEqual(d.nodes, ['a']);
    assert.equal(d.replacements.length, 1);
    assert.equal(drift(input(c, pool, { disrupting: new Set(['a']) })), undefined);
  });
  it('honours karpenter.sh/do-not-disrupt on pods and nodes', () => {
    const c = clusterOf([catalogNode('a', v1, 'm5.xlarge', { annotations: { ...hashAnnotations(v1), 'karpenter.sh/do-not-disrupt': 'true' } }), hashed('b')], [
      boundPod('p1', 'a', '3'),
      boundPod('p2', 'b', '3', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
    ]);
    assert.equal(nextDisruption(input(c, v2)).decision, undefined);
  });
  it('with a terminationGracePeriod, do-not-disrupt pods no longer keep a drifted node (the drain is bounded)', () => {
    const withTgp = nodePool({ labels: { team: 'b' }, terminationGracePeriod: '1h' });
    const c = clusterOf([hashed('a')], [boundPod('p1', 'a', '3', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })]);
    assert.equal(drift(input(c, v2)), undefined);
    assert.deepEqual(drift(input(c, withTgp))?.nodes, ['a']);
  });
  it('comes after emptiness and before consolidation', () => {
    const c = clusterOf([hashed('a'), hashed('e')], [boundPod('p1', 'a', '3')]);
    assert.deepEqual(nextDisruption(input(c, v2)).decision?.nodes, ['e']);
  });
});

describe('drift detection (upstream nodeclaim/disruption/drift_test.go)', () => {
  const ct = 'karpenter.sh/capacity-type';
  const os = 'kubernetes.io/os';
  const arch = 'kubernetes.io/arch';
  type Req = { key: string; operator: string; values?: string[] };
  const poolWith = (reqs: Req[]) => nodePool({ capacityTypes: reqs.find((r) => r.key === ct)?.values ?? ['on-demand'], requirements: reqs.filter((r) => r.key !== ct) });
  /** A node whose labels are exactly `labels` (and its NodePool's), stamped with the NodePool's current hash. */
  const labelled = (pool: NodePool, labels: Record<string, string>) => {
    const n = catalogNode('n', pool, 'm5.xlarge', { annotations: hashAnnotations(pool) });
    return { ...n, labels: { 'karpenter.sh/nodepool': pool.name, ...labels } };
  };
  // DescribeTable "NodeRequirement Drift": (old requirements, new requirements, labels, drifted).
  const table: [string, Req[], Req[], Record<string, string>, boolean][] = [
    ['should return drifted if the nodePool node requirement is updated', [{ key: arch, operator: 'In', values: ['amd64'] }, { key: os, operator: 'In', values: ['linux'] }], [{ key: ct, operator: 'In', values: ['spot'] }], { [ct]: 'on-demand', [arch]: 'amd64', [os]: 'linux' }, true],
    ['should return drifted if a new node requirement is added', [{ key: os, operator: 'In', values: ['linux'] }], [{ key: os, operator: 'In', values: ['linux'] }, { key: arch, operator: 'In', values: ['amd64'] }], { [ct]: 'on-demand', [os]: 'linux' }, true],
    ['should return drifted if a node requirement is reduced', [{ key: os, operator: 'In', values: ['linux', 'windows'] }], [{ key: os, operator: 'In', values: ['windows'] }], { [ct]: 'on-demand', [os]: 'linux' }, true],
    ['should not return drifted if a node requirement is expanded', [{ key: os, operator: 'In', values: ['linux'] }], [{ key: os, operator: 'In', values: ['linux', 'windows'] }], { [ct]: 'on-demand', [os]: 'linux' }, false],
    ['should not return drifted if a node requirement set to Exists', [{ key: os, operator: 'In', values: ['linux'] }], [{ key: os, operator: 'Exists' }], { [ct]: 'on-demand', [os]: 'linux' }, false],
    ['should return drifted if a node requirement set to DoesNotExists', [{ key: os, operator: 'In', values: ['linux'] }], [{ key: os, operator: 'DoesNotExist' }], { [ct]: 'on-demand', [os]: 'linux' }, true],
    ['should not return drifted if a nodeClaim is greater then node requirement', [{ key: 'test-label', operator: 'Gt', values: ['2'] }], [{ key: 'test-label', operator: 'Gt', values: ['10'] }], { [ct]: 'on-demand', 'test-label': '5' }, true],
    ['should not return drifted if a nodeClaim is less then node requirement', [{ key: 'test-label', operator: 'Lt', values: ['5'] }], [{ key: 'test-label', operator: 'Lt', values: ['1'] }], { [ct]: 'on-demand', 'test-label': '2' }, true],
  ];
  for (const [name, before, after, labels, drifted] of table) {
    it(`upstream: "${name}" (drift_test.go)`, () => {
      assert.equal(driftReason(labelled(poolWith(before), labels), poolWith(before)), undefined);
      const now = poolWith(after);
      assert.equal(driftReason(labelled(poolWith(before), labels), now), drifted ? 'RequirementsDrifted' : undefined);
    });
  }
  it('a NotIn on a label the node lacks holds; an In on it drifts the node', () => {
    const base = nodePool();
    const n = catalogNode('n', base, 'm5.xlarge', { annotations: hashAnnotations(base) });
    assert.equal(driftReason(n, nodePool({ requirements: [{ key: 'example.com/team', operator: 'NotIn', values: ['a'] }] })), undefined);
    assert.equal(driftReason(n, nodePool({ requirements: [{ key: 'example.com/team', operator: 'In', values: ['a'] }] })), 'RequirementsDrifted');
  });

  const v1 = nodePool({ labels: { team: 'a' } });
  const v2 = nodePool({ labels: { team: 'b' } });
  const stamped = (annotations: Record<string, string>) => catalogNode('n', v1, 'm5.xlarge', { annotations });
  it('upstream: "should return drifted if the NodePool\'s labels change" (static drift)', () => {
    assert.equal(driftReason(stamped(hashAnnotations(v1)), v1), undefined);
    assert.equal(driftReason(stamped(hashAnnotations(v1)), v2), 'NodePoolDrifted');
  });
  it('upstream: "should not return drifted if karpenter.sh/nodepool-hash annotation is not present on the NodeClaim" (drift_test.go)', () => {
    assert.equal(driftReason(stamped({ [NODEPOOL_HASH_VERSION_ANNOTATION]: 'v3' }), v2), undefined);
  });
  it('upstream: "should not return drifted if the NodeClaim\'s karpenter.sh/nodepool-hash-version annotation does not match the NodePool\'s" (drift_test.go)', () => {
    assert.equal(driftReason(stamped({ [NODEPOOL_HASH_ANNOTATION]: '123456789', [NODEPOOL_HASH_VERSION_ANNOTATION]: 'v2' }), v1), undefined);
  });
  it('upstream: "should not return drifted if karpenter.sh/nodepool-hash-version annotation is not present on the NodeClaim" (drift_test.go)', () => {
    assert.equal(driftReason(stamped({ [NODEPOOL_HASH_ANNOTATION]: '123456789' }), v1), undefined);
  });
});

describe('drift method (upstream disruption/drift_test.go)', () => {
  const v1 = nodePool({ labels: { team: 'a' } });
  const v2 = nodePool({ labels: { team: 'b' }, disruption: { budgets: [{ nodes: '100%' }] } });
  const node = (name: string, creation = 0) => catalogNode(name, v1, 'm5.xlarge', { annotations: hashAnnotations(v1), creation });
  it('upstream: "should drift empty nodes before non-empty nodes" (drift_test.go)', () => {
    const c = clusterOf([node('busy', 0), node('empty', 10)], [boundPod('p', 'busy', '1')]);
    const d = drift(input(c, v2, { driftedAt: new Map([['busy', 0], ['empty', 1000]]) } as Partial<ConsolidationInput>))!;
    assert.deepEqual([d.kind, d.nodes], ['delete', ['empty']]);
  });
  it('deletes one empty drifted node per command, in the order they drifted', () => {
    const c = clusterOf([node('a'), node('b'), node('c')], []);
    const d = drift(input(c, v2, { driftedAt: new Map([['a', 3000], ['b', 1000], ['c', 2000]]) } as Partial<ConsolidationInput>))!;
    assert.deepEqual(d.nodes, ['b']);
  });
  it('upstream: "should drift one non-empty node at a time, starting with the earliest drift" (drift_test.go)', () => {
    const c = clusterOf([node('a'), node('b')], [boundPod('pa', 'a', '3'), boundPod('pb', 'b', '3')]);
    const d = drift(input(c, v2, { driftedAt: new Map([['a', 5000], ['b', 1000]]) } as Partial<ConsolidationInput>))!;
    assert.deepEqual([d.kind, d.nodes], ['replace', ['b']]);
  });
  it('upstream: "should ignore nodes with the karpenter.sh/do-not-disrupt annotation set to true" (drift_test.go)', () => {
    const c = clusterOf([catalogNode('a', v1, 'm5.xlarge', { annotations: { ...hashAnnotations(v1), 'karpenter.sh/do-not-disrupt': 'true' } })], []);
    assert.equal(drift(input(c, v2)), undefined);
  });
  it('upstream: "should not create replacements for drifted nodes that have pods with the karpenter.sh/do-not-disrupt annotation set to true when the NodePool\'s TerminationGracePeriod is not nil" (drift_test.go)', () => {
    const withTgp = nodePool({ labels: { team: 'b' }, terminationGracePeriod: '300s' });
    const c = clusterOf([node('a')], [boundPod('p', 'a', '3', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })]);
    const d = drift(input(c, withTgp))!;
    assert.deepEqual([d.kind, d.nodes, d.replacements], ['delete', ['a'], []]);
  });
});

describe('candidate order (v1.14 sortCandidates)', () => {
  it('highest savings ratio first: price over 1 plus the pods\' eviction costs', () => {
    const pool = nodePool();
    const c = clusterOf(
      [catalogNode('small', pool, 'm5.large'), catalogNode('big', pool, 'm5.2xlarge'), catalogNode('busy', pool, 'm5.2xlarge')],
      [boundPod('p1', 'small', '100m'), boundPod('p2', 'big', '100m'), boundPod('p3', 'busy', '100m'), boundPod('p4', 'busy', '100m'), boundPod('p5', 'busy', '100m')],
    );
    // big: 0.384/2, busy: 0.384/4, small: 0.096/2.
    assert.deepEqual(consolidationCandidates(input(c, pool)).eligible.map((x) => x.node.name), ['big', 'busy', 'small']);
  });
});

describe('expiry', () => {
  it('expires nodes past expireAfter regardless of budgets and do-not-disrupt, planning their replacements', () => {
    const pool = nodePool({ expireAfter: '30m', disruption: { budgets: [{ nodes: '0' }] } });
    const c = clusterOf([catalogNode('old', pool, 'm5.xlarge')], [boundPod('p', 'old', '3', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })]);
    const [d] = expiry(input(c, pool));
    assert.equal(d?.reason, 'Expired');
    assert.equal(d?.replacements.length, 1);
    assert.deepEqual(expiry(input(c, nodePool({ expireAfter: 'Never' }))), []);
  });
});

describe('nodes still initializing (Karpenter: StateNode.Initialized() false)', () => {
  it('a decision whose pods would land on an initializing node is refused (SimulateScheduling\'s UninitializedNodeError)', () => {
    const pool = nodePool();
    // a is kept by a do-not-disrupt pod; b's pod fits on a.
    const pinned = boundPod('pinned', 'a', '300m', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const c = clusterOf([catalogNode('a', pool, 'm5.xlarge'), catalogNode('b', pool, 'm5.large')], [pinned, boundPod('p', 'b', '300m')]);
    assert.deepEqual(consolidate(input(c, pool)).decisions[0]?.nodes, ['b'], 'with a initialized, b\'s pod moves there');
    const r = consolidate(input(c, pool, { uninitialized: new Set(['a']), initializing: new Set(['a']) }));
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected.find((x) => x.node === 'b')!.reason, /default\/p => would schedule against uninitialized node\/a/);
  });
  it('budgets count only initialized nodes', () => {
    const pool = nodePool({ disruption: { consolidationPolicy: 'WhenEmpty', budgets: [{ nodes: '50%' }] } });
    const c = clusterOf(['a', 'b', 'c', 'd'].map((n) => catalogNode(n, pool, 'm5.large')), []);
    assert.equal(consolidate(input(c, pool)).decisions[0]?.nodes.length, 2);
    const booting = new Set(['c', 'd']);
    assert.deepEqual(consolidate(input(c, pool, { uninitialized: booting, initializing: booting })).decisions[0]?.nodes, ['a']);
  });
});

describe('budgets', () => {
  const pods = (names: string[]) => names.map((n) => boundPod(`p-${n}`, n, '300m'));
  const five = (pool: NodePool) => ['a', 'b', 'c', 'd', 'e'].map((n) => catalogNode(n, pool, 'm5.xlarge'));
  it('multi-node consolidation takes no more nodes than the Underutilized budget leaves', () => {
    const pool = nodePool({ disruption: { budgets: [{ nodes: '2' }] } });
    const c = clusterOf(five(pool), pods(['a', 'b', 'c', 'd', 'e']));
    assert.equal(consolidate(input(c, pool)).decisions[0]?.nodes.length, 2);
    assert.equal(consolidate(input(c, pool, { disrupting: new Set(['a']) })).decisions[0]?.nodes.length, 1);
    assert.deepEqual(consolidate(input(c, pool, { disrupting: new Set(['a', 'b']) })).decisions, []);
  });
  it('single-node consolidation tries every candidate under a budget of 1: one that cannot go spends none of it (conformance s3-255)', () => {
    const pool = nodePool({ disruption: { budgets: [{ nodes: '1' }] } });
    // a (the higher savings ratio) has a pod pinned to its own type: no cheaper replacement; b's pod fits on a.
    const c = clusterOf([catalogNode('a', pool, 'm5.xlarge'), catalogNode('b', pool, 'm5.large')], [
      boundPod('pinned', 'a', '300m', { spec: { nodeSelector: { 'node.kubernetes.io/instance-type': 'm5.xlarge' } } }),
      boundPod('small', 'b', '300m'),
    ]);
    const r = consolidate(input(c, pool));
    assert.deepEqual(r.decisions[0]?.nodes, ['b']);
    assert.equal(r.decisions[0]?.kind, 'delete');
    assert.deepEqual(r.rejected.map((x) => `${x.node}: ${x.reason}`), ["a: Can't replace with a cheaper node"]);
  });
  it('a node without a capacity-type label has no price: emptiness under a budget of 1 takes a priced node first (conformance s21-29)', () => {
    const pool = nodePool({ disruption: { budgets: [{ nodes: '1' }] } });
    const unlabeled = catalogNode('a', pool, 'r5.xlarge');
    const { 'karpenter.sh/capacity-type': _, ...labels } = unlabeled.labels;
    const c = clusterOf([{ ...unlabeled, labels }, catalogNode('b', pool, 'm5.large')], []);
    assert.equal(price({ ...unlabeled, labels }), undefined);
    assert.deepEqual(consolidate(input(c, pool)).decisions[0]?.nodes, ['b']);
  });
  it('why not: a node kept by a budget of 0 carries Karpenter\'s NodePool message for the reason', () => {
    const pool = nodePool({ disruption: { budgets: [{ nodes: '0', reasons: ['Underutilized'] }, { nodes: '100%' }] } });
    const c = clusterOf(five(pool), pods(['a', 'b', 'c', 'd', 'e']));
    const r = nextDisruption({ ...input(c, pool) });
    assert.equal(r.decision, undefined);
    assert.deepEqual(r.rejected.map((x) => `${x.node}: ${x.reason}`).sort(), ['a', 'b', 'c', 'd', 'e'].map((n) => `${n}: No allowed disruptions for disruption reason Underutilized due to blocking budget`));
  });
  it('consolidationWork stands in for the timeouts: single-node gives up after its budget of simulations, multi-node keeps the largest batch found so far', () => {
    const pool = nodePool();
    const c = clusterOf([catalogNode('a', pool, 'm5.xlarge'), catalogNode('b', pool, 'm5.large')], [
      boundPod('pinned', 'a', '300m', { spec: { nodeSelector: { 'node.kubernetes.io/instance-type': 'm5.xlarge' } } }),
      boundPod('small', 'b', '300m'),
    ]);
    const single = consolidate(input(c, pool, { consolidationWork: { singleNode: 1, multiNode: 0 } }));
    assert.deepEqual(single.decisions, []);
    assert.match(single.rejected.find((x) => x.node === 'b')!.reason, /^Single-node consolidation gave up before this candidate/);
    assert.deepEqual(consolidate(input(c, pool, { consolidationWork: { singleNode: 2, multiNode: 0 } })).decisions[0]?.nodes, ['b']);
    const five = clusterOf(['a', 'b', 'c', 'd', 'e'].map((n) => catalogNode(n, pool, 'm5.xlarge')), pods(['a', 'b', 'c', 'd', 'e']));
    assert.equal(consolidate(input(five, pool)).decisions[0]?.nodes.length, 5);
    assert.equal(consolidate(input(five, pool, { consolidationWork: { multiNode: 1 } })).decisions[0]?.nodes.length, 3);
  });
  it('a percentage is of the pool\'s nodes, rounded up', () => {
    const pool = nodePool({ disruption: { budgets: [{ nodes: '30%' }] } });
    const c = clusterOf(five(pool), pods(['a', 'b', 'c', 'd', 'e']));
    assert.equal(consolidate(input(c, pool)).decisions[0]?.nodes.length, 2);
  });
  it('a scheduled budget of 0 for Underutilized blocks consolidation in its window only, and never emptiness', () => {
    const pool = nodePool({ disruption: { budgets: [{ nodes: '100%' }, { nodes: '0', schedule: '0 9 * * *', duration: '8h', reasons: ['Underutilized'] }] } });
    const c = clusterOf(five(pool), pods(['a', 'b', 'c', 'd']));
    const at = (h: number) => consolidate(input(c, pool, { nowMs: Date.UTC(2026, 0, 5, h) })).decisions[0];
    assert.deepEqual(at(10)?.nodes, ['e']);
    assert.equal(at(10)?.reason, 'Empty');
    c.removeNode('e');
    assert.equal(at(10), undefined);
    assert.equal(at(20)?.reason, 'Underutilized');
  });
});
