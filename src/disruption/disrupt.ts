// The disruption controller's one decision per pass, in Karpenter's method order:
// emptiness, drift, multi-node consolidation, single-node consolidation. Expiry is
// apart: forceful, outside the budgets, one decision per expired node.

import type { Node } from '../model/node.js';
import { LABEL_NODEPOOL, type NodePool } from '../model/nodepool.js';
import { noteBlockedByBudget, remainingDisruptions } from './budgets.js';
import { currentlyReschedulable, findCandidates, isEmpty, reschedulablePods, type Candidate, type Rejection } from './candidates.js';
import { cheapestPerType, computeConsolidation, consolidationCandidates, stillCandidates, emptiness, multiNode, notAllPodsWouldSchedule, placeWithReplacements, simulateRemoval, singleNode, toReplacement, type ConsolidationInput, type Decision, type PodError } from './consolidate.js';
import { claimHashOf, driftReason, isExpired, type ClaimHash } from './drift.js';

export interface DisruptionInput extends ConsolidationInput {
  /** The NodePool hash stamp of each node's NodeClaim where it differs from the node's annotations (none on the node, or re-stamped since). */
  readonly claimHashes?: ReadonlyMap<string, ClaimHash>;
  /** When each node was first seen drifted (its NodeClaim's Drifted condition); unknown ones count as now. */
  readonly driftedAt?: ReadonlyMap<string, number>;
}

function replaceDecision(input: ConsolidationInput, cs: readonly Candidate[], reason: Decision['reason'], errors: PodError[] = []): Decision | undefined {
  const removal = simulateRemoval(input, cs, false, errors);
  if (!removal) return undefined;
  // Each new node at its cheapest offering; drift and expiry look for no savings.
  const replacements = removal.claims.map((c) => toReplacement(c, cheapestPerType(c.offerings ?? [])));
  const moves = (replacements.length === 0 ? null : placeWithReplacements(input, cs, replacements)) ?? removal.moves;
  const saved = cs.reduce((s, c) => s + (input.pricePerHour(c.node) ?? 0), 0) - replacements.reduce((s, r) => s + r.pricePerHour, 0);
  return { kind: replacements.length > 0 ? 'replace' : 'delete', nodes: cs.map((c) => c.node.name), replacements, savingsPerHour: Math.round(saved * 1e6) / 1e6, reason, displacedPods: moves };
}

/**
 * Drift, as Karpenter v1.14.1's drift method: drifted candidates in the order they
 * drifted (Karpenter leaves equal times to an unstable sort; berth breaks them by
 * creation, then name), the empty ones first. The first whose NodePool's Drifted
 * budget allows one more and whose pods can all be placed — on other nodes or on new
 * nodes from the current NodePools — is the command: one node per command.
 */
export function drift(input: DisruptionInput, rejected: Rejection[] = []): Decision | undefined {
  // A static NodePool's drifted nodes are StaticDrift's, never Drift's (Karpenter's Drift.ShouldDisrupt).
  const isDrifted = (node: Node, pool: NodePool | undefined) => pool?.replicas === null && driftReason(node, pool, input.claimHashes?.get(node.name) ?? claimHashOf(node)) !== undefined;
  const pools = new Map(input.pools.map((p) => [p.name, p]));
  // Most passes find no node drifted: look before working out every candidate.
  if (!input.cluster.nodeInfos().some((i) => isDrifted(i.node, pools.get(i.node.labels[LABEL_NODEPOOL] ?? '')))) return undefined;
  const { candidates } = findCandidates({ ...input, terminationGracePeriodOverridesPods: true });
  const since = (c: Candidate) => input.driftedAt?.get(c.node.name) ?? input.nowMs;
  const drifted = candidates
    .filter((c) => isDrifted(c.node, c.pool))
    .sort((a, b) => since(a) - since(b) || a.node.creation - b.node.creation || (a.node.name < b.node.name ? -1 : 1));
  if (drifted.length === 0) return undefined;
  const budget = remainingDisruptions(input, 'Drifted');
  noteBlockedByBudget(rejected, budget, drifted, 'Drifted');
  const ordered = [...drifted.filter((c) => c.reschedulable.length === 0), ...drifted.filter((c) => c.reschedulable.length > 0)];
  for (const c of ordered) {
    if ((budget.get(c.pool.name) ?? 0) <= 0) continue;
    if (c.reschedulable.length === 0) return { kind: 'delete', nodes: [c.node.name], replacements: [], savingsPerHour: 0, reason: 'Drifted', displacedPods: [] };
    // Capacity only for the pods that will actually leave (a terminationGracePeriod lets protected ones hold the drain).
    const errors: PodError[] = [];
    const d = replaceDecision(input, [{ ...c, reschedulable: currentlyReschedulable(input.cluster, c, input.nowMs) }], 'Drifted', errors);
    if (d) return d;
    rejected.push({ node: c.node.name, reason: notAllPodsWouldSchedule(errors), event: 'DisruptionBlocked' });
  }
  return undefined;
}

/** The next graceful disruption: emptiness, then drift, then multi-node and single-node consolidation. */
export function nextDisruption(input: DisruptionInput): { decision: Decision | undefined; rejected: Rejection[] } {
  const { eligible, rejected } = consolidationCandidates(input);
  const decision = emptiness(input, eligible, rejected) ?? drift(input, rejected) ?? multiNode(input, eligible, rejected) ?? singleNode(input, eligible, rejected);
  return { decision, rejected };
}

/**
 * Expired nodes (Karpenter v1: forceful — no budgets, do-not-disrupt and PDBs only
 * slow the drain). Each gets its replacements planned when its pods need new nodes;
 * when they fit nowhere the node still goes and its pods wait for the provisioner.
 */
export function expiry(input: DisruptionInput): Decision[] {
  const pools = new Map<string, NodePool>(input.pools.map((p) => [p.name, p]));
  const out: Decision[] = [];
  for (const info of input.cluster.nodeInfos()) {
    const pool = pools.get(info.node.labels[LABEL_NODEPOOL] ?? '');
    if (!pool || input.disrupting?.has(info.node.name) || input.uninitialized?.has(info.node.name) || !isExpired(info.node, pool, input.nowMs)) continue;
    const c: Candidate = { node: info.node, pool, reschedulable: reschedulablePods(info.pods) };
    const busy = new Set([...(input.disrupting ?? []), ...out.flatMap((d) => d.nodes)]);
    out.push(replaceDecision({ ...input, disrupting: busy }, [c], 'Expired') ?? { kind: 'delete', nodes: [c.node.name], replacements: [], savingsPerHour: input.pricePerHour(c.node) ?? 0, reason: 'Expired', displacedPods: [] });
  }
  return out;
}

/**
 * Emptiness's re-check (Karpenter's EmptinessValidator): the nodes still empty candidates
 * go, as many as the Empty budgets allow; the others stay. Invalid only when none is left.
 */
function revalidateEmpty(input: DisruptionInput, d: Decision): Decision | { invalid: string } {
  const { eligible } = consolidationCandidates({ ...input, only: new Set(d.nodes) });
  const budget = remainingDisruptions(input, 'Empty');
  const kept = d.nodes.flatMap((n) => eligible.filter((c) => c.node.name === n && isEmpty(c) && (budget.get(c.pool.name) ?? 0) > 0 && budget.set(c.pool.name, budget.get(c.pool.name)! - 1)));
  if (kept.length === 0) return { invalid: 'no node is still an empty candidate within the budgets' };
  if (kept.length === d.nodes.length) return d;
  const savings = kept.reduce((s, c) => s + (input.pricePerHour(c.node) ?? 0), 0);
  return { ...d, nodes: kept.map((c) => c.node.name), savingsPerHour: Math.round(savings * 1e6) / 1e6 };
}

/**
 * Karpenter's re-check of a consolidation decision after its 15 s wait: every node
 * must still be a consolidatable candidate within the budgets, and computing the
 * decision again for the same nodes must give the same kind (an empty node still
 * empty, a delete still a delete, a replace still a cheaper replace whose options
 * include every instance type the command chose). The fresh decision, or why the old
 * one no longer holds.
 */
export function revalidate(input: DisruptionInput, d: Decision): Decision | { invalid: string } {
  if (d.reason === 'Empty') return revalidateEmpty(input, d);
  const candidates = stillCandidates(input, d.nodes);
  if (!Array.isArray(candidates)) return candidates;
  const again = computeConsolidation(input, candidates, 'Underutilized');
  if (!('decision' in again)) return { invalid: again.unconsolidatable };
  if (again.decision.kind !== d.kind) return { invalid: `it would now be a ${again.decision.kind}` };
  // A replacement must still be able to launch as any type the command chose (Karpenter's instanceTypesAreSubset).
  const now = new Set(again.decision.replacements.flatMap((r) => r.instanceTypeOptions));
  const lost = d.replacements.flatMap((r) => r.instanceTypeOptions).find((t) => !now.has(t));
  return lost === undefined ? again.decision : { invalid: `the replacement could no longer be a ${lost}` };
}
