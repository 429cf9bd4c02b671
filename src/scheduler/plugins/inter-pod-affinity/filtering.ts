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
import { Code, Status } from '../../status.js';
import { clusterTally } from '../../../cluster/node-tally.js';
import type { ClusterState } from '../../../cluster/state.js';
import { fixedNamespaces, labelsKey, matchesAllTerms, mergeTermNamespaces, termKey, termMatches, type MergedTerm } from './terms.js';
import { labelValue, TopologyCounts } from './topology-counts.js';

export const INTER_POD_AFFINITY = 'InterPodAffinity';
export const PRE_FILTER_STATE_KEY = 'PreFilterInterPodAffinity';

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

/** The three counters of the PreFilter state. */
interface Counters {
  readonly existingAntiAffinity: TopologyCounts;
  readonly affinity: TopologyCounts;
  readonly antiAffinity: TopologyCounts;
}

const copyCounters = (c: Counters): Counters => ({ existingAntiAffinity: c.existingAntiAffinity.clone(), affinity: c.affinity.clone(), antiAffinity: c.antiAffinity.clone() });

export class PreFilterState implements StateData {
  /**
   * The counters may be shared (with the cluster's tally, which stays unchanged
   * for the cycle, or with clones of this state): they are copied before the
   * first AddPod/RemovePod changes them, so most cycles copy nothing.
   */
  private counters: Counters;
  private owned: boolean;

  constructor(
    readonly pod: Pod,
    /** The incoming pod's namespace labels, for existing pods' namespace selectors. */
    readonly namespaceLabels: Labels,
    readonly affinityTerms: readonly MergedTerm[],
    readonly antiAffinityTerms: readonly MergedTerm[],
    counters: Counters,
    owned: boolean,
  ) {
    this.counters = counters;
    this.owned = owned;
  }

  get existingAntiAffinityCounts(): TopologyCounts {
    return this.counters.existingAntiAffinity;
  }

  get affinityCounts(): TopologyCounts {
    return this.counters.affinity;
  }

  get antiAffinityCounts(): TopologyCounts {
    return this.counters.antiAffinity;
  }

  clone(): PreFilterState {
    // Both now share the counters: whichever changes them first copies.
    this.owned = false;
    return new PreFilterState(this.pod, this.namespaceLabels, this.affinityTerms, this.antiAffinityTerms, this.counters, false);
  }

  /** updateWithPod: accounts `pod` on `node` (multiplier 1) or takes it back (-1), for AddPod/RemovePod. */
  updateWithPod(pod: Pod, node: Node, multiplier: 1 | -1): void {
    if (!this.owned) {
      this.counters = copyCounters(this.counters);
      this.owned = true;
    }
    countExistingAntiAffinity(this.counters.existingAntiAffinity, pod, this.pod, this.namespaceLabels, node.labels, multiplier);
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

/** A node's labels and the topology keys it adds one count to, for each counter of the PreFilter state. */
interface NodeCounts {
  readonly labels: Labels;
  readonly existingAntiAffinity: string[];
  readonly affinity: string[];
  readonly antiAffinity: string[];
}

function nodeCounts(info: NodeInfo, incoming: Pod, nsLabels: Labels, affinityTerms: readonly MergedTerm[], antiAffinityTerms: readonly MergedTerm[]): NodeCounts {
  const c: NodeCounts = { labels: info.node.labels, existingAntiAffinity: [], affinity: [], antiAffinity: [] };
  // Each required anti-affinity term of an existing pod that matches the incoming pod counts once.
  for (const existing of info.podsWithRequiredAntiAffinity) {
    for (const term of existing.requiredAntiAffinity) if (termMatches(term, incoming, nsLabels)) c.existingAntiAffinity.push(term.topologyKey);
  }
  if (affinityTerms.length > 0 || antiAffinityTerms.length > 0) {
    for (const existing of info.pods) {
      if (matchesAllTerms(affinityTerms, existing)) for (const t of affinityTerms) c.affinity.push(t.topologyKey);
      for (const t of antiAffinityTerms) if (t.matches(existing)) c.antiAffinity.push(t.topologyKey);
    }
  }
  return c;
}

function applyNodeCounts(t: Counters, c: NodeCounts, sign: 1 | -1): void {
  for (const key of c.existingAntiAffinity) t.existingAntiAffinity.addForNode(c.labels, key, sign);
  for (const key of c.affinity) t.affinity.addForNode(c.labels, key, sign);
  for (const key of c.antiAffinity) t.antiAffinity.addForNode(c.labels, key, sign);
}

const freshCounters = (): Counters => ({ existingAntiAffinity: new TopologyCounts(), affinity: new TopologyCounts(), antiAffinity: new TopologyCounts() });

/**
 * `antiAffinityNodes` are the nodes among `nodes` that host pods with required
 * anti-affinity, in the same order (the cluster keeps that list incrementally).
 * Over the whole cluster (`cluster` given and `nodes` its node list) the counts
 * come from a tally kept across cycles for pods alike in everything they depend
 * on (labels, namespace and its labels, required terms).
 */
export function computePreFilterState(
  pod: Pod,
  nodes: readonly NodeInfo[],
  antiAffinityNodes: readonly NodeInfo[],
  namespaceLabels: (ns: string) => Labels,
  cluster?: ClusterState,
): PreFilterState {
  const nsLabels = namespaceLabels(pod.namespace);
  const affinityTerms = pod.requiredAffinity.map((t) => mergeTermNamespaces(t, namespaceLabels));
  const antiAffinityTerms = pod.requiredAntiAffinity.map((t) => mergeTermNamespaces(t, namespaceLabels));
  let counters: Counters;
  let owned = true;
  const incomingTerms = affinityTerms.length > 0 || antiAffinityTerms.length > 0;
  // A pod without terms of its own only looks at the nodes hosting anti-affinity pods: few of them are cheaper to walk than the tally.
  const worthTally = incomingTerms || antiAffinityNodes.length * 8 > nodes.length;
  if (worthTally && cluster !== undefined && nodes === cluster.nodeInfos() && fixedNamespaces(pod.requiredAffinity) && fixedNamespaces(pod.requiredAntiAffinity)) {
    const query = ['ipa-filter', pod.namespace, labelsKey(pod.labels), labelsKey(nsLabels), pod.requiredAffinity.map(termKey).join(';'), pod.requiredAntiAffinity.map(termKey).join(';')].join('\x01');
    const kept = clusterTally(cluster, query, () => ({
      totals: freshCounters(),
      contribution: (info) => nodeCounts(info, pod, nsLabels, affinityTerms, antiAffinityTerms),
      apply: applyNodeCounts,
      copy: copyCounters,
    }));
    // Shared with the tally: the state copies them before AddPod/RemovePod change them.
    counters = kept;
    owned = false;
  } else {
    counters = freshCounters();
    for (const info of incomingTerms ? nodes : antiAffinityNodes) applyNodeCounts(counters, nodeCounts(info, pod, nsLabels, affinityTerms, antiAffinityTerms), 1);
  }
  return new PreFilterState(pod, nsLabels, affinityTerms, antiAffinityTerms, counters, owned);
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

// The Filter verdicts, shared by every rejected node (already naming the plugin, so the framework copies none).
const rejection = (code: Code, reason: string) => Object.freeze(new Status(code, Object.freeze([reason]), INTER_POD_AFFINITY));
const AFFINITY_REJECTED = rejection(Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH);
const ANTI_AFFINITY_REJECTED = rejection(Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
const EXISTING_ANTI_AFFINITY_REJECTED = rejection(Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);

export function filterNode(s: PreFilterState, info: NodeInfo): Status {
  const labels = info.node.labels;
  if (!satisfiesAffinity(s, labels)) return AFFINITY_REJECTED;
  if (!satisfiesAntiAffinity(s, labels)) return ANTI_AFFINITY_REJECTED;
  if (s.existingAntiAffinityCounts.size > 0 && s.existingAntiAffinityCounts.anyPositiveFor(labels)) return EXISTING_ANTI_AFFINITY_REJECTED;
  return Status.SUCCESS;
}
