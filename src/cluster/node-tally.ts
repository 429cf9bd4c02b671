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
// A clone of a cluster (each simulation of a check starts from one) starts its
// tally from the one of the state it was cloned from, while that state is unchanged:
// the node contributions are shared (or looked up by name when the node lists
// differ), and only the nodes the clone changed or added are recounted.

import type { NodeInfo } from './node-info.js';
import type { ClusterState } from './state.js';

export interface TallySpec<T, C> {
  /** Fresh, empty totals. */
  readonly totals: T;
  /** What one node contributes (read from its labels and pods). */
  contribution(info: NodeInfo): C;
  /** Adds a contribution to the totals (sign 1) or takes it back (-1); the totals must not depend on the order. */
  apply(totals: T, c: C, sign: 1 | -1): void;
  /** An independent copy of the totals (a clone's tally starts from its source's). */
  copy(totals: T): T;
}

interface Tally<T, C> {
  readonly spec: TallySpec<T, C>;
  readonly totals: T;
  /** The node list it was built over (the cluster replaces it whenever nodes change). */
  readonly nodes: readonly NodeInfo[];
  generation: number[];
  contributions: C[];
  /** `generation` and `contributions` are shared with another state's tally: copied before they change. */
  shared: boolean;
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
  return tallyOf(cluster, query, spec).totals;
}

function tallyOf<T, C>(cluster: ClusterState, query: string, spec: () => TallySpec<T, C>): Tally<T, C> {
  let perQuery = registry.get(cluster);
  if (!perQuery || perQuery.size > MAX_QUERIES) registry.set(cluster, (perQuery = new Map()));
  const nodes = cluster.nodeInfos();
  let t = perQuery.get(query) as Tally<T, C> | undefined;
  if (t === undefined || t.nodes !== nodes) {
    t = fromSource(cluster, query, spec, nodes) ?? build(cluster, spec(), nodes);
    perQuery.set(query, t as Tally<unknown, unknown>);
    return t;
  }
  // Usually only the nodes the cluster logged as changed need a look; otherwise every node's generation.
  const changed = cluster.nodesChangedSince(t.mark);
  if (changed === null) {
    for (let i = 0; i < nodes.length; i++) refresh(t, i);
  } else {
    for (const info of changed) {
      const i = cluster.nodePosition(info.node.name);
      if (i !== undefined && nodes[i] === info) refresh(t, i);
    }
  }
  t.mark = cluster.changeMark();
  return t;
}

function build<T, C>(cluster: ClusterState, s: TallySpec<T, C>, nodes: readonly NodeInfo[]): Tally<T, C> {
  const t: Tally<T, C> = { spec: s, totals: s.totals, nodes, generation: [], contributions: [], shared: false, mark: cluster.changeMark() };
  for (const info of nodes) {
    const c = s.contribution(info);
    s.apply(t.totals, c, 1);
    t.generation.push(info.generation);
    t.contributions.push(c);
  }
  return t;
}

/** Node `i` recounted when its NodeInfo changed since its contribution was taken. */
function refresh<T, C>(t: Tally<T, C>, i: number): void {
  const info = t.nodes[i]!;
  if (t.generation[i] === info.generation) return;
  if (t.shared) {
    t.generation = t.generation.slice();
    t.contributions = t.contributions.slice();
    t.shared = false;
  }
  const s = t.spec;
  t.generation[i] = info.generation;
  s.apply(t.totals, t.contributions[i]!, -1);
  const c = s.contribution(info);
  s.apply(t.totals, c, 1);
  t.contributions[i] = c;
}

/**
 * The tally of a clone started from its source's, while the source is unchanged
 * since the copy: a NodeInfo copy keeps its original's generation until it changes,
 * so the source's contribution holds for every node the clone has not changed.
 * Over the same node list the contributions are shared; otherwise (nodes lost or
 * added in the clone) they are looked up by node name, and those of nodes gone here
 * taken back from the totals.
 */
function fromSource<T, C>(cluster: ClusterState, query: string, spec: () => TallySpec<T, C>, nodes: readonly NodeInfo[]): Tally<T, C> | undefined {
  const from = cluster.copySource();
  const source = from?.state.deref();
  if (source === undefined || source.version !== from!.version) return undefined;
  const theirs = tallyOf(source, query, spec);
  const s = theirs.spec;
  const totals = s.copy(theirs.totals);
  const theirNodes = theirs.nodes;
  let sameList = theirNodes.length === nodes.length;
  for (let i = 0; sameList && i < nodes.length; i++) sameList = theirNodes[i]!.node.name === nodes[i]!.node.name;
  const t: Tally<T, C> = { spec: s, totals, nodes, generation: theirs.generation, contributions: theirs.contributions, shared: true, mark: cluster.changeMark() };
  if (sameList) theirs.shared = true;
  else {
    t.generation = [];
    t.contributions = [];
    t.shared = false;
    theirNodes.forEach((info, j) => {
      if (cluster.nodeInfo(info.node.name) === undefined) s.apply(totals, theirs.contributions[j]!, -1);
    });
    for (const info of nodes) {
      const j = source.nodePosition(info.node.name);
      if (j !== undefined) {
        t.generation.push(theirs.generation[j]!);
        t.contributions.push(theirs.contributions[j]!);
      } else {
        const c = s.contribution(info);
        s.apply(totals, c, 1);
        t.generation.push(info.generation);
        t.contributions.push(c);
      }
    }
  }
  for (let i = 0; i < nodes.length; i++) refresh(t, i);
  return t;
}
