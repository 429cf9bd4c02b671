import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { kwokNode } from './kwok-provider.js';
import { liveNodePools } from './plan-batch.js';
import { nodePool } from './test-objects.test-support.js';

test('the kwok Node of a claim: named after it, kwok-managed, with the labels, taints and capacity kube-scheduler needs', () => {
  const np = nodePool('gpu');
  const tainted = { ...np, spec: { template: { spec: { ...(np.spec as { template: { spec: object } }).template.spec, taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] } } } };
  const pool = liveNodePools({ nodePools: [tainted] })[0]!;
  const it = bundledInstanceTypes().find((t) => t.name === 'm5.large')!;
  const node = kwokNode({ claim: { name: 'gpu-abcde', nodePool: 'gpu', instanceType: 'm5.large', zone: 'us-west-2b', capacityType: 'spot', created: 0, terminating: false, launched: false, registered: false }, pool, instanceType: it });
  const labels = node.metadata!.labels!;
  assert.equal(node.metadata!.name, 'gpu-abcde');
  assert.equal(node.metadata!.annotations!['kwok.x-k8s.io/node'], 'fake');
  assert.equal(labels['berth.dev/nodeclaim'], 'gpu-abcde');
  assert.equal(labels['karpenter.sh/nodepool'], 'gpu');
  assert.equal(labels['kubernetes.io/hostname'], 'gpu-abcde');
  assert.equal(labels['topology.kubernetes.io/zone'], 'us-west-2b');
  assert.equal(labels['karpenter.sh/capacity-type'], 'spot');
  assert.equal(labels['node.kubernetes.io/instance-type'], 'm5.large');
  assert.deepEqual((node.spec as { taints: unknown[] }).taints, [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }]);
  const status = node.status as { capacity: Record<string, string>; allocatable: Record<string, string> };
  assert.equal(status.capacity.cpu, '2');
  assert.equal(status.allocatable.pods, String(it.allocatable.pods));
  assert.ok(status.allocatable.cpu !== status.capacity.cpu, 'allocatable withholds kube-reserved');
});
