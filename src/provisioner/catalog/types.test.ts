import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allocatableOf, makeInstanceType, type InstanceTypeOverhead } from './types.js';

describe('allocatableOf', () => {
  const cases: { name: string; capacity: Record<string, number>; overhead: InstanceTypeOverhead; want: Record<string, number> }[] = [
    {
      name: 'sums the three overhead slices per resource',
      capacity: { cpu: 2000, memory: 1000 },
      overhead: { kubeReserved: { cpu: 70, memory: 100 }, systemReserved: { cpu: 30 }, evictionThreshold: { memory: 50 } },
      want: { cpu: 1900, memory: 850 },
    },
    {
      name: 'ignores overhead for resources the capacity lacks',
      capacity: { cpu: 2000 },
      overhead: { kubeReserved: { 'ephemeral-storage': 10 }, systemReserved: {}, evictionThreshold: {} },
      want: { cpu: 2000 },
    },
    {
      name: 'does not clamp at zero',
      capacity: { memory: 100 },
      overhead: { kubeReserved: { memory: 300 }, systemReserved: {}, evictionThreshold: {} },
      want: { memory: -200 },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(allocatableOf(c.capacity, c.overhead), c.want));
});

describe('makeInstanceType', () => {
  it('derives zone and capacity-type requirements from the offerings', () => {
    const it_ = makeInstanceType({
      name: 'x',
      labels: { 'node.kubernetes.io/instance-type': 'x' },
      capacity: { cpu: 1000 },
      overhead: { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
      offerings: [
        { zone: 'b', capacityType: 'spot', price: 1, available: true },
        { zone: 'a', capacityType: 'spot', price: 1, available: false },
        { zone: 'b', capacityType: 'spot', price: 2, available: true },
      ],
    });
    assert.deepEqual(it_.requirements, {
      'node.kubernetes.io/instance-type': ['x'],
      'topology.kubernetes.io/zone': ['a', 'b'],
      'karpenter.sh/capacity-type': ['spot'],
    });
    assert.deepEqual(it_.allocatable, { cpu: 1000 });
  });
});
