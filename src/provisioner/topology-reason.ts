// Why a pod's topology keeps it off a new NodeClaim, worded as Karpenter's scheduler
// words it ("unsatisfiable topology constraint for <type>, key=<key>"): the constraint
// type and the term's topology key, so a why-not names the rule that failed. Karpenter
// goes on with the domain counts, which berth leaves out. Other reasons pass unchanged.

import type { Pod } from '../model/pod.js';
import type { Status } from '../scheduler/status.js';
import { ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH } from '../scheduler/plugins/inter-pod-affinity/filtering.js';
import { ERR_REASON_CONSTRAINTS_NOT_MATCH } from '../scheduler/plugins/pod-topology-spread/filtering.js';

const keysOf = (terms: readonly { topologyKey: string }[]): string => [...new Set(terms.map((t) => t.topologyKey))].join(',');

export function topologyReason(pod: Pod, status: Status): string {
  const message = status.message();
  let type: string | undefined;
  let keys = '';
  if (status.plugin === 'PodTopologySpread' && message === ERR_REASON_CONSTRAINTS_NOT_MATCH) {
    type = 'topology spread';
    keys = keysOf(pod.topologySpreadConstraints.filter((c) => c.whenUnsatisfiable === 'DoNotSchedule'));
  } else if (status.plugin === 'InterPodAffinity' && message === ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH) {
    type = 'pod anti-affinity';
    keys = keysOf(pod.requiredAntiAffinity);
  } else if (status.plugin === 'InterPodAffinity' && message === ERR_REASON_AFFINITY_RULES_NOT_MATCH) {
    type = 'pod affinity';
    keys = keysOf(pod.requiredAffinity);
  }
  return type === undefined || keys === '' ? message : `unsatisfiable topology constraint for ${type}, key=${keys}`;
}
