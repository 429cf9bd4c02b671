// What a pod asks of the node it lands on, as Requirements. Node affinity terms are ORed, but a
// requirement set can only AND, so (like Karpenter) one term is taken at a time: the first
// required term, and for the first attempt also the heaviest preferred term. The preference
// relaxation (preferences.ts) drops terms and tries again.

import type { Pod } from '../model/pod.js';
import type { Labels, NodeSelectorTermSpec } from '../model/selector.js';
import { Requirements } from './requirements.js';

/** A preferred node affinity term (PreferredNodeTermSpec, or any readonly equivalent). */
export interface WeightedTerm {
  readonly weight: number;
  readonly preference: NodeSelectorTermSpec;
}

/** matchExpressions only: matchFields (metadata.name) say nothing about labels. */
function termRequirements(term: NodeSelectorTermSpec | undefined): Requirements {
  return Requirements.fromNodeSelectorRequirements(term?.matchExpressions ?? []);
}

/** The heaviest term, the earliest among equal weights (a stable heaviest-first sort, as Karpenter's relaxation sorts). */
export function heaviestPreferredTerm<T extends WeightedTerm>(terms: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const t of terms) if (best === undefined || t.weight > best.weight) best = t;
  return best;
}

/**
 * Requirements from a nodeSelector, the first of the given required terms and, when given,
 * the heaviest of the preferred terms. This is the building block for planners that track
 * which terms are still in play (PodAttempt in preferences.ts).
 */
export function nodeAffinityRequirements(
  nodeSelector: Labels,
  requiredTerms: readonly NodeSelectorTermSpec[],
  preferredTerms: readonly WeightedTerm[] = [],
): Requirements {
  const reqs = Requirements.fromLabels(nodeSelector);
  const preferred = heaviestPreferredTerm(preferredTerms);
  if (preferred !== undefined) reqs.addAll(termRequirements(preferred.preference));
  if (requiredTerms.length > 0) reqs.addAll(termRequirements(requiredTerms[0]));
  return reqs;
}

/**
 * What the pod requires: spec.nodeSelector and the first required node affinity term
 * (Karpenter's NewStrictPodRequirements — "strict" there means preferences left out).
 */
export function podRequirements(pod: Pod): Requirements {
  return nodeAffinityRequirements(pod.nodeSelector, pod.requiredNodeAffinity?.terms ?? []);
}

/**
 * podRequirements plus the heaviest preferred node affinity term treated as required, for the
 * first attempt (Karpenter's NewPodRequirements).
 */
export function podRequirementsWithPreferences(pod: Pod): Requirements {
  return nodeAffinityRequirements(pod.nodeSelector, pod.requiredNodeAffinity?.terms ?? [], pod.preferredNodeAffinityTerms);
}

export function hasPreferredNodeAffinity(pod: Pod): boolean {
  return pod.preferredNodeAffinityTerms.length > 0;
}
