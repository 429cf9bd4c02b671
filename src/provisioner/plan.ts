// The provisioning plan: which new nodes let every pending pod schedule.
//
// 1. kube-scheduler runs first on the nodes that exist: pods it places need no
//    new node (and pods it stacks stay stacked, as in a real cluster).
// 2. The pods it leaves pending are planned as Karpenter does: largest first,
//    preferences treated as requirements and relaxed in Karpenter's order, each
//    tried on the NodeClaims already planned (fewest pods first), then on a new
//    claim from the highest-weight NodePool that can take it.
// A planned claim keeps its zone, capacity type, custom keys and instance type open
// as requirements narrowed by the pods that join; a pod whose topology terms are keyed
// on an open label settles it, in the domain Karpenter's topology group picks (see
// topology-keys.ts). At the end each claim launches the cheapest offering its final
// requirements allow.
// Feasibility on a planned claim is decided by the same scheduling plugins as on a
// real node (taints, host ports, inter-pod affinity, topology spread), with node
// affinity and resources checked against the claim's requirements and remaining
// instance types instead. Empty template nodes, one per NodePool and domain, stand
// for nodes that could be created, so spread and minDomains count domains that have
// no node yet.

import { NodeInfo } from '../cluster/node-info.js';
import { hasRoomFor, NODE_RESOURCES_FIT } from '../scheduler/plugins/node-resources-fit.js';
import type { ClusterState } from '../cluster/state.js';
import { goSortSlice } from '../scheduler/go-sort.js';
import { orderNodePools } from '../model/nodepool.js';
import { LABEL_HOSTNAME, type Node } from '../model/node.js';
import { bindPod, type Pod } from '../model/pod.js';
import type { ResourceList } from '../model/resources.js';
import { tolerationsTolerateTaint, type Taint } from '../model/taints.js';
import { CycleState, Framework } from '../scheduler/framework.js';
import { SchedulerError } from '../scheduler/status.js';
import { topologyReason } from './topology-reason.js';
import { buildFramework, type SchedulerConfig } from '../scheduler/profile.js';
import { profileFor, scheduleAll, SCHEDULING_GATED_MESSAGE, type Unschedulable } from '../scheduler/run.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE, type CapacityType, type InstanceType } from './catalog/types.js';
import { daemonPodsForExistingNodes, withDaemonOverhead } from './daemon-overhead.js';
import { LABEL_NODEPOOL } from './labels.js';
import { compatibleOfferings, instanceTypeCompatible, instanceTypeRequirements } from './instance-requirements.js';
import { cheapestOffering, fits, PlannedClaim, usableOfferings, type MinValuesPolicy, type PoolTemplate } from './nodeclaim.js';
import { nodeAffinityRequirements } from './pod-requirements.js';
import { podAttempts, type PodAttempt, type PreferencePolicy } from './preferences.js';
import { validatePersistentVolumeClaims, volumeRequirementAlternatives } from './volume-topology.js';
import { ALLOW_UNDEFINED_WELL_KNOWN, Requirement, Requirements, type NodeSelectorRequirementWithMinValues } from './requirements.js';
import { countOpenClaims, forgetDomains, newClaimsAreEmptyHostnames, SpreadGroups } from './spread-groups.js';
import { settleDomains, TopologyKeys, type Domains } from './topology-keys.js';
import { domainsKey } from './nodeclaim.js';
import { KarpenterView, type KarpenterStateInput } from './cluster-state.js';
import { optimizeCost, repackedRequirements, type OptimizedClaim } from './optimize-cost.js';
import type { PlanViolation } from './plan-check.js';
import { costLowerBound, type CostLowerBound, type LpSolver } from './cost-bound.js';

/**
 * A node's labels as requirements, built once per labels object (nodes are immutable by
 * convention, and copies of the cluster share them): the planner asks for every pod it
 * tries on the existing nodes. Callers must not change the result.
 */
const byLabels = new WeakMap<Readonly<Record<string, string>>, Requirements>();
function labelRequirements(labels: Readonly<Record<string, string>>): Requirements {
  let reqs = byLabels.get(labels);
  if (reqs === undefined) byLabels.set(labels, (reqs = Requirements.fromLabels(labels)));
  return reqs;
}

/** A node's requirements narrowed by a pod's. */
function withPod(node: Requirements, pod: Requirements): Requirements {
  const both = node.clone();
  both.addAll(pod);
  return both;
}

/** What the planner needs of a NodePool. */
export interface PoolSpec {
  readonly name: string;
  readonly weight: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly requirements: readonly NodeSelectorRequirementWithMinValues[];
  readonly taints: readonly Taint[];
  /** spec.limits as engine integers; absent keys are unlimited. */
  readonly limits: ResourceList;
}

export interface ProvisionInput {
  /** Existing nodes and pods; pending pods are the ones to plan for. Mutated: planned pods end up bound. */
  readonly cluster: ClusterState;
  readonly pools: readonly PoolSpec[];
  readonly instanceTypes: readonly InstanceType[];
  /** One template pod per DaemonSet: they run on every new node they tolerate and select. */
  readonly daemonSetPods: readonly Pod[];
  readonly config: SchedulerConfig;
  readonly seed?: number;
  /** Also list each claim's launchable offerings (consolidation filters them by price). */
  readonly withOfferings?: boolean;
  /** The number in the first new claim's name (`<pool>-0001` by default); later batches continue the count. */
  readonly firstClaimNumber?: number;
  /** Karpenter's preferencePolicy setting (default Respect). */
  readonly preferencePolicy?: PreferencePolicy;
  /** Karpenter's minValuesPolicy setting (default Strict). */
  readonly minValuesPolicy?: MinValuesPolicy;
  /**
   * berth's own option (off by default): a pod another pod's spread constraint or
   * affinity term selects also decides the claim's open label for that term's key
   * (topology-keys.ts), so the plan still holds once the nodes exist.
   */
  readonly settleSelected?: boolean;
  /**
   * Place pods on the existing nodes as Karpenter's own scheduler does (its disruption
   * simulation) instead of a kube-scheduler pass first: each pod, in Karpenter's queue
   * order, tries the existing nodes in its order (sortExistingNodes: the initialized ones
   * by name, then those in `uninitializedNodes` by name) — spread domains counted from
   * what the NodePools could launch — before in-flight and new claims.
   */
  readonly existingNodesAsKarpenter?: boolean;
  /** With existingNodesAsKarpenter: the nodes Karpenter does not count as initialized yet (tried last). */
  readonly uninitializedNodes?: ReadonlySet<string>;
  /**
   * With existingNodesAsKarpenter: disruption candidates left in the cluster only for the
   * pods they keep through the drain. Karpenter's topology takes no domain from a
   * candidate, so such a node's value counts only where one of those pods is counted.
   */
  readonly candidateNodes?: ReadonlySet<string>;
  /**
   * With existingNodesAsKarpenter: the cluster's pending pods, when the caller knows them
   * (a removal simulation: the candidates' pods), instead of a walk over every pod. In any
   * order: the plan takes them in Karpenter's queue order, a total order (UIDs are unique).
   */
  readonly pending?: readonly Pod[];
  /**
   * Karpenter's cluster state beyond the Nodes kube-scheduler binds to (cluster-state.ts):
   * NodeClaims still launching or initializing are capacity Karpenter tries before new
   * claims, nodes marked for deletion are not, and their pods are planned again. Without
   * it every Node is taken as initialized and none as deleting.
   */
  readonly karpenterState?: KarpenterStateInput;
  /**
   * berth's own (off by default): 'cost' packs the pods the faithful plan put on new
   * claims again for price (optimize-cost.ts), keeping the result only when it is
   * cheaper and passes checkLaunchedPlan.
   */
  readonly optimize?: 'cost';
  /** With optimize: an LP solver for the plan's lower bound (cost-bound.ts); the engine itself loads none. */
  readonly lpSolver?: LpSolver;
}

/** One offering a planned claim could launch as: a fitting instance type in a zone the claim allows. */
export interface ClaimOffering {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
  readonly price: number;
}

export interface NodeClaimPlan {
  readonly name: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
  readonly pricePerHour: number;
  readonly pods: readonly string[];
  /** The NodeClaim's annotations: karpenter.sh/nodeclaim-min-values-relaxed, "true" when its first pod needed minValues lowered. */
  readonly annotations: Readonly<Record<string, string>>;
  /** The NodeClaim's labels at creation: the pool's template labels, karpenter.sh/nodepool and custom keys its requirements resolve. */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * The NodeClaim's requirements as the cloud provider receives them: the final ones, with the
   * instance type narrowed to the (at most 60) cheapest remaining options and the capacity
   * type to what their offerings allow. Sorted by key.
   */
  readonly requirements: readonly NodeSelectorRequirementWithMinValues[];
  /** Every fitting offering, cheapest first; only with `withOfferings`. */
  readonly offerings?: readonly ClaimOffering[];
}

export interface ProvisionPlan {
  readonly placements: { pod: string; node: string }[];
  readonly nodeClaims: NodeClaimPlan[];
  /** schedulerMessage: the scheduler's own message on the existing nodes, for a pod no new node could take either. */
  readonly unschedulable: { pod: string; message: string; schedulerMessage?: string }[];
  readonly costPerHour: number;
  /** Only with `optimize`. */
  readonly optimization?: PlanOptimization;
}

export interface PlanOptimization {
  readonly objective: 'cost';
  /** The Karpenter-faithful plan's $/h. */
  readonly faithfulCostPerHour: number;
  /** Whether the repacked claims replaced faithful ones (false: none was cheaper, or violations). */
  readonly repacked: boolean;
  /** What checkLaunchedPlan found in the repacked plan (then not used). */
  readonly violations: readonly PlanViolation[];
  /** The LP relaxation's optimum over the pods on new claims, when a solver was given. */
  readonly lowerBound?: CostLowerBound;
}

/** Filters that judge a planned claim by its requirements instead of its (undecided) labels and size. */
const CLAIM_CHECKED_ELSEWHERE = new Set(['NodeAffinity', 'NodeResourcesFit', 'NodeUnschedulable']);
/**
 * kube-scheduler's volume plugins, which Karpenter does not run on a NodeClaim: it
 * validates a pod's claims once (validatePersistentVolumeClaims) and narrows the
 * claim by their topology (volumeRequirementAlternatives); attach limits, binding
 * and ReadWriteOncePod conflicts are the scheduler's business once the node exists.
 */
const VOLUME_PLUGINS = new Set(['VolumeBinding', 'VolumeZone', 'NodeVolumeLimits', 'VolumeRestrictions']);
/**
 * On an existing node Karpenter checks attach limits (VolumeUsage) but not binding, zones
 * or access modes: it narrows by the pod's volume topology instead (tryExistingNodes).
 */
const EXISTING_NODE_SKIPPED = new Set(['VolumeBinding', 'VolumeZone', 'VolumeRestrictions']);

function isDaemonSetPod(p: Pod): boolean {
  return p.ownerReferences.some((o) => o.kind === 'DaemonSet');
}

/** Karpenter tolerates no untolerated taint at all on a new node, PreferNoSchedule included. */
function untoleratedTaint(taints: readonly Taint[], pod: Pod): Taint | undefined {
  return taints.find((t) => !tolerationsTolerateTaint(pod.tolerations, t));
}

/** What every node of the pool satisfies: its requirements, template labels and karpenter.sh/nodepool. */
export function poolRequirements(spec: PoolSpec): Requirements {
  const requirements = Requirements.fromNodeSelectorRequirements(spec.requirements);
  requirements.addAll(Requirements.fromLabels({ ...spec.labels, [LABEL_NODEPOOL]: spec.name }));
  // A NodePool that does not constrain the capacity type launches on-demand capacity (AWS provider default).
  if (!requirements.has(LABEL_CAPACITY_TYPE)) requirements.add(Requirement.of(LABEL_CAPACITY_TYPE, 'In', ['on-demand']));
  return requirements;
}

/** poolTemplate's last answer per NodePool: a simulation plans every few seconds with the same pools, catalog and DaemonSets. */
const lastTemplate = new WeakMap<PoolSpec, { instanceTypes: readonly InstanceType[]; daemonSetPods: readonly Pod[]; minValuesPolicy: MinValuesPolicy; template: PoolTemplate }>();

/** poolTemplate, reused while the catalog array, the DaemonSet pods (element by element) and the policy are the same objects. */
export function cachedPoolTemplate(spec: PoolSpec, instanceTypes: readonly InstanceType[], daemonSetPods: readonly Pod[], minValuesPolicy: MinValuesPolicy = 'Strict'): PoolTemplate {
  const last = lastTemplate.get(spec);
  if (last && last.instanceTypes === instanceTypes && last.minValuesPolicy === minValuesPolicy && sameItems(last.daemonSetPods, daemonSetPods)) return last.template;
  const template = poolTemplate(spec, instanceTypes, daemonSetPods, minValuesPolicy);
  lastTemplate.set(spec, { instanceTypes, daemonSetPods, minValuesPolicy, template });
  return template;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A NodePool as the planner sees it: requirements, compatible instance types and the zones their offerings cover. */
export function poolTemplate(spec: PoolSpec, instanceTypes: readonly InstanceType[], daemonSetPods: readonly Pod[], minValuesPolicy: MinValuesPolicy = 'Strict'): PoolTemplate {
  const requirements = poolRequirements(spec);
  const types = instanceTypes.filter((it) => instanceTypeCompatible(it, requirements) && compatibleOfferings(it, requirements).length > 0);
  const zones = [...new Set(types.flatMap((it) => compatibleOfferings(it, requirements).map((o) => o.zone)))].sort();
  // Karpenter's topology domains of a pool: the zones its requirement names (In), else every zone of the
  // catalog's offerings the requirement allows, whether or not a type the pool can launch is offered there.
  const zoneReq = requirements.get(LABEL_ZONE);
  const domainZones =
    zoneReq.operator() === 'In' ? zoneReq.values() : [...new Set(instanceTypes.flatMap((it) => it.offerings.map((o) => o.zone)))].filter((z) => zoneReq.has(z)).sort();
  const daemons = withDaemonOverhead(requirements, spec.taints, types, daemonSetPods);
  return { name: spec.name, weight: spec.weight, requirements, labels: { ...spec.labels, [LABEL_NODEPOOL]: spec.name }, taints: spec.taints, instanceTypes: daemons.types, hasInstanceTypes: types.length > 0, zones, domainZones, daemonLoad: daemons.load, minValuesPolicy };
}

/**
 * Karpenter's queue order: larger pods first (cpu, then memory; priority plays no part);
 * among pods alike in both, the older first, then the lower UID — not the order the
 * pods were listed in, which Karpenter never sees.
 */
function planningOrder(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => {
    const cpu = (b.resources.requests.cpu ?? 0) - (a.resources.requests.cpu ?? 0);
    if (cpu !== 0) return cpu;
    const mem = (b.resources.requests.memory ?? 0) - (a.resources.requests.memory ?? 0);
    if (mem !== 0) return mem;
    return a.creation - b.creation || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
  });
}

/**
 * Karpenter's scheduling queue: a pod that fails goes to the back and is tried again
 * (from its full preferences) as long as the queue makes progress; it stops once every
 * pod left was tried since the last one placed. Returns the pods left, in the order they
 * first failed, with their last reason.
 */
function planQueue(ordered: readonly Pod[], place: (pod: Pod) => string | undefined): Map<string, string> {
  const queue = [...ordered];
  // Per pod, the queue length right after it was last pushed back.
  const lastLen = new Map<string, number>();
  const failed = new Map<string, string>();
  let head = 0;
  while (head < queue.length) {
    const pod = queue[head]!;
    if (lastLen.get(pod.key) === queue.length - head) break;
    head++;
    const reason = place(pod);
    if (reason === undefined) {
      failed.delete(pod.key);
      continue;
    }
    failed.set(pod.key, reason);
    queue.push(pod);
    lastLen.set(pod.key, queue.length - head);
  }
  return failed;
}

type Narrowed = { requirements: Requirements; options: readonly InstanceType[] };

/** A pod placed on an existing node. */
interface OnExistingNode {
  readonly node: string;
}

/**
 * Template nodes per pool and domains: the same for every plan from one pool template
 * (a consolidation pass plans once per candidate), and one labels object lets the
 * label requirements built from it be kept.
 */
const templateNodes = new WeakMap<PoolTemplate, Map<string, Node>>();

class Planner {
  private readonly sched: Scheduler;
  private readonly claimFramework: Framework;
  private readonly existingFramework: Framework;
  private readonly claims: PlannedClaim[] = [];
  private readonly remaining = new Map<string, Record<string, number>>();
  private readonly topologyKeys: TopologyKeys;
  private readonly templates: string[] = [];
  private claimSeq = 0;
  /** Karpenter adds the PreferNoSchedule relaxation step when some NodePool has such a taint. */
  private readonly toleratePreferNoSchedule: boolean;

  constructor(
    private readonly cluster: ClusterState,
    private readonly pools: readonly PoolTemplate[],
    specs: readonly PoolSpec[],
    config: SchedulerConfig,
    seed: number | undefined,
    private readonly spreadGroups: SpreadGroups,
    private readonly firstClaimNumber = 1,
    private readonly preferencePolicy: PreferencePolicy = 'Respect',
    /** The whole catalog: Karpenter's topology domains come from every type a pool lists, compatible or not. */
    private readonly catalog: readonly InstanceType[] = [],
    settleSelected = false,
    /** Existing nodes each pod tries first, in Karpenter's order (all with existingNodesAsKarpenter, else the uninitialized ones). */
    private readonly existingNodes: readonly string[] = [],
    /** Nodes marked for deletion: not counted against their NodePool's limits. */
    private readonly deleting: ReadonlySet<string> = new Set(),
    /**
     * Nodes Karpenter's topology takes no domain from (hostname aside): in-flight claims with
     * no Node yet, and nodes marked for deletion (not among the active state nodes).
     */
    private readonly withoutNode: ReadonlySet<string> = new Set(),
    /** Disruption candidates kept for the pods they keep (ProvisionInput.candidateNodes): a domain only where such a pod counts. */
    private readonly candidateNodes: ReadonlySet<string> = new Set(),
  ) {
    this.withoutNodeOrCandidate = new Set([...withoutNode, ...candidateNodes]);
    const profile = profileFor(config, 'default-scheduler') ?? {};
    this.sched = new Scheduler(cluster, (h) => buildFramework(config, profile, h), seed === undefined ? {} : { seed });
    const fw = this.sched.framework;
    this.claimFramework = new Framework(
      fw.profileName,
      {
        ...fw.plugins,
        preFilter: fw.plugins.preFilter.filter((p) => !VOLUME_PLUGINS.has(p.name)),
        filter: fw.plugins.filter.filter((p) => !CLAIM_CHECKED_ELSEWHERE.has(p.name) && !VOLUME_PLUGINS.has(p.name)),
      },
      fw.percentageOfNodesToScore,
    );
    this.existingFramework = new Framework(
      fw.profileName,
      { ...fw.plugins, preFilter: fw.plugins.preFilter.filter((p) => !EXISTING_NODE_SKIPPED.has(p.name)), filter: fw.plugins.filter.filter((p) => !EXISTING_NODE_SKIPPED.has(p.name)) },
      fw.percentageOfNodesToScore,
    );
    this.existingChecksResources = this.existingFramework.plugins.filter.some((p) => p.name === NODE_RESOURCES_FIT);
    for (const spec of specs) this.remaining.set(spec.name, this.remainingLimits(spec));
    this.toleratePreferNoSchedule = specs.some((s) => s.taints.some((t) => t.effect === 'PreferNoSchedule'));
    this.topologyKeys = new TopologyKeys(cluster, settleSelected);
    this.addTemplates();
  }

  /** spec.limits minus the capacity of the pool's existing nodes. */
  private remainingLimits(spec: PoolSpec): Record<string, number> {
    const remaining: Record<string, number> = { ...spec.limits };
    if (Object.keys(remaining).length === 0) return remaining; // No limits: no node to walk (a consolidation plans once per candidate).
    for (const info of this.cluster.nodeInfos()) {
      if (info.node.labels[LABEL_NODEPOOL] !== spec.name || this.deleting.has(info.node.name)) continue;
      for (const k of Object.keys(remaining)) remaining[k]! -= k === 'nodes' ? 1 : (info.node.capacity[k] ?? 0);
    }
    return remaining;
  }

  /** Plans one pod; returns the claim or existing node it joined or the reason nothing can take it. */
  plan(pod: Pod): PlannedClaim | OnExistingNode | { reason: string } {
    let lastReason = '';
    for (const attempt of podAttempts(pod, this.toleratePreferNoSchedule, this.preferencePolicy)) {
      const r = this.tryAttempt(attempt);
      if (!('reason' in r)) {
        const bound = bindPod(pod, r instanceof PlannedClaim ? r.name : r.node);
        this.cluster.updatePod(bound);
        this.spreadGroups.record(bound);
        return r;
      }
      lastReason = r.reason;
    }
    return { reason: lastReason };
  }

  /**
   * Karpenter's addToExistingNode: the first existing node, in order, that takes the pod.
   * As ExistingNode.CanAdd, every taint binds (PreferNoSchedule too) and the node's labels
   * must meet the requirements of this attempt (its first required term, its heaviest
   * preference) and, with them, one of its volume topology alternatives; the scheduling
   * plugins judge the rest (volume binding and zones excepted).
   */
  private tryExistingNodes(attempt: PodAttempt): OnExistingNode | undefined {
    if (this.existingNodes.length === 0) return undefined;
    const state = new CycleState();
    const fw = this.existingFramework;
    const volumes = volumeRequirementAlternatives(attempt.pod, this.cluster.volumes);
    if (!fw.runPreFilterPlugins(state, attempt.pod, this.cluster.nodeInfos()).status.isSuccess()) return undefined;
    this.spreadGroups.adjust(state, attempt.pod, attempt.requiredTerms, this.cluster);
    // Karpenter can always create a new claim, so hostname spread has a minimum of 0 on existing nodes too.
    newClaimsAreEmptyHostnames(state);
    this.forgetUnknownDomains(state);
    const podReqs = nodeAffinityRequirements(attempt.pod.nodeSelector, attempt.requiredTerms, attempt.preferredTerms);
    // Most nodes a consolidation tries are full: the resource check, which NodeResourcesFit would fail anyway, goes first.
    const mayFit = this.existingChecksResources ? (info: NodeInfo) => hasRoomFor(attempt.pod, info) : () => true;
    for (const name of this.existingNodes) {
      const info = this.cluster.nodeInfo(name);
      if (!info || !mayFit(info) || untoleratedTaint(info.node.taints, attempt.pod)) continue;
      const nodeReqs = labelRequirements(info.node.labels);
      if (!nodeReqs.isCompatible(podReqs)) continue;
      if (volumes.length > 0 && !volumes.some((alt) => withPod(nodeReqs, podReqs).isCompatible(alt))) continue;
      if (this.withoutNode.has(name) && this.spreadDomainUnknown(attempt.pod, info.node.labels)) continue;
      if (fw.runFilterPlugins(state, attempt.pod, info).isSuccess()) return { node: name };
    }
    return undefined;
  }

  /**
   * Takes out of a pod's spread counts the domains Karpenter's topology does not have:
   * those only claims with no Node carry, and (while no counted pod is there) those only
   * such claims and the disruption candidates carry (forgetDomains).
   */
  private forgetUnknownDomains(state: CycleState): void {
    forgetDomains(state, (key) => this.nodelessValues(key), (key) => this.valuesOnlyOf(key, this.withoutNodeOrCandidate));
  }

  /** withoutNode and candidateNodes together, for forgetUnknownDomains. */
  private readonly withoutNodeOrCandidate: ReadonlySet<string>;

  /** Per key, the values only claims with no Node carry: no domain of Karpenter's topology (forgetDomains). */
  private nodelessValues(key: string): ReadonlySet<string> {
    return this.valuesOnlyOf(key, this.withoutNode);
  }

  /** Per key, the values no node outside `nodes` carries. */
  private valuesOnlyOf(key: string, nodes: ReadonlySet<string>): ReadonlySet<string> {
    const out = new Set<string>();
    if (nodes.size === 0) return out;
    const carriers = this.cluster.topologyDomains(key);
    const nodeless = new Map<string, number>();
    for (const name of nodes) {
      const v = this.cluster.nodeInfo(name)?.node.labels[key];
      if (v !== undefined) nodeless.set(v, (nodeless.get(v) ?? 0) + 1);
    }
    for (const [v, n] of nodeless) if ((carriers.get(v) ?? 0) <= n) out.add(v);
    return out;
  }

  /** Whether the node's value of one of the pod's spread keys (hostname aside) is no domain of Karpenter's topology. */
  private spreadDomainUnknown(pod: Pod, labels: Readonly<Record<string, string>>): boolean {
    return pod.topologySpreadConstraints.some((c) => {
      const value = labels[c.topologyKey];
      return c.topologyKey !== LABEL_HOSTNAME && value !== undefined && this.nodelessValues(c.topologyKey).has(value);
    });
  }

  /** Whether the existing-node filters include NodeResourcesFit (a profile may disable it). */
  private readonly existingChecksResources: boolean;

  /** The volume topology alternatives of the pod being planned (volume-topology.ts). */
  private volumeAlternatives: Requirements[] = [];

  private tryAttempt(attempt: PodAttempt): PlannedClaim | OnExistingNode | { reason: string } {
    const existing = this.tryExistingNodes(attempt);
    if (existing) return existing;
    const pod = attempt.pod;
    const podReqs = nodeAffinityRequirements(pod.nodeSelector, attempt.requiredTerms, attempt.preferredTerms);
    this.volumeAlternatives = volumeRequirementAlternatives(pod, this.cluster.volumes);
    const { launchable, reasons } = this.launchable();
    const state = this.preFilter(pod);
    if (!state.ok) return { reason: state.reason };
    const unseen = this.spreadGroups.adjust(state.state, pod, attempt.requiredTerms, this.cluster);
    this.forgetUnknownDomains(state.state);
    countOpenClaims(state.state, pod, attempt.requiredTerms, this.claims, this.cluster, unseen);
    newClaimsAreEmptyHostnames(state.state);
    // Planned claims with the fewest pods first, as Karpenter spreads pods over in-flight claims. Like
    // Karpenter, sort the list itself with Go's sort.Slice, so claims with as many pods come in the
    // order Go leaves them (the order of the last sort up to 12 claims, pdqsort's beyond).
    goSortSlice(this.claims, (a, b) => a.pods.length < b.pods.length);
    for (const claim of this.claims) {
      // A claim none of whose remaining types could hold the pod, or whose requirements the pod's contradict, refuses it
      // whatever the filters say (canAdd would): most claims once full, and those of another architecture or zone.
      if (!claim.hasRoomFor(pod) || !claim.requirements.isCompatible(podReqs, ALLOW_UNDEFINED_WELL_KNOWN)) continue;
      const next = this.check(state.state, pod, claim, podReqs);
      if ('reason' in next) continue;
      claim.add(pod, next);
      this.refreshNode(claim);
      return claim;
    }
    return this.newClaim(state.state, pod, podReqs, launchable, reasons);
  }

  private preFilter(pod: Pod): { ok: true; state: CycleState } | { ok: false; reason: string } {
    const state = new CycleState();
    let pre: ReturnType<Framework['runPreFilterPlugins']>;
    try {
      pre = this.claimFramework.runPreFilterPlugins(state, pod, this.cluster.nodeInfos());
    } catch (e) {
      // A plugin's Error (e.g. a spread selector upstream cannot parse): no claim can take the pod.
      if (e instanceof SchedulerError) return { ok: false, reason: e.message };
      throw e;
    }
    // NodeAffinity's PreFilter restricts by node name (matchFields); claims have no such names yet.
    if (!pre.status.isSuccess() && pre.status.plugin !== 'NodeAffinity') return { ok: false, reason: pre.status.message() };
    return { ok: true, state };
  }

  /**
   * Whether `pod` can join `claim` (planned, or a candidate not yet in the cluster),
   * and the claim's narrowed requirements and options if it does. A pod that must be
   * in a decided zone is judged in each zone the claim may take and settles one.
   */
  private check(state: CycleState, pod: Pod, claim: PlannedClaim, podReqs: Requirements): Narrowed | { reason: string } {
    if (this.volumeAlternatives.length === 0) return this.checkRequirements(state, pod, claim, podReqs);
    // Karpenter's CanAdd: the first volume topology alternative the claim can take, added to the claim's requirements only.
    let last = { reason: '' };
    for (const alt of this.volumeAlternatives) {
      const incompatible = podReqs.compatible(alt, ALLOW_UNDEFINED_WELL_KNOWN) ?? claim.requirements.compatible(alt, ALLOW_UNDEFINED_WELL_KNOWN);
      if (incompatible !== undefined) {
        last = { reason: `incompatible volume requirements, ${incompatible}` };
        continue;
      }
      const withVolumes = podReqs.clone();
      withVolumes.addAll(alt);
      const next = this.checkRequirements(state, pod, claim, withVolumes);
      if (!('reason' in next)) return next;
      last = next;
    }
    return last;
  }

  /** check for one set of requirements (a volume's zones narrow the claim without settling its zone, as in Karpenter). */
  private checkRequirements(state: CycleState, pod: Pod, claim: PlannedClaim, podReqs: Requirements): Narrowed | { reason: string } {
    const taint = untoleratedTaint(claim.pool.taints, pod);
    if (taint) return { reason: `did not tolerate taint ${taint.key}=${taint.value}:${taint.effect}` };
    const open = this.openDomains(pod, claim, podReqs);
    if (open.keys.length === 0) {
      const status = this.claimFramework.runFilterPlugins(state, pod, this.nodeInfoFor(claim));
      if (!status.isSuccess()) return { reason: topologyReason(pod, status) };
      return claim.canAdd(pod, podReqs);
    }
    const passing: Domains[] = [];
    let reason = '';
    for (const domains of open.combinations) {
      const status = this.claimFramework.runFilterPlugins(state, pod, this.nodeInfoFor(claim, domains));
      if (status.isSuccess()) passing.push(domains);
      else reason ||= topologyReason(pod, status);
    }
    if (passing.length === 0) return { reason };
    const settled = podReqs.clone();
    for (const [key, value] of Object.entries(settleDomains(state, open.keys, passing))) settled.add(Requirement.of(key, 'In', [value]));
    return claim.canAdd(pod, settled);
  }

  /**
   * The labels `pod` decides on `claim` (its topology keys the claim leaves open, and the
   * zone when a volume decides it), each with the values the claim and the pod allow, and
   * every combination of them in order.
   */
  private openDomains(pod: Pod, claim: PlannedClaim, podReqs: Requirements): { keys: string[]; combinations: Domains[] } {
    const wanted = this.topologyKeys.keysFor(pod);
    if (wanted.length === 0) return { keys: [], combinations: [] };
    const decided = claim.node().labels;
    const keys: string[] = [];
    let combinations: Domains[] = [{}];
    for (const key of wanted.sort()) {
      if (Object.hasOwn(decided, key)) continue;
      const allowed = (v: string) => claim.requirements.get(key).has(v) && podReqs.get(key).has(v);
      const values = key === LABEL_ZONE ? claim.zones().filter(allowed) : this.domainValues(key).filter(allowed);
      if (values.length === 0) continue;
      keys.push(key);
      combinations = combinations.flatMap((d) => values.map((v) => ({ ...d, [key]: v })));
    }
    return { keys, combinations };
  }

  private readonly domainCache = new Map<string, string[]>();

  /**
   * Karpenter's topology domains of a label key (buildDomainGroups): per pool and listed
   * instance type, the values their requirements together leave for the key (for a
   * complement, the values it excludes, as Karpenter's Values reads the raw set), and the
   * values a pool's `In` requirement names. Sorted.
   */
  private domainValues(key: string): string[] {
    let values = this.domainCache.get(key);
    if (values === undefined) {
      const found = new Set<string>();
      for (const pool of this.pools) {
        const own = pool.requirements.has(key) ? pool.requirements.get(key) : undefined;
        if (own?.operator() === 'In') for (const v of own.values()) found.add(v);
        for (const it of this.catalog) {
          const typeReqs = instanceTypeRequirements(it);
          const typed = typeReqs.has(key) ? typeReqs.get(key) : undefined;
          const merged = own && typed ? own.intersection(typed) : (own ?? typed);
          for (const v of merged?.values() ?? []) found.add(v);
        }
      }
      this.domainCache.set(key, (values = [...found].sort()));
    }
    return values;
  }

  /** The node the plugins judge `claim` as: its node in the cluster, or labelled with `domains` to judge it there. */
  private nodeInfoFor(claim: PlannedClaim, domains?: Domains): NodeInfo {
    const info = this.cluster.nodeInfo(claim.name);
    if (!info) return new NodeInfo(claim.node(domains));
    if (domains === undefined) return info;
    // The copy in each domain is kept while the claim's node and pods stay as they are (the plugins only read it).
    let variants = this.domainVariants.get(info);
    if (variants?.generation !== info.generation) this.domainVariants.set(info, (variants = { generation: info.generation, byDomains: new Map() }));
    const node = claim.node(domains);
    const key = domainsKey(domains);
    let variant = variants.byDomains.get(key);
    if (variant?.node !== node) {
      variant = info.clone();
      variant.replaceNode(node);
      variants.byDomains.set(key, variant);
    }
    return variant;
  }

  private readonly domainVariants = new WeakMap<NodeInfo, { generation: number; byDomains: Map<string, NodeInfo> }>();

  /** After a pod joined: the claim's node again, if joining narrowed its labels or capacity. */
  private refreshNode(claim: PlannedClaim): void {
    const node = claim.node();
    if (this.cluster.nodeInfo(claim.name)!.node !== node) this.cluster.updateNode(node);
  }

  /**
   * The instance types each pool can still launch within its limits. A pool out
   * of limits launches nothing, but its template nodes stay topology domains, as
   * Karpenter builds domains from NodePools and offerings regardless of limits.
   */
  private launchable(): { launchable: Map<PoolTemplate, InstanceType[]>; reasons: string[] } {
    // Limits are only spent when a claim is created (materialize drops this).
    return (this.launchableCache ??= this.withinLimits());
  }

  private launchableCache: { launchable: Map<PoolTemplate, InstanceType[]>; reasons: string[] } | undefined;

  private withinLimits(): { launchable: Map<PoolTemplate, InstanceType[]>; reasons: string[] } {
    const launchable = new Map<PoolTemplate, InstanceType[]>();
    const reasons: string[] = [];
    for (const pool of this.pools) {
      const remaining = this.remaining.get(pool.name) ?? {};
      const withinLimits = pool.instanceTypes.filter((it) => Object.entries(remaining).every(([k, v]) => k === 'nodes' || (it.capacity[k] ?? 0) <= v));
      let reason = '';
      if ((remaining.nodes ?? 1) <= 0) reason = 'node limits have been exhausted for nodepool';
      else if (withinLimits.length === 0) reason = 'all available instance types exceed limits for nodepool';
      if (reason) reasons.push(`nodepool "${pool.name}": ${reason}`);
      else launchable.set(pool, withinLimits);
    }
    return { launchable, reasons };
  }

  /**
   * Empty template nodes, one per pool and domain, stay in the cluster while pods are
   * planned, so domains that could be created count for spread and minDomains on
   * planned claims too: one per zone of the pool and value of each other key some spread
   * constraint names (every combination, so a pod's node affinity on one key still sees
   * every domain of another). No pod is ever bound to them; removeTemplates takes them out.
   */
  private addTemplates(): void {
    const spreadKeys = [...this.cluster.spreadTopologyKeys()].filter((k) => k !== LABEL_HOSTNAME && k !== LABEL_ZONE).sort();
    for (const pool of this.pools) {
      const template = new PlannedClaim(`${pool.name}-template`, pool, pool.requirements.clone(), pool.instanceTypes, -1);
      let combinations: Domains[] = pool.domainZones.map((zone) => ({ [LABEL_ZONE]: zone }));
      for (const key of spreadKeys) {
        const values = this.domainValues(key).filter((v) => pool.requirements.get(key).has(v));
        if (values.length > 0) combinations = combinations.flatMap((d) => values.map((v) => ({ ...d, [key]: v })));
      }
      let built = templateNodes.get(pool);
      if (built === undefined) templateNodes.set(pool, (built = new Map()));
      for (const domains of combinations) {
        const key = domainsKey(domains);
        let node = built.get(key);
        if (node === undefined) {
          const plain = template.toNode(0, domains);
          const name = `${pool.name}-template-${Object.values(domains).join('-')}`;
          built.set(key, (node = { ...plain, name, uid: name, labels: { ...plain.labels, [LABEL_HOSTNAME]: name } }));
        }
        this.cluster.addNode(node);
        this.templates.push(node.name);
      }
    }
  }

  /** Leaves the cluster with the existing nodes and the planned claims only. */
  removeTemplates(): void {
    for (const name of this.templates.splice(0)) this.cluster.removeNode(name);
  }

  /** A new claim from the first pool (by weight) whose fresh claim takes the pod. */
  private newClaim(state: CycleState, pod: Pod, podReqs: Requirements, launchable: ReadonlyMap<PoolTemplate, InstanceType[]>, limitReasons: readonly string[]): PlannedClaim | { reason: string } {
    if (this.pools.length === 0) return { reason: 'no NodePool to launch a node from' };
    const reasons = [...limitReasons];
    for (const pool of this.pools) {
      const options = launchable.get(pool);
      if (!options) continue;
      const candidate = new PlannedClaim(`${pool.name}-new`, pool, pool.requirements.clone(), options, this.claimSeq);
      const next = this.check(state, pod, candidate, podReqs);
      // Karpenter takes the first NodePool (by weight) that can schedule the pod.
      if (!('reason' in next)) return this.materialize(pool, options, pod, next);
      reasons.push(`nodepool "${pool.name}": ${next.reason}`);
    }
    return { reason: reasons.join('; ') };
  }

  private materialize(pool: PoolTemplate, options: readonly InstanceType[], pod: Pod, next: Narrowed): PlannedClaim {
    const seq = this.claimSeq++;
    const claim = new PlannedClaim(`${pool.name}-${String(seq + this.firstClaimNumber).padStart(4, '0')}`, pool, pool.requirements.clone(), options, seq);
    claim.add(pod, next);
    // Karpenter notes at creation whether the first pod lowered some minValues of the pool.
    claim.minValuesRelaxed = next.requirements.values().some((r) => r.minValues !== undefined && pool.requirements.has(r.key) && r.minValues < (pool.requirements.get(r.key).minValues ?? 0));
    this.claims.push(claim);
    // Reserve the largest capacity the claim could still take, as Karpenter's subtractMax does.
    const remaining = this.remaining.get(pool.name);
    this.launchableCache = undefined;
    if (remaining) {
      for (const k of Object.keys(remaining)) {
        remaining[k]! -= k === 'nodes' ? 1 : Math.max(0, ...claim.options.map((it) => it.capacity[k] ?? 0));
      }
    }
    this.cluster.addNode(claim.node());
    return claim;
  }

  /** The planned claims, in creation order. */
  plannedClaims(): readonly PlannedClaim[] {
    return [...this.claims].sort((a, b) => a.seq - b.seq);
  }

  /** The filters a launched claim is judged by: the claim framework's, node affinity and resources included. */
  launchFramework(): Framework {
    const fw = this.sched.framework;
    return new Framework(fw.profileName, { ...fw.plugins, preFilter: fw.plugins.preFilter.filter((p) => !VOLUME_PLUGINS.has(p.name)), filter: fw.plugins.filter.filter((p) => !VOLUME_PLUGINS.has(p.name)) }, fw.percentageOfNodesToScore);
  }

  /** The launch decision per claim: the cheapest offering its final requirements allow, over its remaining types. */
  finalize(withOfferings: boolean): NodeClaimPlan[] {
    return [...this.claims].sort((a, b) => a.seq - b.seq).map((c) => {
      const fitting = c.options.filter((it) => fits(c.requests, c.podCount, it));
      const best = cheapestOffering(fitting, c.requirements)!;
      const offerings = withOfferings ? claimOfferings(fitting, c.requirements) : undefined;
      return {
        name: c.name,
        nodePool: c.pool.name,
        instanceType: best.it.name,
        zone: best.offering.zone,
        capacityType: best.offering.capacityType,
        pricePerHour: best.offering.price,
        pods: c.pods.map((p) => p.key),
        annotations: { [ANNOTATION_MIN_VALUES_RELAXED]: String(c.minValuesRelaxed) },
        ...nodeClaimSpec(c, fitting),
        ...(offerings ? { offerings } : {}),
      };
    });
  }
}

const ANNOTATION_MIN_VALUES_RELAXED = 'karpenter.sh/nodeclaim-min-values-relaxed';

/** Karpenter caps a NodeClaim's instance-type requirement at this many options, cheapest first. */
const MAX_INSTANCE_TYPES = 60;

/** What Karpenter's NodeClaimTemplate.ToNodeClaim writes for a claim with these remaining options. */
function nodeClaimSpec(c: PlannedClaim, options: readonly InstanceType[]): Pick<NodeClaimPlan, 'labels' | 'requirements'> {
  const reqs = c.requirements.clone();
  reqs.delete(LABEL_HOSTNAME);
  const priced = options.map((it) => ({ it, price: cheapestOffering([it], reqs)?.offering.price ?? Infinity }));
  priced.sort((a, b) => a.price - b.price || (a.it.name < b.it.name ? -1 : a.it.name > b.it.name ? 1 : 0));
  const chosen = priced.slice(0, MAX_INSTANCE_TYPES).map((p) => p.it);
  const minValues = reqs.has(LABEL_INSTANCE_TYPE) ? reqs.get(LABEL_INSTANCE_TYPE).minValues : undefined;
  reqs.set(Requirement.of(LABEL_INSTANCE_TYPE, 'In', chosen.map((it) => it.name), minValues));
  const capacityTypes = [...new Set(chosen.flatMap((it) => usableOfferings(it, reqs).map((o) => o.capacityType)))];
  if (capacityTypes.length > 0) reqs.add(Requirement.of(LABEL_CAPACITY_TYPE, 'In', capacityTypes));
  const requirements = reqs.nodeSelectorRequirements().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { labels: { ...c.pool.labels, ...reqs.labels() }, requirements };
}

function claimOfferings(types: readonly InstanceType[], reqs: Requirements): ClaimOffering[] {
  const out = types.flatMap((it) => usableOfferings(it, reqs).map((o) => ({ instanceType: it.name, zone: o.zone, capacityType: o.capacityType, price: o.price })));
  return out.sort((a, b) => a.price - b.price || (a.instanceType < b.instanceType ? -1 : a.instanceType > b.instanceType ? 1 : 0) || (a.capacityType < b.capacityType ? -1 : 1));
}

/** sortExistingNodes: initialized nodes first, each part by name. */
function karpenterExistingOrder(cluster: ClusterState, uninitialized: ReadonlySet<string> = new Set()): string[] {
  const names = cluster.nodeInfos().map((i) => i.node.name);
  return [...names.filter((n) => !uninitialized.has(n)).sort(), ...names.filter((n) => uninitialized.has(n)).sort()];
}

export function planProvisioning(input: ProvisionInput): ProvisionPlan {
  const { cluster } = input;
  let existing = input.existingNodesAsKarpenter ? karpenterExistingOrder(cluster, input.uninitializedNodes) : [];
  const pools = orderNodePools(input.pools).map((p) => cachedPoolTemplate(p, input.instanceTypes, input.daemonSetPods, input.minValuesPolicy));
  const existingNodeDaemons = daemonPodsForExistingNodes(input.daemonSetPods, pools.some((p) => p.hasInstanceTypes));
  const view = input.karpenterState ? new KarpenterView(cluster, input.karpenterState, existingNodeDaemons) : undefined;
  // Nodes marked for deletion are tainted before kube-scheduler's pass; their pods still run there.
  view?.markDeleting();
  const report = input.existingNodesAsKarpenter ? { placements: [], unschedulable: (input.pending ?? cluster.pendingPods()).map((p): Unschedulable => ({ pod: p.key, message: p.schedulingGates.length > 0 ? SCHEDULING_GATED_MESSAGE : '' })) } : scheduleAll(cluster, input.config, input.seed === undefined ? {} : { seed: input.seed });
  const placements = [...report.placements];
  const unschedulable: ProvisionPlan['unschedulable'] = [];
  // Karpenter plans the pods the deleting nodes will evict with the pending ones, without validating them.
  const toPlan: Pod[] = view?.evictDeleting() ?? [];
  const inFlight = view?.showInFlight();
  if (inFlight && !input.existingNodesAsKarpenter) existing = inFlight;
  for (const u of report.unschedulable) {
    const pod = cluster.getPod(u.pod);
    // Gated pods wait for their gates, DaemonSet pods for their node: neither asks for a new node. Nor does a
    // pod kube-scheduler failed with an error (reason SchedulerError): Karpenter provisions only for pods
    // marked Unschedulable (FailedToSchedule).
    if (!pod || u.message === SCHEDULING_GATED_MESSAGE || u.error || isDaemonSetPod(pod)) {
      unschedulable.push(u);
      continue;
    }
    // Nor does a pod whose claims Karpenter's Validate rejects.
    const invalid = validatePersistentVolumeClaims(pod, cluster.volumes);
    if (invalid === undefined) toPlan.push(pod);
    else unschedulable.push({ pod: u.pod, message: `ignored by the provisioner: ${invalid}` });
  }
  const planner = new Planner(cluster, pools, input.pools, input.config, input.seed, new SpreadGroups(toPlan), input.firstClaimNumber, input.preferencePolicy, input.instanceTypes, input.settleSelected, existing, view?.deleting, view ? new Set([...view.withoutNode, ...view.deleting]) : undefined, input.candidateNodes);
  try {
    const failed = planQueue(planningOrder(toPlan), (pod) => {
      const r = planner.plan(pod);
      if ('reason' in r) return r.reason;
      placements.push({ pod: pod.key, node: r instanceof PlannedClaim ? r.name : r.node });
      return undefined;
    });
    const schedulerMessages = new Map(report.unschedulable.map((u) => [u.pod, u.message]));
    for (const [pod, reason] of failed) {
      const scheduler = schedulerMessages.get(pod);
      unschedulable.push({ pod, message: `could not schedule pod: ${reason}`, ...(scheduler ? { schedulerMessage: scheduler } : {}) });
    }
  } finally {
    planner.removeTemplates();
    view?.restore();
  }
  const nodeClaims = planner.finalize(input.withOfferings ?? false);
  const costPerHour = roundCost(nodeClaims);
  if (input.optimize !== 'cost') return { placements, nodeClaims, unschedulable, costPerHour };
  return optimizedPlan(input, planner, pools, { placements, nodeClaims, unschedulable, costPerHour });
}

/** Dollars per hour to a millionth, as plans report them. */
export const roundDollars = (dollars: number): number => Math.round(dollars * 1e6) / 1e6;

/** The claims' $/h. */
export const roundCost = (claims: readonly NodeClaimPlan[]): number => roundDollars(claims.reduce((s, c) => s + c.pricePerHour, 0));

/** The faithful plan with its claims repacked for price where that is cheaper and valid, and the lower bound. */
function optimizedPlan(input: ProvisionInput, planner: Planner, pools: readonly PoolTemplate[], faithful: ProvisionPlan): ProvisionPlan {
  const planned = planner.plannedClaims();
  const byName = new Map(faithful.nodeClaims.map((c) => [c.name, c]));
  const claims = planned.map((claim) => {
    const c = byName.get(claim.name)!;
    return { claim, instanceType: c.instanceType, zone: c.zone, capacityType: c.capacityType as CapacityType, price: c.pricePerHour };
  });
  const result = optimizeCost({ cluster: input.cluster, framework: planner.launchFramework(), claims, pools, limited: new Set(input.pools.filter((p) => Object.keys(p.limits).length > 0).map((p) => p.name)), firstFreeNumber: input.firstClaimNumber ?? 1 });
  const lowerBound = input.lpSolver ? costLowerBound(planned.flatMap((c) => c.pods), pools, input.lpSolver) : undefined;
  const base = { objective: 'cost' as const, faithfulCostPerHour: faithful.costPerHour, repacked: result.repacked, violations: result.violations, ...(lowerBound ? { lowerBound } : {}) };
  if (!result.repacked) return { ...faithful, optimization: base };
  const nodeClaims = result.claims.map((c) => (c.faithful ? byName.get(c.name)! : repackedClaimPlan(c)));
  const nodeOf = new Map(result.claims.flatMap((c) => c.pods.map((p) => [p.key, c.name] as const)));
  const placements = faithful.placements.map((p) => ({ pod: p.pod, node: nodeOf.get(p.pod) ?? p.node }));
  return { placements, nodeClaims, unschedulable: faithful.unschedulable, costPerHour: roundCost(nodeClaims), optimization: base };
}

function repackedClaimPlan(c: OptimizedClaim): NodeClaimPlan {
  const reqs = repackedRequirements(c);
  return {
    name: c.name,
    nodePool: c.pool.name,
    instanceType: c.instanceType.name,
    zone: c.zone,
    capacityType: c.capacityType,
    pricePerHour: c.price,
    pods: c.pods.map((p) => p.key),
    annotations: { [ANNOTATION_MIN_VALUES_RELAXED]: 'false' },
    labels: { ...c.pool.labels, ...reqs.labels() },
    requirements: reqs.nodeSelectorRequirements().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}
