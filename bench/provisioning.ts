// Provisioning workload: pending pods of mixed shapes (plain, zone-spread,
// hostname anti-affinity, node affinity) planned against the bundled catalog.

import { ClusterState } from '../src/cluster/state.js';
import { compilePod, type Pod } from '../src/model/pod.js';
import type { PodSpecManifest } from '../src/model/manifest.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import { planProvisioning, type PoolSpec, type ProvisionPlan } from '../src/provisioner/plan.js';

const POOL: PoolSpec = {
  name: 'default',
  weight: 0,
  labels: {},
  requirements: [
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
  ],
  taints: [],
  limits: {},
};

const SIZES = [
  { cpu: '250m', memory: '512Mi' },
  { cpu: '500m', memory: '1Gi' },
  { cpu: '1', memory: '2Gi' },
  { cpu: '2', memory: '8Gi' },
];

export function mixedPods(count: number): Pod[] {
  return Array.from({ length: count }, (_, i) => {
    const shape = i % 4;
    const app = `app-${i % 20}`;
    const labels = { app };
    const selector = { matchLabels: labels };
    const spec: Partial<PodSpecManifest> =
      shape === 1
        ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }] }
        : shape === 2 && i % 40 < 4
          ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: `solo-${i % 40}` } } }] } } }
          : shape === 3
            ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }] } } } }
            : {};
    const podLabels = shape === 2 && i % 40 < 4 ? { app: `solo-${i % 40}` } : labels;
    return compilePod(
      { metadata: { name: `p-${i}`, namespace: 'bench', labels: podLabels }, spec: { ...spec, containers: [{ name: 'c', resources: { requests: SIZES[i % SIZES.length]! } }] } },
      { order: i },
    );
  });
}

export function runProvisioning(count: number): { plan: ProvisionPlan; seconds: number } {
  const cluster = new ClusterState();
  for (const p of mixedPods(count)) cluster.addPod(p);
  const start = performance.now();
  const plan = planProvisioning({ cluster, pools: [POOL], instanceTypes: bundledInstanceTypes(), daemonSetPods: [], config: {} });
  return { plan, seconds: (performance.now() - start) / 1000 };
}
