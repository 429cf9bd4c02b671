import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import type { PodManifest } from '../model/manifest.js';
import { compilePod, type Pod } from '../model/pod.js';
import { bundledInstanceTypes } from './catalog/catalog.js';
import { planProvisioning, type PoolSpec, type ProvisionPlan } from './plan.js';

// Pods asking for accelerators through device-plugin resources or Karpenter's GPU labels
// get a node of a type that has them; other pods do not pay for one.

const TYPES = bundledInstanceTypes();
const pool: PoolSpec = { name: 'default', weight: 0, labels: {}, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }], taints: [], limits: {} };

let order = 0;
function pod(name: string, requests: Record<string, string>, nodeSelector: Record<string, string> = {}): Pod {
  const m: PodManifest = { metadata: { name, namespace: 'default' }, spec: { nodeSelector, containers: [{ name: 'c', resources: { requests, limits: requests } }] } };
  return compilePod(m, { order: order++ });
}

function plan(pods: Pod[]): ProvisionPlan {
  const cluster = new ClusterState();
  for (const p of pods) cluster.addPod(p);
  return planProvisioning({ cluster, pools: [pool], instanceTypes: TYPES, daemonSetPods: [], config: {} });
}

describe('accelerator pods', () => {
  it('a pod requesting nvidia.com/gpu gets the cheapest GPU type (g4dn.xlarge, $0.526/h)', () => {
    const p = plan([pod('train', { cpu: '2', memory: '8Gi', 'nvidia.com/gpu': '1' })]);
    assert.deepEqual(p.unschedulable, []);
    assert.equal(p.nodeClaims.length, 1);
    assert.equal(p.nodeClaims[0]!.instanceType, 'g4dn.xlarge');
    assert.equal(p.nodeClaims[0]!.pricePerHour, 0.526);
    // Every option Karpenter would send to the fleet request has a GPU.
    const options = p.nodeClaims[0]!.requirements.find((r) => r.key === 'node.kubernetes.io/instance-type')!.values ?? [];
    for (const name of options) assert.ok(TYPES.find((t) => t.name === name)!.capacity['nvidia.com/gpu']! >= 1, name);
  });

  it('eight GPUs of one pod need an 8-GPU type; the A100 and H100 nodes count 8', () => {
    const p = plan([pod('big', { cpu: '8', memory: '64Gi', 'nvidia.com/gpu': '8' })]);
    const chosen = TYPES.find((t) => t.name === p.nodeClaims[0]!.instanceType)!;
    assert.equal(chosen.capacity['nvidia.com/gpu'], 8);
    assert.equal(chosen.labels['karpenter.k8s.aws/instance-gpu-count'], '8');
  });

  it('a nodeSelector on karpenter.k8s.aws/instance-gpu-name picks that GPU (a10g: g5)', () => {
    const p = plan([pod('infer', { cpu: '1', memory: '2Gi', 'nvidia.com/gpu': '1' }, { 'karpenter.k8s.aws/instance-gpu-name': 'a10g' })]);
    assert.equal(p.nodeClaims[0]!.instanceType, 'g5.xlarge');
  });

  it('a pod requesting aws.amazon.com/neuron gets an Inferentia2 or Trainium node', () => {
    const p = plan([pod('neuron', { cpu: '1', memory: '2Gi', 'aws.amazon.com/neuron': '1' })]);
    const chosen = TYPES.find((t) => t.name === p.nodeClaims[0]!.instanceType)!;
    assert.equal(chosen.name, 'inf2.xlarge');
    assert.equal(chosen.labels['karpenter.k8s.aws/instance-accelerator-name'], 'inferentia2');
  });

  it('a pod that asks for no accelerator is not placed on a GPU type', () => {
    const p = plan([pod('web', { cpu: '2', memory: '4Gi' })]);
    assert.equal(TYPES.find((t) => t.name === p.nodeClaims[0]!.instanceType)!.capacity['nvidia.com/gpu'], undefined);
  });

  it('more GPUs than any type has: unschedulable', () => {
    const p = plan([pod('huge', { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '16' })]);
    assert.equal(p.nodeClaims.length, 0);
    assert.equal(p.unschedulable.length, 1);
  });
});
