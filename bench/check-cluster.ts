// Writes the cluster dump behind `berth check`'s runtime figure: what
// `kubectl get nodes,pods,deploy,sts,ds,pdb -A -o yaml` returns for 200 nodes over
// 3 zones running 60 workloads — Deployments with required or preferred
// anti-affinity, zone spread or none, StatefulSets, DaemonSets, PDBs — with every
// pod already placed. Five Deployments pinned to pairs of edge nodes with required
// anti-affinity, and a DaemonSet with a host port and maxSurge 1, cannot roll out.
// bench/check-200.ts prints it; bench/check.ts times `berth check` on it.

/**
 * The dump at `NODES` nodes (the DaemonSets grow with it, the other workloads stay),
 * plus `bulkPods` pods (rounded up to whole Deployments of BULK_REPLICAS plain
 * replicas, spread evenly over the general nodes): what makes the 5,000-node dump
 * a 100,000-pod cluster of 1,000 workloads.
 */
export function checkClusterDump(NODES = 200, bulkPods = 0): string {
  if (!Number.isInteger(NODES) || NODES < 20) throw new Error(`check cluster: the node count must be an integer ≥ 20, not ${NODES}`);
  /** The last 10 nodes are edge nodes, in pairs, for the pinned Deployments. */
  const EDGE_FROM = NODES - 10;
  const REQUESTS = '{requests: {cpu: 250m, memory: 256Mi}}';

  const out: string[] = ['apiVersion: v1', 'kind: List', 'items:'];
  const zoneOf = (i: number) => `us-west-2${'abc'[i % 3]}`;

  for (let i = 0; i < NODES; i++) {
    const edge = i >= EDGE_FROM ? `, edge-group: g${Math.floor((i - EDGE_FROM) / 2)}` : '';
    out.push(
      `- {apiVersion: v1, kind: Node, metadata: {name: n${i}, uid: node-${i}, labels: {kubernetes.io/hostname: n${i}, topology.kubernetes.io/zone: ${zoneOf(i)}${edge}}}, status: {allocatable: {cpu: '8', memory: 32Gi, pods: '110'}}}`,
    );
  }

  const self = (app: string) => `{matchLabels: {app: ${app}}}`;
  const requiredAnti = (app: string, key: string) => `{podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: ${key}, labelSelector: ${self(app)}}]}}`;
  const preferredAnti = (app: string) => `{podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: ${self(app)}}}]}}`;
  const zoneSpread = (app: string) =>
    `[{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: ${self(app)}}, {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: ${self(app)}}]`;

  interface Spec {
    affinity?: string;
    spread?: string;
    nodeSelector?: string;
    ports?: string;
  }

  function podSpec(app: string, s: Spec, nodeName?: string, pinned?: boolean): string {
    const parts = [
      ...(nodeName ? [`nodeName: ${nodeName}`] : []),
      ...(s.nodeSelector ? [`nodeSelector: ${s.nodeSelector}`] : []),
      ...(pinned && nodeName
        ? [`affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [${nodeName}]}]}]}}}`]
        : s.affinity
          ? [`affinity: ${s.affinity}`]
          : []),
      ...(s.spread ? [`topologySpreadConstraints: ${s.spread}`] : []),
      `containers: [{name: main, image: '${app}:1', ${s.ports ? `ports: ${s.ports}, ` : ''}resources: ${REQUESTS}}]`,
    ];
    return `{${parts.join(', ')}}`;
  }

  function pod(ns: string, name: string, app: string, labels: string, owner: string, s: Spec, node: string, pinned = false): void {
    out.push(
      `- {apiVersion: v1, kind: Pod, metadata: {name: ${name}, namespace: ${ns}, uid: pod-${ns}-${name}, labels: {app: ${app}${labels}}, ownerReferences: [${owner}]}, spec: ${podSpec(app, s, node, pinned)}, status: {phase: Running}}`,
    );
  }

  /** Distinct general-purpose nodes for replica i of workload k, consecutive replicas in different zones. */
  const placement = (k: number, i: number) => `n${(k * 7 + i * 67) % EDGE_FROM}`;

  function deployment(k: number, replicas: number, s: Spec, nodes?: readonly string[]): void {
    const app = `d${k}`;
    const hash = `7d9f8c6b${String(k).padStart(2, '0')}`;
    out.push(
      `- {apiVersion: apps/v1, kind: Deployment, metadata: {name: ${app}, namespace: apps, uid: deploy-${k}}, spec: {replicas: ${replicas}, selector: {matchLabels: {app: ${app}}}, template: {metadata: {labels: {app: ${app}}}, spec: ${podSpec(app, s)}}}}`,
    );
    const owner = `{apiVersion: apps/v1, kind: ReplicaSet, name: ${app}-${hash}, uid: rs-${k}, controller: true}`;
    for (let i = 0; i < replicas; i++) pod('apps', `${app}-${hash}-p${i}`, app, `, pod-template-hash: ${hash}`, owner, s, nodes?.[i] ?? placement(k, i));
  }

  function statefulSet(k: number, replicas: number, s: Spec): void {
    const app = `s${k}`;
    const revision = `${app}-6b7c8d9f5`;
    out.push(
      `- {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: ${app}, namespace: data, uid: sts-${k}}, spec: {replicas: ${replicas}, serviceName: ${app}, selector: {matchLabels: {app: ${app}}}, template: {metadata: {labels: {app: ${app}}}, spec: ${podSpec(app, s)}}}}`,
    );
    const owner = `{apiVersion: apps/v1, kind: StatefulSet, name: ${app}, uid: sts-${k}, controller: true}`;
    for (let i = 0; i < replicas; i++) pod('data', `${app}-${i}`, app, `, controller-revision-hash: ${revision}, statefulset.kubernetes.io/pod-name: ${app}-${i}`, owner, s, placement(100 + k, i));
  }

  function daemonSet(k: number, s: Spec, strategy: string): void {
    const app = `ds${k}`;
    out.push(
      `- {apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ${app}, namespace: kube-system, uid: ds-${k}}, spec: {selector: {matchLabels: {app: ${app}}}, updateStrategy: ${strategy}, template: {metadata: {labels: {app: ${app}}}, spec: ${podSpec(app, s)}}}}`,
    );
    const owner = `{apiVersion: apps/v1, kind: DaemonSet, name: ${app}, uid: ds-${k}, controller: true}`;
    for (let i = 0; i < NODES; i++) pod('kube-system', `${app}-n${i}`, app, ', controller-revision-hash: 5f6d7c8b9a', owner, s, `n${i}`, true);
  }

  function pdb(ns: string, app: string, budget: string): void {
    out.push(`- {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: ${app}, namespace: ${ns}}, spec: {${budget}, selector: {matchLabels: {app: ${app}}}}}`);
  }

  let k = 0;
  for (; k < 10; k++) {
    deployment(k, 3, { affinity: requiredAnti(`d${k}`, 'kubernetes.io/hostname') });
    pdb('apps', `d${k}`, 'minAvailable: 2');
  }
  for (; k < 20; k++) deployment(k, 4, { affinity: preferredAnti(`d${k}`) });
  for (; k < 30; k++) deployment(k, 6, { spread: zoneSpread(`d${k}`) });
  for (; k < 40; k++) deployment(k, 2 + (k % 9), {});
  for (let g = 0; k < 45; k++, g++) {
    const nodes = [`n${EDGE_FROM + 2 * g}`, `n${EDGE_FROM + 2 * g + 1}`];
    deployment(k, 2, { affinity: requiredAnti(`d${k}`, 'kubernetes.io/hostname'), nodeSelector: `{edge-group: g${g}}` }, nodes);
  }
  for (let s = 0; s < 10; s++) {
    statefulSet(s, 3, s < 5 ? { affinity: requiredAnti(`s${s}`, 'topology.kubernetes.io/zone') } : {});
    pdb('data', `s${s}`, 'maxUnavailable: 1');
  }
  for (let d = 0; d < 5; d++) {
    const surge = d === 0;
    daemonSet(d, surge ? { ports: '[{containerPort: 9100, hostPort: 9100}]' } : {}, surge ? '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' : '{type: RollingUpdate}');
  }
  // Bulk Deployments after the others (the 200- and 1,000-node dumps stay as they were), replica j of all on node j mod the general nodes.
  for (let b = 0, j = 0; b * BULK_REPLICAS < bulkPods; b++, k++) {
    const nodes = Array.from({ length: BULK_REPLICAS }, () => `n${j++ % EDGE_FROM}`);
    deployment(k, BULK_REPLICAS, {}, nodes);
  }
  return `${out.join('\n')}\n`;
}

/** Replicas of each bulk Deployment. */
export const BULK_REPLICAS = 75;

/** The sizes `berth check` is measured at: 200 and 1,000 nodes as the issue's figures, 5,000 nodes with 100,000+ pods and 1,000+ workloads. */
export const CHECK_SIZES = {
  200: { nodes: 200, bulkPods: 0 },
  1000: { nodes: 1000, bulkPods: 0 },
  5000: { nodes: 5000, bulkPods: 75_000 },
} as const;
