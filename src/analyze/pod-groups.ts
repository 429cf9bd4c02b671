// Which pods belong together for the HA checks: the pods of each Deployment,
// StatefulSet and standalone ReplicaSet (DaemonSets are per node by design, so
// losing a node's copy is expected), and sets of controller-less pods written as
// replicas of one another (same namespace and labels, like the apiserver pods of
// the incidents). Membership is decided on a pod's namespace and labels, as the
// controllers adopt pods, so pods the simulator creates later are found too.

import type { LoadedInput } from '../io/load.js';
import type { WorkloadSummary } from '../io/load-workloads.js';
import { disruptionsAllowed, type PodDisruptionBudget } from '../model/pdb.js';
import type { Pod } from '../model/pod.js';
import type { Labels } from '../model/selector.js';

export interface PodGroup {
  readonly kind: 'Deployment' | 'StatefulSet' | 'ReplicaSet' | 'Pod';
  readonly namespace: string;
  /** The workload's name; for controller-less pods, the first pod's. */
  readonly name: string;
  /** Kind/namespace/name, as findings name objects. */
  readonly object: string;
  /** Desired pods: spec.replicas, or how many controller-less pods there are. */
  readonly replicas: number;
  /** A pod as the group's controller creates it (controller-less: the one with the most placement constraints). */
  readonly templatePod: Pod;
  /** The labels a selector for the group's pods must match (workload: matchLabels of its selector). */
  readonly matchLabels: Labels;
  readonly workload?: WorkloadSummary;
  /** Whether a pod (of the input or created in a simulation) is one of the group's. */
  has(pod: Pick<Pod, 'namespace' | 'labels' | 'ownerReferences'>): boolean;
  /** A label every pod `has` takes carries, with one of these values (absent: none known): what groupFinder indexes by. */
  readonly requiredLabel?: { readonly key: string; readonly values: readonly string[] };
}

const isControlled = (p: Pick<Pod, 'ownerReferences'>) => p.ownerReferences.some((r) => r.controller);

const sameLabels = (a: Labels, b: Labels): boolean => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
};

function workloadGroup(w: WorkloadSummary): PodGroup {
  const required = w.selector.requirements.find((r) => r.operator === 'In');
  return {
    kind: w.kind as PodGroup['kind'],
    namespace: w.namespace,
    name: w.name,
    object: `${w.kind}/${w.namespace}/${w.name}`,
    replicas: w.replicas,
    templatePod: w.templatePod,
    matchLabels: w.selectorSpec.matchLabels ?? w.templatePod.labels,
    workload: w,
    has: (p) => p.namespace === w.namespace && isControlled(p) && w.selector.matches(p.labels),
    ...(required ? { requiredLabel: { key: required.key, values: required.values } } : {}),
  };
}

/** Controller-less, unfinished pods with labels, grouped by namespace and identical labels, in input order. */
function barePodGroups(pods: readonly Pod[]): PodGroup[] {
  const groups: Pod[][] = [];
  for (const p of pods) {
    if (isControlled(p) || Object.keys(p.labels).length === 0 || p.phase === 'Succeeded' || p.phase === 'Failed') continue;
    const g = groups.find((x) => x[0]!.namespace === p.namespace && sameLabels(x[0]!.labels, p.labels));
    if (g) g.push(p);
    else groups.push([p]);
  }
  // The pod that says most about placement stands for the set (the incident's first
  // apiserver pod was written before the spread constraints its siblings carry).
  const constraints = (p: Pod) => p.topologySpreadConstraints.length + p.requiredAntiAffinity.length + p.preferredAntiAffinity.length + p.requiredAffinity.length;
  return groups.map((g) => {
    const first = g[0]!;
    const firstKey = Object.keys(first.labels)[0]!;
    const representative = g.reduce((best, p) => (constraints(p) > constraints(best) ? p : best), first);
    return {
      kind: 'Pod',
      namespace: first.namespace,
      name: first.name,
      object: `Pod/${first.namespace}/${first.name}`,
      replicas: g.length,
      templatePod: representative,
      matchLabels: first.labels,
      has: (p) => p.namespace === first.namespace && !isControlled(p) && sameLabels(p.labels, first.labels),
      requiredLabel: { key: firstKey, values: [first.labels[firstKey]!] },
    };
  });
}

/** A ReplicaSet whose pods a Deployment of the input selects: one of the Deployment's, analysed through it. */
const ownedByDeployment = (rs: WorkloadSummary, all: readonly WorkloadSummary[]) =>
  all.some((d) => d.kind === 'Deployment' && d.namespace === rs.namespace && d.selector.matches(rs.templatePod.labels));

const groupsOf = new WeakMap<LoadedInput, readonly PodGroup[]>();

/**
 * The replicated groups the HA checks analyse: workloads other than DaemonSets, then
 * controller-less pod sets. Made once per input (checks ask per workload, and the
 * bare-pod sets scan every pod): the same group objects every time.
 */
export function podGroups(input: LoadedInput): readonly PodGroup[] {
  let groups = groupsOf.get(input);
  if (!groups) {
    const workloads = input.workloads
      .filter((w) => w.kind !== 'DaemonSet' && !(w.kind === 'ReplicaSet' && ownedByDeployment(w, input.workloads)))
      .map(workloadGroup);
    groupsOf.set(input, (groups = [...workloads, ...barePodGroups(input.pods)]));
  }
  return groups;
}

/**
 * `(pod) => groups.filter((g) => g.has(pod))`, for many pods: asks only the groups
 * of the pod's namespace whose required label the pod carries (and those without
 * one), in the groups' order. Without it, matching every pod of a 100,000-pod
 * cluster against each of 1,000 workloads costs pods × workloads.
 */
export function groupFinder(groups: readonly PodGroup[]): (pod: Pick<Pod, 'namespace' | 'labels' | 'ownerReferences'>) => PodGroup[] {
  /** Namespace → label key → value → indexes of the groups that require it. */
  const index = new Map<string, Map<string, Map<string, number[]>>>();
  const unindexed: number[] = [];
  groups.forEach((g, i) => {
    const r = g.requiredLabel;
    if (!r) return unindexed.push(i);
    let byKey = index.get(g.namespace);
    if (!byKey) index.set(g.namespace, (byKey = new Map()));
    let byValue = byKey.get(r.key);
    if (!byValue) byKey.set(r.key, (byValue = new Map()));
    for (const v of new Set(r.values)) {
      const list = byValue.get(v);
      if (list) list.push(i);
      else byValue.set(v, [i]);
    }
  });
  return (pod) => {
    const candidates = [...unindexed];
    const byKey = index.get(pod.namespace);
    // A pod has one value per key, and a group is indexed under one key: no index comes twice.
    if (byKey) for (const key in pod.labels) candidates.push(...(byKey.get(key)?.get(pod.labels[key]!) ?? []));
    if (candidates.length > 1) candidates.sort((a, b) => a - b);
    const out: PodGroup[] = [];
    for (const i of candidates) if (groups[i]!.has(pod)) out.push(groups[i]!);
    return out;
  };
}

/** The pods of `pods` that belong to `group`. */
export function podsOf(group: PodGroup, pods: Iterable<Pod>): Pod[] {
  return [...pods].filter((p) => group.has(p));
}

/** The PDBs whose selector takes in the group's pods. */
export function pdbsOf(group: PodGroup, pdbs: readonly PodDisruptionBudget[]): PodDisruptionBudget[] {
  return pdbs.filter((b) => b.namespace === group.namespace && b.selector.matches(group.templatePod.labels));
}

/** The most ready replicas any of the group's PDBs asks for when all `replicas` are expected (0 without a PDB). */
export function budgetFloor(group: PodGroup, pdbs: readonly PodDisruptionBudget[], replicas = group.replicas): { floor: number; pdb?: PodDisruptionBudget } {
  let best: { floor: number; pdb?: PodDisruptionBudget } = { floor: 0 };
  for (const pdb of pdbsOf(group, pdbs)) {
    const floor = replicas - disruptionsAllowed(pdb, replicas, replicas);
    if (floor > best.floor) best = { floor, pdb };
  }
  return best;
}
