// Matching-pod counts per topology domain kept across scheduling cycles (a
// cluster tally, see cluster/node-tally.ts): PreFilter and PreScore need, per
// constraint, the pods matching its selector in each domain over every node
// carrying all the constraint set's topology keys.

import { clusterTally } from '../../../cluster/node-tally.js';
import type { ClusterState } from '../../../cluster/state.js';
import { hasAllTopologyKeys, type SpreadConstraint } from './constraints.js';
import { matchQuery, nodeMatchCount } from './match-counts.js';

/** A node's domain (undefined when it lacks one of the set's keys) and its matching pods. */
type Contribution = readonly [domain: string | undefined, pods: number];

/**
 * For constraint `c` of the set `constraints`: domain → pods in `namespace`
 * matching `c.selector` (terminating pods left out), over the cluster nodes that
 * carry every key of the set (every node, a missing key read as '', when
 * `requireAllTopologies` is false), each domain of such a node present (possibly 0),
 * domains in node order of first appearance. Valid only when every such node
 * counts for `c` (no node inclusion policy narrows it); the caller must not
 * change the map.
 */
export function domainCounts(
  cluster: ClusterState,
  constraints: readonly SpreadConstraint[],
  c: SpreadConstraint,
  namespace: string,
  requireAllTopologies = true,
): ReadonlyMap<string, number> {
  const keys = constraints.map((x) => x.topologyKey).join('\x00');
  const match = matchQuery(c.selector, namespace);
  const query = `spread\x01${match.key}\x01${c.topologyKey}\x01${keys}\x01${requireAllTopologies}`;
  return clusterTally(cluster, query, () => ({
    totals: new Map<string, number>(),
    contribution: (info): Contribution => {
      const labels = info.node.labels;
      if (requireAllTopologies && !hasAllTopologyKeys(labels, constraints)) return [undefined, 0];
      // Without the requirement (system-default constraints when scoring), a missing label reads as ''.
      return [labels[c.topologyKey] ?? '', nodeMatchCount(info, match)];
    },
    // A domain stays once seen: only a node-list change (a rebuild) can make it disappear.
    apply: (totals, [domain, pods], sign) => {
      if (domain !== undefined) totals.set(domain, (totals.get(domain) ?? 0) + sign * pods);
    },
  }));
}
