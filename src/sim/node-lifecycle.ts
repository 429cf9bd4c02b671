// The node lifecycle controller. A kubelet renews its lease every 10 s; when the
// lease is older than the grace period (50 s) at a monitor pass (every 5 s) the
// node's Ready condition becomes Unknown: it gets the unreachable NoSchedule
// taint at once, its pods turn NotReady, and it joins its zone's queue for the
// unreachable NoExecute taint, which the taint eviction controller acts on. That
// queue is rate limited per zone (0.1 node/s; 0.01 or 0 in a partially disrupted
// zone; nothing while every zone is fully disrupted, which upstream takes for a
// control-plane network problem). A returning kubelet clears both taints at the
// next monitor pass.

import { zoneKey } from '../cluster/state.js';
import type { Node } from '../model/node.js';
import type { Taint } from '../model/taints.js';
import { TAINT_UNREACHABLE } from './admission.js';
import type { World } from './world.js';

export interface NodeLifecycleOptions {
  readonly monitorPeriodMs?: number;
  readonly gracePeriodMs?: number;
  readonly leaseRenewMs?: number;
  readonly evictionQps?: number;
  readonly secondaryEvictionQps?: number;
  readonly largeClusterSizeThreshold?: number;
  readonly unhealthyZoneThreshold?: number;
}

/** kube-controller-manager's --node-eviction-rate: unreachable nodes of a healthy zone tainted per second. */
export const NODE_EVICTION_QPS = 0.1;

const DEFAULTS: Required<NodeLifecycleOptions> = {
  monitorPeriodMs: 5_000,
  gracePeriodMs: 50_000,
  leaseRenewMs: 10_000,
  evictionQps: NODE_EVICTION_QPS,
  secondaryEvictionQps: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
};

export const UNREACHABLE_NO_SCHEDULE: Taint = { key: TAINT_UNREACHABLE, value: '', effect: 'NoSchedule' };
export const UNREACHABLE_NO_EXECUTE: Taint = { key: TAINT_UNREACHABLE, value: '', effect: 'NoExecute' };

type ZoneState = 'Normal' | 'PartialDisruption' | 'FullDisruption';

const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;

export class NodeLifecycle {
  private readonly o: Required<NodeLifecycleOptions>;
  /** Lease phase per node: its renewals happen at phase + k × leaseRenewMs. */
  private readonly leasePhase = new Map<string, number>();
  /** Nodes the controller has seen as not Ready. */
  private readonly notReady = new Set<string>();
  /** zone key → nodes waiting for the NoExecute taint, in order. */
  private readonly taintQueue = new Map<string, string[]>();
  /** zone key → the earliest time its limiter grants the next taint. */
  private readonly nextToken = new Map<string, number>();
  private readonly armed = new Set<string>();
  private readonly notReadyListeners: ((node: string) => void)[] = [];
  /** zoneStates as last computed: zones and sizes per node list, states per NotReady set (each taint pump asks; a zone loss pumps hundreds of times). */
  private zoneStatesCache:
    | { readonly nodes: readonly unknown[]; readonly zoneOf: ReadonlyMap<string, string>; readonly sizes: ReadonlyMap<string, number>; notReadyChanges: number; states: Map<string, { state: ZoneState; size: number }> }
    | undefined;
  private notReadyChanges = 0;

  constructor(
    private readonly world: World,
    opts: NodeLifecycleOptions = {},
  ) {
    this.o = { ...DEFAULTS, ...opts };
  }

  start(): void {
    for (const info of this.world.cluster.nodeInfos()) this.track(info.node);
    this.world.onChange((c) => {
      if (c.kind === 'nodeAdded') this.track(c.node);
      else if (c.kind === 'nodeDeleted') this.forget(c.node.name);
      else if (c.kind === 'kubelet' && c.running) this.kubeletStarted(c.node);
      else if (c.kind === 'kubelet') this.kubeletStopped(c.node);
    });
  }

  /** Called when the controller marks a node not Ready (the cloud node controller checks its instance then). */
  onNotReady(listener: (node: string) => void): void {
    this.notReadyListeners.push(listener);
  }

  isNotReady(node: string): boolean {
    return this.notReady.has(node);
  }

  /**
   * The earliest time the node can get the unreachable NoExecute taint: its zone's
   * queue hands out one node per token, tokens at least 1 / (the highest eviction
   * rate) apart, so the k-th node waiting comes k intervals after the next token.
   * Undefined for a node not waiting in a queue (Ready, not yet seen NotReady, or
   * tainted already). Holds while no kubelet of its zone comes back and no node
   * ahead of it is deleted (either moves the queue up).
   */
  noExecuteTaintNotBefore(node: string): number | undefined {
    for (const [zone, queue] of this.taintQueue) {
      const k = queue.indexOf(node);
      if (k < 0) continue;
      const interval = Math.round(1000 / Math.max(this.o.evictionQps, this.o.secondaryEvictionQps));
      return Math.max(this.world.engine.now, this.nextToken.get(zone) ?? 0) + k * interval;
    }
    return undefined;
  }

  private track(node: Node): void {
    this.leasePhase.set(node.name, this.world.engine.rand.intn(this.o.leaseRenewMs));
  }

  private forget(name: string): void {
    this.leasePhase.delete(name);
    if (this.notReady.delete(name)) this.notReadyChanges++;
    this.dequeue(name);
  }

  private dequeue(name: string): void {
    for (const [zone, queue] of this.taintQueue) {
      const i = queue.indexOf(name);
      if (i >= 0) queue.splice(i, 1);
      if (queue.length === 0) this.taintQueue.delete(zone);
    }
  }

  /** The first monitor pass strictly after `t`. */
  private nextMonitorPass(t: number): number {
    const p = this.o.monitorPeriodMs;
    return (Math.floor(t / p) + 1) * p;
  }

  private kubeletStopped(name: string): void {
    const { engine } = this.world;
    const phase = this.leasePhase.get(name) ?? 0;
    const renew = this.o.leaseRenewMs;
    const lastRenewal = engine.now < phase ? engine.now : phase + Math.floor((engine.now - phase) / renew) * renew;
    engine.at(this.nextMonitorPass(lastRenewal + this.o.gracePeriodMs), 'node-monitor', () => {
      if (this.world.kubeletRunning(name) || !this.leasePhase.has(name) || this.notReady.has(name)) return;
      this.markUnreachable(name);
    });
  }

  private kubeletStarted(name: string): void {
    const { engine } = this.world;
    this.leasePhase.set(name, engine.now % this.o.leaseRenewMs);
    engine.at(this.nextMonitorPass(engine.now), 'node-monitor', () => {
      if (!this.world.kubeletRunning(name) || !this.notReady.has(name)) return;
      this.notReady.delete(name);
      this.notReadyChanges++;
      this.dequeue(name);
      const node = this.world.cluster.nodeInfo(name)?.node;
      if (!node) return;
      engine.record('NodeReady', { node: name });
      const taints = node.taints.filter((t) => !sameTaint(t, UNREACHABLE_NO_SCHEDULE) && !sameTaint(t, UNREACHABLE_NO_EXECUTE));
      if (taints.length !== node.taints.length) this.world.updateNode({ ...node, taints }, 'NodeReady');
      this.pumpAll();
    });
  }

  private markUnreachable(name: string): void {
    const node = this.world.cluster.nodeInfo(name)?.node;
    if (!node) return;
    this.notReady.add(name);
    this.notReadyChanges++;
    this.world.engine.record('NodeNotReady', { node: name, reason: 'NodeStatusUnknown' });
    this.addTaint(node, UNREACHABLE_NO_SCHEDULE, 'NodeStatusUnknown');
    for (const pod of [...(this.world.cluster.nodeInfo(name)?.pods ?? [])]) this.world.markNotReady(pod.key, 'NodeNotReady');
    const zone = zoneKey(node.labels);
    const queue = this.taintQueue.get(zone);
    if (queue) queue.push(name);
    else this.taintQueue.set(zone, [name]);
    for (const l of this.notReadyListeners) l(name);
    this.pumpAll();
  }

  private addTaint(node: Node, taint: Taint, reason: string): void {
    if (node.taints.some((t) => sameTaint(t, taint))) return;
    this.world.updateNode({ ...node, taints: [...node.taints, taint] }, reason);
  }

  private zoneStates(): Map<string, { state: ZoneState; size: number }> {
    const nodes = this.world.cluster.nodeInfos();
    let cached = this.zoneStatesCache;
    if (cached?.nodes !== nodes) {
      // Each node's zone and each zone's size, per node list (zones in order of first appearance).
      const zoneOf = new Map<string, string>();
      const sizes = new Map<string, number>();
      for (const info of nodes) {
        const zone = zoneKey(info.node.labels);
        zoneOf.set(info.node.name, zone);
        sizes.set(zone, (sizes.get(zone) ?? 0) + 1);
      }
      cached = this.zoneStatesCache = { nodes, zoneOf, sizes, notReadyChanges: -1, states: new Map() };
    }
    if (cached.notReadyChanges !== this.notReadyChanges) {
      const notReady = new Map<string, number>();
      for (const name of this.notReady) {
        const zone = cached.zoneOf.get(name);
        if (zone !== undefined) notReady.set(zone, (notReady.get(zone) ?? 0) + 1);
      }
      cached.states = new Map();
      for (const [zone, size] of cached.sizes) cached.states.set(zone, { state: this.zoneState(size - (notReady.get(zone) ?? 0), notReady.get(zone) ?? 0), size });
      cached.notReadyChanges = this.notReadyChanges;
    }
    return cached.states;
  }

  private zoneState(ready: number, notReady: number): ZoneState {
    if (ready === 0 && notReady > 0) return 'FullDisruption';
    if (notReady > 2 && notReady / (ready + notReady) >= this.o.unhealthyZoneThreshold) return 'PartialDisruption';
    return 'Normal';
  }

  private qps(state: ZoneState, size: number): number {
    if (state !== 'PartialDisruption') return this.o.evictionQps;
    return size > this.o.largeClusterSizeThreshold ? this.o.secondaryEvictionQps : 0;
  }

  /** Arms the rate-limited NoExecute tainting of every zone with waiting nodes. */
  private pumpAll(): void {
    const states = this.zoneStates();
    const all = [...states.values()];
    if (all.length > 0 && all.every((z) => z.state === 'FullDisruption')) return;
    for (const zone of this.taintQueue.keys()) {
      const z = states.get(zone);
      const qps = z ? this.qps(z.state, z.size) : this.o.evictionQps;
      if (qps <= 0 || this.armed.has(zone)) continue;
      const { engine } = this.world;
      const at = Math.max(engine.now, this.nextToken.get(zone) ?? 0);
      this.armed.add(zone);
      engine.at(at, 'node-taint', () => {
        this.armed.delete(zone);
        const queue = this.taintQueue.get(zone);
        const name = queue?.shift();
        if (queue && queue.length === 0) this.taintQueue.delete(zone);
        if (name === undefined) return;
        this.nextToken.set(zone, engine.now + Math.round(1000 / qps));
        const node = this.world.cluster.nodeInfo(name)?.node;
        if (node && this.notReady.has(name)) this.addTaint(node, UNREACHABLE_NO_EXECUTE, 'NodeUnreachable');
        this.pumpAll();
      });
    }
  }
}
