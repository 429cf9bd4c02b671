// The scheduler_perf cases berth is benchmarked on, written from upstream's
// test/integration/scheduler_perf configs (misc/, affinity/, topology_spreading/)
// and their templates: the same node template (4 CPU, 32Gi, 110 pods), the same
// pod templates (100m / 500Mi, requests = limits, a container port 80) and the
// same counts. A workload is a compact description (templates + counts) that
// both sides stamp out: berth here, the Go oracle's bench mode (the upstream
// framework) from the same JSON, so no giant case file is ever written.

import type { NodeManifest, PodManifest, PodSpecManifest } from '../src/model/manifest.js';

export const LABEL_ZONE = 'topology.kubernetes.io/zone';

/**
 * `count` nodes named `<prefix>-<i>` (or one node named `prefix` when `exactName`),
 * hostname-labelled as a kubelet would, zone label round-robin over `zones`.
 */
export interface NodeGroup {
  readonly prefix: string;
  readonly count: number;
  readonly exactName?: boolean;
  readonly template: NodeManifest;
  readonly zones?: readonly string[];
}

/** `count` pods named `<prefix>-<i>` in `namespace`; only measured groups count towards pods/s. */
export interface PodGroup {
  readonly prefix: string;
  readonly count: number;
  readonly namespace: string;
  readonly template: PodManifest;
  readonly measured: boolean;
}

/** What is sent to the oracle's bench mode, one JSON line per workload. */
export interface WorkloadSpec {
  readonly name: string;
  readonly nodes: readonly NodeGroup[];
  readonly pods: readonly PodGroup[];
}

export interface Sizes {
  readonly nodes: number;
  readonly initPods: number;
  readonly measuredPods: number;
}

export interface Workload {
  readonly name: string;
  /** Upstream's performance-labelled size. */
  readonly full: Sizes;
  /** A small size for `npm run bench -- --quick`. */
  readonly quick: Sizes;
  build(sizes: Sizes): WorkloadSpec;
}

const NODE_DEFAULT: NodeManifest = {
  metadata: {},
  status: { capacity: { pods: '110', cpu: '4', memory: '32Gi' }, conditions: [{ type: 'Ready', status: 'True' }] },
};

/** node-with-name.yaml: the one node SchedulingDaemonset's pods select by metadata.name. */
const DAEMONSET_TARGET = 'scheduler-perf-node';
const NODE_WITH_NAME: NodeManifest = {
  metadata: {},
  status: { capacity: { pods: '90000', cpu: '4', memory: '32Gi' }, conditions: [{ type: 'Ready', status: 'True' }] },
};

const REQUESTS = { cpu: '100m', memory: '500Mi' };

function pod(labels: Record<string, string>, spec: Partial<PodSpecManifest> = {}, image = 'registry.k8s.io/pause:3.10.1'): PodManifest {
  return {
    metadata: Object.keys(labels).length > 0 ? { labels } : {},
    spec: { ...spec, containers: [{ name: 'pause', image, ports: [{ containerPort: 80 }], resources: { limits: REQUESTS, requests: REQUESTS } }] },
  };
}

const AFFINITY_NAMESPACES = ['sched-1', 'sched-0'];
const term = (color: string, topologyKey: string) => ({ labelSelector: { matchLabels: { color } }, topologyKey, namespaces: AFFINITY_NAMESPACES });

const POD_DEFAULT = pod({});
const POD_ANTI_AFFINITY = pod({ color: 'green' }, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('green', 'kubernetes.io/hostname')] } } });
const POD_AFFINITY = pod({ color: 'blue' }, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('blue', LABEL_ZONE)] } } });
const POD_PREFERRED_AFFINITY = pod({ color: 'red' }, { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term('red', 'kubernetes.io/hostname') }] } } });
const POD_PREFERRED_ANTI_AFFINITY = pod(
  { color: 'yellow' },
  { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term('yellow', 'kubernetes.io/hostname') }] } } },
);
const spreading = (whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway') =>
  pod({ color: 'blue' }, { topologySpreadConstraints: [{ maxSkew: 5, topologyKey: LABEL_ZONE, whenUnsatisfiable, labelSelector: { matchLabels: { color: 'blue' } } }] });
const POD_NODE_AFFINITY = pod(
  {},
  { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['zone1', 'zone2'] }] }] } } } },
);
/** daemonset-pod.yaml: no requests, required node affinity on metadata.name (NodeAffinity's PreFilterResult). */
const POD_DAEMONSET: PodManifest = {
  metadata: {},
  spec: {
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [DAEMONSET_TARGET] }] }] } } },
    containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10.2' }],
  },
};

const nodes = (count: number, zones?: readonly string[]): NodeGroup => ({ prefix: 'node', count, template: NODE_DEFAULT, ...(zones ? { zones } : {}) });
const pods = (prefix: string, count: number, template: PodManifest, namespace: string, measured: boolean): PodGroup => ({ prefix, count, namespace, template, measured });
const MOONS = ['moon-1', 'moon-2', 'moon-3'];

/** createPods without a namespace: scheduler_perf makes one per op; one shared namespace is equivalent here. */
const OWN_NS = 'namespace-1';

/** Init pods in sched-0 and measured pods in sched-1, one template (the affinity cases). */
const twoNamespaces =
  (template: PodManifest, zones?: readonly string[]) =>
  (s: Sizes): Omit<WorkloadSpec, 'name'> => ({
    nodes: [nodes(s.nodes, zones)],
    pods: [pods('init', s.initPods, template, 'sched-0', false), pods('measured', s.measuredPods, template, 'sched-1', true)],
  });

const ZONE1 = ['zone1'];

type Def = Omit<Workload, 'build'> & { spec(s: Sizes): Omit<WorkloadSpec, 'name'> };

/** topology_spreading/: plain init pods on three zones, measured pods spread by zone with maxSkew 5. */
const spreadingCase = (name: string, whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway'): Def => ({
  name,
  full: { nodes: 5000, initPods: 5000, measuredPods: 5000 },
  quick: { nodes: 500, initPods: 1000, measuredPods: 1000 },
  spec: (s) => ({ nodes: [nodes(s.nodes, MOONS)], pods: [pods('init', s.initPods, POD_DEFAULT, OWN_NS, false), pods('measured', s.measuredPods, spreading(whenUnsatisfiable), OWN_NS, true)] }),
});

const DEFS: readonly Def[] = [
  {
    name: 'SchedulingBasic',
    full: { nodes: 5000, initPods: 1000, measuredPods: 10000 },
    quick: { nodes: 500, initPods: 500, measuredPods: 1000 },
    spec: (s) => ({ nodes: [nodes(s.nodes)], pods: [pods('init', s.initPods, POD_DEFAULT, OWN_NS, false), pods('measured', s.measuredPods, POD_DEFAULT, OWN_NS, true)] }),
  },
  {
    name: 'SchedulingPodAntiAffinity',
    full: { nodes: 5000, initPods: 1000, measuredPods: 2000 },
    quick: { nodes: 500, initPods: 100, measuredPods: 400 },
    spec: twoNamespaces(POD_ANTI_AFFINITY),
  },
  {
    name: 'SchedulingPodAffinity',
    full: { nodes: 5000, initPods: 5000, measuredPods: 5000 },
    quick: { nodes: 500, initPods: 500, measuredPods: 1000 },
    spec: twoNamespaces(POD_AFFINITY, ZONE1),
  },
  {
    name: 'SchedulingPreferredPodAntiAffinity',
    full: { nodes: 5000, initPods: 5000, measuredPods: 5000 },
    quick: { nodes: 500, initPods: 500, measuredPods: 1000 },
    spec: twoNamespaces(POD_PREFERRED_ANTI_AFFINITY),
  },
  spreadingCase('TopologySpreading', 'DoNotSchedule'),
  spreadingCase('PreferredTopologySpreading', 'ScheduleAnyway'),
  {
    name: 'MixedSchedulingBasePod',
    full: { nodes: 5000, initPods: 2000, measuredPods: 5000 },
    quick: { nodes: 500, initPods: 200, measuredPods: 1000 },
    // initPods of each of five templates in sched-0, then plain measured pods.
    spec: (s) => ({
      nodes: [nodes(s.nodes, ZONE1)],
      pods: [
        pods('init-default', s.initPods, POD_DEFAULT, 'sched-0', false),
        pods('init-affinity', s.initPods, POD_AFFINITY, 'sched-0', false),
        pods('init-anti-affinity', s.initPods, POD_ANTI_AFFINITY, 'sched-0', false),
        pods('init-preferred-affinity', s.initPods, POD_PREFERRED_AFFINITY, 'sched-0', false),
        pods('init-preferred-anti-affinity', s.initPods, POD_PREFERRED_ANTI_AFFINITY, 'sched-0', false),
        pods('measured', s.measuredPods, POD_DEFAULT, OWN_NS, true),
      ],
    }),
  },
  {
    name: 'SchedulingNodeAffinity',
    full: { nodes: 5000, initPods: 5000, measuredPods: 10000 },
    quick: { nodes: 500, initPods: 500, measuredPods: 1000 },
    spec: (s) => ({ nodes: [nodes(s.nodes, ZONE1)], pods: [pods('init', s.initPods, POD_NODE_AFFINITY, OWN_NS, false), pods('measured', s.measuredPods, POD_NODE_AFFINITY, OWN_NS, true)] }),
  },
  {
    name: 'SchedulingDaemonset',
    full: { nodes: 15000, initPods: 0, measuredPods: 30000 },
    quick: { nodes: 1500, initPods: 0, measuredPods: 1000 },
    spec: (s) => ({
      nodes: [{ prefix: DAEMONSET_TARGET, count: 1, exactName: true, template: NODE_WITH_NAME }, nodes(s.nodes)],
      pods: [pods('measured', s.measuredPods, POD_DAEMONSET, OWN_NS, true)],
    }),
  },
];

export const WORKLOADS: readonly Workload[] = DEFS.map((d) => ({
  name: d.name,
  full: d.full,
  quick: d.quick,
  build: (s: Sizes) => ({ name: d.name, ...d.spec(s) }),
}));
