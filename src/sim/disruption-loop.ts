// Karpenter's disruption controller in simulated time. Every 10 s it expires the
// nodes past their NodePool's expireAfter (forceful: no budgets), then makes at most
// one graceful decision — emptiness, drift, multi-node, single-node consolidation
// (disruption/disrupt.ts). A consolidation decision waits 15 s and is computed again
// for the same nodes before it runs; while it waits no other decision is made.
// Running a decision: the nodes get the karpenter.sh/disrupted:NoSchedule taint,
// replacements are launched, and once every replacement is initialized the nodes
// are drained through the eviction API (PDBs respected, do-not-disrupt pods waited
// for until the NodePool's terminationGracePeriod) and deleted with their instance.
// Every step is an event: which node, why, what replaces it, where its pods go.

import { DISRUPTED_TAINT } from '../disruption/candidates.js';
import type { Node } from '../model/node.js';
import { LABEL_NODEPOOL, type NodePool } from '../model/nodepool.js';
import type { Pod } from '../model/pod.js';
import { isDaemonSetPod, isDoNotDisruptActive, type Rejection } from '../disruption/candidates.js';
import { replacementName, type ConsolidationInput, type Decision } from '../disruption/consolidate.js';
import { claimHashOf, driftReason, restampedClaim, type ClaimHash } from '../disruption/drift.js';
import { NODEPOOL_HASH_VERSION } from '../model/nodepool-hash.js';
import { expiry, nextDisruption, revalidate, type DisruptionInput } from '../disruption/disrupt.js';
import { ConsolidationMemo } from '../disruption/consolidation-memo.js';
import { cheaperRepack, revalidateRepack } from '../disruption/optimize-consolidation.js';
import { catalogPrices } from '../disruption/pricing.js';
import type { Taint } from '../model/taints.js';
import type { SimCloud } from './cloud.js';
import type { NodeLifecycle } from './node-lifecycle.js';
import type { DisruptionController } from './controllers/disruption.js';
import type { NodePlanningOptions, ProvisionerLoop } from './provisioner-loop.js';
import type { World } from './world.js';

export interface DisruptionLoopOptions extends NodePlanningOptions {
  /** Karpenter's SpotToSpotConsolidation feature gate. */
  readonly spotToSpot?: boolean;
  readonly pollMs?: number;
  readonly validationMs?: number;
  /** Simulation budgets standing in for Karpenter's consolidation timeouts (ConsolidationInput.consolidationWork); none by default. */
  readonly consolidationWork?: ConsolidationInput['consolidationWork'];
  /** Nodes whose NodeClaim (in the input) has a Drifted condition: a hash-version migration keeps their hash. */
  readonly driftedClaims?: ReadonlySet<string>;
  /**
   * berth's own, off by default: when a pass finds nothing Karpenter would do, a cost
   * step (optimize-consolidation.ts) may replace a set of nodes by any number of
   * cheaper ones; it waits and is checked again as a consolidation decision is.
   */
  readonly optimize?: 'cost';
  /**
   * Whether passes record their why-not events (DisruptionBlocked, Unconsolidatable); on
   * by default. A caller that reads only what was done (the what-if) turns them off: an
   * Unconsolidatable's wording may cost a scheduling simulation of its own.
   */
  readonly whyNotEvents?: boolean;
}

export const DEFAULT_DISRUPTION_POLL_MS = 10_000;
/** consolidationTTL: how long a consolidation decision waits before it is checked again. */
export const DEFAULT_VALIDATION_MS = 15_000;
/** How long replacements may take to initialize before the decision is abandoned. */
export const REPLACEMENT_TIMEOUT_MS = 10 * 60_000;
/** Pause before an eviction refused by a PDB is tried again. */
export const EVICTION_RETRY_MS = 5_000;
/** How long a "nothing to consolidate" answer stands without cluster changes. */
export const CONSOLIDATED_TTL_MS = 5 * 60_000;
export { DISRUPTED_TAINT };

interface Command {
  readonly decision: Decision;
  readonly replacements: readonly string[];
  /** The decision's placeholder names of its replacements (as in its predicted placements) → launched names. */
  readonly launchedAs: ReadonlyMap<string, string>;
  /** Waiting for replacements, draining, or done. */
  phase: 'replacing' | 'draining' | 'done';
  drainStartedAt: number;
}

export class DisruptionLoop {
  private pools: readonly NodePool[];
  private readonly price: (node: Node) => number | undefined;
  /** Node → the command disrupting it. */
  private readonly disrupting = new Map<string, Command>();
  /**
   * The NodePool hash stamp of nodes whose NodeClaim's differs from the node's own
   * annotations: nodes that carry none (the pool as it was when the run started) and
   * claims Karpenter's nodepool.hash controller re-stamped (restampedClaim).
   */
  private readonly claimHashes = new Map<string, ClaimHash>();
  private readonly lastPodEvent = new Map<string, number>();
  /** When each drifted node was first seen drifted (its NodeClaim's Drifted condition); drift orders by it. */
  private readonly driftedAt = new Map<string, number>();
  /** Event key (reason/node) → until when Karpenter's recorder drops a repeat. */
  private readonly publishedUntil = new Map<string, number>();
  /** Controller uid → pods evicted by a disruption whose stand-in has not been placed yet, oldest first. */
  private readonly awaitingStandIn = new Map<string, { pod: string; node: string; predicted: string }[]>();
  private validating = false;
  private readonly memo = new ConsolidationMemo();
  /**
   * After a pass that found nothing: the cluster state it saw and until when that
   * answer holds (Karpenter's "consolidated" marker, refreshed at least every 5 min).
   */
  private idle: { readonly version: number; readonly pdbs: string; readonly until: number } | undefined;

  constructor(
    private readonly world: World,
    private readonly cloud: SimCloud,
    private readonly nodeLifecycle: Pick<NodeLifecycle, 'isNotReady'>,
    private readonly provisioner: ProvisionerLoop,
    private readonly evictions: DisruptionController,
    private readonly opts: DisruptionLoopOptions,
  ) {
    this.pools = opts.pools;
    this.price = catalogPrices(opts.instanceTypes);
  }

  start(): void {
    const { world } = this;
    for (const pool of this.pools) this.migrateHashVersion(pool);
    for (const info of world.cluster.nodeInfos()) this.stampHash(info.node);
    world.onChange((c) => {
      const now = world.engine.now;
      if (c.kind === 'podAdded' && c.pod.nodeName) this.lastPodEvent.set(c.pod.nodeName, now);
      if (c.kind === 'podUpdated' && c.old.nodeName !== c.pod.nodeName && c.pod.nodeName) {
        this.lastPodEvent.set(c.pod.nodeName, now);
        this.reportStandIn(c.pod);
      }
      if (c.kind === 'podDeleted' && c.pod.nodeName) {
        this.lastPodEvent.set(c.pod.nodeName, now);
        const cmd = this.disrupting.get(c.pod.nodeName);
        if (cmd?.phase === 'draining') world.engine.at(now, 'disruption-drain', () => this.drain(cmd, c.pod.nodeName));
      }
      if (c.kind === 'nodeAdded') this.stampHash(c.node);
      // A replacement registered, changed (startup taints gone) or lost its instance.
      const changed = c.kind === 'nodeAdded' || c.kind === 'nodeUpdated' ? c.node.name : c.kind === 'kubelet' ? c.node : undefined;
      if (changed !== undefined) {
        for (const cmd of new Set(this.disrupting.values())) {
          if (cmd.phase === 'replacing' && cmd.replacements.includes(changed)) world.engine.at(now, 'disruption-replacement', () => this.checkReplacements(cmd));
        }
      }
    });
    this.arm();
  }

  /** A NodePool changed (same name): decisions and drift use the new spec from now on. */
  updatePool(pool: NodePool): void {
    this.pools = this.pools.map((p) => (p.name === pool.name ? pool : p));
    this.idle = undefined;
  }

  /**
   * Karpenter's nodepool.hash controller when it first sees a NodePool hashed under
   * another hash version: its NodeClaims are re-stamped (restampedClaim). It then writes
   * the current version on the NodePool, so later edits of the pool migrate nothing.
   */
  private migrateHashVersion(pool: NodePool): void {
    for (const info of this.world.cluster.nodeInfos()) {
      if (info.node.labels[LABEL_NODEPOOL] !== pool.name) continue;
      const stamp = restampedClaim(pool, this.claimHashOf(info.node), this.opts.driftedClaims?.has(info.node.name) ?? false);
      if (stamp) this.claimHashes.set(info.node.name, stamp);
    }
  }

  /** The stamp drift compares: the NodeClaim's when it differs from the node's annotations. */
  private claimHashOf(node: Node): ClaimHash | undefined {
    return this.claimHashes.get(node.name) ?? claimHashOf(node);
  }

  /** Why each node is left alone as of now: the rejections the next pass would publish, computed without acting on them. */
  rejections(): Rejection[] {
    return nextDisruption(this.input()).rejected;
  }

  private stampHash(node: Node): void {
    const pool = this.pools.find((p) => p.name === node.labels[LABEL_NODEPOOL]);
    if (pool && claimHashOf(node) === undefined && !this.claimHashes.has(node.name)) this.claimHashes.set(node.name, { hash: pool.hash, version: NODEPOOL_HASH_VERSION });
  }

  private arm(): void {
    this.world.engine.after(this.opts.pollMs ?? DEFAULT_DISRUPTION_POLL_MS, 'disruption-poll', () => {
      this.poll();
      this.arm();
    });
  }

  private input(): DisruptionInput {
    const { world } = this;
    const initializing = new Set<string>();
    const startupTaints = new Map<string, readonly Taint[]>();
    // Karpenter reads the Ready condition: not True once the node lifecycle controller has seen the kubelet gone. Such a node stays a candidate.
    const notReady = new Set<string>();
    for (const info of world.cluster.nodeInfos()) {
      const name = info.node.name;
      const instance = this.cloud.instances.get(name);
      if (instance && !instance.initialized) {
        initializing.add(name);
        startupTaints.set(name, this.cloud.startupTaintsOf(name));
      }
      if (this.nodeLifecycle.isNotReady(name)) notReady.add(name);
    }
    const uninitialized = new Set(initializing);
    // Replacements wait for the pods of the nodes they replace: not candidates meanwhile.
    for (const cmd of this.disrupting.values()) for (const n of cmd.replacements) uninitialized.add(n);
    const pdbAllowances = new Map([...this.evictions.pdbs.values()].map((p) => [p.pdb.key, p.status.disruptionsAllowed]));
    return {
      cluster: world.cluster,
      pools: this.pools,
      nowMs: world.engine.now,
      pricePerHour: this.price,
      ...(this.opts.config ? { scheduler: this.opts.config } : {}),
      lastPodEventMs: this.lastPodEvent,
      disrupting: new Set(this.disrupting.keys()),
      uninitialized,
      initializing,
      startupTaints,
      notReady,
      pdbAllowances,
      claimHashes: this.claimHashes,
      driftedAt: this.driftedAt,
      replacement: { instanceTypes: this.cloud.availableTypes(this.opts.instanceTypes), daemonSetPods: this.opts.daemonSetPods?.() ?? [], spotToSpot: this.opts.spotToSpot ?? false },
      ...(this.opts.consolidationWork ? { consolidationWork: this.opts.consolidationWork } : {}),
      memo: this.memo,
    };
  }

  private poll(): void {
    this.reportDrift();
    for (const d of expiry(this.input())) {
      this.world.engine.record('NodeExpired', { node: d.nodes[0] });
      this.execute(d);
    }
    if (this.validating) return;
    const input = this.input();
    const state = { version: this.world.cluster.version, pdbs: JSON.stringify([...(input.pdbAllowances ?? [])]) };
    if (this.idle && this.idle.version === state.version && this.idle.pdbs === state.pdbs && input.nowMs < this.idle.until) return;
    const next = nextDisruption(input);
    if (this.opts.whyNotEvents !== false) this.publish(next.rejected);
    const costStep = next.decision === undefined && this.opts.optimize === 'cost';
    const decision = costStep ? cheaperRepack(input) : next.decision;
    this.idle = decision ? undefined : { ...state, until: this.nextQuietEnd(input.nowMs) };
    if (!decision) return;
    if (decision.reason === 'Drifted') {
      this.execute(decision);
      return;
    }
    this.validating = true;
    this.world.engine.record('DisruptionProposed', { reason: decision.reason, nodes: decision.nodes.join(','), kind: decision.kind, ...(costStep ? { optimize: 'cost' } : {}) });
    this.world.engine.after(this.opts.validationMs ?? DEFAULT_VALIDATION_MS, 'disruption-validate', () => {
      this.validating = false;
      const again = costStep ? revalidateRepack(this.input(), decision) : revalidate(this.input(), decision);
      if ('invalid' in again) this.world.engine.record('DisruptionInvalidated', { reason: decision.reason, nodes: decision.nodes.join(','), message: again.invalid });
      else this.execute(again);
    });
  }

  /**
   * Why-not events, as Karpenter publishes them on the Node: DisruptionBlocked and
   * Unconsolidatable, each deduplicated per node (not per message) for 2 and 15 minutes.
   */
  private publish(rejected: readonly Rejection[]): void {
    const now = this.world.engine.now;
    for (const r of rejected) {
      if (r.event === undefined) continue;
      const key = `${r.event}/${r.node}`;
      if (now < (this.publishedUntil.get(key) ?? -Infinity)) continue;
      this.publishedUntil.set(key, now + (r.event === 'Unconsolidatable' ? 15 : 2) * 60_000);
      this.world.engine.record(r.event, { node: r.node, message: r.reason });
    }
  }

  /** When the answer "nothing to do" may change with no cluster change: a node's consolidateAfter passing, or 5 min. */
  private nextQuietEnd(now: number): number {
    let until = now + CONSOLIDATED_TTL_MS;
    for (const info of this.world.cluster.nodeInfos()) {
      const after = this.pools.find((p) => p.name === info.node.labels[LABEL_NODEPOOL])?.disruption.consolidateAfterSeconds;
      if (after === undefined || after === null) continue;
      const at = (this.lastPodEvent.get(info.node.name) ?? info.node.creation) + after * 1000;
      if (at > now) until = Math.min(until, at);
    }
    return until;
  }

  /** A NodeDrifted event when a node turns drifted; a node that no longer is loses its drift time. */
  private reportDrift(): void {
    for (const info of this.world.cluster.nodeInfos()) {
      const pool = this.pools.find((p) => p.name === info.node.labels[LABEL_NODEPOOL]);
      const why = pool && driftReason(info.node, pool, this.claimHashOf(info.node));
      if (why === undefined) {
        this.driftedAt.delete(info.node.name);
        continue;
      }
      if (this.driftedAt.has(info.node.name)) continue;
      this.driftedAt.set(info.node.name, this.world.engine.now);
      this.world.engine.record('NodeDrifted', { node: info.node.name, nodePool: pool!.name, reason: why });
    }
  }

  private execute(d: Decision): void {
    const { world } = this;
    const names = d.replacements.map((r) => this.provisioner.claimName(r.nodePool));
    const nameOf = new Map(names.map((n, i) => [replacementName(i), n]));
    world.engine.record('Disrupting', {
      reason: d.reason,
      kind: d.kind,
      nodes: d.nodes.join(','),
      replacements: d.replacements.map((r, i) => `${names[i]}:${r.instanceType}/${r.zone}/${r.capacityType}`).join(',') || 'none',
      savingsPerHour: d.savingsPerHour,
      moves: d.displacedPods.map((m) => `${m.pod}->${nameOf.get(m.node) ?? m.node}`).join(','),
    });
    const cmd: Command = { decision: d, replacements: names, launchedAs: nameOf, phase: 'replacing', drainStartedAt: -1 };
    for (const n of d.nodes) {
      this.disrupting.set(n, cmd);
      const node = world.cluster.nodeInfo(n)?.node;
      if (node && !node.taints.some((t) => t.key === DISRUPTED_TAINT.key)) world.updateNode({ ...node, taints: [...node.taints, DISRUPTED_TAINT] }, 'DisruptionTaint');
    }
    for (const [i, r] of d.replacements.entries()) {
      const pool = this.pools.find((p) => p.name === r.nodePool)!;
      const it = this.opts.instanceTypes.find((t) => t.name === r.instanceType)!;
      const offering = it.offerings.find((o) => o.zone === r.zone && o.capacityType === r.capacityType)!;
      if (this.cloud.launch({ name: names[i]!, pool, instanceType: it, offering }) !== 'InsufficientCapacity') continue;
      // Expiry goes ahead without its replacement; a graceful decision is abandoned.
      if (d.reason !== 'Expired') return this.abandon(cmd, 'a replacement could not be launched');
    }
    if (names.length === 0) return this.startDrain(cmd);
    world.engine.after(REPLACEMENT_TIMEOUT_MS, 'disruption-replacement-timeout', () => {
      if (cmd.phase === 'replacing') this.abandon(cmd, 'replacements did not initialize in time');
    });
    this.checkReplacements(cmd);
  }

  private abandon(cmd: Command, message: string): void {
    const { world } = this;
    cmd.phase = 'done';
    for (const n of cmd.decision.nodes) {
      this.disrupting.delete(n);
      const node = world.cluster.nodeInfo(n)?.node;
      if (node) world.updateNode({ ...node, taints: node.taints.filter((t) => t.key !== DISRUPTED_TAINT.key) }, 'DisruptionTaintRemoved');
    }
    world.engine.record('DisruptionFailed', { reason: cmd.decision.reason, nodes: cmd.decision.nodes.join(','), message });
  }

  private checkReplacements(cmd: Command): void {
    if (cmd.phase !== 'replacing') return;
    const instances = cmd.replacements.map((n) => this.cloud.instances.get(n));
    if (cmd.decision.reason !== 'Expired' && instances.some((i) => i?.state === 'terminated')) return this.abandon(cmd, 'a replacement was terminated before it initialized');
    const pending = instances.filter((i) => i !== undefined && i.state !== 'terminated' && !i.initialized);
    if (pending.length > 0) return;
    this.world.engine.record('ReplacementsInitialized', { nodes: cmd.decision.nodes.join(','), replacements: cmd.replacements.join(',') });
    this.startDrain(cmd);
  }

  private startDrain(cmd: Command): void {
    cmd.phase = 'draining';
    cmd.drainStartedAt = this.world.engine.now;
    for (const n of cmd.decision.nodes) this.drain(cmd, n);
  }

  /** Evicts what is left on the node; deletes the node once only DaemonSet pods remain. */
  private drain(cmd: Command, nodeName: string): void {
    const { world } = this;
    if (cmd.phase !== 'draining' || this.disrupting.get(nodeName) !== cmd) return;
    const pods = [...world.cluster.pods()].filter((p) => p.nodeName === nodeName && !isDaemonSetPod(p));
    if (pods.length === 0) return this.finish(cmd, nodeName);
    const pool = this.pools.find((p) => p.name === world.cluster.nodeInfo(nodeName)?.node.labels[LABEL_NODEPOOL]);
    const tgp = pool?.terminationGracePeriodSeconds ?? null;
    const forced = tgp !== null && world.engine.now >= cmd.drainStartedAt + tgp * 1000;
    const target = new Map(cmd.decision.displacedPods.map((m) => [m.pod, m.node]));
    let retry = false;
    for (const p of pods) {
      if (p.terminating) continue;
      if (forced) {
        world.deletePod(p.key, 'TerminationGracePeriodExceeded');
        continue;
      }
      if (isDoNotDisruptActive(p, world.engine.now)) {
        retry = true;
        continue;
      }
      if (this.evictions.evict(p.key, `Disrupted:${cmd.decision.reason}`).allowed) {
        const at = target.get(p.key);
        const predicted = at === undefined ? 'none' : (cmd.launchedAs.get(at) ?? at);
        world.engine.record('DisruptionEviction', { node: nodeName, pod: p.key, reason: cmd.decision.reason, predictedNode: predicted });
        const owner = p.ownerReferences.find((r) => r.controller)?.uid;
        if (owner !== undefined) this.awaitingStandIn.set(owner, [...(this.awaitingStandIn.get(owner) ?? []), { pod: p.key, node: nodeName, predicted }]);
      } else retry = true;
    }
    if (retry) world.engine.after(EVICTION_RETRY_MS, 'disruption-evict-retry', () => this.drain(cmd, nodeName));
  }

  /** Where an evicted pod went: its controller's next pod to be bound stands in for it. */
  private reportStandIn(pod: Pod): void {
    const owner = pod.ownerReferences.find((r) => r.controller)?.uid;
    const waiting = owner === undefined ? undefined : this.awaitingStandIn.get(owner);
    const evicted = waiting?.shift();
    if (!evicted) return;
    if (waiting!.length === 0) this.awaitingStandIn.delete(owner!);
    this.world.engine.record('DisruptedPodPlaced', { evicted: evicted.pod, from: evicted.node, pod: pod.key, node: pod.nodeName, predictedNode: evicted.predicted });
  }

  private finish(cmd: Command, nodeName: string): void {
    const { world } = this;
    this.disrupting.delete(nodeName);
    this.cloud.terminate(nodeName, `Disrupted:${cmd.decision.reason}`);
    world.deleteNode(nodeName, `Disrupted:${cmd.decision.reason}`);
    world.engine.record('NodeDisrupted', { node: nodeName, reason: cmd.decision.reason });
    if (cmd.decision.nodes.every((n) => this.disrupting.get(n) !== cmd)) cmd.phase = 'done';
  }
}
