// What the API server stores for a generated case, before the oracle sees it.
//
// berth's compilePod merges matchLabelKeys/mismatchLabelKeys into label selectors
// itself (it reads manifests as users write them). The oracle receives objects
// as the API server keeps them after admission, and its own defaulting
// (objects.go: SetObjectDefaults_*, namespace, uid, priority) does not do this
// merge. So the harness applies the pod strategy's mutation here
// (pkg/registry/core/pod/strategy.go, v1.37.2, both gates on by default):
// - PodAffinityTerm (MatchLabelKeysInPodAffinity): for each key in
//   matchLabelKeys / mismatchLabelKeys that the pod has a label for, append
//   `key In (value)` / `key NotIn (value)` to labelSelector.matchExpressions;
//   nothing when labelSelector is nil.
// - TopologySpreadConstraint (MatchLabelKeysInPodTopologySpreadSelectorMerge):
//   the same with `In` for matchLabelKeys.
// The fields themselves stay, as the API server keeps them. kube-scheduler
// ignores them for affinity and merges them once more for spreading, which
// adds a duplicate requirement and selects the same pods.
// A case's feature gates hold for the whole cluster: the strategy merges into spread
// selectors only with MatchLabelKeysInPodTopologySpread and
// MatchLabelKeysInPodTopologySpreadSelectorMerge both on (mutateTopologySpreadConstraints),
// and with the first off it drops the field (dropDisabledMatchLabelKeysFieldInTopologySpread).

import type { ConformanceCase, Json } from './generators.js';

type Requirement = { key: string; operator: string; values: string[] };

function mergeKeys(selector: Json | undefined, labels: Record<string, string>, keys: readonly string[] | undefined, operator: 'In' | 'NotIn'): void {
  if (!selector || !keys) return;
  for (const key of keys) {
    const value = labels[key];
    if (value === undefined) continue;
    const list = (selector['matchExpressions'] as Requirement[] | undefined) ?? [];
    list.push({ key, operator, values: [value] });
    selector['matchExpressions'] = list;
  }
}

function mutateTerm(term: Json, labels: Record<string, string>): void {
  const selector = term['labelSelector'] as Json | undefined;
  mergeKeys(selector, labels, term['matchLabelKeys'] as string[] | undefined, 'In');
  mergeKeys(selector, labels, term['mismatchLabelKeys'] as string[] | undefined, 'NotIn');
}

/** A deep copy of `pod` with matchLabelKeys and mismatchLabelKeys merged as at admission. */
export function admitPod(pod: Json, gates: Readonly<Record<string, boolean>> = {}): Json {
  // A JSON copy, not structuredClone: objects shared in the input must not stay shared.
  const out = JSON.parse(JSON.stringify(pod)) as Json;
  const labels = ((out['metadata'] as Json)['labels'] as Record<string, string> | undefined) ?? {};
  const spec = out['spec'] as Json;
  const affinity = spec['affinity'] as Json | undefined;
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity?.[kind] as Json | undefined;
    for (const t of (a?.['requiredDuringSchedulingIgnoredDuringExecution'] as Json[] | undefined) ?? []) mutateTerm(t, labels);
    for (const w of (a?.['preferredDuringSchedulingIgnoredDuringExecution'] as Json[] | undefined) ?? []) mutateTerm(w['podAffinityTerm'] as Json, labels);
  }
  for (const c of (spec['topologySpreadConstraints'] as Json[] | undefined) ?? []) {
    if (gates['MatchLabelKeysInPodTopologySpread'] === false) delete c['matchLabelKeys'];
    else if (gates['MatchLabelKeysInPodTopologySpreadSelectorMerge'] !== false) mergeKeys(c['labelSelector'] as Json | undefined, labels, c['matchLabelKeys'] as string[] | undefined, 'In');
  }
  return out;
}

/** The oracle's input line for a case (pods admitted; everything else as generated). */
export function toOracleCase(c: ConformanceCase, id: string): Json {
  return {
    id,
    nodes: c.nodes,
    pods: c.pods.map((p) => admitPod(p, c.featureGates)),
    pod: admitPod(c.pod, c.featureGates),
    ...(c.namespaces.length > 0 ? { namespaces: c.namespaces } : {}),
    ...(c.pdbs.length > 0 ? { pdbs: c.pdbs } : {}),
    ...(c.priorityClasses.length > 0 ? { priorityClasses: c.priorityClasses } : {}),
    ...(c.services?.length ? { services: c.services } : {}),
    ...(c.replicaSets?.length ? { replicaSets: c.replicaSets } : {}),
    ...(c.statefulSets?.length ? { statefulSets: c.statefulSets } : {}),
    ...(c.pvs?.length ? { pvs: c.pvs } : {}),
    ...(c.pvcs?.length ? { pvcs: c.pvcs } : {}),
    ...(c.storageClasses?.length ? { storageClasses: c.storageClasses } : {}),
    ...(c.csiNodes?.length ? { csiNodes: c.csiNodes } : {}),
    ...(c.csiDrivers?.length ? { csiDrivers: c.csiDrivers } : {}),
    ...(c.csiStorageCapacities?.length ? { csiStorageCapacities: c.csiStorageCapacities } : {}),
    ...(c.volumeAttachments?.length ? { volumeAttachments: c.volumeAttachments } : {}),
    ...(c.config ? { config: c.config } : {}),
    ...(c.featureGates ? { featureGates: c.featureGates } : {}),
    preemptionOffset: c.preemptionOffset,
  };
}
