// Which labels a pod decides on an open planned claim, and which value it picks.
//
// A planned claim keeps every label its requirements leave open (zone, capacity type,
// a custom key such as `rack In [r1, r2]`, an architecture its remaining types do not
// agree on), as Karpenter's NodeClaim keeps `key In [...]` and narrows it as pods join.
// Karpenter narrows a key when a topology group applies to the pod: the groups the pod
// owns (its spread constraints and pod (anti-)affinity terms, as attempted) and the
// inverse groups of required anti-affinity terms (of any pod, bound or pending) that
// select it. A pod another pod's spread or affinity term merely selects does not narrow
// the claim, and Karpenter does not count it in that term's domains while the key is open.
// Hostname is always decided (each claim is its own domain).

import type { ClusterState } from '../cluster/state.js';
import { LABEL_HOSTNAME } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { selectorKey } from '../model/selector.js';
import type { CycleState } from '../scheduler/framework.js';
import { termKey, termMatches } from '../scheduler/plugins/inter-pod-affinity/terms.js';
import { PRE_FILTER_STATE_KEY, type PreFilterState } from '../scheduler/plugins/pod-topology-spread/filtering.js';

type PodMatcher = (pod: Pod) => boolean;

function ownTerms(pod: Pod) {
  return [...pod.requiredAffinity, ...pod.requiredAntiAffinity, ...pod.preferredAffinity.map((w) => w.term), ...pod.preferredAntiAffinity.map((w) => w.term)];
}

/** The topology keys (hostname aside) of the pod's own spread constraints and pod (anti-)affinity terms. */
function ownKeys(pod: Pod): string[] {
  return [...pod.topologySpreadConstraints.map((c) => c.topologyKey), ...ownTerms(pod).map((t) => t.topologyKey)].filter((k) => k !== LABEL_HOSTNAME);
}

export class TopologyKeys {
  /** Per topology key: the terms keyed on it whose selection narrows a pod's claim, one matcher per distinct term. */
  private readonly inverse = new Map<string, PodMatcher[]>();

  /**
   * Collects the required anti-affinity terms of every pod in the cluster, bound or pending.
   * With `settleSelected` (berth's own choice, off by default) every spread constraint and
   * pod (anti-)affinity term counts: a pod any of them selects decides the key, so the
   * term sees it where Karpenter would not count it until its node exists.
   */
  constructor(cluster: ClusterState, settleSelected = false) {
    if (!settleSelected && !cluster.hasAntiAffinityPods()) return;
    const seen = new Set<string>();
    const collect = (topologyKey: string, key: string, matcher: PodMatcher) => {
      if (topologyKey === LABEL_HOSTNAME || seen.has(key)) return;
      seen.add(key);
      let list = this.inverse.get(topologyKey);
      if (list === undefined) this.inverse.set(topologyKey, (list = []));
      list.push(matcher);
    };
    for (const owner of cluster.pods()) {
      for (const t of settleSelected ? ownTerms(owner) : owner.requiredAntiAffinity) {
        collect(t.topologyKey, `term\x01${termKey(t)}`, (p) => termMatches(t, p, cluster.namespaceLabels(p.namespace)));
      }
      if (!settleSelected) continue;
      for (const c of owner.topologySpreadConstraints) {
        collect(c.topologyKey, `spread\x01${c.topologyKey}\x01${owner.namespace}\x01${selectorKey(c.selector)}`, (p) => p.namespace === owner.namespace && c.selector.matches(p.labels));
      }
    }
  }

  /** Per pod key: the keys of inverse anti-affinity terms that select it (its labels do not change while planning). */
  private readonly selectedBy = new Map<string, string[]>();

  /** The keys `pod` (as attempted, preferences promoted) narrows on a claim that leaves them open, sorted. */
  keysFor(pod: Pod): string[] {
    let inverse = this.selectedBy.get(pod.key);
    if (inverse === undefined) {
      inverse = [...this.inverse].filter(([, matchers]) => matchers.some((m) => m(pod))).map(([k]) => k);
      this.selectedBy.set(pod.key, inverse);
    }
    return [...new Set([...ownKeys(pod), ...inverse])].sort();
  }
}

/** One way to decide a claim's open keys: a value per key. */
export type Domains = Readonly<Record<string, string>>;

/**
 * Of the combinations of values where every filter passed (in enumeration order), the one
 * the pod settles the claim in. Key by key (in the order given): under a spread constraint
 * on the key, the value with the fewest matching pods, as Karpenter's topology group picks
 * the least-populated domain; ties to the first in order, one of the picks Karpenter's
 * map-order walk can make (it has no fixed order); otherwise the first.
 */
export function settleDomains(state: CycleState, keys: readonly string[], passing: readonly Domains[]): Domains {
  const spread = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
  let left = passing;
  for (const key of keys) {
    const i = spread?.constraints.findIndex((c) => c.topologyKey === key) ?? -1;
    let best = left[0]![key]!;
    if (spread && i >= 0) {
      const counts = spread.tpValueToMatchNum[i]!;
      for (const d of left) if ((counts.get(d[key]!) ?? 0) < (counts.get(best) ?? 0)) best = d[key]!;
    }
    left = left.filter((d) => d[key] === best);
  }
  return left[0]!;
}
