// Karpenter's fake cloud provider and test objects, for the translated upstream test cases
// (upstream-karpenter*.test.ts): default 4 cpu/4Gi/5 pods, small 2 cpu/2Gi, arm64 16
// cpu/128Gi, one-pod type; spot in test-zone-1/2, on-demand in test-zone-1/2/3; price 0.1 per
// cpu and per GB; 100m cpu and 10Mi kube-reserved.

import type { PodManifest, PodSpecManifest } from '../model/manifest.js';
import { compilePod, type Pod } from '../model/pod.js';
import { LABEL_ARCH, LABEL_INSTANCE_SIZE, LABEL_INSTANCE_TYPE, LABEL_OS, makeInstanceType, type InstanceType, type Offering } from './catalog/types.js';
import type { PoolSpec } from './plan.js';

export const GI = 2 ** 30;

export function fakeType(name: string, cpu: number, memGi: number, opts: { arch?: string; pods?: number } = {}): InstanceType {
  const memory = memGi * GI;
  const price = 0.1 * cpu + (0.1 * memory) / 1e9;
  const offerings: Offering[] = [
    ...['test-zone-1', 'test-zone-2'].map((zone) => ({ zone, capacityType: 'spot' as const, price, available: true })),
    ...['test-zone-1', 'test-zone-2', 'test-zone-3'].map((zone) => ({ zone, capacityType: 'on-demand' as const, price, available: true })),
  ];
  const size = cpu > 4 && memGi > 8 ? 'large' : 'small';
  return makeInstanceType({
    name,
    labels: { [LABEL_INSTANCE_TYPE]: name, [LABEL_ARCH]: opts.arch ?? 'amd64', [LABEL_OS]: 'linux', [LABEL_INSTANCE_SIZE]: size },
    capacity: { cpu: cpu * 1000, memory, pods: opts.pods ?? 5 },
    overhead: { kubeReserved: { cpu: 100, memory: 10 * 2 ** 20 }, systemReserved: {}, evictionThreshold: {} },
    offerings,
  });
}

export const FAKE_TYPES = [fakeType('default-instance-type', 4, 4), fakeType('small-instance-type', 2, 2), fakeType('arm-instance-type', 16, 128, { arch: 'arm64' }), fakeType('single-pod-instance-type', 4, 4, { pods: 1 })];
export const CAPACITY = new Map(FAKE_TYPES.map((it) => [it.name, it.capacity]));

export function nodePool(name = 'default', extra: Partial<PoolSpec> = {}): PoolSpec {
  return { name, weight: 0, labels: {}, requirements: [], taints: [], limits: {}, ...extra };
}

let order = 0;
export function pod(name: string, spec: Partial<PodSpecManifest> = {}, opts: { labels?: Record<string, string>; cpu?: string; memory?: string; daemonSet?: boolean } = {}): Pod {
  const requests: Record<string, string> = {};
  if (opts.cpu) requests.cpu = opts.cpu;
  if (opts.memory) requests.memory = opts.memory;
  const m: PodManifest = {
    metadata: {
      name,
      namespace: 'default',
      labels: opts.labels ?? {},
      ...(opts.daemonSet ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name, uid: `ds-${name}`, controller: true }] } : {}),
    },
    spec: { ...spec, containers: [{ name: 'c', image: 'x', resources: { requests }, ...(spec.containers?.[0]?.ports ? { ports: spec.containers[0].ports } : {}) }] },
  };
  return compilePod(m, { order: order++ });
}

