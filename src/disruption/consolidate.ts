// Consolidation decisions as Karpenter v1 makes them: emptiness, multi-node
// consolidation (the longest prefix, by savings ratio, of candidates that can go,
// replaced by at most one new node) and single-node consolidation (delete, or
// replace with one strictly cheaper node). Every decision is validated by running
// the real scheduler over the displaced pods on a copy of the cluster without the
// candidates — with their affinity, anti-affinity and spread constraints — and, for
// the pods that fit nowhere, the provisioner's planner on that copy; a replacement is
// then checked once more with the new node in the cluster, as kube-scheduler will
// place the evicted pods once it is up.

import type { ClusterState } from '../cluster/state.js';
import { LABEL_ZONE, type Node } from '../model/node.js';
import { LABEL_CAPACITY_TYPE, type DisruptionReason, type NodePool } from '../model/nodepool.js';
import { changedPod, type Pod } from '../model/pod.js';
import type { Taint } from '../model/taints.js';
import { LABEL_INSTANCE_TYPE, type InstanceType } from '../provisioner/catalog/types.js';
import { initializingTaints } from '../provisioner/cluster-state.js';
import { launchedNode } from '../provisioner/launched-node.js';
import { satisfiesMinValues, type MinValuesResult } from '../provisioner/instance-requirements.js';
import { planProvisioning, type ClaimOffering, type NodeClaimPlan } from '../provisioner/plan.js';
import { Requirements } from '../provisioner/requirements.js';
import { scheduleAll } from '../scheduler/run.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { noteBlockedByBudget, remainingDisruptions } from './budgets.js';
import { DISRUPTED_TAINT, findCandidates, reschedulablePods, savingsRatio, isConsolidatable, isEmpty, isUnderConsolidateAfter, type Candidate, type CandidateInput, type Rejection } from './candidates.js';
import { copyWithout, unbind } from './cluster-copy.js';
import { balancedRejection, balancedTotals, canPassThreshold, scoreCommand, type PoolTotals } from './balanced.js';
import type { ConsolidationMemo } from './consolidation-memo.js';
import { surelyNoCheaper } from './no-cheaper-bound.js';
import { asKarpenterReadsIt } from './unparsed-selectors.js';

export interface DisplacedPod {
  readonly pod: string;
  /** Where the scheduler predicts the pod lands; REPLACEMENT for the decision's new node. */
  readonly node: string;
}

/** Stands for the replacement node in predicted placements until it has a name. */
export const REPLACEMENT = '<replacement>';

/** A new node a decision launches: its NodePool, zone and the instance types it may be. */
export interface Replacement {
  readonly nodePool: string;
  readonly zone: string;
  readonly capacityType: string;
  /** The cheapest of the options: what the launch picks. */
  readonly instanceType: string;
  readonly pricePerHour: number;
  /** Instance types the launch may choose from, cheapest first. */
  readonly instanceTypeOptions: readonly string[];
  readonly pods: readonly string[];
}

export type DecisionReason = DisruptionReason | 'Expired';

export interface Decision {
  readonly kind: 'delete' | 'replace';
  readonly nodes: readonly string[];
  /** New nodes launched before the candidates go: at most one for consolidation, any number for drift and expiry. */
  readonly replacements: readonly Replacement[];
  readonly savingsPerHour: number;
  readonly reason: DecisionReason;
  readonly displacedPods: readonly DisplacedPod[];
}

/** What replacements may be launched from; without it consolidation only deletes. */
export interface ReplacementOptions {
  readonly instanceTypes: readonly InstanceType[];
  /** One template pod per DaemonSet: they run on the replacement too. */
  readonly daemonSetPods?: readonly Pod[];
  /** Karpenter's SpotToSpotConsolidation feature gate (off by default). */
  readonly spotToSpot?: boolean;
}

export interface ConsolidationInput {
  readonly cluster: ClusterState;
  readonly pools: readonly NodePool[];
  readonly nowMs: number;
  /** $/h of a node (catalogPrices reads it from the instance catalog); undefined when unknown. */
  readonly pricePerHour: (node: Node) => number | undefined;
  readonly scheduler?: SchedulerConfig;
  readonly lastPodEventMs?: ReadonlyMap<string, number>;
  readonly disrupting?: ReadonlySet<string>;
  readonly uninitialized?: ReadonlySet<string>;
  /**
   * Managed nodes without karpenter.sh/initialized yet (StateNode.Initialized() false), a
   * subset of `uninitialized`: Karpenter's scheduler tries them after the initialized ones,
   * a decision whose pods would land on one is refused, and budgets do not count them.
   */
  readonly initializing?: ReadonlySet<string>;
  /**
   * The startup taints of each initializing node's NodeClaim. Karpenter's simulation sees
   * such a node without them and without the known ephemeral taints (not-ready,
   * unreachable...), so it may put pods there, and then refuses the decision.
   */
  readonly startupTaints?: ReadonlyMap<string, readonly Taint[]>;
  /**
   * Initialized managed nodes whose Ready condition is not True. Karpenter still takes
   * them as candidates, but each spends one of its NodePool's disruptions, as a node being
   * disrupted does (BuildDisruptionBudgetMapping).
   */
  readonly notReady?: ReadonlySet<string>;
  readonly pdbAllowances?: ReadonlyMap<string, number>;
  readonly replacement?: ReplacementOptions;
  /**
   * Karpenter's multi-node bound (100): its binary search tries batches of up to this
   * many plus one candidates when there are more than that.
   */
  readonly maxMultiNodeCandidates?: number;
  /**
   * Stand-ins for Karpenter's wall-clock timeouts (single-node consolidation 3 min,
   * multi-node 1 min), which a deterministic engine cannot read: how many scheduling
   * simulations each method may run before it gives up as on its timeout — single-node
   * with nothing, multi-node with the largest batch found so far. Unset (the default):
   * no limit, which is what Karpenter does whenever it finishes in time.
   */
  readonly consolidationWork?: { readonly singleNode?: number; readonly multiNode?: number };
  /** Answers kept across passes (the simulator's disruption loop keeps one); each computed afresh without it. */
  readonly memo?: ConsolidationMemo;
}

export interface ConsolidationResult {
  readonly decisions: Decision[];
  readonly rejected: Rejection[];
}

const MULTI_NODE_LIMIT = 100;
/** Karpenter's minimum of cheaper instance types before a spot node is replaced by another spot node. */
export const MIN_SPOT_TO_SPOT_OPTIONS = 15;

interface Removal {
  /** Where the simulation put each pod: a remaining node, or replacementName(i) for the i-th new claim. */
  readonly moves: DisplacedPod[];
  /** New claims the planner needed for the pods that fit on no remaining node. */
  readonly claims: NodeClaimPlan[];
}

/**
 * Marks, on a scratch copy, the nodes consolidation may not move pods onto: a NoSchedule
 * taint the moving pods do not tolerate (pods that were pending already do).
 */
const UNDER_CONSOLIDATE_AFTER: Taint = { key: 'simulation.berth.dev/under-consolidate-after', value: '', effect: 'NoSchedule' };

/**
 * A candidate as Karpenter's simulation sees it when it keeps pods through the drain
 * (a terminationGracePeriod lets do-not-disrupt and PDB-blocked pods hold it): those
 * pods still count for spread and affinity, as Karpenter's topology counts every pod
 * still bound, but the node takes no pod — tainted as Karpenter taints it, and without
 * room for one more pod. A candidate that keeps none is left out: Karpenter counts no
 * empty domain from a candidate.
 */
function draining(node: Node): Node {
  return { ...node, taints: [...node.taints, DISRUPTED_TAINT], allocatable: { ...node.allocatable, pods: 0 } };
}

/** Whether the candidate keeps pods other than DaemonSet pods when `moving` leave. */
function keepsPods(input: ConsolidationInput, c: Candidate, moving: ReadonlySet<string>): boolean {
  return (input.cluster.nodeInfo(c.node.name)?.pods ?? []).some((p) => !moving.has(p.key) && reschedulablePods([p]).length > 0);
}

/**
 * A copy of the cluster without the candidates and the nodes already being disrupted,
 * the candidates' reschedulable pods pending in it; with replacement options
 * (Karpenter's simulation) a candidate that keeps pods stays, draining. With
 * `consolidating`, nodes inside their consolidateAfter window take none of the pods
 * (Karpenter's consolidation simulation); drift and expiry move pods onto any node.
 */
function removalCopy(input: ConsolidationInput, candidates: readonly Candidate[], consolidating: boolean): { copy: ClusterState; moving: Set<string> } {
  const moving = new Set(candidates.flatMap((c) => c.reschedulable.map((p) => p.key)));
  const kept = input.replacement ? candidates.filter((c) => keepsPods(input, c, moving)) : [];
  const gone = new Set([...candidates.filter((c) => !kept.includes(c)).map((c) => c.node.name), ...(input.disrupting ?? [])]);
  // Non-reschedulable pods of the removed nodes (DaemonSet, terminal) go with the node.
  const copy = copyWithout(input.cluster, gone, (p) => moving.has(p.key));
  for (const c of kept) {
    copy.updateNode(draining(c.node));
    for (const p of c.reschedulable) if (copy.removePod(p.key)) copy.addPod(unbind(p));
  }
  for (const key of moving) {
    const pod = copy.getPod(key);
    const read = pod && asKarpenterReadsIt(pod);
    if (read && read !== pod) copy.updatePod(read);
  }
  if (consolidating) {
    const o = { ...(input.lastPodEventMs && { lastPodEventMs: input.lastPodEventMs }), ...(input.uninitialized && { uninitialized: input.uninitialized }) };
    const closed = [...copy.nodeInfos()].map((i) => i.node).filter((n) => isUnderConsolidateAfter(n, input.pools, input.nowMs, o));
    for (const n of closed) copy.updateNode({ ...n, taints: [...n.taints, UNDER_CONSOLIDATE_AFTER] });
    if (closed.length > 0) {
      const exempt = { key: UNDER_CONSOLIDATE_AFTER.key, operator: 'Exists' as const, value: '', effect: '' as const };
      for (const p of copy.pendingPods()) if (!moving.has(p.key)) copy.updatePod(changedPod(p, { tolerations: [...p.tolerations, exempt] }));
    }
  }
  return { copy, moving };
}

/** Placements of the moving pods, or null when one was left out or scheduling them preempted anything. */
function placementsOf(report: ReturnType<typeof scheduleAll>, moving: ReadonlySet<string>): DisplacedPod[] | null {
  if (report.preemptions.length > 0) return null;
  const moves = report.placements.filter((pl) => moving.has(pl.pod)).map((pl) => ({ pod: pl.pod, node: pl.node }));
  return moves.length === moving.size ? moves : null;
}

/** Whether every candidate is a spot node: the set SpotToSpotConsolidation governs. */
export const allSpotNodes = (candidates: readonly Candidate[]): boolean => candidates.every((c) => c.node.labels[LABEL_CAPACITY_TYPE] === 'spot');

/** A displaced pod that would fit nowhere, with its scheduling error. */
export interface PodError {
  readonly pod: string;
  readonly message: string;
}

/**
 * Removes `candidates` on a copy and schedules their pods onto the remaining nodes
 * with the real scheduler; when some fit nowhere and replacements are allowed, the
 * provisioner's planner plans new claims for them. Null when some pod fits nowhere;
 * then `errors` gets each such pod's scheduling error.
 */
export function simulateRemoval(input: ConsolidationInput, candidates: readonly Candidate[], consolidating = false, errors: PodError[] = [], optimize?: 'cost'): Removal | null {
  const config = input.scheduler ?? {};
  const { copy, moving } = removalCopy(input, candidates, consolidating);
  if (input.replacement) return simulateWithProvisioner(input, input.replacement, copy, moving, errors, optimize, new Set(candidates.map((c) => c.node.name)));
  const report = scheduleAll(copy, config);
  if (report.preemptions.length > 0) {
    errors.push(...report.preemptions.filter((p) => moving.has(p.pod)).map((p) => ({ pod: p.pod, message: `would preempt ${p.victims.join(', ')}` })));
    return null;
  }
  const moves = placementsOf(report, moving);
  if (moves) return { moves, claims: [] };
  errors.push(...report.unschedulable.filter((u) => moving.has(u.pod)));
  return null;
}

/**
 * Karpenter's SimulateScheduling: its provisioning scheduler places the displaced pods
 * on the remaining nodes and on new NodeClaims in one pass, with topology domains
 * counted from what the NodePools could launch (a zone with no node left still counts
 * for a spread), so a pod may need a new node even where kube-scheduler would find room.
 */
function simulateWithProvisioner(input: ConsolidationInput, replacement: ReplacementOptions, copy: ClusterState, moving: ReadonlySet<string>, errors: PodError[], optimize: 'cost' | undefined, candidateNodes: ReadonlySet<string>): Removal | null {
  // Pods that were pending before are the provisioner's business, not this decision's: the
  // copy's pending pods are those and the moving ones (asked of the cluster, which has them
  // worked out once for all its simulations).
  for (const p of input.cluster.pendingPods()) if (!moving.has(p.key)) copy.removePod(p.key);
  showInitializingAsKarpenter(input, copy);
  const plan = planProvisioning({
    cluster: copy,
    pools: input.pools.filter((p) => p.replicas === null),
    instanceTypes: replacement.instanceTypes,
    daemonSetPods: replacement.daemonSetPods ?? [],
    config: input.scheduler ?? {},
    seed: 0,
    withOfferings: true,
    existingNodesAsKarpenter: true,
    ...(input.initializing ? { uninitializedNodes: input.initializing } : {}),
    candidateNodes,
    // What is left pending in the copy: the moving pods.
    pending: [...moving].map((key) => copy.getPod(key)!),
    ...(optimize ? { optimize } : {}),
  });
  if (plan.unschedulable.length > 0) {
    errors.push(...plan.unschedulable.map((u) => ({ pod: u.pod, message: u.message.replace(/^could not schedule pod: /, '') })));
    return null;
  }
  // A decision must not rest on a node still initializing (SimulateScheduling's UninitializedNodeError).
  const onUninitialized = plan.placements.filter((pl) => moving.has(pl.pod) && input.initializing?.has(pl.node));
  if (onUninitialized.length > 0) {
    errors.push(...onUninitialized.map((pl) => ({ pod: pl.pod, message: `would schedule against uninitialized node/${pl.node}` })));
    return null;
  }
  const claimIndex = new Map(plan.nodeClaims.map((c, i) => [c.name, i]));
  const moves = plan.placements.filter((pl) => moving.has(pl.pod)).map((pl) => {
    const i = claimIndex.get(pl.node);
    return { pod: pl.pod, node: i === undefined ? pl.node : replacementName(i) };
  });
  return { moves, claims: plan.nodeClaims };
}

/** Initializing nodes with the taints Karpenter's state node shows for them (initializingTaints). */
function showInitializingAsKarpenter(input: ConsolidationInput, copy: ClusterState): void {
  for (const name of input.initializing ?? []) {
    const node = copy.nodeInfo(name)?.node;
    const taints = node && initializingTaints(node.taints, input.startupTaints?.get(name) ?? []);
    if (node && taints && taints.length !== node.taints.length) copy.updateNode({ ...node, taints });
  }
}

/**
 * Karpenter's Unconsolidatable text for pods that would not schedule: each pod with its
 * scheduling error, five at most (upstream walks a map, so its order varies; berth
 * lists them by pod).
 */
export function notAllPodsWouldSchedule(errors: readonly PodError[]): string {
  const MAX = 5;
  const sorted = [...errors].sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
  if (sorted.length === 0) return 'No Pod Scheduling Errors';
  const listed = sorted.slice(0, MAX).map((e) => `${e.pod} => ${e.message} `).join('');
  return `Not all pods would schedule, ${listed}${sorted.length >= MAX ? ` and ${sorted.length - MAX} other(s)` : ''}`;
}

/** How predicted placements name the i-th replacement of a decision. */
export function replacementName(i: number): string {
  return i === 0 ? REPLACEMENT : `<replacement-${i + 1}>`;
}

/**
 * Where the candidates' pods land once the replacements exist, as it happens: the
 * replacements are up before the candidates drain, and kube-scheduler places each
 * evicted pod with them in the cluster (so they count as topology domains). Null
 * when some pod would not fit; the decision stands then all the same (Karpenter
 * decides on its own simulation only), and the simulation's placements are the
 * prediction.
 */
export function placeWithReplacements(input: ConsolidationInput, candidates: readonly Candidate[], replacements: readonly Replacement[]): DisplacedPod[] | null {
  const { copy, moving } = removalCopy(input, candidates, false);
  for (const p of copy.pendingPods()) if (!moving.has(p.key)) copy.removePod(p.key);
  const types = input.replacement?.instanceTypes ?? [];
  replacements.forEach((r, i) => copy.addNode(replacementNode(r, input.pools, types, replacementName(i), input.nowMs)));
  return placementsOf(scheduleAll(copy, input.scheduler ?? {}), moving);
}

/** Cheapest offering per instance type, in price order, among `offerings` (already cheapest first). */
export function cheapestPerType(offerings: NonNullable<NodeClaimPlan['offerings']>): ClaimOffering[] {
  const seen = new Set<string>();
  return offerings.filter((o) => !seen.has(o.instanceType) && seen.add(o.instanceType));
}

/**
 * What launching `type` may cost at worst (Karpenter's WorstLaunchPrice): the launch
 * takes spot when the claim allows it, on-demand otherwise, in whichever zone has
 * capacity, so a type is only cheaper when its dearest offering of that capacity type
 * is — one cheap zone does not make it a saving.
 */
export function worstLaunchPrice(offerings: readonly ClaimOffering[], type: string): number {
  const ofType = offerings.filter((o) => o.instanceType === type);
  const spot = ofType.filter((o) => o.capacityType === 'spot');
  return Math.max(...(spot.length > 0 ? spot : ofType).map((o) => o.price));
}

export function toReplacement(claim: NodeClaimPlan, options: readonly ClaimOffering[]): Replacement {
  const best = options[0]!;
  return { nodePool: claim.nodePool, zone: best.zone, capacityType: best.capacityType, instanceType: best.instanceType, pricePerHour: best.price, instanceTypeOptions: options.map((o) => o.instanceType), pods: claim.pods };
}

export type CommandResult = { readonly decision: Decision } | { readonly unconsolidatable: string };

/**
 * Karpenter's computeConsolidation for a set of candidates: delete when every pod fits
 * on the remaining nodes; otherwise replace with exactly one new node whose instance
 * types are strictly cheaper than the candidates together (with the spot-to-spot
 * rules); otherwise nothing, with the reason.
 */
export function computeConsolidation(input: ConsolidationInput, candidates: readonly Candidate[], reason: DisruptionReason): CommandResult {
  return input.memo ? input.memo.answer(input, candidates, reason, () => consolidationOf(input, candidates, reason)) : consolidationOf(input, candidates, reason);
}

function consolidationOf(input: ConsolidationInput, candidates: readonly Candidate[], reason: DisruptionReason): CommandResult {
  const errors: PodError[] = [];
  const removal = simulateRemoval(input, candidates, true, errors);
  if (!removal) return { unconsolidatable: notAllPodsWouldSchedule(errors) };
  const prices = candidates.map((c) => input.pricePerHour(c.node));
  const known = prices.every((p) => p !== undefined);
  const candidatePrice = known ? prices.reduce<number>((s, p) => s + p!, 0) : 0;
  const nodes = candidates.map((c) => c.node.name);
  if (removal.claims.length === 0) return { decision: { kind: 'delete', nodes, replacements: [], savingsPerHour: round(candidatePrice), reason, displacedPods: removal.moves } };
  if (removal.claims.length > 1) return { unconsolidatable: `Can't remove without creating ${removal.claims.length} candidates` };
  if (!known) return { unconsolidatable: 'Unable to determine the price of the candidate' };
  const claim = removal.claims[0]!;
  const offerings = claim.offerings ?? [];
  const allSpot = allSpotNodes(candidates);
  const canBeSpot = offerings.some((o) => o.capacityType === 'spot');
  let options: ClaimOffering[];
  /** The options after the price filter, before any capacity-type narrowing: where the same-type check looks. */
  let priced: readonly ClaimOffering[];
  if (allSpot && canBeSpot) {
    if (!input.replacement?.spotToSpot) return { unconsolidatable: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" };
    const spot = offerings.filter((o) => o.capacityType === 'spot');
    options = cheapestPerType(spot).filter((o) => worstLaunchPrice(spot, o.instanceType) < candidatePrice);
    priced = options;
    const minValues = minValuesOf(input, claim, options);
    if (minValues.error) return { unconsolidatable: `Filtering by price: ${minValues.error}` };
    if (options.length === 0) return { unconsolidatable: "Can't replace with a cheaper node" };
    if (candidates.length === 1) {
      if (options.length < MIN_SPOT_TO_SPOT_OPTIONS) {
        return { unconsolidatable: `SpotToSpotConsolidation requires ${MIN_SPOT_TO_SPOT_OPTIONS} cheaper instance type options than the current candidate to consolidate, got ${options.length}` };
      }
      // Launching from the 15 cheapest (more when the NodePool's minValues need more) keeps the new node from being consolidated again at once.
      options = options.slice(0, Math.max(MIN_SPOT_TO_SPOT_OPTIONS, minValues.minNeededInstanceTypes));
    }
  } else {
    const cheaperOptions = cheapestPerType(offerings).filter((o) => worstLaunchPrice(offerings, o.instanceType) < candidatePrice);
    priced = cheaperOptions;
    const minValuesError = minValuesOf(input, claim, cheaperOptions).error;
    if (minValuesError) return { unconsolidatable: `Filtering by price: ${minValuesError}` };
    const cheaper = new Set(cheaperOptions.map((o) => o.instanceType));
    if (cheaper.size === 0) return { unconsolidatable: "Can't replace with a cheaper node" };
    // Priced on the assumption spot launches, so spot it must be: an on-demand fallback could cost more.
    const onlySpot = canBeSpot && offerings.some((o) => o.capacityType === 'on-demand');
    options = cheapestPerType(offerings.filter((o) => cheaper.has(o.instanceType) && (!onlySpot || o.capacityType === 'spot')));
  }
  if (candidates.length > 1) {
    options = withoutSameType(options, priced, offerings, candidates, input.pricePerHour);
    const minValuesError = minValuesOf(input, claim, options).error;
    if (minValuesError) return { unconsolidatable: `Filtering by price: ${minValuesError}` };
    if (options.length === 0) return { unconsolidatable: "Can't replace with a cheaper node" };
  }
  const replacement = toReplacement(claim, options);
  const moves = placeWithReplacements(input, candidates, [replacement]) ?? removal.moves;
  return { decision: { kind: 'replace', nodes, replacements: [replacement], savingsPerHour: round(candidatePrice - replacement.pricePerHour), reason, displacedPods: moves } };
}

/**
 * Karpenter's check after each price filter of a replacement (RemoveInstanceTypeOptionsByPriceAndMinValues):
 * whether the options left, cheapest first, still satisfy the NodePool's minValues, and
 * how many of them it takes.
 */
function minValuesOf(input: ConsolidationInput, claim: NodeClaimPlan, options: readonly ClaimOffering[]): MinValuesResult {
  const requirements = Requirements.fromNodeSelectorRequirements(claim.requirements);
  if (!requirements.hasMinValues()) return satisfiesMinValues([], requirements);
  const byName = new Map((input.replacement?.instanceTypes ?? []).map((t) => [t.name, t]));
  return satisfiesMinValues(options.flatMap((o) => byName.get(o.instanceType) ?? []), requirements);
}

/**
 * Multi-node replacement options of a type some candidate already is must be cheaper
 * than that candidate: otherwise keeping it and deleting the others is the same
 * result with fewer pods moved (Karpenter's filterOutSameType). A candidate's type counts
 * when it passed the price filter (`priced`), even where the replacement must then be
 * spot and that type launches only on-demand: Karpenter narrows the capacity type in the
 * requirements, not in the instance-type options it checks here.
 */
function withoutSameType(options: ClaimOffering[], priced: readonly ClaimOffering[], offerings: readonly ClaimOffering[], candidates: readonly Candidate[], price: (n: Node) => number | undefined): ClaimOffering[] {
  let max = Infinity;
  for (const c of candidates) {
    const type = c.node.labels[LABEL_INSTANCE_TYPE];
    if (type !== undefined && priced.some((o) => o.instanceType === type)) max = Math.min(max, price(c.node) ?? Infinity);
  }
  return options.filter((o) => worstLaunchPrice(offerings, o.instanceType) < max);
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/**
 * Candidates in Karpenter v1.14's consolidation order: highest savings ratio first.
 * Karpenter's sort is unstable, so equal ratios come in no fixed order; berth puts them
 * by name.
 */
function sortBySavingsRatio(candidates: Candidate[], price: ConsolidationInput['pricePerHour']): void {
  const ratio = new Map(candidates.map((c) => [c, savingsRatio(c, price(c.node))]));
  candidates.sort((a, b) => ratio.get(b)! - ratio.get(a)! || (a.node.name < b.node.name ? -1 : a.node.name > b.node.name ? 1 : 0));
}

/**
 * Single-node consolidation's order: by savings ratio, then interleaved across NodePools
 * (the first of each pool, then the second of each...). Karpenter visits the pools in Go
 * map order; berth in name order.
 */
function interleaveByPool(candidates: readonly Candidate[]): Candidate[] {
  const byPool = new Map<string, Candidate[]>();
  for (const c of candidates) byPool.set(c.pool.name, [...(byPool.get(c.pool.name) ?? []), c]);
  const pools = [...byPool.keys()].sort();
  const out: Candidate[] = [];
  for (let i = 0; out.length < candidates.length; i++) for (const p of pools) { const c = byPool.get(p)![i]; if (c) out.push(c); }
  return out;
}

function take(budget: Map<string, number>, c: Candidate): boolean {
  const left = budget.get(c.pool.name) ?? 0;
  if (left <= 0) return false;
  budget.set(c.pool.name, left - 1);
  return true;
}

/**
 * Why consolidation (Karpenter's consolidation ShouldDisrupt) passes over a non-empty
 * candidate, worded as its Unconsolidatable event, or undefined. Empty ones are left to
 * emptiness, which needs none of this.
 */
function unconsolidatable(input: ConsolidationInput, c: Candidate): string | undefined {
  if (isEmpty(c)) return undefined;
  const type = c.node.labels[LABEL_INSTANCE_TYPE] ?? '';
  const types = input.replacement?.instanceTypes;
  if (types ? !types.some((t) => t.name === type) : input.pricePerHour(c.node) === undefined) return `Instance Type ${JSON.stringify(type)} not found`;
  if (c.node.labels[LABEL_CAPACITY_TYPE] === undefined) return `Node does not have label "${LABEL_CAPACITY_TYPE}"`;
  if (c.node.labels[LABEL_ZONE] === undefined) return `Node does not have label "${LABEL_ZONE}"`;
  if (c.pool.disruption.consolidationPolicy === 'WhenEmpty') return `NodePool "${c.pool.name}" has consolidation policy WhenEmpty, but node is not empty`;
  return undefined;
}

/**
 * A consolidation's nodes looked up again after its wait, as Karpenter's validation does:
 * each still a consolidation candidate (and one `keep` accepts), and all of them
 * together still within the NodePools' Underutilized budgets. The candidates, or why not.
 * (Emptiness re-checks its nodes one by one: revalidateEmpty.)
 */
export function stillCandidates(input: ConsolidationInput, nodes: readonly string[], keep: (c: Candidate) => boolean = () => true): Candidate[] | { invalid: string } {
  const { eligible } = consolidationCandidates({ ...input, only: new Set(nodes) });
  const found = nodes.map((n) => eligible.find((c) => c.node.name === n && keep(c)));
  const gone = nodes.find((_, i) => found[i] === undefined);
  if (gone !== undefined) return { invalid: `node ${gone} is no longer a consolidation candidate` };
  const candidates = found as Candidate[];
  const budget = remainingDisruptions(input, 'Underutilized');
  for (const c of candidates) budget.set(c.pool.name, (budget.get(c.pool.name) ?? 0) - 1);
  if ([...budget.values()].some((v) => v < 0)) return { invalid: 'the disruption budget no longer allows it' };
  return candidates;
}

/** The consolidatable candidates, highest savings ratio first; the others join `rejected`. */
export function consolidationCandidates(input: ConsolidationInput & Pick<CandidateInput, 'only'>): { eligible: Candidate[]; rejected: Rejection[] } {
  const { candidates, rejected } = findCandidates(input);
  const eligible: Candidate[] = [];
  for (const c of candidates) {
    if (c.pool.replicas !== null) continue; // A static NodePool's nodes are never consolidated (Karpenter: no event either).
    const why = c.pool.disruption.consolidateAfterSeconds === null ? `NodePool "${c.pool.name}" has consolidation disabled` : unconsolidatable(input, c);
    if (why !== undefined) rejected.push({ node: c.node.name, reason: why, event: 'Unconsolidatable' });
    else if (!isConsolidatable(c, input.nowMs, input.lastPodEventMs)) rejected.push({ node: c.node.name, reason: 'Node is not consolidatable yet: consolidateAfter has not passed since its last pod event' });
    else eligible.push(c);
  }
  sortBySavingsRatio(eligible, input.pricePerHour);
  return { eligible, rejected };
}

/** Emptiness: every consolidatable node with nothing to move, within the Empty budgets. */
export function emptiness(input: ConsolidationInput, eligible: readonly Candidate[], rejected?: Rejection[]): Decision | undefined {
  const budget = remainingDisruptions(input, 'Empty');
  if (rejected) noteBlockedByBudget(rejected, budget, eligible.filter(isEmpty), 'Empty');
  const empty = eligible.filter((c) => isEmpty(c) && take(budget, c));
  if (empty.length === 0) return undefined;
  const savings = empty.reduce((s, c) => s + (input.pricePerHour(c.node) ?? 0), 0);
  return { kind: 'delete', nodes: empty.map((c) => c.node.name), replacements: [], savingsPerHour: round(savings), reason: 'Empty', displacedPods: [] };
}

/** Multi-node's batch: non-empty candidates in order, as many as the Underutilized budgets allow (each one spends one). */
export function underutilized(input: ConsolidationInput, eligible: readonly Candidate[], rejected?: Rejection[]): Candidate[] {
  const budget = remainingDisruptions(input, 'Underutilized');
  if (rejected) noteBlockedByBudget(rejected, budget, eligible.filter((c) => !isEmpty(c)), 'Underutilized');
  return eligible.filter((c) => !isEmpty(c) && take(budget, c));
}

/**
 * Multi-node: binary search for the longest prefix (of at least 2) that can be deleted
 * or replaced by one cheaper node. Karpenter searches batch sizes up to its bound plus
 * one (it counts the bound from the second candidate), so 101 of more than 100.
 */
export function multiNode(input: ConsolidationInput, eligible: readonly Candidate[], rejected?: Rejection[]): Decision | undefined {
  const within = underutilized(input, eligible, rejected).slice(0, (input.maxMultiNodeCandidates ?? MULTI_NODE_LIMIT) + 1);
  const totals = within.length >= 2 ? balancedTotals(input) : undefined;
  let lo = 2, hi = within.length, best: Decision | undefined;
  for (let work = 0; lo <= hi; work++) {
    if (work >= (input.consolidationWork?.multiNode ?? Infinity)) break; // Karpenter's timeout: the last command that worked
    const mid = Math.trunc((lo + hi) / 2);
    const batch = within.slice(0, mid);
    const r = surelyNoCheaper(input, batch) ? undefined : computeConsolidation(input, batch, 'Underutilized');
    if (r && 'decision' in r && balancedVerdict(input, batch, r.decision, totals) === undefined) { best = r.decision; lo = mid + 1; } else hi = mid - 1;
  }
  return best;
}

/** Why Balanced NodePools turn the decision down, or undefined when none does (or none is Balanced). */
function balancedVerdict(input: ConsolidationInput, candidates: readonly Candidate[], d: Decision, totals: ReadonlyMap<string, PoolTotals> | undefined): string | undefined {
  if (!totals) return undefined;
  // Karpenter's EstimatedSavings: the candidates' prices less each replacement's cheapest offering.
  const savings = candidates.reduce((s, c) => s + (input.pricePerHour(c.node) ?? 0), 0) - d.replacements.reduce((s, r) => s + r.pricePerHour, 0);
  return balancedRejection(scoreCommand(candidates, savings, totals, input.pricePerHour));
}

/**
 * Single-node: the first candidate, in savings-ratio order interleaved across NodePools,
 * that can be deleted or replaced by a cheaper node. A command holds one node, so a
 * candidate only needs its pool's budget to allow one: a candidate that fails spends
 * none of it (Karpenter tries every candidate of a pool with a budget of 1).
 */
export function singleNode(input: ConsolidationInput, eligible: readonly Candidate[], rejected?: Rejection[]): Decision | undefined {
  const budget = remainingDisruptions(input, 'Underutilized');
  const candidates = interleaveByPool(eligible.filter((c) => !isEmpty(c)));
  if (rejected) noteBlockedByBudget(rejected, budget, candidates, 'Underutilized');
  const totals = candidates.length > 0 ? balancedTotals(input) : undefined;
  let work = 0;
  for (const c of candidates) {
    if (work >= (input.consolidationWork?.singleNode ?? Infinity)) {
      // Karpenter's timeout: abandon the pass, whatever the candidates left.
      rejected?.push({ node: c.node.name, reason: 'Single-node consolidation gave up before this candidate (its timeout; berth: the consolidationWork.singleNode budget)' });
      continue;
    }
    if ((budget.get(c.pool.name) ?? 0) <= 0) continue;
    // Karpenter skips, without a word, a Balanced candidate whose deletion alone would not pass.
    if (totals && !canPassThreshold(c, totals, input.pricePerHour)) {
      rejected?.push({ node: c.node.name, reason: balancedRejection(scoreCommand([c], input.pricePerHour(c.node) ?? 0, totals, input.pricePerHour)) ?? 'Balanced score below the threshold' });
      continue;
    }
    work++;
    if (surelyNoCheaper(input, [c])) {
      rejected?.push(refusal(input, c));
      continue;
    }
    const r = computeConsolidation(input, [c], 'Underutilized');
    if (!('decision' in r)) {
      rejected?.push({ node: c.node.name, reason: r.unconsolidatable, event: 'Unconsolidatable' });
      continue;
    }
    const balanced = balancedVerdict(input, [c], r.decision, totals);
    if (balanced === undefined) return r.decision;
    rejected?.push({ node: c.node.name, reason: balanced });
  }
  return undefined;
}

/**
 * The Unconsolidatable rejection of a candidate surelyNoCheaper refuses: its wording
 * comes from the simulation, run only when the reason is read (most are not: Karpenter
 * publishes a node's event once per 15 minutes), which must be before the cluster changes.
 */
function refusal(input: ConsolidationInput, c: Candidate): Rejection {
  const version = input.cluster.version;
  let reason: string | undefined;
  return {
    node: c.node.name,
    event: 'Unconsolidatable',
    get reason(): string {
      if (reason === undefined) {
        if (input.cluster.version !== version) throw new Error(`the consolidation refusal of ${c.node.name} was read after the cluster changed`);
        const r = computeConsolidation(input, [c], 'Underutilized');
        if ('decision' in r) throw new Error(`single-node consolidation of ${c.node.name} was refused without simulating it, but it would go`);
        reason = r.unconsolidatable;
      }
      return reason;
    },
  };
}

/** One consolidation pass in Karpenter's method order (emptiness, multi-node, single-node): at most one decision. */
export function consolidate(input: ConsolidationInput): ConsolidationResult {
  const { eligible, rejected } = consolidationCandidates(input);
  const decision = emptiness(input, eligible, rejected) ?? multiNode(input, eligible, rejected) ?? singleNode(input, eligible, rejected);
  return { decisions: decision ? [decision] : [], rejected };
}

/** The Node a replacement registers as (for applying decisions outside the simulator). */
export function replacementNode(r: Replacement, pools: readonly NodePool[], types: readonly InstanceType[], name: string, creation: number): Node {
  const pool = pools.find((p) => p.name === r.nodePool)!;
  const it = types.find((t) => t.name === r.instanceType)!;
  return launchedNode(name, pool, it, { zone: r.zone, capacityType: r.capacityType as 'on-demand' | 'spot' }, creation);
}

/**
 * Applies a decision to the cluster (mutates it): candidates removed, the replacement
 * nodes added (replacementNode builds them, in the decision's order), displaced pods
 * bound where predicted.
 */
export function applyDecision(cluster: ClusterState, d: Decision, replacementNodes: readonly Node[] = []): void {
  const pods = new Map([...cluster.pods()].map((p) => [p.key, p]));
  const named = new Map(replacementNodes.map((n, i) => [replacementName(i), n.name]));
  for (const n of d.nodes) cluster.removeNode(n);
  for (const n of replacementNodes) cluster.addNode(n);
  for (const m of d.displacedPods) {
    const p = pods.get(m.pod)!;
    const node = named.get(m.node) ?? m.node;
    cluster.removePod(p.key);
    cluster.addPod(changedPod(p, { nodeName: node, nominatedNodeName: '', phase: 'Running' }));
  }
  // DaemonSet and terminal pods of removed nodes went with them.
  for (const p of [...cluster.pods()]) if (d.nodes.includes(p.nodeName) && !cluster.nodeInfo(p.nodeName)) cluster.removePod(p.key);
}
