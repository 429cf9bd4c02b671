import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { catalogPrices } from './pricing.js';
import { consolidate, MIN_SPOT_TO_SPOT_OPTIONS, type ConsolidationInput } from './consolidate.js';
import { drift, expiry, nextDisruption } from './disrupt.js';
import { driftReason, NODEPOOL_HASH_ANNOTATION, nodePoolHash } from './drift.js';
import { boundPod, CATALOG, catalogNode, clusterOf, nodePool } from './fixtures.test-support.js';
import type { ClusterState } from '../cluster/state.js';
import type { NodePool } from '../model/nodepool.js';

const price = catalogPrices(CATALOG);
const HOUR = 3_600_000;

function input(cluster: ClusterState, pool: NodePool, o: Partial<ConsolidationInput> & { spotToSpot?: boolean } = {}): ConsolidationInput {
  return { cluster, pools: [pool], nowMs: HOUR, pricePerHour: price, replacement: { instanceTypes: CATALOG, spotToSpot: o.spotToSpot ?? false }, ...o };
}

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
  const hashed = (name: string, type = 'm5.xlarge') => catalogNode(name, v1, type, { annotations: { [NODEPOOL_HASH_ANNOTATION]: nodePoolHash(v1) } });
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
    const c = clusterOf([catalogNode('a', v1, 'm5.xlarge', { annotations: { [NODEPOOL_HASH_ANNOTATION]: nodePoolHash(v1), 'karpenter.sh/do-not-disrupt': 'true' } }), hashed('b')], [
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
