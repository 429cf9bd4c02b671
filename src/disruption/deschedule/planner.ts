// The evictor the plugins share in one pass: it applies the DefaultEvictor of
// the profile being run, the policy's eviction limits and the pods' PDBs (as the
// eviction API would), and records each eviction on a working copy of the
// cluster, where the evicted pod stays on its node, terminating, as it does in a
// real cluster for its grace period. After the pass each evicted pod's
// replacement is placed by the real scheduler on that copy, so every eviction
// says where its pod is predicted to land.
//
// With the policy's `predictPlacement` (berth's option, off by default) the
// planner instead asks the scheduler before each eviction and evicts only when
// the replacement would land on another node where the plugin's complaint is
// gone; the copy then starts with the pending pods placed (they are ahead in the
// scheduler's queue) and every accepted replacement is bound on it, so later
// proposals see the pods already moved.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { ClusterState } from '../../cluster/state.js';
import type { Node } from '../../model/node.js';
import { bindPod, changedPod, matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import type { Selector } from '../../model/selector.js';
import { doNotScheduleTaints, findUntoleratedTaint, TAINT_NOT_READY, TAINT_UNREACHABLE } from '../../model/taints.js';
import { buildFramework, type SchedulerConfig } from '../../scheduler/profile.js';
import { profileFor, scheduleAll } from '../../scheduler/run.js';
import { Scheduler } from '../../scheduler/scheduler.js';
import { blockingPdb } from '../candidates.js';
import { copyCluster, unbind } from '../cluster-copy.js';
import { byEvictionOrder, notEvictable, preEvictionRefusal } from './evictor.js';
import { inNamespaces, type DeschedulerPolicy, type DeschedulerProfile, type EvictorArgs, type NamespaceFilter, type StrategyName } from '../../model/descheduler-policy.js';

export interface Eviction {
  readonly pod: string;
  readonly node: string;
  readonly profile: string;
  readonly strategy: StrategyName;
  /** What the plugin found wrong. */
  readonly reason: string;
  /** Where the scheduler is predicted to place the replacement; '' when it would stay Pending. */
  readonly predictedNode: string;
}

/** A pod a plugin selected and the evictor did not evict, with why. */
export interface Skip {
  readonly pod: string;
  readonly node: string;
  readonly strategy: StrategyName;
  readonly reason: string;
  readonly why: string;
}

/** Why the replacement's predicted node (before it is bound there) does not cure the complaint, or undefined when it does (predictPlacement only). */
export type Acceptance = (dest: NodeInfo) => string | undefined;

/** Whether `node` could take `pod` at all (node selector and affinity, NoSchedule/NoExecute taints, cordon), resources aside. */
export function nodeCouldHost(pod: Pod, node: Node): boolean {
  return !node.unschedulable && matchesRequiredNodeAffinity(pod, node) && findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints) === undefined;
}

const REPLACEMENT_SUFFIX = '~replacement';

export class EvictionPlanner {
  /** The working copy; plugins read it, only the planner changes it. */
  readonly cluster: ClusterState;
  readonly evictions: Eviction[] = [];
  readonly skipped: Skip[] = [];
  readonly predict: boolean;
  private profile: DeschedulerProfile = { name: '', evictor: {}, deschedule: [], balance: [] };
  private readonly schedulers = new Map<string, Scheduler | null>();
  private readonly perNode = new Map<string, number>();
  private readonly perNamespace = new Map<string, number>();

  constructor(
    live: ClusterState,
    private readonly policy: DeschedulerPolicy,
    private readonly config: SchedulerConfig,
    private readonly allowances: Map<string, number>,
    private readonly seed: number,
    /** The time the pass runs at (ms since the epoch, or the simulator's clock): pod ages are measured against it. */
    readonly nowMs: number,
  ) {
    this.cluster = copyCluster(live);
    this.predict = policy.predictPlacement === true;
    if (this.predict) for (const placed of scheduleAll(this.cluster, config, { seed }).placements) this.arriving(this.cluster.getPod(placed.pod)!);
  }

  useProfile(profile: DeschedulerProfile): void {
    this.profile = profile;
  }

  get evictor(): EvictorArgs {
    return this.profile.evictor;
  }

  /** The nodes upstream hands its plugins: Ready ones (cordoned included) that match the policy's nodeSelector. */
  nodes(): NodeInfo[] {
    const sel: Selector | undefined = this.policy.nodeSelector;
    return this.cluster.nodeInfos().filter((i) => nodeReady(i.node) && (!sel || sel.matches(i.node.labels)));
  }

  /** Every pod bound to `info`'s node, Succeeded and Failed ones included (the restart, lifetime and failed-pod plugins). */
  allPodsOn(info: NodeInfo): Pod[] {
    return info.pods.filter((p) => !this.predict || p.phase === 'Running' || p.phase === 'Failed' || p.phase === 'Succeeded');
  }

  /** Pods bound to `info`'s node that plugins look at: not Succeeded or Failed (and, predicting, only Running ones). */
  podsOn(info: NodeInfo): Pod[] {
    return info.pods.filter((p) => p.phase !== 'Succeeded' && p.phase !== 'Failed' && (!this.predict || p.phase === 'Running'));
  }

  /** A pod the prediction binds stays Pending there: it is still starting, so no strategy moves it in this pass. */
  private arriving(bound: Pod): void {
    this.cluster.updatePod(changedPod(bound, { phase: 'Pending' }));
  }

  /** The DefaultEvictor's Filter. */
  evictable(pod: Pod): boolean {
    return notEvictable(pod, this.evictor, this.cluster, this.nowMs) === undefined;
  }

  /** The DefaultEvictor's PreEvictionFilter. */
  preEvictable(pod: Pod): boolean {
    return preEvictionRefusal(pod, this.evictor, this.cluster) === undefined;
  }

  /** The evictable pods among `pods` in the filtered namespaces and matching `labels`, in eviction order. */
  candidates(pods: Iterable<Pod>, namespaces?: NamespaceFilter, labels?: Selector): Pod[] {
    return [...pods].filter((p) => inNamespaces(namespaces, p.namespace) && (!labels || labels.matches(p.labels)) && this.evictable(p)).sort(byEvictionOrder);
  }

  /** Whether the pod is still where a plugin saw it and not being evicted. */
  stillOn(pod: Pod, node: string): boolean {
    const current = this.cluster.getPod(pod.key);
    return current !== undefined && current.uid === pod.uid && current.nodeName === node && !current.terminating;
  }

  /** Records that a plugin's candidate stays, and why. */
  skip(pod: Pod, strategy: StrategyName, reason: string, why: string): false {
    this.skipped.push({ pod: pod.key, node: pod.nodeName, strategy, reason, why });
    return false;
  }

  /**
   * Evicts `pod` unless a limit or a PDB forbids it. With predictPlacement, only
   * when the scheduler would place its replacement on another node that `accept`
   * agrees to. Records a skip when the pod stays.
   */
  tryMove(pod: Pod, strategy: StrategyName, reason: string, accept?: Acceptance): boolean {
    const from = pod.nodeName;
    const skip = (why: string): false => this.skip(pod, strategy, reason, why);
    const limit = this.limitReached(pod);
    if (limit) return skip(limit);
    const pdb = blockingPdb(this.cluster, this.allowances, pod);
    if (pdb) return skip(`PodDisruptionBudget ${pdb} allows no more disruptions`);
    let predictedNode = '';
    if (this.predict) {
      const outcome = this.predictReplacement(pod, accept);
      if (typeof outcome !== 'string') return skip(outcome.why);
      predictedNode = outcome;
    } else {
      this.cluster.updatePod(changedPod(pod, { terminating: true }));
    }
    for (const p of this.cluster.pdbs) if (p.namespace === pod.namespace && p.selector.matches(pod.labels)) this.allowances.set(p.key, (this.allowances.get(p.key) ?? 0) - 1);
    this.perNode.set(from, (this.perNode.get(from) ?? 0) + 1);
    this.perNamespace.set(pod.namespace, (this.perNamespace.get(pod.namespace) ?? 0) + 1);
    this.evictions.push({ pod: pod.key, node: from, profile: this.profile.name, strategy, reason, predictedNode });
    return true;
  }

  /**
   * Marks `pod` terminating and schedules its replacement: the node it lands on,
   * or why it would not move. `accept` sees the destination before the
   * replacement is bound there.
   */
  private predictReplacement(pod: Pod, accept: Acceptance | undefined): string | { why: string } {
    const sched = this.schedulerFor(pod);
    if (!sched) return { why: `no scheduler profile named ${JSON.stringify(pod.schedulerName)} would place the replacement` };
    const replacement = replacementOf(pod);
    this.cluster.updatePod(changedPod(pod, { terminating: true }));
    this.cluster.addPod(replacement);
    const outcome = sched.schedulePod(replacement);
    const objection = outcome.kind === 'scheduled' && outcome.node !== pod.nodeName ? accept?.(this.cluster.nodeInfo(outcome.node)!) : undefined;
    if (outcome.kind === 'scheduled' && outcome.node !== pod.nodeName && !objection) {
      this.arriving(bindPod(replacement, outcome.node));
      return outcome.node;
    }
    this.undo(pod);
    if (outcome.kind !== 'scheduled') return { why: `no better placement now: the replacement would not schedule (${outcome.message})` };
    if (objection) return { why: `no better placement now: the scheduler would place the replacement on ${outcome.node}, where ${objection}` };
    return { why: 'no better placement now: the scheduler would put the replacement back on the same node' };
  }

  private undo(pod: Pod): void {
    this.cluster.removePod(replacementOf(pod).key);
    this.cluster.updatePod(pod);
  }

  /** Without predictPlacement: where the scheduler would put each evicted pod's replacement, all placed together in queue order. */
  finish(): void {
    if (this.predict || this.evictions.length === 0) return;
    for (const e of this.evictions) this.cluster.addPod(replacementOf(this.cluster.getPod(e.pod)!));
    const placed = new Map(scheduleAll(this.cluster, this.config, { seed: this.seed }).placements.map((p) => [p.pod, p.node]));
    for (let i = 0; i < this.evictions.length; i++) {
      const e = this.evictions[i]!;
      const pod = this.cluster.getPod(e.pod)!;
      this.evictions[i] = { ...e, predictedNode: placed.get(replacementOf(pod).key) ?? '' };
    }
  }

  private limitReached(pod: Pod): string | undefined {
    const p = this.policy;
    if (p.maxNoOfPodsToEvictTotal !== undefined && this.evictions.length >= p.maxNoOfPodsToEvictTotal) return `maxNoOfPodsToEvictTotal (${p.maxNoOfPodsToEvictTotal}) reached`;
    if (p.maxNoOfPodsToEvictPerNode !== undefined && (this.perNode.get(pod.nodeName) ?? 0) >= p.maxNoOfPodsToEvictPerNode) return `maxNoOfPodsToEvictPerNode (${p.maxNoOfPodsToEvictPerNode}) reached on ${pod.nodeName}`;
    if (p.maxNoOfPodsToEvictPerNamespace !== undefined && (this.perNamespace.get(pod.namespace) ?? 0) >= p.maxNoOfPodsToEvictPerNamespace) return `maxNoOfPodsToEvictPerNamespace (${p.maxNoOfPodsToEvictPerNamespace}) reached in ${pod.namespace}`;
    return undefined;
  }

  /** One scheduler per profile, aware of the nominations of pods still waiting for their preemption victims. */
  private schedulerFor(pod: Pod): Scheduler | undefined {
    let sched = this.schedulers.get(pod.schedulerName);
    if (sched === undefined) {
      const profile = profileFor(this.config, pod.schedulerName);
      sched = profile ? new Scheduler(this.cluster, (h) => buildFramework(this.config, profile, h), { seed: this.seed }) : null;
      if (sched) for (const p of this.cluster.pendingPods()) if (p.nominatedNodeName && p.schedulerName === pod.schedulerName) sched.nominate(p, p.nominatedNodeName);
      this.schedulers.set(pod.schedulerName, sched);
    }
    return sched ?? undefined;
  }
}

/** The controller's new pod standing in for `pod`: same spec, unbound, its own name. */
function replacementOf(pod: Pod): Pod {
  const name = `${pod.name}${REPLACEMENT_SUFFIX}`;
  return { ...unbind(pod), name, key: `${pod.namespace}/${name}`, uid: `${pod.uid}${REPLACEMENT_SUFFIX}` };
}

/** Not tainted not-ready or unreachable by the node lifecycle controller (upstream processes Ready nodes only). */
export function nodeReady(node: Node): boolean {
  return !node.taints.some((t) => t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE);
}
