// Per-node aggregate the scheduler filters and scores against (framework.NodeInfo):
// the pods on a node, their summed requests, host ports in use and image states.
// Updated incrementally as pods are added and removed.

import type { Node } from '../model/node.js';
import { hasAffinityTerms, type HostPort, type Pod } from '../model/pod.js';
import type { Labels } from '../model/selector.js';

const BIND_ALL = '0.0.0.0';

/** Host ports in use on a node: ip → set of "protocol/port". A set, as upstream: removing one user frees the port. */
export class HostPortSet {
  private readonly byIp = new Map<string, Set<string>>();

  private static norm(p: HostPort): [string, string] {
    return [p.hostIP || BIND_ALL, `${p.protocol || 'TCP'}/${p.port}`];
  }

  add(p: HostPort): void {
    if (p.port <= 0) return;
    const [ip, pp] = HostPortSet.norm(p);
    let set = this.byIp.get(ip);
    if (!set) this.byIp.set(ip, (set = new Set()));
    set.add(pp);
  }

  remove(p: HostPort): void {
    if (p.port <= 0) return;
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

  clone(): HostPortSet {
    const c = new HostPortSet();
    for (const [ip, set] of this.byIp) c.byIp.set(ip, new Set(set));
    return c;
  }
}

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

let generationCounter = 0;

/** Keeps some of a node's match counts up to date as its pods change (see NodeInfo.matchCounts). */
export interface MatchCountKeeper {
  /** Whether it keeps the count of question `index`. */
  keeps(index: number): boolean;
  /** Applies the node's pod changes since `keptTo` to the counts it keeps. */
  catchUp(info: NodeInfo): void;
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
  readonly pods: Pod[] = [];
  readonly podsWithAffinity: Pod[] = [];
  readonly podsWithRequiredAntiAffinity: Pod[] = [];
  /**
   * Pod key → its position in each list: removing a pod is then constant time instead of
   * a scan (a dump with 40,000 pods on one node made every rebind quadratic).
   */
  private readonly positions = new Map<Pod[], Map<string, number>>([
    [this.pods, new Map()],
    [this.podsWithAffinity, new Map()],
    [this.podsWithRequiredAntiAffinity, new Map()],
  ]);
  /** Summed requests of the pods (cpu in millicores). */
  readonly requested: Record<string, number> = {};
  nonZeroCpu = 0;
  nonZeroMemory = 0;
  usedPorts = new HostPortSet();
  /** Image name as the node reports it → state shared across nodes; kept by the ClusterState. */
  imageStates = new Map<string, ImageSummary>();
  generation = ++generationCounter;
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
  podLogStart = 0;
  /** How far some reader has read: entries before it may not be taken back. */
  private podLogRead = 0;
  /**
   * Counts of this node's pods matching numbered questions (a selector in a
   * namespace), kept and read by PodTopologySpread's nodeMatchCount. A field rather
   * than a side table: it is read for every scored node. A count is either caught up
   * on reading (from `positions`, the pod log position it is up to date with, -1:
   * none), or kept up to date by `keeper` (a cluster-wide index), which has applied
   * the pod log up to `keptTo` to every question it keeps, and `keptLabels` are the
   * node labels it last saw.
   */
  readonly matchCounts: MatchCounts = { epoch: -1, counts: [], positions: [], keeper: null, keptTo: 0, keptLabels: null };

  constructor(private current: Node) {}

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
    this.append(this.pods, pod);
    if (hasAffinityTerms(pod)) this.append(this.podsWithAffinity, pod);
    if (pod.requiredAntiAffinity.length > 0) this.append(this.podsWithRequiredAntiAffinity, pod);
    this.update(pod, 1);
  }

  /**
   * Removes the pod with the same key; returns false when it is not on this node.
   * As upstream's removeFromSlice, the last pod takes the removed one's place,
   * so pod order after removals is kube-scheduler's.
   */
  removePod(pod: Pod): boolean {
    const at = this.positions.get(this.pods)!.get(pod.key);
    if (at === undefined) return false;
    const stored = this.pods[at]!;
    this.removeByKey(this.pods, stored.key);
    this.removeByKey(this.podsWithAffinity, stored.key);
    this.removeByKey(this.podsWithRequiredAntiAffinity, stored.key);
    this.update(stored, -1);
    return true;
  }

  private append(list: Pod[], pod: Pod): void {
    this.positions.get(list)!.set(pod.key, list.length);
    list.push(pod);
  }

  /** removeFromSlice: the last pod takes the removed one's place. */
  private removeByKey(list: Pod[], key: string): void {
    const positions = this.positions.get(list)!;
    const i = positions.get(key);
    if (i === undefined) return;
    const last = list.pop()!;
    positions.delete(key);
    if (i < list.length) {
      list[i] = last;
      positions.set(last.key, i);
    }
  }

  private update(pod: Pod, sign: 1 | -1): void {
    for (const [k, v] of Object.entries(pod.resources.requests)) this.requested[k] = (this.requested[k] ?? 0) + sign * v;
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
    const c = new NodeInfo(this.node);
    for (const p of this.pods) c.append(c.pods, p);
    for (const p of this.podsWithAffinity) c.append(c.podsWithAffinity, p);
    for (const p of this.podsWithRequiredAntiAffinity) c.append(c.podsWithRequiredAntiAffinity, p);
    Object.assign(c.requested, this.requested);
    c.nonZeroCpu = this.nonZeroCpu;
    c.nonZeroMemory = this.nonZeroMemory;
    c.usedPorts = this.usedPorts.clone();
    c.imageStates = this.imageStates;
    c.generation = this.generation;
    // Counts up to date here hold on the copy, whose pod log starts where this one ends.
    c.podLogStart = this.podLogEnd;
    const kept = this.matchCounts;
    c.matchCounts.epoch = kept.epoch;
    for (let i = 0; i < kept.counts.length; i++) {
      const current = kept.positions[i] === this.podLogEnd;
      c.matchCounts.counts.push(current ? kept.counts[i]! : 0);
      c.matchCounts.positions.push(current ? c.podLogStart : -1);
    }
    return c;
  }
}

