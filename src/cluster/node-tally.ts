// Running totals over a cluster's nodes, kept between scheduling cycles.
// InterPodAffinity's PreFilter and PreScore sum, over every node, something
// derived from the node's pods (affinity term weights per topology pair;
// PodTopologySpread's matching pods per domain have an index of their own,
// pod-topology-spread/match-index.ts). Replicas of one workload ask the same question cycle after
// cycle while only a node or two changed in between, so a tally is built once
// per cluster and question, and each later read takes back and recounts only
// the nodes whose NodeInfo.generation moved (found through the cluster's change
// log, or by checking every node when the log was cleared). A change to the node
// list itself (a node added or removed, or moved to another zone) rebuilds it.

import type { NodeInfo } from './node-info.js';
import type { ClusterState } from './state.js';

export interface TallySpec<T, C> {
  /** Fresh, empty totals. */
  readonly totals: T;
  /** What one node contributes (read from its labels and pods). */
  contribution(info: NodeInfo): C;
  /** Adds a contribution to the totals (sign 1) or takes it back (-1); the totals must not depend on the order. */
  apply(totals: T, c: C, sign: 1 | -1): void;
}

interface Tally<T, C> {
  readonly spec: TallySpec<T, C>;
  /** The node list it was built over (the cluster replaces it whenever nodes change). */
  readonly nodes: readonly NodeInfo[];
  readonly generation: number[];
  readonly contributions: C[];
  /** The cluster's change log when last refreshed. */
  mark: { readonly epoch: number; readonly position: number };
}

/** Past this many distinct questions a cluster's tallies are dropped and rebuilt on demand. */
const MAX_QUERIES = 256;
const registry = new WeakMap<ClusterState, Map<string, Tally<unknown, unknown>>>();

/**
 * The totals of `query` over `cluster.nodeInfos()`, up to date. `spec` is called
 * only to build the tally; `query` must name everything its contributions depend
 * on besides the nodes. The caller must not change the totals.
 */
export function clusterTally<T, C>(cluster: ClusterState, query: string, spec: () => TallySpec<T, C>): T {
  let perQuery = registry.get(cluster);
  if (!perQuery || perQuery.size > MAX_QUERIES) registry.set(cluster, (perQuery = new Map()));
  const nodes = cluster.nodeInfos();
  let t = perQuery.get(query) as Tally<T, C> | undefined;
  if (t === undefined || t.nodes !== nodes) {
    const s = spec();
    t = { spec: s, nodes, generation: [], contributions: [], mark: cluster.changeMark() };
    for (const info of nodes) {
      const c = s.contribution(info);
      s.apply(s.totals, c, 1);
      t.generation.push(info.generation);
      t.contributions.push(c);
    }
    perQuery.set(query, t as Tally<unknown, unknown>);
    return s.totals;
  }
  const { spec: s, generation, contributions } = t;
  const refresh = (i: number) => {
    const info = nodes[i]!;
    if (generation[i] === info.generation) return;
    generation[i] = info.generation;
    s.apply(s.totals, contributions[i]!, -1);
    const c = s.contribution(info);
    s.apply(s.totals, c, 1);
    contributions[i] = c;
  };
  // Usually only the nodes the cluster logged as changed need a look; otherwise every node's generation.
  const changed = cluster.nodesChangedSince(t.mark);
  if (changed === null) {
    for (let i = 0; i < nodes.length; i++) refresh(i);
  } else {
    for (const info of changed) {
      const i = cluster.nodePosition(info.node.name);
      if (i !== undefined && nodes[i] === info) refresh(i);
    }
  }
  t.mark = cluster.changeMark();
  return s.totals;
}
