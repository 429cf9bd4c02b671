import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { consolidate, worstLaunchPrice, type ConsolidationInput } from './consolidate.js';
import { boundPod, clusterOf, nodePool } from './fixtures.test-support.js';
import { catalogPrices } from './pricing.js';
import { makeInstanceType, LABEL_INSTANCE_TYPE, type InstanceType, type Offering } from '../provisioner/catalog/types.js';
import { launchedNode } from '../provisioner/launched-node.js';
import type { NodePool } from '../model/nodepool.js';

// Karpenter prices a replacement's instance type at the dearest offering of the
// capacity type it would launch with (spot before on-demand), over the zones the claim
// allows: it keeps the type only when even that is cheaper than the candidates.

const none = { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} };
function type(name: string, offerings: Partial<Offering>[]): InstanceType {
  return makeInstanceType({
    name,
    labels: { [LABEL_INSTANCE_TYPE]: name, 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' },
    capacity: { cpu: 4000, memory: 16 * 2 ** 30, pods: 110 },
    overhead: none,
    offerings: offerings.map((o) => ({ zone: 'test-zone-1a', capacityType: 'on-demand', price: 1, available: true, ...o })),
  });
}
// The candidate's own offering is unavailable, so it can never be its own replacement.
const current = type('current-on-demand', [{ price: 0.5, available: false }]);

function run(pool: NodePool, replacement: InstanceType, podSpec: Parameters<typeof boundPod>[3] = {}) {
  const types = [current, replacement];
  const node = launchedNode('n', pool, current, { zone: 'test-zone-1a', capacityType: 'on-demand' }, 0);
  const input: ConsolidationInput = {
    cluster: clusterOf([node], [boundPod('p', 'n', '1', podSpec)]),
    pools: [pool],
    nowMs: 3_600_000,
    pricePerHour: catalogPrices(types),
    replacement: { instanceTypes: types },
  };
  return consolidate(input);
}

describe('replacement price (v1.14.1 WorstLaunchPrice)', () => {
  it('upstream: "won\'t replace node if any spot replacement is more expensive" (consolidation_test.go)', () => {
    const spot = type('potential-spot-replacement', [
      { capacityType: 'spot', zone: 'test-zone-1a', price: 1.0 },
      { capacityType: 'spot', zone: 'test-zone-1b', price: 0.2 },
      { capacityType: 'spot', zone: 'test-zone-1c', price: 0.4 },
    ]);
    const r = run(nodePool({ capacityTypes: ['on-demand', 'spot'] }), spot);
    assert.deepEqual(r.decisions, []);
    assert.deepEqual(r.rejected.find((x) => x.node === 'n'), { node: 'n', reason: "Can't replace with a cheaper node", event: 'Unconsolidatable' });
  });
  it('upstream: "won\'t replace on-demand node if on-demand replacement is more expensive" (consolidation_test.go)', () => {
    const od = type('on-demand-replacement', [
      { zone: 'test-zone-1a', price: 0.6 },
      { zone: 'test-zone-1b', price: 0.6 },
      { capacityType: 'spot', zone: 'test-zone-1b', price: 0.2 },
      { capacityType: 'spot', zone: 'test-zone-1c', price: 0.3 },
    ]);
    const r = run(nodePool({ capacityTypes: ['on-demand'] }), od);
    assert.deepEqual(r.decisions, []);
    assert.match(r.rejected.find((x) => x.node === 'n')!.reason, /cheaper node/);
  });
  it('one cheap zone does not make an on-demand type cheaper', () => {
    const od = type('od', [{ zone: 'test-zone-1a', price: 0.3 }, { zone: 'test-zone-1b', price: 0.7 }]);
    assert.deepEqual(run(nodePool(), od).decisions, []);
  });
  it('only the zones the displaced pods allow count', () => {
    const od = type('od', [{ zone: 'test-zone-1a', price: 0.3 }, { zone: 'test-zone-1b', price: 0.7 }]);
    const zoneA = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In' as const, values: ['test-zone-1a'] }] }] } } } };
    const [d] = run(nodePool(), od, { spec: zoneA }).decisions;
    assert.deepEqual([d?.kind, d?.replacements[0]?.instanceType, d?.replacements[0]?.zone, d?.savingsPerHour], ['replace', 'od', 'test-zone-1a', 0.2]);
  });
  it('a type that can launch as spot is priced at its dearest spot offering, even when on-demand is dearer still', () => {
    const offerings = [
      { instanceType: 't', zone: 'a', capacityType: 'spot', price: 0.2 },
      { instanceType: 't', zone: 'b', capacityType: 'spot', price: 0.4 },
      { instanceType: 't', zone: 'a', capacityType: 'on-demand', price: 0.9 },
      { instanceType: 'u', zone: 'a', capacityType: 'on-demand', price: 0.1 },
    ];
    assert.deepEqual([worstLaunchPrice(offerings, 't'), worstLaunchPrice(offerings, 'u')], [0.4, 0.1]);
  });
});
