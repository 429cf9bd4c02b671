// Which pods settle a planned claim's zone, and in which zone.
//
// A planned claim keeps its zone open while its pods do not care (Karpenter's
// NodeClaim keeps `zone In [...]` and narrows it as pods join). Zone-keyed topology
// terms count pods by the zone label of their node, and an open claim has none, so a
// pod such a term involves (it owns a zone-keyed spread constraint or pod
// (anti-)affinity term, or some pod's zone-keyed term selects it) fixes the claim's
// zone when it joins. Then every pod a zone-keyed term can see sits on a node whose
// zone is decided, and the scheduling plugins count domains exactly.

import type { ClusterState } from '../cluster/state.js';
import type { Pod } from '../model/pod.js';
import type { CycleState } from '../scheduler/framework.js';
import { selectorKey } from '../model/selector.js';
import { termKey, termMatches } from '../scheduler/plugins/inter-pod-affinity/terms.js';
import { PRE_FILTER_STATE_KEY, type PreFilterState } from '../scheduler/plugins/pod-topology-spread/filtering.js';
import { LABEL_ZONE } from './catalog/types.js';

type PodMatcher = (pod: Pod) => boolean;

function affinityTerms(pod: Pod) {
  return [
    ...pod.requiredAffinity,
    ...pod.requiredAntiAffinity,
    ...pod.preferredAffinity.map((w) => w.term),
    ...pod.preferredAntiAffinity.map((w) => w.term),
  ];
}

/** Whether the pod itself has a zone-keyed spread constraint or pod (anti-)affinity term (required or preferred). */
function ownsZoneTerm(pod: Pod): boolean {
  return pod.topologySpreadConstraints.some((c) => c.topologyKey === LABEL_ZONE) || affinityTerms(pod).some((t) => t.topologyKey === LABEL_ZONE);
}

export class ZoneTopology {
  private readonly matchers: PodMatcher[] = [];

  /** Collects the zone-keyed terms of every pod in the cluster, bound or pending; terms alike (most pods of a workload share theirs) once. */
  constructor(cluster: ClusterState) {
    const seen = new Set<string>();
    const collect = (key: string, matcher: PodMatcher) => {
      if (seen.has(key)) return;
      seen.add(key);
      this.matchers.push(matcher);
    };
    for (const owner of cluster.pods()) {
      for (const c of owner.topologySpreadConstraints) {
        if (c.topologyKey === LABEL_ZONE) collect(`spread\x01${owner.namespace}\x01${selectorKey(c.selector)}`, (p) => p.namespace === owner.namespace && c.selector.matches(p.labels));
      }
      for (const t of affinityTerms(owner)) {
        if (t.topologyKey === LABEL_ZONE) collect(`term\x01${termKey(t)}`, (p) => termMatches(t, p, cluster.namespaceLabels(p.namespace)));
      }
    }
  }

  /** Per pod key: whether some zone-keyed term selects the pod (its labels do not change while planning). */
  private readonly selected = new Map<string, boolean>();

  /** Whether `pod` (as attempted, preferences promoted) must be in a decided zone. */
  fixesZone(pod: Pod): boolean {
    if (ownsZoneTerm(pod)) return true;
    let hit = this.selected.get(pod.key);
    if (hit === undefined) this.selected.set(pod.key, (hit = this.matchers.some((m) => m(pod))));
    return hit;
  }
}

/**
 * The zone a pod settles an open claim in, among the zones where every filter passed
 * (sorted): under a zone spread constraint the one with the fewest matching pods, as
 * Karpenter's topology group picks the least-populated domain; ties to the first in
 * order, one of the picks Karpenter's map-order walk can make (it has no fixed order);
 * otherwise the first.
 */
export function settleZone(state: CycleState, passing: readonly string[]): string {
  const spread = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
  const i = spread?.constraints.findIndex((c) => c.topologyKey === LABEL_ZONE) ?? -1;
  let best = passing[0]!;
  if (!spread || i < 0) return best;
  const counts = spread.tpValueToMatchNum[i]!;
  for (const z of passing) if ((counts.get(z) ?? 0) < (counts.get(best) ?? 0)) best = z;
  return best;
}
