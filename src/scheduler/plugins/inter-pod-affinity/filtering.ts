// InterPodAffinity filtering (filtering.go, with the alpha
// InterPodAffinityHostnameFastPath gate at its v1.37 default: off).
//
// PreFilter counts, per topology pair, three things once per pod:
//  - existing pods whose required anti-affinity terms match the incoming pod
//    (only nodes hosting pods with required anti-affinity are looked at);
//  - existing pods that match every required affinity term of the incoming pod;
//  - existing pods that match each required anti-affinity term of the incoming pod.
// Filter then answers per node from those counts.

import type { NodeInfo } from '../../../cluster/node-info.js';
import type { Node } from '../../../model/node.js';
import type { Pod } from '../../../model/pod.js';
import type { Labels } from '../../../model/selector.js';
import type { StateData } from '../../framework.js';
import { Status } from '../../status.js';
import { matchesAllTerms, mergeTermNamespaces, termMatches, type MergedTerm } from './terms.js';
import { labelValue, TopologyCounts } from './topology-counts.js';

export const PRE_FILTER_STATE_KEY = 'PreFilterInterPodAffinity';

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

export class PreFilterState implements StateData {
  constructor(
    readonly pod: Pod,
    /** The incoming pod's namespace labels, for existing pods' namespace selectors. */
    readonly namespaceLabels: Labels,
    readonly affinityTerms: readonly MergedTerm[],
    readonly antiAffinityTerms: readonly MergedTerm[],
    readonly existingAntiAffinityCounts: TopologyCounts,
    readonly affinityCounts: TopologyCounts,
    readonly antiAffinityCounts: TopologyCounts,
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(
      this.pod,
      this.namespaceLabels,
      this.affinityTerms,
      this.antiAffinityTerms,
      this.existingAntiAffinityCounts.clone(),
      this.affinityCounts.clone(),
      this.antiAffinityCounts.clone(),
    );
  }

  /** updateWithPod: accounts `pod` on `node` (multiplier 1) or takes it back (-1), for AddPod/RemovePod. */
  updateWithPod(pod: Pod, node: Node, multiplier: 1 | -1): void {
    countExistingAntiAffinity(this.existingAntiAffinityCounts, pod, this.pod, this.namespaceLabels, node.labels, multiplier);
    countIncomingTerms(this, pod, node.labels, multiplier);
  }

  /** Upstream's Skip: nothing counted against the incoming pod and it has no required terms of its own. */
  get skippable(): boolean {
    return this.existingAntiAffinityCounts.size === 0 && this.affinityTerms.length === 0 && this.antiAffinityTerms.length === 0;
  }
}

/** Each required anti-affinity term of `existing` that matches `incoming` counts once for the node's pair. */
function countExistingAntiAffinity(counts: TopologyCounts, existing: Pod, incoming: Pod, nsLabels: Labels, nodeLabels: Labels, delta: number): void {
  for (const term of existing.requiredAntiAffinity) {
    if (termMatches(term, incoming, nsLabels)) counts.addForNode(nodeLabels, term.topologyKey, delta);
  }
}

/** An existing pod counts for every affinity term only when it matches all of them; for each anti-affinity term it matches. */
function countIncomingTerms(s: PreFilterState, existing: Pod, nodeLabels: Labels, delta: number): void {
  if (matchesAllTerms(s.affinityTerms, existing)) {
    for (const t of s.affinityTerms) s.affinityCounts.addForNode(nodeLabels, t.topologyKey, delta);
  }
  for (const t of s.antiAffinityTerms) {
    if (t.matches(existing)) s.antiAffinityCounts.addForNode(nodeLabels, t.topologyKey, delta);
  }
}

/**
 * `antiAffinityNodes` are the nodes among `nodes` that host pods with required
 * anti-affinity, in the same order (the cluster keeps that list incrementally).
 */
export function computePreFilterState(pod: Pod, nodes: readonly NodeInfo[], antiAffinityNodes: readonly NodeInfo[], namespaceLabels: (ns: string) => Labels): PreFilterState {
  const nsLabels = namespaceLabels(pod.namespace);
  const s = new PreFilterState(
    pod,
    nsLabels,
    pod.requiredAffinity.map((t) => mergeTermNamespaces(t, namespaceLabels)),
    pod.requiredAntiAffinity.map((t) => mergeTermNamespaces(t, namespaceLabels)),
    new TopologyCounts(),
    new TopologyCounts(),
    new TopologyCounts(),
  );
  for (const info of antiAffinityNodes) {
    for (const existing of info.podsWithRequiredAntiAffinity) {
      countExistingAntiAffinity(s.existingAntiAffinityCounts, existing, pod, nsLabels, info.node.labels, 1);
    }
  }
  if (s.affinityTerms.length > 0 || s.antiAffinityTerms.length > 0) {
    for (const info of nodes) for (const existing of info.pods) countIncomingTerms(s, existing, info.node.labels, 1);
  }
  return s;
}

/**
 * Every affinity term's key must be on the node, and each pair must hold a
 * matching pod. Failing that, the pod may still be the first of a group that
 * wants to be together: allowed when no matching pod was counted anywhere and
 * the pod matches all its own terms.
 */
function satisfiesAffinity(s: PreFilterState, labels: Labels): boolean {
  if (s.affinityTerms.length === 0) return true;
  let podsExist = true;
  for (const t of s.affinityTerms) {
    const value = labelValue(labels, t.topologyKey);
    if (value === undefined) return false;
    if (s.affinityCounts.get(t.topologyKey, value) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  return s.affinityCounts.size === 0 && matchesAllTerms(s.affinityTerms, s.pod);
}

function satisfiesAntiAffinity(s: PreFilterState, labels: Labels): boolean {
  if (s.antiAffinityCounts.size === 0) return true;
  for (const t of s.antiAffinityTerms) {
    const value = labelValue(labels, t.topologyKey);
    if (value !== undefined && s.antiAffinityCounts.get(t.topologyKey, value) > 0) return false;
  }
  return true;
}

export function filterNode(s: PreFilterState, info: NodeInfo): Status {
  const labels = info.node.labels;
  if (!satisfiesAffinity(s, labels)) return Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH);
  if (!satisfiesAntiAffinity(s, labels)) return Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
  if (s.existingAntiAffinityCounts.size > 0 && s.existingAntiAffinityCounts.anyPositiveFor(labels)) {
    return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
  }
  return Status.SUCCESS;
}
