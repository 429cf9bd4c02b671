// Which nodes Karpenter may disrupt, and why the others may not
// (disruption.NewCandidate / statenode validation, simplified to our model).

import type { ClusterState } from '../cluster/state.js';
import { disruptionsAllowed } from '../model/pdb.js';
import { LABEL_NODEPOOL, type NodePool } from '../model/nodepool.js';
import type { Pod } from '../model/pod.js';
import type { Node } from '../model/node.js';

export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';

export interface Candidate {
  readonly node: Node;
  readonly pool: NodePool;
  /** Pods that must move elsewhere (not DaemonSet, not terminal, not terminating). */
  readonly reschedulable: readonly Pod[];
}

export interface Rejection {
  readonly node: string;
  readonly reason: string;
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
}

export function isDaemonSetPod(pod: Pod): boolean {
  return pod.ownerReferences.some((o) => o.controller && o.kind === 'DaemonSet');
}

/** A mirror pod: the API server's copy of a kubelet's static pod, owned by its Node; it lives and dies with the node. */
export function isNodeOwnedPod(pod: Pod): boolean {
  return pod.ownerReferences.some((o) => o.controller && o.kind === 'Node');
}

export function isTerminal(pod: Pod): boolean {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed';
}

/** Pods that would have to be evicted and rescheduled if the node went away (not DaemonSet, mirror, finished or terminating pods). */
export function reschedulablePods(pods: Iterable<Pod>): Pod[] {
  return [...pods].filter((p) => !isDaemonSetPod(p) && !isNodeOwnedPod(p) && !isTerminal(p) && !p.terminating);
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
  for (const info of cluster.nodeInfos()) {
    const node = info.node;
    const poolName = node.labels[LABEL_NODEPOOL];
    if (poolName === undefined) continue; // Not Karpenter's node: never a candidate, not worth a reason.
    const reject = (reason: string): void => void rejected.push({ node: node.name, reason });
    const pool = pools.get(poolName);
    if (!pool) { reject(`nodepool "${poolName}" not found`); continue; }
    if (input.disrupting?.has(node.name)) { reject('node is already being disrupted'); continue; }
    if (input.uninitialized?.has(node.name)) { reject('node is not initialized'); continue; }
    if (node.annotations[DO_NOT_DISRUPT] === 'true') { reject(`disruption is blocked through the "${DO_NOT_DISRUPT}" annotation`); continue; }
    const pods = [...info.pods];
    const reschedulable = reschedulablePods(pods);
    if (input.terminationGracePeriodOverridesPods && pool.terminationGracePeriodSeconds !== null) {
      candidates.push({ node, pool, reschedulable });
      continue;
    }
    const pinned = pods.find((p) => p.annotations[DO_NOT_DISRUPT] === 'true' && !isTerminal(p));
    if (pinned) { reject(`pod "${pinned.key}" has "${DO_NOT_DISRUPT}" annotation`); continue; }
    const pdbPod = reschedulable.map((p) => ({ p, pdb: blockingPdb(cluster, allowances, p) })).find((x) => x.pdb !== undefined);
    if (pdbPod) { reject(`pdb "${pdbPod.pdb}" prevents pod evictions`); continue; }
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

/** Karpenter's eviction cost of a pod: 1, raised by priority and pod-deletion-cost, clamped to [-10, 10]. */
export function evictionCost(pod: Pod): number {
  let cost = 1 + pod.priority / 2 ** 25;
  const deletionCost = Number(pod.annotations['controller.kubernetes.io/pod-deletion-cost'] ?? '');
  if (Number.isFinite(deletionCost)) cost += deletionCost / 2 ** 27;
  return Math.min(10, Math.max(-10, cost));
}

/**
 * The cost of disrupting a candidate: its pods' eviction costs, scaled by the share
 * of the node's lifetime left before expireAfter (nodes near expiry are cheap).
 */
export function disruptionCost(c: Candidate, nowMs: number): number {
  const pods = c.reschedulable.reduce((s, p) => s + evictionCost(p), 0);
  const ttl = c.pool.expireAfterSeconds;
  const remaining = ttl === null ? 1 : Math.min(1, Math.max(0, 1 - (nowMs - c.node.creation) / (ttl * 1000)));
  return pods * remaining;
}
