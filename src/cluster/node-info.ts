// Per-node aggregate the scheduler filters and scores against (framework.NodeInfo):
// the pods on a node, their summed requests, host ports in use and image names.
// Updated incrementally as pods are added and removed.

import type { Node } from '../model/node.js';
import { hasAffinityTerms, type HostPort, type Pod } from '../model/pod.js';
import type { Labels } from '../model/selector.js';

const BIND_ALL = '0.0.0.0';

/** Host ports in use on a node: ip → set of "protocol/port". A set, as upstream: removing one user frees the port. */
export class HostPortSet {
  private byIp = new Map<string, Set<string>>();
  /** byIp (and its sets) is shared with a copy (clone): copied before either changes it. */
  private shared = false;

  private static norm(p: HostPort): [string, string] {
    return [p.hostIP || BIND_ALL, `${p.protocol || 'TCP'}/${p.port}`];
  }

  add(p: HostPort): void {
    if (p.port <= 0) return;
    this.own();
    const [ip, pp] = HostPortSet.norm(p);
    let set = this.byIp.get(ip);
    if (!set) this.byIp.set(ip, (set = new Set()));
    set.add(pp);
  }

  remove(p: HostPort): void {
    if (p.port <= 0) return;
    this.own();
    const [ip, pp] = HostPortSet.norm(p);
    const set = this.byIp.get(ip);
    if (!set) return;
    set.delete(pp);
    if (set.size === 0) this.byIp.delete(ip);
  }

  /** HostPortInfo.CheckConflict: 0.0.0.0 conflicts with the same port on any ip, and any ip with 0.0.0.0. */
  conflicts(p: HostPort): boolean {
    if (p.port <= 0) return false;
    const [ip, pp] = HostPortSet.norm(p);
    if (ip === BIND_ALL) {
      for (const set of this.byIp.values()) if (set.has(pp)) return true;
      return false;
    }
    return (this.byIp.get(BIND_ALL)?.has(pp) ?? false) || (this.byIp.get(ip)?.has(pp) ?? false);
  }

  get size(): number {
    let n = 0;
    for (const set of this.byIp.values()) n += set.size;
    return n;
  }

  /** A copy sharing this one's sets until either changes (most nodes' ports never change in a what-if). */
  clone(): HostPortSet {
    const c = new HostPortSet();
    if (this.byIp.size === 0) return c;
    c.byIp = this.byIp;
    c.shared = this.shared = true;
    return c;
  }

  private own(): void {
    if (!this.shared) return;
    const byIp = new Map<string, Set<string>>();
    for (const [ip, set] of this.byIp) byIp.set(ip, new Set(set));
    this.byIp = byIp;
    this.shared = false;
  }
}

/** The image names of a node that reports none, or that no ClusterState holds. */
export const NO_IMAGES: ReadonlyMap<string, number> = new Map();

export interface ImageSummary {
  readonly sizeBytes: number;
  /** How many nodes in the cluster have this image. */
  numNodes: number;
}

/**
 * A pod's image reference as ImageLocality looks it up among node images: a
 * reference with no ':' after its last '/' gets ":latest".
 */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

/**
 * A copy of `m`. Every simulation copies the cluster's pod maps (5,249 pods at 1,000 nodes):
 * forEach does not allocate an entry and an iterator result per pod as `new Map(m)` does.
 */
export function copyMap<K, V>(m: ReadonlyMap<K, V>): Map<K, V> {
  const c = new Map<K, V>();
  m.forEach((v, k) => c.set(k, v));
  return c;
}

let generationCounter = 0;
let lineageCounter = 0;

/** Keeps some of a node's match counts up to date as its pods change (see NodeInfo.matchCounts). */
export interface MatchCountKeeper {
  /** The node's count for the question keyed `key`, caught up with its pod changes; undefined when the keeper does not keep that question. */
  keptCount(info: NodeInfo, key: string): number | undefined;
}

export interface MatchCounts {
  epoch: number;
  readonly counts: number[];
  readonly positions: number[];
  keeper: MatchCountKeeper | null;
  keptTo: number;
  keptLabels: Labels | null;
}

export class NodeInfo {
  readonly pods: Pod[];
  readonly podsWithAffinity: Pod[];
  readonly podsWithRequiredAntiAffinity: Pod[];
  /**
   * Pod key → its position in `pods`, and in the two shorter lists once they have had
   * a pod: removing a pod is then constant time instead of a scan (a dump with 40,000
   * pods on one node made every rebind quadratic). Shared with copies (clone) until
   * either side adds or removes a pod (`positionsShared`): most of a simulation's
   * nodes never do, and copying them was a third of what each simulation allocated.
   */
  private podPositions: Map<string, number>;
  private affinityPositions: Map<string, number> | null;
  private antiAffinityPositions: Map<string, number> | null;
  private positionsShared = false;
  /** Summed requests of the pods (cpu in millicores). */
  readonly requested: Record<string, number>;
  nonZeroCpu: number;
  nonZeroMemory: number;
  usedPorts: HostPortSet;
  /**
   * The image names the node reports, each once, with the size reported under its first
   * listing; set by the ClusterState holding the node, whose image states (imageState)
   * they key. Read-only and shared by copies: cloning a state copies no per-node image map.
   */
  imageNames: ReadonlyMap<string, number> = NO_IMAGES;
  generation: number;
  /**
   * Shared by a NodeInfo and its copies (clone) only: a copy whose log still starts
   * where its original's ended (podLogStart) logs every change made to it since.
   */
  readonly lineage: number;
  /**
   * The pods added (sign 1) and removed (-1) since position `podLogStart`, so that
   * counts of matching pods kept elsewhere can catch up with the changes instead of
   * walking every pod again. A pod removed and added straight back with the same
   * namespace, labels and terminating state (a status update) leaves no entry when
   * no reader has seen the removal: no count by those can change. Restarted (its
   * start moved past the end) when it grows long against the pods; a reader then
   * behind the start recounts.
   */
  private podLog: Pod[] = [];
  private podLogSigns: (1 | -1)[] = [];
  podLogStart: number;
  /** How far some reader has read: entries before it may not be taken back. */
  private podLogRead: number;
  /**
   * Counts of this node's pods matching numbered questions (a selector in a
   * namespace), kept and read by PodTopologySpread's nodeMatchCount. A field rather
   * than a side table: it is read for every scored node. A count is either caught up
   * on reading (from `positions`, the pod log position it is up to date with, -1:
   * none), or, for the questions `keeper` (a cluster-wide index) keeps, held there:
   * it has applied the pod log up to `keptTo` to each of them, and `keptLabels` are
   * the node labels it last saw.
   */
  readonly matchCounts: MatchCounts;

  /**
   * A node without pods; or, with `from`, a copy of `from` whose pod lists and sums
   * can change without touching it (pods themselves are shared), built directly
   * rather than by adding the pods again.
   */
  constructor(
    private current: Node,
    from?: NodeInfo,
  ) {
    if (!from) {
      this.pods = [];
      this.podsWithAffinity = [];
      this.podsWithRequiredAntiAffinity = [];
      this.podPositions = new Map();
      this.affinityPositions = null;
      this.antiAffinityPositions = null;
      this.requested = {};
      this.nonZeroCpu = 0;
      this.nonZeroMemory = 0;
      this.usedPorts = new HostPortSet();
      this.generation = ++generationCounter;
      this.lineage = ++lineageCounter;
      this.podLogStart = 0;
      this.podLogRead = 0;
      this.matchCounts = { epoch: -1, counts: [], positions: [], keeper: null, keptTo: 0, keptLabels: null };
      return;
    }
    this.pods = from.pods.slice();
    this.podsWithAffinity = from.podsWithAffinity.slice();
    this.podsWithRequiredAntiAffinity = from.podsWithRequiredAntiAffinity.slice();
    this.podPositions = from.podPositions;
    this.affinityPositions = from.affinityPositions;
    this.antiAffinityPositions = from.antiAffinityPositions;
    this.positionsShared = from.positionsShared = true;
    this.requested = { ...from.requested };
    this.nonZeroCpu = from.nonZeroCpu;
    this.nonZeroMemory = from.nonZeroMemory;
    this.usedPorts = from.usedPorts.clone();
    this.imageNames = from.imageNames;
    this.generation = from.generation;
    this.lineage = from.lineage;
    // Counts up to date there hold on the copy, whose pod log starts where that one ends.
    this.podLogStart = from.podLogEnd;
    this.podLogRead = 0;
    const kept = from.matchCounts;
    const counts = kept.counts.slice();
    const positions = kept.positions.slice();
    for (let i = 0; i < positions.length; i++) {
      // Up to date at the copy's start (podLogStart), or recounted when read.
      if (positions[i] !== this.podLogStart) {
        counts[i] = 0;
        positions[i] = -1;
      }
    }
    this.matchCounts = { epoch: kept.epoch, counts, positions, keeper: null, keptTo: 0, keptLabels: null };
  }

  /** The position after the last logged pod change. */
  get podLogEnd(): number {
    return this.podLogStart + this.podLog.length;
  }

  /**
   * Calls `visit` for each pod change from `position` (at least podLogStart) to the
   * end, in order, and returns the end: the position to read from next time.
   */
  readPodChanges(position: number, visit?: (pod: Pod, sign: 1 | -1) => void): number {
    if (visit) for (let i = position - this.podLogStart; i < this.podLog.length; i++) visit(this.podLog[i]!, this.podLogSigns[i]!);
    return (this.podLogRead = this.podLogEnd);
  }

  private logPodChange(pod: Pod, sign: 1 | -1): void {
    const last = this.podLog.length - 1;
    if (sign === 1 && last >= 0 && this.podLogSigns[last] === -1 && this.podLogStart + last >= this.podLogRead) {
      const removed = this.podLog[last]!;
      if (removed.key === pod.key && removed.namespace === pod.namespace && removed.labels === pod.labels && removed.terminating === pod.terminating) {
        this.podLog.pop();
        this.podLogSigns.pop();
        return;
      }
    }
    if (this.podLog.length >= 64 + 4 * this.pods.length) {
      this.podLogStart = this.podLogEnd;
      this.podLog = [];
      this.podLogSigns = [];
    }
    this.podLog.push(pod);
    this.podLogSigns.push(sign);
  }

  get node(): Node {
    return this.current;
  }

  /** A new version of the node object (taints, labels, unschedulable); its pods stay. */
  replaceNode(node: Node): void {
    this.current = node;
    this.generation = ++generationCounter;
  }

  addPod(pod: Pod): void {
    this.ownPositions();
    this.podPositions.set(pod.key, this.pods.length);
    this.pods.push(pod);
    if (hasAffinityTerms(pod)) {
      (this.affinityPositions ??= new Map()).set(pod.key, this.podsWithAffinity.length);
      this.podsWithAffinity.push(pod);
    }
    if (pod.requiredAntiAffinity.length > 0) {
      (this.antiAffinityPositions ??= new Map()).set(pod.key, this.podsWithRequiredAntiAffinity.length);
      this.podsWithRequiredAntiAffinity.push(pod);
    }
    this.update(pod, 1);
  }

  /**
   * Removes the pod with the same key; returns false when it is not on this node.
   * As upstream's removeFromSlice, the last pod takes the removed one's place,
   * so pod order after removals is kube-scheduler's.
   */
  removePod(pod: Pod): boolean {
    const at = this.podPositions.get(pod.key);
    if (at === undefined) return false;
    this.ownPositions();
    const stored = this.pods[at]!;
    removeByKey(this.pods, this.podPositions, stored.key);
    if (this.affinityPositions) removeByKey(this.podsWithAffinity, this.affinityPositions, stored.key);
    if (this.antiAffinityPositions) removeByKey(this.podsWithRequiredAntiAffinity, this.antiAffinityPositions, stored.key);
    this.update(stored, -1);
    return true;
  }

  /** The position maps this NodeInfo may change: copied first while shared with a copy or its source. */
  private ownPositions(): void {
    if (!this.positionsShared) return;
    this.podPositions = copyMap(this.podPositions);
    this.affinityPositions = this.affinityPositions && copyMap(this.affinityPositions);
    this.antiAffinityPositions = this.antiAffinityPositions && copyMap(this.antiAffinityPositions);
    this.positionsShared = false;
  }

  private update(pod: Pod, sign: 1 | -1): void {
    const requests = pod.resources.requests;
    // for-in rather than Object.entries: no entry arrays for every pod added or removed.
    for (const k in requests) if (Object.hasOwn(requests, k)) this.requested[k] = (this.requested[k] ?? 0) + sign * requests[k]!;
    this.nonZeroCpu += sign * pod.resources.nonZeroCpu;
    this.nonZeroMemory += sign * pod.resources.nonZeroMemory;
    for (const p of pod.hostPorts) {
      if (sign > 0) this.usedPorts.add(p);
      else this.usedPorts.remove(p);
    }
    this.logPodChange(pod, sign);
    this.generation = ++generationCounter;
  }

  /** A copy whose pod lists and sums can change without touching this one (pods themselves are shared). */
  clone(): NodeInfo {
    return new NodeInfo(this.node, this);
  }
}

/** removeFromSlice: the last pod takes the removed one's place. */
function removeByKey(list: Pod[], positions: Map<string, number>, key: string): void {
  const i = positions.get(key);
  if (i === undefined) return;
  const last = list.pop()!;
  positions.delete(key);
  if (i < list.length) {
    list[i] = last;
    positions.set(last.key, i);
  }
}
