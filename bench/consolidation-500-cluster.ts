// The cluster of bench/consolidation-500.ts, described once so that the bench and
// the command-by-command check against Karpenter (conformance/disruption-lockstep.ts)
// start from the same nodes and pods (the check also at smaller sizes of the same
// mix): 500 nodes in three zones — 380 m5.xlarge
// running one or two small pods, 100 oversized m5.4xlarge running one 1.5-cpu pod,
// 20 m5.xlarge spot nodes — 60 pods with required hostname anti-affinity, 90 with a
// DoNotSchedule zone spread.

import { LABEL_ZONE } from '../src/model/node.js';
import type { NodePoolManifest } from '../src/model/nodepool.js';
import type { PodSpecManifest } from '../src/model/manifest.js';

export const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'] as const;

export interface BenchNode {
  readonly name: string;
  readonly instanceType: string;
  readonly capacityType: 'on-demand' | 'spot';
  readonly zone: string;
}

export interface BenchPod {
  readonly name: string;
  readonly node: string;
  readonly cpu: string;
  readonly kind: 'plain' | 'anti' | 'spread';
}

/** One NodePool, on-demand and spot, every node disruptable at once. */
export function benchNodePool(): NodePoolManifest {
  return {
    metadata: { name: 'default' },
    spec: {
      template: { spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] }], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
      disruption: { budgets: [{ nodes: '100%' }] },
    },
  };
}

/** The bench's 500 nodes, or the same mix at another size (shares of nodes rounded down). */
export function benchCluster(size = 500): { nodes: BenchNode[]; pods: BenchPod[] } {
  const share = (percent: number) => Math.floor((size * percent) / 100);
  const [small, big, anti, spread] = [share(76), share(96), share(12), share(30)];
  const nodes: BenchNode[] = [];
  const pods: BenchPod[] = [];
  for (let i = 0; i < size; i++) {
    const name = `n${String(i).padStart(3, '0')}`;
    const [instanceType, capacityType] = i < small ? (['m5.xlarge', 'on-demand'] as const) : i < big ? (['m5.4xlarge', 'on-demand'] as const) : (['m5.xlarge', 'spot'] as const);
    nodes.push({ name, instanceType, capacityType, zone: ZONES[i % 3]! });
    if (i >= small && i < big) pods.push({ name: `big-${i}`, node: name, cpu: '1500m', kind: 'plain' });
    else {
      pods.push({ name: `p-${i}`, node: name, cpu: '500m', kind: i < anti ? 'anti' : i < spread ? 'spread' : 'plain' });
      if (i % 2 === 0 && i >= spread) pods.push({ name: `q-${i}`, node: name, cpu: '250m', kind: 'plain' });
    }
  }
  return { nodes, pods };
}

/** The pod's labels and spec (bound to its node): 512Mi each, labelled by kind. */
export function benchPodManifest(p: BenchPod): { labels: Record<string, string>; spec: PodSpecManifest } {
  const labels = { app: p.kind };
  const spec: PodSpecManifest = {
    nodeName: p.node,
    containers: [{ name: 'c', resources: { requests: { cpu: p.cpu, memory: '512Mi' } } }],
    ...(p.kind === 'anti' ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' }] } } } : {}),
    ...(p.kind === 'spread' ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: LABEL_ZONE, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: labels } }] } : {}),
  };
  return { labels, spec };
}
