// `--optimize cost` for consolidation (berth's own, off by default): a step past
// Karpenter's fixed point. Karpenter replaces a set of nodes by at most one new node,
// of a type its own planner chose; once its consolidation proposes nothing, this
// local search tries sets of consolidatable nodes, each set's pods planned again on
// a copy of the cluster without them: onto the remaining nodes, then onto any number
// of new claims packed for price by the provisioner's cost optimizer (optimize-cost.ts,
// which keeps a claim's packing only when kube-scheduler's filters and Karpenter's
// checks pass it). A set is taken when its new claims cost less than the set and
// kube-scheduler, with the new nodes up, places every displaced pod.
//
// What Karpenter would respect, this does too: the candidates are consolidation's own
// (do-not-disrupt pods, blocking PDBs, consolidateAfter and WhenEmpty pools keep a node
// out), a set never holds more nodes of a pool than its Underutilized budget allows,
// and a set of spot nodes is not replaced by spot nodes without SpotToSpotConsolidation.
//
// A step that launches more nodes than it removes must save at least
// GROWTH_MIN_SAVING of the set's price: the objective counts dollars, not nodes, and
// without the cap a step swapped 3 nodes for 42 small ones for a few cents an hour
// (more DaemonSet pods, more launches, more nodes to fail).

import { cachedPoolTemplate } from '../provisioner/plan.js';
import { costLowerBound, type CostLowerBound, type LpSolver } from '../provisioner/cost-bound.js';
import { isEmpty, type Candidate } from './candidates.js';
import { allSpotNodes, consolidationCandidates, placeWithReplacements, simulateRemoval, stillCandidates, underutilized, type ConsolidationInput, type Decision, type Replacement } from './consolidate.js';

/** The least saving, as a share of the set's price, for a step that launches more nodes than it removes. */
export const GROWTH_MIN_SAVING = 0.25;

export interface RepackOptions {
  /** GROWTH_MIN_SAVING by default; 0 lets any saving grow the node count. */
  readonly growthMinSaving?: number;
}

/**
 * The sets tried, largest first: the whole batch (consolidation's order, highest
 * savings ratio first), then its halves, quarters and so on down to single nodes.
 */
export function candidateSets<T>(batch: readonly T[]): T[][] {
  const sets: T[][] = [];
  for (let size = batch.length; size >= 1; size = size === 1 ? 0 : Math.ceil(size / 2)) {
    for (let start = 0; start < batch.length; start += size) sets.push(batch.slice(start, start + size));
  }
  return sets;
}

/** The set replaced by its cost-packed pods, or undefined when that saves nothing or some check fails. */
function repack(input: ConsolidationInput, set: readonly Candidate[], opts: RepackOptions): Decision | undefined {
  return input.memo ? input.memo.answer(input, set, `repack ${opts.growthMinSaving ?? GROWTH_MIN_SAVING}`, () => repackOf(input, set, opts)) : repackOf(input, set, opts);
}

function repackOf(input: ConsolidationInput, set: readonly Candidate[], opts: RepackOptions): Decision | undefined {
  const prices = set.map((c) => input.pricePerHour(c.node));
  if (prices.some((p) => p === undefined)) return undefined;
  const removal = simulateRemoval(input, set, true, [], 'cost');
  if (!removal) return undefined;
  const replacements: Replacement[] = removal.claims.map((c) => ({ nodePool: c.nodePool, zone: c.zone, capacityType: c.capacityType, instanceType: c.instanceType, pricePerHour: c.pricePerHour, instanceTypeOptions: [c.instanceType], pods: c.pods }));
  if (allSpotNodes(set) && !input.replacement?.spotToSpot && replacements.some((r) => r.capacityType === 'spot')) return undefined;
  const setPrice = prices.reduce<number>((s, p) => s + p!, 0);
  const saved = setPrice - replacements.reduce((s, r) => s + r.pricePerHour, 0);
  if (saved <= 1e-9) return undefined;
  if (replacements.length > set.length && saved < (opts.growthMinSaving ?? GROWTH_MIN_SAVING) * setPrice) return undefined;
  const moves = replacements.length === 0 ? removal.moves : placeWithReplacements(input, set, replacements);
  if (!moves) return undefined;
  return { kind: replacements.length > 0 ? 'replace' : 'delete', nodes: set.map((c) => c.node.name), replacements, savingsPerHour: Math.round(saved * 1e6) / 1e6, reason: 'Underutilized', displacedPods: moves };
}

/**
 * berth's cost step: the first set (candidateSets' order) whose repack saves money, as a
 * decision with any number of replacements; undefined when none does. Meant for the
 * fixed point of Karpenter-faithful consolidation (run that first: this takes what it
 * finds, not what Karpenter would do next). Needs replacement options.
 */
export function cheaperRepack(input: ConsolidationInput, opts: RepackOptions = {}): Decision | undefined {
  if (!input.replacement) return undefined;
  const { eligible } = consolidationCandidates(input);
  const batch = underutilized(input, eligible.filter((c) => !isEmpty(c)));
  for (const set of candidateSets(batch)) {
    const d = repack(input, set, opts);
    if (d) return d;
  }
  return undefined;
}

/**
 * The check a cost step gets after its wait, as Karpenter's consolidation decisions
 * do: its nodes are all still consolidatable within the Underutilized budgets and
 * repacking them still saves. The fresh decision, or why the old one no longer holds.
 */
export function revalidateRepack(input: ConsolidationInput, d: Decision, opts: RepackOptions = {}): Decision | { invalid: string } {
  const set = stillCandidates(input, d.nodes, (c) => !isEmpty(c));
  if (!Array.isArray(set)) return set;
  return repack(input, set, opts) ?? { invalid: 'repacking the nodes no longer saves' };
}

export interface ConsolidationBound extends Partial<CostLowerBound> {
  /** $/h no packing of the cluster's pods on its NodePools' offerings can beat; undefined when not computed (see status). */
  readonly costPerHour?: number;
  readonly status: string;
}

/**
 * A lower bound on what the cluster's nodes can cost: the LP relaxation (cost-bound.ts)
 * of packing every pod of its nodes onto the NodePools' offerings. Computed only when
 * every node may go (each one a consolidation candidate of a provisioning pool):
 * otherwise the nodes that stay would count at their price and their spare room for
 * free, which the relaxation does not model.
 */
export function consolidationLowerBound(input: ConsolidationInput, solver: LpSolver): ConsolidationBound {
  const { eligible } = consolidationCandidates(input);
  const movable = new Set(eligible.map((c) => c.node.name));
  const staying = input.cluster.nodeInfos().filter((i) => !movable.has(i.node.name)).length;
  if (staying > 0) return { status: `not computed: ${staying} node(s) are not consolidation candidates` };
  const pools = input.pools.filter((p) => p.replicas === null).map((p) => cachedPoolTemplate(p, input.replacement?.instanceTypes ?? [], input.replacement?.daemonSetPods ?? []));
  return costLowerBound(eligible.flatMap((c) => c.reschedulable), pools, solver);
}
