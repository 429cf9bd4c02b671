// The cluster as Karpenter's provisioner sees it (its state.Cluster), as opposed to
// what kube-scheduler can bind to:
// - A launched NodeClaim (it has a providerID) whose Node has not registered (no Node, or no karpenter.sh/registered
//   label) is capacity and a topology domain under the claim's name, labels and taints,
//   with the allocatable its cloud provider reported. kube-scheduler cannot use it.
// - A managed node that is not initialized (no karpenter.sh/initialized label) is
//   planned without its known ephemeral taints (not-ready, unreachable, the cloud
//   provider's uninitialized taint, karpenter.sh/unregistered, readiness.k8s.io/*) and
//   without its NodeClaim's startup taints, which are expected to go away; zero or
//   missing capacity falls back to the claim's.
// - On such an existing node Karpenter reserves the DaemonSet pods that would run there
//   and are not running yet.
// - A node marked for deletion (its NodeClaim deleting or its instance terminating, an
//   unmanaged Node with a deletionTimestamp, or the karpenter.sh/disrupted:NoSchedule
//   taint disruption puts on the nodes it is replacing) is neither capacity nor counted
//   against its NodePool's limits; the pods it would evict are planned again.

import type { ClusterState } from '../cluster/state.js';
import { LABEL_HOSTNAME, type Node } from '../model/node.js';
import type { NodeClaim } from '../model/nodeclaim.js';
import { changedPod, type Pod } from '../model/pod.js';
import { DISRUPTED_TAINT, isCurrentlyReschedulable, isDaemonSetPod } from '../model/pod-eviction.js';
import type { ResourceList } from '../model/resources.js';
import { tolerationsTolerateTaint, type Taint } from '../model/taints.js';
import { nodeAffinityRequirements } from './pod-requirements.js';
import { Requirements } from './requirements.js';
import { LABEL_NODE_INITIALIZED, LABEL_NODE_REGISTERED } from './labels.js';

/** Karpenter's KnownEphemeralTaints, matched on key and effect as Taint.MatchTaint does. */
const EPHEMERAL: readonly Pick<Taint, 'key' | 'effect'>[] = [
  { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
  { key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' },
  { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
];
const EPHEMERAL_PREFIXES = ['readiness.k8s.io/'];

const matchTaint = (a: Pick<Taint, 'key' | 'effect'>, b: Pick<Taint, 'key' | 'effect'>): boolean => a.key === b.key && a.effect === b.effect;

export function isKnownEphemeralTaint(t: { readonly key: string; readonly effect: string }): boolean {
  return EPHEMERAL.some((e) => e.key === t.key && e.effect === t.effect) || EPHEMERAL_PREFIXES.some((p) => t.key.startsWith(p));
}

/**
 * The taints Karpenter's state node shows for a managed node not initialized yet
 * (StateNode.Taints): without the known ephemeral taints and its NodeClaim's startup
 * taints, which it expects to go away.
 */
export function initializingTaints(taints: readonly Taint[], startupTaints: readonly Pick<Taint, 'key' | 'effect'>[]): Taint[] {
  return taints.filter((t) => !isKnownEphemeralTaint(t) && !startupTaints.some((s) => matchTaint(s, t)));
}

export function isMarkedDisrupted(node: Node): boolean {
  return node.taints.some((t) => matchTaint(t, DISRUPTED_TAINT));
}

export interface KarpenterNodes {
  /** Claims with no registered Node, as nodes named after the claim: kube-scheduler cannot bind to them. */
  readonly inFlight: Node[];
  /** Registered but uninitialized nodes as Karpenter plans with them (same names as the Nodes). */
  readonly uninitialized: Node[];
  /** Existing Nodes marked for deletion. */
  readonly deleting: string[];
}

/** Node capacity with its zero or missing values taken from the claim (StateNode.Capacity/Allocatable). */
function withClaimValues(node: ResourceList, claim: ResourceList): Record<string, number> {
  const out: Record<string, number> = { ...node };
  for (const [k, v] of Object.entries(claim)) if (!out[k]) out[k] = v;
  return out;
}

/**
 * Allocatable less the DaemonSet pods Karpenter expects on the node and does not see
 * there yet: those that tolerate its (planning) taints, PreferNoSchedule included, and
 * whose nodeSelector and first required term its labels satisfy. The pods come as
 * daemonPodsForExistingNodes gives them: with a NodePool to check, they tolerate PreferNoSchedule.
 */
function lessDaemons(node: Node, running: readonly Pod[], daemonSetPods: readonly Pod[]): Record<string, number> {
  const labels = Requirements.fromLabels(node.labels);
  const expected: Record<string, number> = {};
  let pods = 0;
  for (const ds of daemonSetPods) {
    if (!node.taints.every((t) => tolerationsTolerateTaint(ds.tolerations, t))) continue;
    if (!labels.isCompatible(nodeAffinityRequirements(ds.nodeSelector, ds.requiredNodeAffinity?.terms ?? []))) continue;
    pods++;
    for (const [k, v] of Object.entries(ds.resources.requests)) expected[k] = (expected[k] ?? 0) + v;
  }
  for (const p of running) {
    if (!isDaemonSetPod(p)) continue;
    pods--;
    for (const [k, v] of Object.entries(p.resources.requests)) expected[k] = (expected[k] ?? 0) - v;
  }
  expected.pods = pods;
  const out: Record<string, number> = { ...node.allocatable };
  for (const [k, v] of Object.entries(expected)) if (v > 0) out[k] = (out[k] ?? 0) - v;
  return out;
}

/** The node Karpenter plans with for a managed, uninitialized claim (`node`: its Node, if registered or not). */
function planningNode(claim: NodeClaim, node: Node | undefined, running: readonly Pod[], daemonSetPods: readonly Pod[]): Node {
  const registered = node !== undefined && node.labels[LABEL_NODE_REGISTERED] === 'true';
  const name = node?.name ?? claim.name;
  const labels = registered ? node.labels : claim.labels;
  const taints = initializingTaints(registered ? node.taints : claim.taints, claim.startupTaints);
  const base: Node = {
    name,
    uid: node?.uid ?? `nodeclaim-${claim.name}`,
    labels: { ...labels, [LABEL_HOSTNAME]: labels[LABEL_HOSTNAME] ?? name },
    annotations: registered ? node.annotations : claim.annotations,
    taints,
    unschedulable: node?.unschedulable ?? false,
    allocatable: node ? withClaimValues(node.allocatable, claim.allocatable) : claim.allocatable,
    capacity: node ? withClaimValues(node.capacity, claim.capacity) : claim.capacity,
    images: node?.images ?? [],
    creation: node?.creation ?? claim.creation,
  };
  return { ...base, allocatable: lessDaemons(base, running, daemonSetPods) };
}

/**
 * Karpenter's view of the given nodes and NodeClaims. A claim pairs with its Node by
 * providerID, else by status.nodeName; a claim not launched yet (no providerID) is not
 * tracked. `podsOn` gives the pods bound to a node.
 */
export function karpenterNodes(nodes: readonly Node[], claims: readonly NodeClaim[], podsOn: (node: string) => readonly Pod[], daemonSetPods: readonly Pod[]): KarpenterNodes {
  const byProvider = new Map(nodes.filter((n) => n.providerID).map((n) => [n.providerID!, n]));
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const managed = new Set<string>();
  const out: KarpenterNodes = { inFlight: [], uninitialized: [], deleting: [] };
  for (const claim of claims) {
    // A claim without a providerID has not launched: Karpenter's state does not track it yet.
    if (!claim.providerID) continue;
    const node = (claim.providerID ? byProvider.get(claim.providerID) : undefined) ?? (claim.nodeName ? byName.get(claim.nodeName) : undefined);
    if (node) managed.add(node.name);
    if (claim.deleting || (node && isMarkedDisrupted(node))) {
      if (node) out.deleting.push(node.name);
      continue;
    }
    if (node?.labels[LABEL_NODE_INITIALIZED] === 'true') continue;
    const view = planningNode(claim, node, node ? podsOn(node.name) : [], daemonSetPods);
    (node ? out.uninitialized : out.inFlight).push(view);
  }
  for (const node of nodes) {
    if (!managed.has(node.name) && (node.deleting || isMarkedDisrupted(node))) out.deleting.push(node.name);
  }
  return out;
}

/** What Karpenter's provisioner is given besides the cluster kube-scheduler sees. */
export interface KarpenterStateInput {
  readonly nodeClaims: readonly NodeClaim[];
  /** The time do-not-disrupt durations are judged at. */
  readonly nowMs: number;
}

/**
 * Turns the cluster kube-scheduler sees into the one Karpenter plans against, in steps.
 * Before kube-scheduler's pass, `markDeleting` taints the nodes marked for deletion
 * karpenter.sh/disrupted (as Karpenter's termination controller does at once); their pods
 * still run there, so kube-scheduler's pass counts them and does not place them. After it,
 * `evictDeleting` makes the pods those nodes will evict pending for Karpenter to plan (its
 * Schedule adds a deleting node's reschedulable pods to the pending ones; the nodes stay,
 * so their other pods still count for topology), and `showInFlight` adds in-flight claims
 * as nodes and shows uninitialized nodes without their startup and ephemeral taints.
 * `restore` puts back what the plan only borrowed.
 */
export class KarpenterView {
  private nodes: KarpenterNodes;
  /** Nodes marked for deletion: neither capacity nor counted against NodePool limits. */
  readonly deleting: ReadonlySet<string>;
  /** The pods evictDeleting made pending, as they were on their node. */
  private readonly evicted: Pod[] = [];

  constructor(
    private readonly cluster: ClusterState,
    private readonly input: KarpenterStateInput,
    private readonly daemonSetPods: readonly Pod[],
  ) {
    this.nodes = this.viewNow();
    this.deleting = new Set(this.nodes.deleting);
  }

  private viewNow(): KarpenterNodes {
    const podsOn = (name: string): readonly Pod[] => [...(this.cluster.nodeInfo(name)?.pods ?? [])];
    return karpenterNodes(this.cluster.nodeInfos().map((i) => i.node), this.input.nodeClaims, podsOn, this.daemonSetPods);
  }

  markDeleting(): void {
    for (const name of this.nodes.deleting) {
      const node = this.cluster.nodeInfo(name)!.node;
      if (!isMarkedDisrupted(node)) this.cluster.updateNode({ ...node, taints: [...node.taints, DISRUPTED_TAINT] });
    }
  }

  /** Returns the pods made pending: Karpenter plans them before they are evicted, kube-scheduler only after (s613-419). */
  evictDeleting(): Pod[] {
    const rescheduled: Pod[] = [];
    for (const name of this.nodes.deleting) {
      for (const pod of [...this.cluster.nodeInfo(name)!.pods]) {
        if (!isCurrentlyReschedulable(pod, this.cluster.pdbs, this.input.nowMs)) continue;
        // The pod its controller creates again (a terminating StatefulSet pod's replacement).
        const pending = changedPod(pod, { nodeName: '', terminating: false, phase: 'Pending' });
        this.cluster.updatePod(pending);
        this.evicted.push(pod);
        rescheduled.push(pending);
      }
    }
    return rescheduled;
  }

  /** Claims with no Node yet, by name (after showInFlight). */
  get withoutNode(): ReadonlySet<string> {
    return new Set(this.nodes.inFlight.map((n) => n.name));
  }

  /**
   * Returns the existing nodes Karpenter's scheduler tries before planned claims, in its
   * order (sortExistingNodes): the initialized Nodes not marked for deletion by name, then
   * the uninitialized and in-flight ones by name. The initialized Nodes matter for the pods
   * kube-scheduler's pass left pending that Karpenter's own check lets in (a volume whose
   * allowedTopologies use a zone key Karpenter normalizes, for one); their DaemonSet room
   * is reserved only for this plan (`restoreReady` puts their allocatable back).
   */
  showInFlight(): string[] {
    // Again after kube-scheduler's pass: the DaemonSet pods it bound there no longer need reserving.
    this.nodes = this.viewNow();
    for (const node of this.nodes.uninitialized) this.cluster.updateNode(node);
    for (const node of this.nodes.inFlight) if (!this.cluster.nodeInfo(node.name)) this.cluster.addNode(node);
    const notReady = new Set([...this.nodes.uninitialized, ...this.nodes.inFlight].map((n) => n.name));
    const ready = this.cluster
      .nodeInfos()
      .map((i) => i.node)
      .filter((n) => !notReady.has(n.name) && !this.deleting.has(n.name) && !n.unschedulable)
      .map((n) => ({ ...n, allocatable: lessDaemons(n, this.cluster.nodeInfo(n.name)!.pods, this.daemonSetPods) }));
    for (const node of ready) {
      this.readyAllocatable.set(node.name, this.cluster.nodeInfo(node.name)!.node.allocatable);
      this.cluster.updateNode(node);
    }
    // Karpenter's Fits refuses every pod on a node some of whose resources its daemons already overcommit.
    const usable = (nodes: readonly Node[]) => nodes.filter((n) => Object.values(n.allocatable).every((v) => v >= 0)).map((n) => n.name).sort();
    return [...usable(ready), ...usable([...this.nodes.uninitialized, ...this.nodes.inFlight])];
  }

  private readonly readyAllocatable = new Map<string, ResourceList>();

  /**
   * Gives the initialized Nodes back the allocatable showInFlight took for their DaemonSets,
   * and puts the evicted pods the plan did not place back on their node: they run there
   * until evicted, and the next batch plans them again.
   */
  restore(): void {
    for (const [name, allocatable] of this.readyAllocatable) {
      const info = this.cluster.nodeInfo(name);
      if (info) this.cluster.updateNode({ ...info.node, allocatable });
    }
    this.readyAllocatable.clear();
    for (const pod of this.evicted.splice(0)) if (this.cluster.getPod(pod.key)?.nodeName === '') this.cluster.updatePod(pod);
  }
}
