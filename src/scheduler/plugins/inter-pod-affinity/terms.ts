// Matching pod affinity terms against pods, with the two namespace rules
// upstream uses: an existing pod's term is checked against the incoming pod's
// namespace labels (AffinityTerm.Matches), while the incoming pod's own terms
// have their namespaceSelector folded into the namespace set first
// (mergeAffinityTermNamespacesIfNotEmpty), so they never need labels later.

import type { Pod, PodAffinityTerm } from '../../../model/pod.js';
import { selectorKey, type Labels, type Selector } from '../../../model/selector.js';

/** AffinityTerm.Matches: namespace listed or selected by the namespace labels, then the label selector. */
export function termMatches(term: PodAffinityTerm, pod: Pod, nsLabels: Labels): boolean {
  if (term.namespaces.has(pod.namespace) || term.namespaceSelector.matches(nsLabels)) return term.selector.matches(pod.labels);
  return false;
}

/** A term of the incoming pod whose namespace selector has been resolved into namespaces. */
export interface MergedTerm {
  readonly topologyKey: string;
  matches(pod: Pod): boolean;
}

/**
 * Resolves a term of the incoming pod. An empty namespaceSelector stays
 * "every namespace"; any other selector (including the absent one, which
 * selects nothing) adds the namespaces whose labels it matches. Upstream lists
 * the namespaces once per cycle; asking per namespace (and remembering the
 * answer) selects the same set, because every pod's namespace exists.
 */
export function mergeTermNamespaces(term: PodAffinityTerm, namespaceLabels: (ns: string) => Labels): MergedTerm {
  const { selector, namespaceSelector, namespaces, topologyKey } = term;
  if (namespaceSelector.everything) return { topologyKey, matches: (pod) => selector.matches(pod.labels) };
  if (namespaceSelector.nothing) return { topologyKey, matches: (pod) => namespaces.has(pod.namespace) && selector.matches(pod.labels) };
  const selected = new Map<string, boolean>();
  const inNamespaces = (ns: string): boolean => {
    if (namespaces.has(ns)) return true;
    let hit = selected.get(ns);
    if (hit === undefined) selected.set(ns, (hit = namespaceSelector.matches(namespaceLabels(ns))));
    return hit;
  };
  return { topologyKey, matches: (pod) => inNamespaces(pod.namespace) && selector.matches(pod.labels) };
}

/** podMatchesAllAffinityTerms: false for no terms, else every term matches. */
export function matchesAllTerms(terms: readonly MergedTerm[], pod: Pod): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!t.matches(pod)) return false;
  return true;
}

const nsSelectorKey = (s: Selector) => (s.everything ? '*' : s.nothing ? '!' : selectorKey(s));

/** A string equal for terms with the same meaning, for keying tallies. */
export function termKey(t: PodAffinityTerm): string {
  return `${t.topologyKey}|${selectorKey(t.selector)}|${[...t.namespaces].sort().join(',')}|${nsSelectorKey(t.namespaceSelector)}`;
}

/** A string equal for equal label maps. */
export function labelsKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Whether the terms' namespaces are fixed (no namespace selector reading namespace labels), so a tally keyed on them stays right. */
export function fixedNamespaces(terms: readonly PodAffinityTerm[]): boolean {
  return terms.every((t) => t.namespaceSelector.everything || t.namespaceSelector.nothing);
}
