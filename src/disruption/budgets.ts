// How many more nodes of each NodePool may be disrupted now for a reason: the most
// restrictive active budget (model/nodepool.ts) minus nodes already disrupting.

import type { ClusterState } from '../cluster/state.js';
import { allowedDisruptions, LABEL_NODEPOOL, type DisruptionReason, type NodePool } from '../model/nodepool.js';

/** What the budgets are counted from (a ConsolidationInput is one). */
export interface BudgetView {
  readonly cluster: ClusterState;
  readonly pools: readonly NodePool[];
  readonly nowMs: number;
  /** Nodes being disrupted: each spends one of its NodePool's disruptions. */
  readonly disrupting?: ReadonlySet<string> | undefined;
  /** Nodes not initialized yet: Karpenter counts them toward no NodePool's total (BuildDisruptionBudgetMapping). */
  readonly initializing?: ReadonlySet<string> | undefined;
  /** Initialized nodes whose Ready condition is not True: counted in the total, and each spends a disruption as one being disrupted does. */
  readonly notReady?: ReadonlySet<string> | undefined;
}

export function remainingDisruptions(view: BudgetView, reason: DisruptionReason): Map<string, number> {
  const total = new Map<string, number>();
  const busy = new Map<string, number>();
  for (const info of view.cluster.nodeInfos()) {
    const pool = info.node.labels[LABEL_NODEPOOL];
    const name = info.node.name;
    if (pool === undefined || view.initializing?.has(name)) continue;
    total.set(pool, (total.get(pool) ?? 0) + 1);
    if (view.disrupting?.has(name) || view.notReady?.has(name)) busy.set(pool, (busy.get(pool) ?? 0) + 1);
  }
  const out = new Map<string, number>();
  for (const pool of view.pools) {
    const allowed = allowedDisruptions(pool, view.nowMs, total.get(pool.name) ?? 0, reason);
    out.set(pool.name, Math.max(0, allowed - (busy.get(pool.name) ?? 0)));
  }
  return out;
}

/** Karpenter's DisruptionBlocked message on a NodePool whose budgets allow no disruption for the reason. */
export function blockingBudgetMessage(reason: DisruptionReason): string {
  return `No allowed disruptions for disruption reason ${reason} due to blocking budget`;
}

/**
 * Why-not entries for the candidates of pools whose budget for `reason` is spent before
 * the method starts: Karpenter words it on the NodePool (a DisruptionBlocked event), berth
 * also lists it under each node it keeps. One entry per node and message.
 */
export function noteBlockedByBudget(rejected: { node: string; reason: string }[], budget: ReadonlyMap<string, number>, candidates: readonly { node: { name: string }; pool: { name: string } }[], reason: DisruptionReason): void {
  const message = blockingBudgetMessage(reason);
  for (const c of candidates) {
    if ((budget.get(c.pool.name) ?? 0) > 0 || rejected.some((r) => r.node === c.node.name && r.reason === message)) continue;
    rejected.push({ node: c.node.name, reason: message });
  }
}
