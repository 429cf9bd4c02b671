// The matching-pod counts of a cluster's nodes and their totals per topology
// domain, kept up to date pod change by pod change. Asked question by question,
// each kept count would read every pod change since that question was last asked:
// with a hundred workloads each change is read a hundred times. The index reads
// each change once and finds the few questions it can matter to through the pod's
// label pairs (a question is filed under the values one of its In requirements
// accepts; those without one are checked against every change).
//
// Counts are kept sparse (per question, only the nodes with a matching pod), so a
// question costs what matches it, not the cluster's size. A clone of a cluster
// (every simulation of a check starts from one clone of the admitted cluster) does
// not file the cluster's pods again: while the state it was cloned from is
// unchanged, a question new to the clone is answered by that state's index and
// shared with it copy-on-write, then corrected by the pod changes the clone made
// since the copy (kept by label pair, as the pods are filed) and by counting afresh
// the few nodes whose changes were not logged.

import { copyMap, type MatchCountKeeper, type NodeInfo } from '../../../cluster/node-info.js';
import type { ClusterState } from '../../../cluster/state.js';
import { sameLabels, type Labels } from '../../../model/selector.js';
import type { Pod } from '../../../model/pod.js';
import { countMatchingPods, countsAsMatching } from './constraints.js';
import { PodsByLabel } from './pods-by-label.js';
import { nodeMatchCount, type MatchQuery } from './match-counts.js';

/** Which nodes count for one constraint set's topology key, and how a node's domain is read. */
class DomainRule {
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
}

const rules = new Map<string, DomainRule>();

function ruleFor(topologyKey: string, keys: readonly string[], requireAllKeys: boolean): { id: string; rule: DomainRule } {
  const id = `${topologyKey}\x01${keys.join('\x00')}\x01${requireAllKeys}`;
  let rule = rules.get(id);
  if (rule === undefined) rules.set(id, (rule = new DomainRule(topologyKey, keys, requireAllKeys)));
  return { id, rule };
}

/**
 * Matching pods per domain of a rule: every domain of a counted node present
 * (possibly 0), in node order of first appearance. Shared with an index's copies
 * (`owned` false on every side): whichever changes it first replaces it with a copy.
 */
interface Tally {
  readonly rule: DomainRule;
  readonly totals: Map<string, number>;
  owned: boolean;
}

interface Kept {
  readonly query: MatchQuery;
  /** The In requirement it is filed under (a matching pod carries one of the values), or undefined: checked against every change. */
  readonly filed: { readonly key: string; readonly values: ReadonlySet<string> } | undefined;
  /** Node name → matching pods there, for exactly the index's nodes that have some. Shared with copies until `perNodeOwned`. */
  perNode: Map<string, number>;
  perNodeOwned: boolean;
  /** By rule id, those built (dropped when the node list or a node's labels change). */
  tallies: Map<string, Tally>;
}

/** A pod added to (sign 1) or removed from (-1) a node, as logged. */
interface PodChange {
  readonly pod: Pod;
  readonly node: string;
  readonly sign: 1 | -1;
}

/** Past this many logged pod changes a copy's index files every pod and stops reading its source's. */
const MAX_DELTA = 1 << 17;

/** countMatchingPods on the node for a kept question. */
function countOn(info: NodeInfo, k: Kept): number {
  return countMatchingPods(info.pods, k.query.selector, k.query.namespace);
}

/** Past this many questions an index forgets them all (copies keep what they were given). */
const MAX_KEPT = 4096;

export class MatchIndex implements MatchCountKeeper {
  private nodes: readonly NodeInfo[] = [];
  private started = false;
  private mark = { epoch: -1, position: 0 };
  /** By question key. */
  private kept = new Map<string, Kept>();
  /** Label key → value → the questions filed under that pair. */
  private byPair = new Map<string, Map<string, Kept[]>>();
  private unfiled: Kept[] = [];
  /**
   * By rule id: the domains of the node list in order of first appearance. Replaced,
   * never changed, when the list or a node's labels change; shared with the index of a
   * copy whose node list is the same.
   */
  private layouts = new Map<string, readonly string[]>();
  /**
   * The pods of the index's nodes by label pair, for counting a question from scratch;
   * null while new questions are taken from the source's index (`source`).
   */
  private pods: PodsByLabel | null = null;
  /** Names of the nodes whose pods were ever filed in `pods`. */
  private readonly tracked = new Set<string>();
  /** For the index of a clone: the state cloned and its version then; null once it no longer serves. */
  private source: { readonly state: WeakRef<ClusterState>; readonly version: number } | null;
  /**
   * While `source` serves: the pod changes made here since the copy, by label pair as
   * `pods` files pods (`all`: every one, for questions filed under none), and the
   * nodes whose difference from the source is not in them (`opaque`: changed before
   * this index started with their log restarted since the copy, new here or gone).
   */
  private delta: { readonly byPair: Map<string, Map<string, PodChange[]>>; readonly all: PodChange[] } = { byPair: new Map(), all: [] };
  private readonly opaque = new Set<string>();
  /** The node whose pod changes are being applied (readPodChanges calls `visit` with the pod alone). */
  private visiting: NodeInfo | null = null;
  private readonly visit = (pod: Pod, sign: 1 | -1) => this.apply(this.visiting!, pod, sign);

  constructor(private readonly cluster: ClusterState) {
    this.source = cluster.forkParent() === undefined ? cluster.copySource() : null;
  }

  keptCount(info: NodeInfo, key: string): number | undefined {
    const k = this.kept.get(key);
    if (k === undefined) return undefined;
    if (info.matchCounts.keptTo !== info.podLogEnd) this.catchUp(info);
    return k.perNode.get(info.node.name) ?? 0;
  }

  /** Every node's kept counts up to date, and the node list followed. */
  sync(): void {
    const nodes = this.cluster.nodeInfos();
    if (!this.started) this.start(nodes);
    else if (nodes !== this.nodes) {
      const now = new Set(nodes);
      for (const info of this.nodes) {
        if (now.has(info)) continue;
        if (info.matchCounts.keeper === this) this.untrack(info);
        else if (this.pods !== null && this.cluster.nodeInfo(info.node.name) === undefined) this.pods.removeNode(info.node.name);
      }
      for (const info of nodes) {
        if (info.matchCounts.keeper === this) this.catchUp(info);
        else this.track(info);
      }
      this.nodes = nodes;
      this.dropTallies();
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
      if (counted) this.dropTallies();
    }
    this.mark = this.cluster.changeMark();
  }

  /** The first sync: the nodes taken over from the source's index, or every pod filed. */
  private start(nodes: readonly NodeInfo[]): void {
    this.started = true;
    this.nodes = nodes;
    const source = this.servingSource();
    if (source === undefined) {
      this.pods = new PodsByLabel();
      for (const info of nodes) this.track(info);
      return;
    }
    source.index.sync();
    const theirs = source.state.nodeInfos();
    let sameList = nodes.length === theirs.length;
    for (let i = 0; i < nodes.length; i++) {
      const info = nodes[i]!;
      const name = info.node.name;
      const was = source.state.nodeInfo(name);
      if (sameList && (was === undefined || theirs[i] !== was || !sameLabels(was.node.labels, info.node.labels))) sameList = false;
      const kept = info.matchCounts;
      kept.keeper = this;
      kept.keptLabels = info.node.labels;
      // A copy keeps its original's generation until it changes, and its pod log starts where the original's ends (until it restarts).
      if (was !== undefined && was.generation !== info.generation && info.lineage === was.lineage && info.podLogStart === was.podLogEnd) {
        this.visiting = info;
        kept.keptTo = info.readPodChanges(info.podLogStart, this.visit);
        this.visiting = null;
        continue;
      }
      if (was === undefined || was.generation !== info.generation) this.opaque.add(name);
      kept.keptTo = info.readPodChanges(info.podLogEnd);
    }
    for (const info of theirs) if (this.cluster.nodeInfo(info.node.name) === undefined) this.opaque.add(info.node.name);
    if (sameList) this.layouts = source.index.layouts;
  }

  /** The state this one was cloned from and its index, while that state is unchanged since. */
  private servingSource(): { state: ClusterState; index: MatchIndex } | undefined {
    const state = this.source?.state.deref();
    if (state === undefined || state.version !== this.source!.version || state.forkParent() !== undefined) {
      this.source = null;
      return undefined;
    }
    return { state, index: indexOf(state) };
  }

  /** Keeps `q` from now on; the index must be in sync. */
  keep(q: MatchQuery): Kept {
    const existing = this.kept.get(q.key);
    if (existing !== undefined) return existing;
    // Correcting the source's answer costs the pods of the opaque nodes and the logged changes: past a quarter of the nodes, or a long log, filing every pod pays.
    const source = this.source !== null && this.opaque.size * 4 <= this.nodes.length && this.delta.all.length <= MAX_DELTA ? this.servingSource() : undefined;
    let k: Kept;
    if (source !== undefined) k = this.inherit(q, source);
    else {
      if (this.pods === null) this.fileEveryPod();
      k = this.countAfresh(q);
    }
    if (this.kept.size >= MAX_KEPT) this.forgetQuestions();
    this.kept.set(q.key, k);
    if (k.filed === undefined) {
      this.unfiled.push(k);
      return k;
    }
    let byValue = this.byPair.get(k.filed.key);
    if (!byValue) this.byPair.set(k.filed.key, (byValue = new Map()));
    for (const v of k.filed.values) {
      const list = byValue.get(v);
      if (list) list.push(k);
      else byValue.set(v, [k]);
    }
    return k;
  }

  /** `q` counted from the filed pods (or every node when no In requirement narrows it). */
  private countAfresh(q: MatchQuery): Kept {
    const pods = this.pods!;
    // Filed under the In requirement whose values the fewest pods carry.
    let filed: { key: string; values: ReadonlySet<string>; pods: number } | undefined;
    for (const r of q.selector.requirements) {
      if (r.operator !== 'In') continue;
      const values = new Set(r.values);
      let n = 0;
      for (const v of values) n += pods.withLabel(r.key, v).size;
      if (filed === undefined || n < filed.pods) filed = { key: r.key, values, pods: n };
    }
    const k: Kept = { query: q, filed: filed && { key: filed.key, values: filed.values }, perNode: new Map(), perNodeOwned: true, tallies: new Map() };
    if (filed === undefined) {
      for (const info of this.nodes) {
        const n = countOn(info, k);
        if (n > 0) k.perNode.set(info.node.name, n);
      }
      return k;
    }
    for (const v of filed.values) {
      for (const pod of pods.withLabel(filed.key, v).values()) {
        if (countsAsMatching(pod, q.selector, q.namespace)) k.perNode.set(pod.nodeName, (k.perNode.get(pod.nodeName) ?? 0) + 1);
      }
    }
    return k;
  }

  /** `q` as the source's index keeps it (shared until either side changes it), corrected by what changed here. */
  private inherit(q: MatchQuery, source: { state: ClusterState; index: MatchIndex }): Kept {
    const theirs = source.index.keep(q);
    theirs.perNodeOwned = false;
    const k: Kept = { query: q, filed: theirs.filed, perNode: theirs.perNode, perNodeOwned: false, tallies: new Map() };
    // Their tallies hold here only over the same node list and labels.
    if (this.layouts === source.index.layouts) {
      for (const [id, t] of theirs.tallies) {
        t.owned = false;
        k.tallies.set(id, t);
      }
    }
    const { byPair, all } = this.delta;
    const logged = k.filed === undefined ? [all] : [...k.filed.values].map((v) => byPair.get(k.filed!.key)?.get(v) ?? []);
    for (const changes of logged) {
      for (const c of changes) {
        if (this.opaque.has(c.node) || !countsAsMatching(c.pod, q.selector, q.namespace)) continue;
        this.adjust(k, this.cluster.nodeInfo(c.node)!, c.sign);
      }
    }
    for (const name of this.opaque) {
      const info = this.cluster.nodeInfo(name);
      const n = info === undefined ? 0 : countOn(info, k);
      const was = k.perNode.get(name) ?? 0;
      if (n === was) continue;
      if (info === undefined) this.setCount(k, name, 0);
      else this.adjust(k, info, n - was);
    }
    return k;
  }

  /** No source serves any more: every pod of the nodes filed, for counting new questions here. */
  private fileEveryPod(): void {
    this.source = null;
    this.opaque.clear();
    this.delta = { byPair: new Map(), all: [] };
    const pods = (this.pods = new PodsByLabel());
    for (const info of this.nodes) {
      this.tracked.add(info.node.name);
      for (const pod of info.pods) pods.add(pod);
    }
  }

  /** The domain totals of a kept question; the index must be in sync. */
  domainTotals(k: Kept, topologyKey: string, keys: readonly string[], requireAllKeys: boolean): ReadonlyMap<string, number> {
    const { id, rule } = ruleFor(topologyKey, keys, requireAllKeys);
    let t = k.tallies.get(id);
    if (t === undefined) {
      const totals = new Map<string, number>();
      for (const domain of this.layout(id, rule)) totals.set(domain, 0);
      for (const [name, n] of k.perNode) {
        const domain = rule.domainOf(this.cluster.nodeInfo(name)!.node.labels);
        if (domain !== undefined) totals.set(domain, totals.get(domain)! + n);
      }
      k.tallies.set(id, (t = { rule, totals, owned: true }));
    }
    return t.totals;
  }

  /** The rule's domains over the node list, in order of first appearance. */
  private layout(id: string, rule: DomainRule): readonly string[] {
    let domains = this.layouts.get(id);
    if (domains === undefined) {
      const seen = new Set<string>();
      for (const info of this.nodes) {
        const domain = rule.domainOf(info.node.labels);
        if (domain !== undefined) seen.add(domain);
      }
      this.layouts.set(id, (domains = [...seen]));
    }
    return domains;
  }

  private catchUp(info: NodeInfo): void {
    const kept = info.matchCounts;
    if (info.node.labels !== kept.keptLabels) {
      // A node's domain moved (its list did not): the totals are built again.
      if (kept.keptLabels !== null && !sameLabels(kept.keptLabels, info.node.labels)) this.dropTallies();
      kept.keptLabels = info.node.labels;
    }
    if (kept.keptTo === info.podLogEnd) return;
    if (kept.keptTo < info.podLogStart) {
      // The log restarted since: count again.
      if (this.pods === null) this.opaque.add(info.node.name);
      else {
        this.pods.removeNode(info.node.name);
        for (const pod of info.pods) this.pods.add(pod);
      }
      for (const k of this.kept.values()) {
        const delta = countOn(info, k) - (k.perNode.get(info.node.name) ?? 0);
        if (delta !== 0) this.adjust(k, info, delta);
      }
      kept.keptTo = info.readPodChanges(info.podLogEnd);
      return;
    }
    this.visiting = info;
    kept.keptTo = info.readPodChanges(kept.keptTo, this.visit);
    this.visiting = null;
  }

  /** Counts a node afresh for every question (the caller drops the tallies). */
  private track(info: NodeInfo): void {
    const kept = info.matchCounts;
    const name = info.node.name;
    if (this.pods !== null) {
      // Pods filed under this name by an earlier NodeInfo of the node go: the node's pods are filed again below.
      if (this.tracked.has(name)) this.pods.removeNode(name);
      this.tracked.add(name);
      for (const pod of info.pods) this.pods.add(pod);
    } else this.opaque.add(name);
    for (const k of this.kept.values()) this.setCount(k, name, countOn(info, k));
    kept.keeper = this;
    kept.keptLabels = info.node.labels;
    kept.keptTo = info.readPodChanges(info.podLogEnd);
  }

  /** A node that left the list: its pods and counts go too (the caller drops the tallies). */
  private untrack(info: NodeInfo): void {
    this.catchUp(info);
    const name = info.node.name;
    if (this.pods !== null) for (const pod of info.pods) this.pods.remove(pod, name);
    else this.opaque.add(name);
    for (const k of this.kept.values()) this.setCount(k, name, 0);
    info.matchCounts.keeper = null;
  }

  private apply(info: NodeInfo, pod: Pod, sign: 1 | -1): void {
    if (this.pods !== null) {
      if (sign > 0) this.pods.add(pod);
      else this.pods.remove(pod, info.node.name);
    }
    if (pod.terminating) return;
    if (this.pods === null) this.logChange({ pod, node: info.node.name, sign });
    const labels = pod.labels;
    for (const key in labels) {
      const list = this.byPair.get(key)?.get(labels[key]!);
      if (list !== undefined) for (const k of list) this.count(k, info, pod, sign);
    }
    for (const k of this.unfiled) this.count(k, info, pod, sign);
  }

  /** Files a pod change made here for questions taken from the source later. */
  private logChange(c: PodChange): void {
    const { byPair, all } = this.delta;
    all.push(c);
    const labels = c.pod.labels;
    for (const key in labels) {
      let byValue = byPair.get(key);
      if (byValue === undefined) byPair.set(key, (byValue = new Map()));
      const value = labels[key]!;
      const list = byValue.get(value);
      if (list === undefined) byValue.set(value, [c]);
      else list.push(c);
    }
  }

  private count(k: Kept, info: NodeInfo, pod: Pod, sign: 1 | -1): void {
    if (countsAsMatching(pod, k.query.selector, k.query.namespace)) this.adjust(k, info, sign);
  }

  /** The node's count (copied first when shared), without the tallies. */
  private setCount(k: Kept, name: string, n: number): void {
    if ((k.perNode.get(name) ?? 0) === n) return;
    if (!k.perNodeOwned) {
      k.perNode = copyMap(k.perNode);
      k.perNodeOwned = true;
    }
    if (n === 0) k.perNode.delete(name);
    else k.perNode.set(name, n);
  }

  /** Adds `delta` to the node's count and to its domain in every built tally (each copied first when shared). */
  private adjust(k: Kept, info: NodeInfo, delta: number): void {
    const name = info.node.name;
    this.setCount(k, name, (k.perNode.get(name) ?? 0) + delta);
    for (const [id, t] of k.tallies) {
      const domain = t.rule.domainOf(info.node.labels);
      if (domain === undefined) continue;
      const own = t.owned ? t : { rule: t.rule, totals: copyMap(t.totals), owned: true };
      if (own !== t) k.tallies.set(id, own);
      own.totals.set(domain, (own.totals.get(domain) ?? 0) + delta);
    }
  }

  /** The node list or a node's labels changed: domains and tallies are worked out again. */
  private dropTallies(): void {
    this.layouts = new Map();
    for (const k of this.kept.values()) if (k.tallies.size > 0) k.tallies = new Map();
  }

  private forgetQuestions(): void {
    this.kept = new Map();
    this.byPair = new Map();
    this.unfiled = [];
  }
}

const indexes = new WeakMap<ClusterState, MatchIndex>();

function indexOf(cluster: ClusterState): MatchIndex {
  let index = indexes.get(cluster);
  if (index === undefined) indexes.set(cluster, (index = new MatchIndex(cluster)));
  return index;
}

/** The cluster's index, in sync with its nodes, keeping `q`. */
export function keptMatches(cluster: ClusterState, q: MatchQuery): { index: MatchIndex; kept: Kept } {
  const index = indexOf(cluster);
  index.sync();
  return { index, kept: index.keep(q) };
}

/**
 * Has `q` kept where node counts can be read from now on: by the cluster's index, or
 * for a fork (ClusterState.fork) by the index of the state it was forked from, whose
 * counts on the NodeInfos the fork still shares are the fork's too. A fork keeps no
 * index of its own: it lives for one what-if (a removal simulation), and an index of
 * its own would take the shared NodeInfos' counts over from the original's index,
 * which would then count them all again.
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
  const { rule } = ruleFor(topologyKey, keys, requireAllKeys);
  const totals = new Map<string, number>();
  for (const info of cluster.nodeInfos()) {
    const domain = rule.domainOf(info.node.labels);
    if (domain !== undefined) totals.set(domain, (totals.get(domain) ?? 0) + nodeMatchCount(info, q));
  }
  return totals;
}
