// Workload generators modelled on upstream scheduler_perf templates: nodes with
// 4 CPU / 32Gi / 110 pods, pods requesting 100m / 500Mi. `scale` shrinks the
// upstream sizes (1 = the full 5,000-node cases).

import { compileNode, type Node } from '../src/model/node.js';
import { compilePod, type Pod } from '../src/model/pod.js';
import type { PodSpecManifest } from '../src/model/manifest.js';

export interface Workload {
  readonly name: string;
  build(scale: number): { nodes: Node[]; initPods: Pod[]; measuredPods: Pod[] };
}

const ZONES = ['zone1', 'zone2', 'zone3'];

function nodes(count: number): Node[] {
  return Array.from({ length: count }, (_, i) =>
    compileNode(
      {
        metadata: { name: `node-${i}`, labels: { 'topology.kubernetes.io/zone': ZONES[i % ZONES.length]! } },
        status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } },
      },
      i,
    ),
  );
}

let order = 0;
function pods(prefix: string, count: number, labels: Record<string, string>, extra: Partial<PodSpecManifest> = {}, namespace = 'default'): Pod[] {
  return Array.from({ length: count }, (_, i) =>
    compilePod(
      {
        metadata: { name: `${prefix}-${i}`, namespace, labels },
        spec: { ...extra, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '500Mi' } } }] },
      },
      { order: order++ },
    ),
  );
}

const n = (base: number, scale: number) => Math.max(1, Math.round(base * scale));

export const WORKLOADS: readonly Workload[] = [
  {
    name: 'SchedulingBasic',
    build: (s) => ({ nodes: nodes(n(5000, s)), initPods: pods('init', n(1000, s), {}), measuredPods: pods('measured', n(10000, s), {}) }),
  },
  {
    name: 'SchedulingPodAntiAffinity',
    build: (s) => {
      const anti = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { color: 'green' } } }] } } };
      return { nodes: nodes(n(5000, s)), initPods: pods('init', n(1000, s), { color: 'green' }, anti, 'sched-0'), measuredPods: pods('measured', n(2000, s), { color: 'green' }, anti, 'sched-1') };
    },
  },
  {
    name: 'TopologySpreading',
    build: (s) => {
      const spread = { topologySpreadConstraints: [{ maxSkew: 5, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { color: 'blue' } } }] };
      return { nodes: nodes(n(5000, s)), initPods: pods('init', n(5000, s), {}), measuredPods: pods('measured', n(5000, s), { color: 'blue' }, spread) };
    },
  },
];
