// The matching-pod counts of a cluster's nodes and their totals per topology
// domain, kept up to date pod change by pod change. Asked question by question,
// each kept count would read every pod change since that question was last asked:
// with a hundred workloads each change is read a hundred times. The index reads
// each change once and finds the few questions it can matter to through the pod's
// label pairs (a question is filed under the values one of its In requirements
// accepts; those without one are checked against every change).

import type { MatchCountKeeper, NodeInfo } from '../../../cluster/node-info.js';
import type { ClusterState } from '../../../cluster/state.js';
import type { Labels } from '../../../model/selector.js';
import type { Pod } from '../../../model/pod.js';
import { countMatchingPods, countsAsMatching } from './constraints.js';
import { PodsByLabel } from './pods-by-label.js';
import { countSlots, nodeMatchCount, questionEpoch, questionNumber, type MatchQuery } from './match-counts.js';

/** Matching pods per domain of one topology key, over the nodes carrying every key of a constraint set. */
class DomainTally {
  totals = new Map<string, number>();
  /** False until built over the index's node list (and again after a node list or label change). */
  built = false;

  constructor(
    readonly topologyKey: string,
    readonly keys: readonly string[],
    /** False: every node counts, a missing key read as ''. */
    readonly requireAllKeys: boolean,
  ) {}

  /** The node's domain, or undefined when it lacks one of the keys and they are all required. */
  domainOf(labels: Labels): string | undefined {
    if (this.requireAllKeys) for (const k of this.keys) if (!Object.hasOwn(labels, k)) return undefined;
    return labels[this.topologyKey] ?? '';
  }

  /** Domains in node order of first appearance, each present (possibly 0). */
  build(nodes: readonly NodeInfo[], count: (info: NodeInfo) => number): void {
    const totals = new Map<string, number>();
    for (const info of nodes) {
      const domain = this.domainOf(info.node.labels);
      if (domain !== undefined) totals.set(domain, (totals.get(domain) ?? 0) + count(info));
    }
    this.totals = totals;
    this.built = true;
  }

  add(info: NodeInfo, delta: number): void {
    if (!this.built) return;
    const domain = this.domainOf(info.node.labels);
    if (domain !== undefined) this.totals.set(domain, (this.totals.get(domain) ?? 0) + delta);
  }
}

interface Kept {
  readonly query: MatchQuery;
  readonly number: number;
  readonly tallies: Map<string, DomainTally>;
}

/** countMatchingPods on the node for a kept question. */
function countOn(info: NodeInfo, k: Kept): number {
  return countMatchingPods(info.pods, k.query.selector, k.query.namespace);
}

function sameLabels(a: Labels, b: Labels): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (a[k] !== b[k] || !Object.hasOwn(b, k)) return false;
  return true;
}

export class MatchIndex implements MatchCountKeeper {
  private nodes: readonly NodeInfo[] = [];
  private mark = { epoch: -1, position: 0 };
  private epoch = -1;
  /** By question number. */
  private kept: (Kept | undefined)[] = [];
  /** Label key → value → the questions filed under that pair. */
  private byPair = new Map<string, Map<string, Kept[]>>();
  private unfiled: Kept[] = [];
  private readonly pods = new PodsByLabel();
  /** Names of the nodes whose pods were ever filed in `pods`. */
  private readonly tracked = new Set<string>();
  /** The node whose pod changes are being applied (readPodChanges calls `visit` with the pod alone). */
  private visiting: NodeInfo | null = null;
  private readonly visit = (pod: Pod, sign: 1 | -1) => this.apply(this.visiting!, pod, sign);

  constructor(private readonly cluster: ClusterState) {}

  keeps(index: number): boolean {
    return this.epoch === questionEpoch() && this.kept[index] !== undefined;
  }

  /** Every node's kept counts up to date, and the node list followed. */
  sync(): void {
    if (this.epoch !== questionEpoch()) this.forgetQuestions();
    const nodes = this.cluster.nodeInfos();
    if (nodes !== this.nodes) {
      const now = new Set(nodes);
      for (const info of this.nodes) {
        if (now.has(info)) continue;
        if (info.matchCounts.keeper === this) this.untrack(info);
        else if (this.cluster.nodeInfo(info.node.name) === undefined) this.pods.removeNode(info.node.name);
      }
      for (const info of nodes) {
        if (info.matchCounts.keeper === this) this.catchUp(info);
        else this.track(info);
      }
      this.nodes = nodes;
      this.unbuildTallies();
    } else {
      const changed = this.cluster.nodesChangedSince(this.mark) ?? nodes;
      let counted = false;
      for (const info of changed) {
        if (info.matchCounts.keeper === this) this.catchUp(info);
        else if (this.cluster.nodeInfo(info.node.name) === info) {
          // A node this index does not keep (any more): a copy that replaced one in place
          // (ClusterState.fork's own()), or one whose counts another state's index took
          // over (a fork shares its NodeInfos): counted afresh.
          this.track(info);
          counted = true;
        }
      }
      if (counted) this.unbuildTallies();
    }
    this.mark = this.cluster.changeMark();
  }

  /** Keeps `q` from now on (counting it on every node once); the index must be in sync. */
  keep(q: MatchQuery): Kept {
    const n = questionNumber(q);
    const existing = this.kept[n];
    if (existing !== undefined) return existing;
    const k: Kept = { query: q, number: n, tallies: new Map() };
    // Filed under the In requirement whose values the fewest pods carry.
    let filed: { key: string; values: ReadonlySet<string>; pods: number } | undefined;
    for (const r of q.selector.requirements) {
      if (r.operator !== 'In') continue;
      const values = new Set(r.values);
      let pods = 0;
      for (const v of values) pods += this.pods.withLabel(r.key, v).size;
      if (filed === undefined || pods < filed.pods) filed = { key: r.key, values, pods };
    }
    for (const info of this.nodes) {
      const slots = countSlots(info.matchCounts, n);
      slots.counts[n] = filed === undefined ? countOn(info, k) : 0;
      // Should the node leave the index, the count is recounted on reading.
      slots.positions[n] = -1;
    }
    this.kept[n] = k;
    if (filed === undefined) {
      this.unfiled.push(k);
      return k;
    }
    let byValue = this.byPair.get(filed.key);
    if (!byValue) this.byPair.set(filed.key, (byValue = new Map()));
    for (const v of filed.values) {
      const list = byValue.get(v);
      if (list) list.push(k);
      else byValue.set(v, [k]);
      for (const pod of this.pods.withLabel(filed.key, v).values()) {
        if (!countsAsMatching(pod, q.selector, q.namespace)) continue;
        const counts = this.cluster.nodeInfo(pod.nodeName)!.matchCounts.counts;
        counts[n] = counts[n]! + 1;
      }
    }
    return k;
  }

  /** The domain totals of a kept question; the index must be in sync. */
  domainTotals(k: Kept, topologyKey: string, keys: readonly string[], requireAllKeys: boolean): ReadonlyMap<string, number> {
    const id = `${topologyKey}\x01${keys.join('\x00')}\x01${requireAllKeys}`;
    let t = k.tallies.get(id);
    if (t === undefined) k.tallies.set(id, (t = new DomainTally(topologyKey, keys, requireAllKeys)));
    if (!t.built) t.build(this.nodes, (info) => info.matchCounts.counts[k.number]!);
    return t.totals;
  }

  catchUp(info: NodeInfo): void {
    const kept = info.matchCounts;
    if (info.node.labels !== kept.keptLabels) {
      // A node's domain moved (its list did not): the totals are built again.
      if (kept.keptLabels !== null && !sameLabels(kept.keptLabels, info.node.labels)) this.unbuildTallies();
      kept.keptLabels = info.node.labels;
    }
    if (kept.keptTo === info.podLogEnd) return;
    if (kept.keptTo < info.podLogStart) {
      // The log restarted since: count again.
      this.pods.removeNode(info.node.name);
      for (const pod of info.pods) this.pods.add(pod);
      for (const k of this.kept) {
        if (k === undefined) continue;
        const n = countOn(info, k);
        const delta = n - kept.counts[k.number]!;
        kept.counts[k.number] = n;
        if (delta !== 0) for (const t of k.tallies.values()) t.add(info, delta);
      }
      kept.keptTo = info.readPodChanges(info.podLogEnd);
      return;
    }
    this.visiting = info;
    kept.keptTo = info.readPodChanges(kept.keptTo, this.visit);
    this.visiting = null;
  }

  private track(info: NodeInfo): void {
    const kept = info.matchCounts;
    // Pods filed under this name by an earlier NodeInfo of the node go: the node's pods are filed again below.
    if (this.tracked.has(info.node.name)) this.pods.removeNode(info.node.name);
    this.tracked.add(info.node.name);
    for (const k of this.kept) {
      if (k === undefined) continue;
      countSlots(kept, k.number).counts[k.number] = countOn(info, k);
      kept.positions[k.number] = -1;
    }
    for (const pod of info.pods) this.pods.add(pod);
    kept.keeper = this;
    kept.keptLabels = info.node.labels;
    kept.keptTo = info.readPodChanges(info.podLogEnd);
  }

  /** A node that left the list: its pods go too. */
  private untrack(info: NodeInfo): void {
    this.catchUp(info);
    for (const pod of info.pods) this.pods.remove(pod, info.node.name);
    info.matchCounts.keeper = null;
  }

  private apply(info: NodeInfo, pod: Pod, sign: 1 | -1): void {
    if (sign > 0) this.pods.add(pod);
    else this.pods.remove(pod, info.node.name);
    if (pod.terminating) return;
    const labels = pod.labels;
    for (const key in labels) {
      const list = this.byPair.get(key)?.get(labels[key]!);
      if (list !== undefined) for (const k of list) this.count(k, info, pod, sign);
    }
    for (const k of this.unfiled) this.count(k, info, pod, sign);
  }

  private count(k: Kept, info: NodeInfo, pod: Pod, sign: 1 | -1): void {
    if (!countsAsMatching(pod, k.query.selector, k.query.namespace)) return;
    const counts = info.matchCounts.counts;
    counts[k.number] = counts[k.number]! + sign;
    for (const t of k.tallies.values()) t.add(info, sign);
  }

  private unbuildTallies(): void {
    for (const k of this.kept) if (k !== undefined) for (const t of k.tallies.values()) t.built = false;
  }

  /** The numbering moved: every question is asked afresh. */
  private forgetQuestions(): void {
    this.epoch = questionEpoch();
    this.kept = [];
    this.byPair = new Map();
    this.unfiled = [];
  }
}

const indexes = new WeakMap<ClusterState, MatchIndex>();

/** The cluster's index, in sync with its nodes, keeping `q`. */
export function keptMatches(cluster: ClusterState, q: MatchQuery): { index: MatchIndex; kept: Kept } {
  let index = indexes.get(cluster);
  if (index === undefined) indexes.set(cluster, (index = new MatchIndex(cluster)));
  index.sync();
  return { index, kept: index.keep(q) };
}

/**
 * Has `q` kept where node counts can be read from now on: by the cluster's index, or
 * for a fork (ClusterState.fork) by the index of the state it was forked from, whose
 * counts on the NodeInfos the fork still shares are the fork's too. A fork keeps no
 * index of its own: it lives for one what-if (a removal simulation), and an index of
 * its own would file every pod of the cluster again and take the shared NodeInfos'
 * counts over from the original's index, which would then count them all again.
 */
export function keepQuestion(cluster: ClusterState, q: MatchQuery): void {
  let root = cluster;
  for (let parent = root.forkParent(); parent !== undefined; parent = root.forkParent()) root = parent;
  keptMatches(root, q);
}

/**
 * Matching pods per domain of `topologyKey` over the cluster's nodes (those carrying
 * every key of `keys`, or every node with a missing key read as '' when
 * `requireAllKeys` is false), domains in node order of first appearance: the
 * cluster's kept tally, or on a fork the sum of the node counts (keepQuestion).
 */
export function domainTotals(cluster: ClusterState, q: MatchQuery, topologyKey: string, keys: readonly string[], requireAllKeys: boolean): ReadonlyMap<string, number> {
  if (cluster.forkParent() === undefined) {
    const { index, kept } = keptMatches(cluster, q);
    return index.domainTotals(kept, topologyKey, keys, requireAllKeys);
  }
  keepQuestion(cluster, q);
  const tally = new DomainTally(topologyKey, keys, requireAllKeys);
  tally.build(cluster.nodeInfos(), (info) => nodeMatchCount(info, q));
  return tally.totals;
}
