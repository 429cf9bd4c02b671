// NodeAffinity: spec.nodeSelector and required node affinity filter nodes;
// preferred terms add their weights to a node's score. Also the profile-level
// addedAffinity arg, which every pod of the profile must satisfy.

import { matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import type { NodeLike } from '../../model/selector.js';
import type { FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';
import { parseAddedAffinity, type WeightedTerm } from './node-affinity-args.js';
import { normalizeToMax } from './normalize.js';

export const NODE_AFFINITY = 'NodeAffinity';
export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
export const ERR_REASON_CONFLICT = 'pod affinity terms conflict';

function scoreTerms(terms: readonly WeightedTerm[], node: NodeLike): number {
  let sum = 0;
  for (const t of terms) if (t.weight !== 0 && t.matches(node)) sum += t.weight;
  return sum;
}

/**
 * Node names a required node affinity restricts the pod to through
 * `matchFields: metadata.name In [...]`: the union over terms of each term's
 * intersection; null when some term does not restrict by name.
 */
function nodeNamesFromAffinity(pod: Pod): ReadonlySet<string> | null {
  const terms = pod.requiredNodeAffinity?.terms ?? [];
  if (terms.length === 0) return null;
  let union: Set<string> | null = null;
  for (const term of terms) {
    let names: Set<string> | null = null;
    for (const f of term.matchFields ?? []) {
      if (f.key !== 'metadata.name' || f.operator !== 'In') continue;
      const values = new Set(f.values);
      if (names === null) names = values;
      else for (const v of names) if (!values.has(v)) names.delete(v);
    }
    if (names === null) return null;
    if (union === null) union = names;
    else for (const v of names) union.add(v);
  }
  return union;
}

export const newNodeAffinity: PluginFactory = ({ args }): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin => {
  const added = parseAddedAffinity(args);
  return {
    name: NODE_AFFINITY,
    preFilter: (_state, pod) => {
      if (pod.requiredNodeAffinity === null && added.required === null && Object.keys(pod.nodeSelector).length === 0) return { status: Status.SKIP };
      const names = nodeNamesFromAffinity(pod);
      if (names !== null && names.size === 0) return { status: Status.unresolvable(ERR_REASON_CONFLICT) };
      return names !== null ? { result: { nodeNames: names }, status: Status.SUCCESS } : { status: Status.SUCCESS };
    },
    filter: (_state, pod, nodeInfo) => {
      const node = nodeInfo.node;
      if (added.required !== null && !added.required.matches(node)) return Status.unresolvable(ERR_REASON_ENFORCED);
      return matchesRequiredNodeAffinity(pod, node) ? Status.SUCCESS : Status.unresolvable(ERR_REASON_POD);
    },
    preScore: (_state, pod) => {
      if (pod.preferredNodeAffinityError !== undefined) return Status.error(pod.preferredNodeAffinityError);
      return pod.preferredNodeAffinity.length === 0 && !added.hasPreferred ? Status.SKIP : Status.SUCCESS;
    },
    score: (_state, pod, nodeInfo) => scoreTerms(added.preferred, nodeInfo.node) + scoreTerms(pod.preferredNodeAffinity, nodeInfo.node),
    normalizeScore: normalizeToMax(false),
  };
};
