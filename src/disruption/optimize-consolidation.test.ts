import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadHighsSolver } from '../cli/highs.js';
import type { NodePool } from '../model/nodepool.js';
import type { Pod } from '../model/pod.js';
import { applyDecision, consolidate, replacementNode, type ConsolidationInput } from './consolidate.js';
import { catalogPrices } from './pricing.js';
import { boundPod, CATALOG, catalogNode, clusterOf, nodePool } from './fixtures.test-support.js';
import { candidateSets, cheaperRepack, consolidationLowerBound, GROWTH_MIN_SAVING, revalidateRepack } from './optimize-consolidation.js';

const ZONES = ['us-west-2a', 'us-west-2b'];
const price = catalogPrices(CATALOG);

/**
 * Twelve m5.large nodes, six a zone, each running one 1.2-cpu pod of a zone spread:
 * a Karpenter fixed point (no other node has room for a pod; no cheaper type than
 * m5.large; any set of two or more spans both zones, so the spread needs two new
 * nodes, and Karpenter replaces by one), while one m5.2xlarge a zone holds six pods
 * for 0.768 $/h instead of 1.152.
 */
function spreadCluster(o: { budget?: string; pinned?: string; spot?: boolean } = {}): ConsolidationInput {
  const pool: NodePool = nodePool({
    capacityTypes: o.spot ? ['spot'] : ['on-demand'],
    disruption: { budgets: [{ nodes: o.budget ?? '100%' }] },
    requirements: [
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.2xlarge'] },
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: ZONES },
    ],
  });
  const nodes = Array.from({ length: 12 }, (_, i) => catalogNode(`n${String(i).padStart(2, '0')}`, pool, 'm5.large', { zone: ZONES[i % 2]!, creation: i, ...(o.spot ? { capacityType: 'spot' as const } : {}) }));
  const pods: Pod[] = nodes.map((n, i) =>
    boundPod(`p${i}`, n.name, '1200m', {
      labels: { app: 's' },
      ...(n.name === o.pinned ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
      spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 's' } } }] },
    }),
  );
  return { cluster: clusterOf(nodes, pods), pools: [pool], nowMs: 1e12, pricePerHour: price, replacement: { instanceTypes: CATALOG } };
}

describe('candidateSets', () => {
  it('the whole batch, then halves, quarters ... down to single nodes', () => {
    assert.deepEqual(candidateSets([1, 2, 3, 4, 5]), [[1, 2, 3, 4, 5], [1, 2, 3], [4, 5], [1, 2], [3, 4], [5], [1], [2], [3], [4], [5]]);
    assert.deepEqual(candidateSets([]), []);
  });
});

describe('cheaperRepack (--optimize cost at the fixed point)', () => {
  it('replaces a set Karpenter cannot (two new nodes) by cheaper cost-packed nodes, every pod placed on them', () => {
    const input = spreadCluster();
    assert.deepEqual(consolidate(input).decisions, [], 'the premise: Karpenter-faithful consolidation is at its fixed point');
    const d = cheaperRepack(input)!;
    assert.equal(d.kind, 'replace');
    assert.equal(d.nodes.length, 12);
    assert.deepEqual(d.replacements.map((r) => [r.instanceType, r.zone]).sort(), [['m5.2xlarge', 'us-west-2a'], ['m5.2xlarge', 'us-west-2b']]);
    assert.equal(d.savingsPerHour, 0.384);
    assert.deepEqual(new Set(d.displacedPods.map((m) => m.node)), new Set(['<replacement>', '<replacement-2>']));
  });

  it('applied, the pods run on both replacements, each in its zone', () => {
    const input = spreadCluster();
    const d = cheaperRepack(input)!;
    const pool = input.pools[0]!;
    applyDecision(input.cluster, d, d.replacements.map((r, i) => replacementNode(r, [pool], CATALOG, `r${i}`, 100)));
    const where = [...input.cluster.pods()].map((p) => p.nodeName);
    assert.deepEqual(new Set(where), new Set(['r0', 'r1']));
    assert.equal(input.cluster.numNodes, 2);
    assert.deepEqual(consolidate(input).decisions, []);
  });

  it('leaves out a node whose pod is do-not-disrupt', () => {
    const d = cheaperRepack(spreadCluster({ pinned: 'n03' }))!;
    assert.ok(d, 'the other eleven still pay');
    assert.ok(!d.nodes.includes('n03'));
  });

  it('keeps within the Underutilized budget: six nodes at a time never pay here', () => {
    assert.equal(cheaperRepack(spreadCluster({ budget: '6' })), undefined);
  });

  it('does not replace spot nodes by spot nodes without SpotToSpotConsolidation', () => {
    const input = spreadCluster({ spot: true });
    assert.equal(cheaperRepack(input), undefined);
    assert.ok(cheaperRepack({ ...input, replacement: { instanceTypes: CATALOG, spotToSpot: true } }));
  });

  it('launches more nodes than it removes only for a saving of GROWTH_MIN_SAVING of the set\'s price', () => {
    // One m5.xlarge (0.192 $/h) running two 1.2-cpu pods: Karpenter has no cheaper single
    // node for both; two c5.large (0.085 $/h each) save 11.5%, under the 25% a step that
    // grows the node count needs.
    const pool = nodePool({ requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.xlarge', 'c5.large'] }] });
    const input: ConsolidationInput = { cluster: clusterOf([catalogNode('n', pool, 'm5.xlarge')], [boundPod('a', 'n', '1200m'), boundPod('b', 'n', '1200m')]), pools: [pool], nowMs: 1e12, pricePerHour: price, replacement: { instanceTypes: CATALOG } };
    assert.deepEqual(consolidate(input).decisions, [], 'the premise: a Karpenter fixed point');
    assert.equal(GROWTH_MIN_SAVING, 0.25);
    assert.equal(cheaperRepack(input), undefined);
    const d = cheaperRepack(input, { growthMinSaving: 0 })!;
    assert.deepEqual(d.replacements.map((r) => r.instanceType), ['c5.large', 'c5.large']);
    assert.equal(d.savingsPerHour, 0.022);
    assert.equal(cheaperRepack(input, { growthMinSaving: 0.1 })?.savingsPerHour, 0.022);
  });

  it('needs replacement options (a delete-only consolidation has nothing to repack)', () => {
    const { replacement: _, ...input } = spreadCluster();
    assert.equal(cheaperRepack(input), undefined);
  });
});

describe('revalidateRepack (a cost step\'s check after its wait)', () => {
  it('holds while the set still saves; not once a node has gone or a pod came that pins one', () => {
    const input = spreadCluster();
    const d = cheaperRepack(input)!;
    const again = revalidateRepack(input, d);
    assert.ok(!('invalid' in again));
    assert.deepEqual(again.nodes, d.nodes);
    input.cluster.addPod({ ...boundPod('pin', 'n03', '100m', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }), phase: 'Running' });
    assert.deepEqual(revalidateRepack(input, d), { invalid: 'node n03 is no longer a consolidation candidate' });
  });
});

describe('consolidationLowerBound', () => {
  it('the LP relaxation over every pod, when every node may go: at most what the repack costs', async () => {
    const solver = await loadHighsSolver();
    const bound = consolidationLowerBound(spreadCluster(), solver);
    assert.equal(bound.status, 'Optimal');
    // 14.4 cpu of pods on m5.2xlarge at 0.384 $/h for about 7.9 allocatable cpu.
    assert.ok(bound.costPerHour! > 0.6 && bound.costPerHour! <= 0.768, String(bound.costPerHour));
  });

  it('is not computed while some node may not be disrupted', async () => {
    const bound = consolidationLowerBound(spreadCluster({ pinned: 'n03' }), await loadHighsSolver());
    assert.equal(bound.costPerHour, undefined);
    assert.equal(bound.status, 'not computed: 1 node(s) are not consolidation candidates');
  });
});
