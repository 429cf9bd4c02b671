// Consolidation decisions (Karpenter's emptiness, single- and multi-node
// consolidation), each validated by running the real scheduler over the displaced
// pods on a copy of the cluster without the candidate nodes.
// Replacement with a cheaper new node is not implemented yet: decisions are deletes.

import type { ClusterState } from '../cluster/state.js';
import type { Node } from '../model/node.js';
import type { DisruptionReason, NodePool } from '../model/nodepool.js';
import { scheduleAll } from '../scheduler/run.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { remainingDisruptions } from './budgets.js';
import { findCandidates, isConsolidatable, type Candidate, type Rejection } from './candidates.js';
import { copyCluster } from './cluster-copy.js';

export interface DisplacedPod {
  readonly pod: string;
  /** Where the scheduler predicts the pod lands. */
  readonly node: string;
}

export interface Decision {
  readonly kind: 'delete' | 'replace';
  readonly nodes: readonly string[];
  readonly replacement?: Node;
  readonly savingsPerHour: number;
  readonly reason: DisruptionReason;
  readonly displacedPods: readonly DisplacedPod[];
}

export interface ConsolidationInput {
  readonly cluster: ClusterState;
  readonly pools: readonly NodePool[];
  readonly nowMs: number;
  /** $/h of a node (from the instance catalog by its instance-type/zone/capacity-type labels). */
  readonly pricePerHour: (node: Node) => number;
  readonly scheduler?: SchedulerConfig;
  readonly lastPodEventMs?: ReadonlyMap<string, number>;
  readonly disrupting?: ReadonlySet<string>;
  /** Karpenter caps multi-node consolidation at 100 candidates. */
  readonly maxMultiNodeCandidates?: number;
}

export interface ConsolidationResult {
  readonly decisions: Decision[];
  readonly rejected: Rejection[];
}

const MULTI_NODE_LIMIT = 100;

/**
 * Deletes `nodes` on a copy and schedules their pods; the displaced pods' targets when
 * every one of them fits, otherwise null.
 */
export function simulateDeletion(cluster: ClusterState, nodes: readonly Candidate[], config: SchedulerConfig, disrupting: ReadonlySet<string> = new Set()): DisplacedPod[] | null {
  const gone = new Set([...nodes.map((c) => c.node.name), ...disrupting]);
  const moving = new Set(nodes.flatMap((c) => c.reschedulable.map((p) => p.key)));
  const copy = copyCluster(cluster, { withoutNodes: gone });
  // Non-reschedulable pods of the deleted nodes (DaemonSet, terminal) go with the node.
  for (const p of copy.pendingPods()) if (gone.has(cluster.getPod(p.key)?.nodeName ?? '') && !moving.has(p.key)) copy.removePod(p.key);
  const report = scheduleAll(copy, config);
  const placed = report.placements.filter((pl) => moving.has(pl.pod));
  if (placed.length !== moving.size || report.preemptions.length > 0) return null;
  // Pods that were already pending must not lose their place to the displaced ones.
  if (report.unschedulable.length > 0 && report.unschedulable.some((u) => moving.has(u.pod))) return null;
  return placed.map((pl) => ({ pod: pl.pod, node: pl.node }));
}

/** Candidates cheapest to disrupt first: fewest pods, then highest price saved, then name. */
function byDisruptionCost(price: (n: Node) => number): (a: Candidate, b: Candidate) => number {
  return (a, b) => a.reschedulable.length - b.reschedulable.length || price(b.node) - price(a.node) || (a.node.name < b.node.name ? -1 : a.node.name > b.node.name ? 1 : 0);
}

/** One consolidation pass: emptiness first, then multi-node, then single-node, each within its pool's budget. */
export function consolidate(input: ConsolidationInput): ConsolidationResult {
  const config = input.scheduler ?? {};
  const { candidates, rejected } = findCandidates(input);
  const eligible: Candidate[] = [];
  for (const c of candidates) {
    if (!isConsolidatable(c, input.nowMs, input.lastPodEventMs)) rejected.push({ node: c.node.name, reason: 'node has not been quiet for consolidateAfter' });
    else eligible.push(c);
  }
  eligible.sort(byDisruptionCost(input.pricePerHour));
  const decisions: Decision[] = [];
  const disrupting = new Set(input.disrupting ?? []);

  // Emptiness: nodes with nothing to move, limited by the Empty budgets.
  const emptyBudget = remainingDisruptions(input.cluster, input.pools, input.nowMs, 'Empty', disrupting);
  const empty = eligible.filter((c) => c.reschedulable.length === 0 && take(emptyBudget, c));
  if (empty.length > 0) {
    decisions.push(deleteDecision(empty, [], 'Empty', input.pricePerHour));
    for (const c of empty) disrupting.add(c.node.name);
  }

  const underBudget = remainingDisruptions(input.cluster, input.pools, input.nowMs, 'Underutilized', disrupting);
  const underutilized = eligible.filter((c) => !disrupting.has(c.node.name) && c.pool.disruption.consolidationPolicy !== 'WhenEmpty' && c.reschedulable.length > 0);
  const within = underutilized.filter((c) => take(underBudget, c)).slice(0, input.maxMultiNodeCandidates ?? MULTI_NODE_LIMIT);

  // Multi-node: the longest cheapest-first prefix whose pods all fit elsewhere (binary search).
  let lo = 2, hi = within.length, best: { n: number; moves: DisplacedPod[] } | null = null;
  while (lo <= hi) {
    const mid = Math.trunc((lo + hi) / 2);
    const moves = simulateDeletion(input.cluster, within.slice(0, mid), config, disrupting);
    if (moves) { best = { n: mid, moves }; lo = mid + 1; } else hi = mid - 1;
  }
  if (best) {
    const chosen = within.slice(0, best.n);
    decisions.push(deleteDecision(chosen, best.moves, 'Underutilized', input.pricePerHour));
    return { decisions, rejected };
  }

  // Single-node: the first candidate whose pods fit on the other nodes.
  for (const c of within) {
    const moves = simulateDeletion(input.cluster, [c], config, disrupting);
    if (moves) {
      decisions.push(deleteDecision([c], moves, 'Underutilized', input.pricePerHour));
      break;
    }
  }
  return { decisions, rejected };
}

function take(budget: Map<string, number>, c: Candidate): boolean {
  const left = budget.get(c.pool.name) ?? 0;
  if (left <= 0) return false;
  budget.set(c.pool.name, left - 1);
  return true;
}

function deleteDecision(cs: readonly Candidate[], moves: DisplacedPod[], reason: DisruptionReason, price: (n: Node) => number): Decision {
  return { kind: 'delete', nodes: cs.map((c) => c.node.name), savingsPerHour: cs.reduce((s, c) => s + price(c.node), 0), reason, displacedPods: moves };
}

/** Applies a decision to the cluster (mutates it): nodes removed, displaced pods bound to their predicted nodes. */
export function applyDecision(cluster: ClusterState, d: Decision): void {
  const pods = new Map([...cluster.pods()].map((p) => [p.key, p]));
  for (const n of d.nodes) cluster.removeNode(n);
  if (d.replacement) cluster.addNode(d.replacement);
  for (const m of d.displacedPods) {
    const p = pods.get(m.pod)!;
    cluster.removePod(p.key);
    cluster.addPod({ ...p, nodeName: m.node, nominatedNodeName: '', phase: 'Running' });
  }
}
