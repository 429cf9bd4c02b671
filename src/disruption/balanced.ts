// consolidationPolicy: Balanced (Karpenter v1.14): a consolidation move of a Balanced
// NodePool's nodes must save enough of the pool's cost for the disruption it causes.
// Score = (savings / pool cost) / (disruption cost of the move / pool disruption cost);
// the move passes when the score is at least 1/k, k = 2. Other policies always pass.

import type { Node } from '../model/node.js';
import { LABEL_NODEPOOL } from '../model/nodepool.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../provisioner/catalog/types.js';
import type { ClusterState } from '../cluster/state.js';
import type { ConsolidationInput } from './consolidate.js';
import { evictionCost, findCandidates, isDaemonSetPod, isTerminal, rescheduleDisruptionCost, type Candidate } from './candidates.js';

/** The labels Karpenter's cost tracker needs on a NodeClaim to price it. */
const TRACKED_LABELS = [LABEL_INSTANCE_TYPE, LABEL_CAPACITY_TYPE, LABEL_ZONE, LABEL_NODEPOOL];

/** Karpenter's BalancedK. */
export const BALANCED_K = 2;

export interface PoolTotals {
  readonly cost: number;
  readonly disruptionCost: number;
}

export interface Score {
  readonly savingsFraction: number;
  readonly disruptionFraction: number;
}

/** savings over disruption, 0 without savings, infinite without disruption (Karpenter's ScoreResult.Score). */
export function scoreOf(s: Score): number {
  if (s.savingsFraction <= 0) return 0;
  if (s.disruptionFraction === 0) return Infinity;
  return s.savingsFraction / s.disruptionFraction;
}

export const approved = (s: Score): boolean => scoreOf(s) >= 1 / BALANCED_K;

/** Karpenter's ScoreMove: a pool with no cost or no disruption to normalize against scores 0. */
export function scoreMove(savings: number, disruptionCost: number, totals: PoolTotals): Score {
  if (totals.cost <= 0 || totals.disruptionCost <= 0) return { savingsFraction: 0, disruptionFraction: 0 };
  return { savingsFraction: savings / totals.cost, disruptionFraction: disruptionCost / totals.disruptionCost };
}

/** A non-candidate node's disruption cost as Karpenter's cluster state keeps it: 1 plus each bound, not terminal, non-DaemonSet pod's positive eviction cost. */
function nodeDisruptionCost(cluster: ClusterState, node: Node): number {
  return (cluster.nodeInfo(node.name)?.pods ?? []).filter((p) => !isDaemonSetPod(p) && !isTerminal(p)).reduce((s, p) => s + Math.max(0, evictionCost(p)), 1);
}

export interface TotalsInput {
  readonly cluster: ClusterState;
  readonly candidates: readonly Candidate[];
  readonly pricePerHour: (node: Node) => number | undefined;
}

/**
 * Each pool's totals, for the pools that have a candidate (Karpenter's
 * computeNodePoolTotals with its cluster cost tracker): the cost of every node of the
 * pool (its offering price), and the disruption cost of every node of the pool — a
 * candidate's reschedule cost, any other node's cost from all its pods.
 */
export function poolTotals(o: TotalsInput): Map<string, PoolTotals> {
  const byName = new Map(o.candidates.map((c) => [c.node.name, c]));
  const pools = new Set(o.candidates.map((c) => c.pool.name));
  const cost = new Map<string, number>();
  const disruption = new Map<string, number>();
  for (const info of o.cluster.nodeInfos()) {
    const pool = info.node.labels[LABEL_NODEPOOL];
    if (pool === undefined || !pools.has(pool)) continue;
    // The cost tracker skips a node without the labels naming its offering.
    const priced = TRACKED_LABELS.every((k) => info.node.labels[k] !== undefined);
    cost.set(pool, (cost.get(pool) ?? 0) + (priced ? (o.pricePerHour(info.node) ?? 0) : 0));
    const c = byName.get(info.node.name);
    disruption.set(pool, (disruption.get(pool) ?? 0) + (c ? rescheduleDisruptionCost(c) : nodeDisruptionCost(o.cluster, info.node)));
  }
  return new Map([...pools].map((p) => [p, { cost: cost.get(p) ?? 0, disruptionCost: disruption.get(p) ?? 0 }]));
}

/** Scores of the Balanced pools of a move that saves `savings`; the move passes when every one is approved. */
export function scoreCommand(candidates: readonly Candidate[], savings: number, totals: ReadonlyMap<string, PoolTotals>, price: (n: Node) => number | undefined): Map<string, Score> {
  const byPool = new Map<string, Candidate[]>();
  for (const c of candidates) byPool.set(c.pool.name, [...(byPool.get(c.pool.name) ?? []), c]);
  const sourceCost = candidates.reduce((s, c) => s + (price(c.node) ?? 0), 0);
  const out = new Map<string, Score>();
  for (const [pool, cs] of byPool) {
    if (cs[0]!.pool.disruption.consolidationPolicy !== 'Balanced') continue;
    const poolCost = cs.reduce((s, c) => s + (price(c.node) ?? 0), 0);
    // A move across pools credits each pool with its share of the source cost.
    const poolSavings = byPool.size > 1 && sourceCost > 0 ? savings * (poolCost / sourceCost) : savings;
    const disruptionCost = cs.reduce((s, c) => s + rescheduleDisruptionCost(c), 0);
    out.set(pool, scoreMove(poolSavings, disruptionCost, totals.get(pool) ?? { cost: 0, disruptionCost: 0 }));
  }
  return out;
}

/** Why a Balanced pool rejects the move (berth's wording; Karpenter counts it in a metric only), or undefined when it passes. */
export function balancedRejection(scores: ReadonlyMap<string, Score>): string | undefined {
  for (const [pool, s] of scores) {
    if (approved(s)) continue;
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    return `NodePool "${pool}" is Balanced: the move saves ${pct(s.savingsFraction)} of its cost for ${pct(s.disruptionFraction)} of its disruption (score ${scoreOf(s).toFixed(2)}, below ${1 / BALANCED_K})`;
  }
  return undefined;
}

/** Karpenter's CanPassThreshold: whether even deleting the candidate (the best case) would pass its pool's Balanced score. */
export function canPassThreshold(c: Candidate, totals: ReadonlyMap<string, PoolTotals>, price: (n: Node) => number | undefined): boolean {
  if (c.pool.disruption.consolidationPolicy !== 'Balanced') return true;
  const t = totals.get(c.pool.name);
  if (!t || t.cost <= 0) return true;
  return approved(scoreMove(price(c.node) ?? 0, rescheduleDisruptionCost(c), t));
}

/** The totals when some NodePool is Balanced (nothing to score otherwise). */
export function balancedTotals(input: ConsolidationInput): Map<string, PoolTotals> | undefined {
  if (!input.pools.some((p) => p.disruption.consolidationPolicy === 'Balanced')) return undefined;
  return poolTotals({ cluster: input.cluster, candidates: findCandidates(input).candidates, pricePerHour: input.pricePerHour });
}
