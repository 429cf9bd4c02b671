// Which nodes Karpenter may disrupt, and why the others may not
// (disruption.NewCandidate / statenode validation, simplified to our model).

import type { ClusterState } from '../cluster/state.js';
import { disruptionsAllowed } from '../model/pdb.js';
import { LABEL_NODEPOOL, type NodePool } from '../model/nodepool.js';
import type { Pod } from '../model/pod.js';
import type { Node } from '../model/node.js';
import { DO_NOT_DISRUPT, isActive, isCurrentlyReschedulable, isDoNotDisruptActive, isEvictable, isTerminal, reschedulablePods } from '../model/pod-eviction.js';

export { DISRUPTED_TAINT, DO_NOT_DISRUPT, isDaemonSetPod, isDoNotDisruptActive, isNodeOwnedPod, isTerminal, reschedulablePods } from '../model/pod-eviction.js';

export interface Candidate {
  readonly node: Node;
  readonly pool: NodePool;
  /** Pods that must move elsewhere (not DaemonSet, not terminal, not terminating). */
  readonly reschedulable: readonly Pod[];
}

export interface Rejection {
  readonly node: string;
  /** Worded as Karpenter's event for it where it publishes one. */
  readonly reason: string;
  /** The Kubernetes event Karpenter publishes on the Node and NodeClaim (none for a candidate already being disrupted or not yet consolidatable). */
  readonly event?: 'DisruptionBlocked' | 'Unconsolidatable';
}

export interface CandidateInput {
  readonly cluster: ClusterState;
  readonly pools: readonly NodePool[];
  readonly nowMs: number;
  /** Last time a pod was bound to or left each node (Karpenter's lastPodEventTime); node creation when absent. */
  readonly lastPodEventMs?: ReadonlyMap<string, number>;
  /** Nodes already being disrupted; they are neither candidates again nor usable targets. */
  readonly disrupting?: ReadonlySet<string>;
  /** Nodes still launching or whose startup taints are not gone: never candidates yet. */
  readonly uninitialized?: ReadonlySet<string>;
  /** PDB key → disruptions allowed now, as the disruption controller last synced them; computed from the cluster when absent. */
  readonly pdbAllowances?: ReadonlyMap<string, number>;
  /**
   * Drift in Karpenter v1: a NodePool with a terminationGracePeriod bounds how long
   * do-not-disrupt pods and PDBs can hold a drain, so they do not keep its nodes from
   * being candidates.
   */
  readonly terminationGracePeriodOverridesPods?: boolean;
  /** Only these nodes are looked at (a decision checked again after its wait); every node when absent. */
  readonly only?: ReadonlySet<string>;
}

/** PDB name → allowed disruptions now: the status when given, otherwise computed from the cluster's pods. */
export function pdbAllowances(cluster: ClusterState): Map<string, number> {
  const out = new Map<string, number>();
  const pods = [...cluster.pods()];
  for (const pdb of cluster.pdbs) {
    if (pdb.statusDisruptionsAllowed !== undefined) {
      out.set(pdb.key, pdb.statusDisruptionsAllowed);
      continue;
    }
    const matched = pods.filter((p) => p.namespace === pdb.namespace && pdb.selector.matches(p.labels) && !isTerminal(p));
    const healthy = matched.filter((p) => p.nodeName !== '' && p.phase === 'Running' && !p.terminating).length;
    out.set(pdb.key, disruptionsAllowed(pdb, matched.length, healthy));
  }
  return out;
}

/** The first PDB of `pod` that allows no eviction, or undefined. */
export function blockingPdb(cluster: ClusterState, allowances: ReadonlyMap<string, number>, pod: Pod): string | undefined {
  for (const pdb of cluster.pdbs) {
    if (pdb.namespace !== pod.namespace || !pdb.selector.matches(pod.labels)) continue;
    if ((allowances.get(pdb.key) ?? 0) <= 0) return pdb.key;
  }
  return undefined;
}

/**
 * Why the PDBs stop Karpenter evicting the pods (Karpenter's CanEvictPods), worded as its
 * DisruptionBlocked event, or undefined. Every evictable pod counts, DaemonSet pods too;
 * a pod under two PDBs cannot be evicted at all.
 */
function pdbBlocker(cluster: ClusterState, allowances: ReadonlyMap<string, number>, pods: readonly Pod[], nowMs: number): string | undefined {
  for (const pod of pods) {
    if (!isEvictable(pod, nowMs)) continue;
    const matching = cluster.pdbs.filter((pdb) => pdb.namespace === pod.namespace && pdb.selector.matches(pod.labels));
    if (matching.length > 1) return `Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[${matching.map((p) => p.key).join(' ')}])`;
    const [pdb] = matching;
    if (pdb && (allowances.get(pdb.key) ?? 0) <= 0) return `Pdb prevents pod evictions (PodDisruptionBudget=[${pdb.key}])`;
  }
  return undefined;
}

/**
 * The candidate's pods Karpenter makes room for when it disrupts the node (its
 * IsCurrentlyReschedulable).
 */
export function currentlyReschedulable(cluster: ClusterState, c: Candidate, nowMs: number): Pod[] {
  return c.reschedulable.filter((p) => isCurrentlyReschedulable(p, cluster.pdbs, nowMs));
}

export interface CandidateReport {
  readonly candidates: Candidate[];
  readonly rejected: Rejection[];
}

/** Nodes of NodePools that may be disrupted now; every other node of a NodePool with the reason it is not. */
export function findCandidates(input: CandidateInput): CandidateReport {
  const { cluster } = input;
  const pools = new Map(input.pools.map((p) => [p.name, p]));
  const allowances = input.pdbAllowances ?? pdbAllowances(cluster);
  const candidates: Candidate[] = [];
  const rejected: Rejection[] = [];
  // Karpenter's NewLimits fails on a PDB whose selector does not parse (a legacy label key or value): no candidates at all, no event.
  const unreadable = cluster.pdbs.find((p) => p.selectorError !== undefined);
  for (const info of cluster.nodeInfos()) {
    const node = info.node;
    const poolName = node.labels[LABEL_NODEPOOL];
    // Not Karpenter's node (never a candidate, not worth a reason), or not asked about.
    if (poolName === undefined || (input.only && !input.only.has(node.name))) continue;
    if (unreadable) { rejected.push({ node: node.name, reason: `tracking PodDisruptionBudgets, ${unreadable.selectorError} (PodDisruptionBudget=${unreadable.key})` }); continue; }
    const reject = (reason: string): void => void rejected.push({ node: node.name, reason, event: 'DisruptionBlocked' });
    const pool = pools.get(poolName);
    // Reasons as Karpenter's DisruptionBlocked events word them.
    if (input.disrupting?.has(node.name)) { rejected.push({ node: node.name, reason: 'Candidate is already being disrupted' }); continue; }
    if (input.uninitialized?.has(node.name)) { reject("Node isn't initialized"); continue; }
    if (node.annotations[DO_NOT_DISRUPT] === 'true') { reject(`Disruption is blocked through the "${DO_NOT_DISRUPT}" annotation`); continue; }
    if (!pool) { reject(`NodePool not found (NodePool=${poolName})`); continue; }
    const pods = [...info.pods];
    const reschedulable = reschedulablePods(pods);
    const pinned = pods.find((p) => isActive(p) && isDoNotDisruptActive(p, input.nowMs));
    const blocker = pinned ? `Pod has "${DO_NOT_DISRUPT}" annotation (Pod=${pinned.key})` : pdbBlocker(cluster, allowances, pods, input.nowMs);
    // Drift (eventual disruption) of a NodePool with a terminationGracePeriod: the drain is bounded, so such pods do not block.
    if (blocker !== undefined && !(input.terminationGracePeriodOverridesPods && pool.terminationGracePeriodSeconds !== null)) { reject(blocker); continue; }
    candidates.push({ node, pool, reschedulable });
  }
  return { candidates, rejected };
}

/**
 * Whether the node has been quiet for the pool's consolidateAfter (the Consolidatable
 * condition). consolidateAfter "Never" disables consolidation altogether.
 */
export function isConsolidatable(c: Candidate, nowMs: number, lastPodEventMs?: ReadonlyMap<string, number>): boolean {
  const after = c.pool.disruption.consolidateAfterSeconds;
  if (after === null) return false;
  const last = lastPodEventMs?.get(c.node.name) ?? c.node.creation;
  return nowMs >= last + after * 1000;
}

/**
 * Whether a node is still inside its pool's consolidateAfter window (Karpenter's
 * IsUnderConsolidateAfter): consolidation will not move pods onto it. A pool without
 * consolidateAfter, or with 0s or Never, an uninitialized node or one no NodePool owns
 * never is.
 */
export function isUnderConsolidateAfter(node: Node, pools: readonly NodePool[], nowMs: number, o: { lastPodEventMs?: ReadonlyMap<string, number>; uninitialized?: ReadonlySet<string> } = {}): boolean {
  const after = pools.find((p) => p.name === node.labels[LABEL_NODEPOOL])?.disruption.consolidateAfterSeconds;
  if (after === undefined || after === null || after === 0 || o.uninitialized?.has(node.name)) return false;
  return nowMs - (o.lastPodEventMs?.get(node.name) ?? node.creation) < after * 1000;
}

/** Karpenter's eviction cost of a pod: 1, raised by priority and pod-deletion-cost, clamped to [-10, 10]. */
export function evictionCost(pod: Pod): number {
  let cost = 1 + pod.priority / 2 ** 25;
  const deletionCost = Number(pod.annotations['controller.kubernetes.io/pod-deletion-cost'] ?? '');
  if (Number.isFinite(deletionCost)) cost += deletionCost / 2 ** 27;
  return Math.min(10, Math.max(-10, cost));
}

/**
 * Karpenter v1.14's emptiness: no pod on the node has a positive eviction cost (a node
 * whose pods all have a very negative pod-deletion-cost or priority counts as empty).
 */
export function isEmpty(c: Candidate): boolean {
  return c.reschedulable.every((p) => evictionCost(p) <= 0);
}

/**
 * Karpenter v1.14's savings ratio of a candidate: its price (of its offering; 0 when
 * unknown) per unit of reschedule disruption cost (1 for the node, plus each pod's
 * positive eviction cost). Consolidation tries the highest ratios first.
 */
export function savingsRatio(c: Candidate, price: number | undefined): number {
  return (price ?? 0) / rescheduleDisruptionCost(c);
}

/** Karpenter's RescheduleDisruptionCost: 1 for the node plus each reschedulable pod's positive eviction cost. */
export function rescheduleDisruptionCost(c: Candidate): number {
  return c.reschedulable.reduce((s, p) => s + Math.max(0, evictionCost(p)), 1);
}
