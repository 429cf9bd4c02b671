// InterPodAffinity scoring (scoring.go). PreScore sums term weights per
// topology pair (key → value → score) from every existing pod: the incoming
// pod's preferred terms matched against it (+weight / -weight for anti), its
// required affinity terms matched against the incoming pod (+hardPodAffinityWeight)
// and its preferred terms matched against the incoming pod. A node scores the
// sum over the pairs its labels form; scores are then min-max scaled.

import type { NodeInfo } from '../../../cluster/node-info.js';
import type { ClusterState } from '../../../cluster/state.js';
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from '../../../model/pod.js';
import type { Labels } from '../../../model/selector.js';
import { MAX_NODE_SCORE, type NodeScore, type StateData } from '../../framework.js';
import type { InterPodAffinityArgs } from './args.js';
import { mergeTermNamespaces, termMatches, type MergedTerm } from './terms.js';
import { labelValue } from './topology-counts.js';

export const PRE_SCORE_STATE_KEY = 'PreScoreInterPodAffinity';

/** topology key → node label value → summed weight. */
export type TopologyScore = Map<string, Map<string, number>>;

export class PreScoreState implements StateData {
  constructor(readonly topologyScore: TopologyScore) {}

  /** Read-only after PreScore, so shared like upstream. */
  clone(): PreScoreState {
    return this;
  }
}

interface WeightedMergedTerm {
  readonly weight: number;
  readonly term: MergedTerm;
}

/** Adds `amount` for the node's value of `key`; a pair is recorded even when the sum comes to zero. */
function record(score: TopologyScore, nodeLabels: Labels, key: string, amount: number): void {
  const value = labelValue(nodeLabels, key);
  if (value === undefined) return;
  let values = score.get(key);
  if (!values) score.set(key, (values = new Map()));
  values.set(value, (values.get(value) ?? 0) + amount);
}

function recordExistingTerms(score: TopologyScore, terms: readonly WeightedPodAffinityTerm[], incoming: Pod, nsLabels: Labels, nodeLabels: Labels, sign: 1 | -1): void {
  for (const { weight, term } of terms) {
    if (termMatches(term, incoming, nsLabels)) record(score, nodeLabels, term.topologyKey, weight * sign);
  }
}

function recordIncomingTerms(score: TopologyScore, terms: readonly WeightedMergedTerm[], existing: Pod, nodeLabels: Labels, sign: 1 | -1): void {
  for (const { weight, term } of terms) {
    if (term.matches(existing)) record(score, nodeLabels, term.topologyKey, weight * sign);
  }
}

function recordRequiredTerms(score: TopologyScore, terms: readonly PodAffinityTerm[], weight: number, incoming: Pod, nsLabels: Labels, nodeLabels: Labels): void {
  for (const term of terms) {
    if (termMatches(term, incoming, nsLabels)) record(score, nodeLabels, term.topologyKey, weight);
  }
}

/**
 * Builds the PreScore state, or returns null for upstream's Skip: when existing
 * pods' preferences are ignored and the pod has no preferred terms, or when no
 * term matched on a node carrying its topology key.
 */
export function computePreScoreState(pod: Pod, cluster: ClusterState, args: InterPodAffinityArgs): PreScoreState | null {
  const hasConstraints = pod.preferredAffinity.length > 0 || pod.preferredAntiAffinity.length > 0;
  if (args.ignorePreferredTermsOfExistingPods && !hasConstraints) return null;

  const nsOf = (ns: string) => cluster.namespaceLabels(ns);
  const merge = (w: WeightedPodAffinityTerm): WeightedMergedTerm => ({ weight: w.weight, term: mergeTermNamespaces(w.term, nsOf) });
  const preferredAffinity = pod.preferredAffinity.map(merge);
  const preferredAntiAffinity = pod.preferredAntiAffinity.map(merge);
  const nsLabels = cluster.namespaceLabels(pod.namespace);

  // Without preferred terms of its own, only existing pods with terms can contribute.
  const nodes = hasConstraints ? cluster.nodeInfos() : cluster.nodesWithAffinityPods();
  const score: TopologyScore = new Map();
  for (const info of nodes) {
    const nodeLabels = info.node.labels;
    if (Object.keys(nodeLabels).length === 0) continue;
    for (const existing of hasConstraints ? info.pods : info.podsWithAffinity) {
      recordIncomingTerms(score, preferredAffinity, existing, nodeLabels, 1);
      recordIncomingTerms(score, preferredAntiAffinity, existing, nodeLabels, -1);
      if (args.hardPodAffinityWeight > 0) recordRequiredTerms(score, existing.requiredAffinity, args.hardPodAffinityWeight, pod, nsLabels, nodeLabels);
      recordExistingTerms(score, existing.preferredAffinity, pod, nsLabels, nodeLabels, 1);
      recordExistingTerms(score, existing.preferredAntiAffinity, pod, nsLabels, nodeLabels, -1);
    }
  }
  return score.size === 0 ? null : new PreScoreState(score);
}

/** The sum of the pair scores the node's labels form. */
export function scoreNode(s: PreScoreState, info: NodeInfo): number {
  let total = 0;
  for (const [key, values] of s.topologyScore) {
    const value = labelValue(info.node.labels, key);
    if (value !== undefined) total += values.get(value) ?? 0;
  }
  return total;
}

/**
 * Min-max scaling to [0, 100] in float64, truncated: 100 * ((s - min) / (max - min)).
 * When every node scored the same, all get 0.
 */
export function normalizeTopologyScores(scores: NodeScore[]): void {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const s of scores) {
    if (s.score > max) max = s.score;
    if (s.score < min) min = s.score;
  }
  const diff = max - min;
  for (const s of scores) {
    const f = diff > 0 ? MAX_NODE_SCORE * ((s.score - min) / diff) : 0;
    s.score = Math.trunc(f);
  }
}
