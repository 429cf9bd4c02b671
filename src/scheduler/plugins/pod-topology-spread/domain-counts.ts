// Matching-pod counts per topology domain kept across scheduling cycles (the
// cluster's MatchIndex, see match-index.ts): PreFilter and PreScore need, per
// constraint, the pods matching its selector in each domain over every node
// carrying all the constraint set's topology keys.

import type { ClusterState } from '../../../cluster/state.js';
import type { SpreadConstraint } from './constraints.js';
import { matchQuery } from './match-counts.js';
import { domainTotals } from './match-index.js';

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
  return domainTotals(
    cluster,
    matchQuery(c.selector, namespace),
    c.topologyKey,
    constraints.map((x) => x.topologyKey),
    requireAllTopologies,
  );
}
