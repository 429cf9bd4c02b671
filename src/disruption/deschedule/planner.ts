// Where berth's descheduler differs from upstream's: a strategy proposes a pod
// and why, and the planner evicts it only when the real scheduler, run on a
// prediction of the cluster, puts the pod's replacement on another node where
// the strategy's complaint is gone. The prediction starts as a copy of the
// cluster with its pending pods placed (they are ahead in the scheduler's
// queue), and every accepted eviction is applied to it, so later proposals see
// the pods already moved and two evictions never count on the same room.
// The prediction also checks the evictor's limits and the pods' PDBs. It
// places the replacement as if the evicted pod were already gone; in the
// cluster the old pod still holds its node for its grace period, which only
// makes the source node less attractive to the real scheduler.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { ClusterState } from '../../cluster/state.js';
import type { Node } from '../../model/node.js';
import { bindPod, matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import { doNotScheduleTaints, findUntoleratedTaint, TAINT_NOT_READY, TAINT_UNREACHABLE } from '../../model/taints.js';
import { buildFramework, type SchedulerConfig } from '../../scheduler/profile.js';
import { profileFor, scheduleAll } from '../../scheduler/run.js';
import { Scheduler } from '../../scheduler/scheduler.js';
import { blockingPdb } from '../candidates.js';
import { copyCluster, unbind } from '../cluster-copy.js';
import { byEvictionOrder, notEvictable } from './evictor.js';
import { inNamespaces, type DeschedulerPolicy, type NamespaceFilter, type StrategyName } from './policy.js';

export interface Eviction {
  readonly pod: string;
  readonly node: string;
  readonly strategy: StrategyName;
  /** What the strategy found wrong. */
  readonly reason: string;
  /** Where the scheduler is predicted to place the replacement. */
  readonly predictedNode: string;
}

/** A pod a strategy wanted to evict and berth did not, with why. */
export interface Skip {
  readonly pod: string;
  readonly node: string;
  readonly strategy: StrategyName;
  readonly reason: string;
  readonly why: string;
}

/** Why the replacement's predicted node does not cure the complaint, or undefined when it does. */
export type Acceptance = (dest: NodeInfo) => string | undefined;

/** Whether `node` could take `pod` at all (node selector and affinity, NoSchedule/NoExecute taints, cordon), resources aside. */
export function nodeCouldHost(pod: Pod, node: Node): boolean {
  return !node.unschedulable && matchesRequiredNodeAffinity(pod, node) && findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints) === undefined;
}

export class EvictionPlanner {
  /** The predicted cluster; strategies read it, only the planner changes it. */
  readonly cluster: ClusterState;
  readonly evictions: Eviction[] = [];
  readonly skipped: Skip[] = [];
  private readonly schedulers = new Map<string, Scheduler | null>();
  private readonly perNode = new Map<string, number>();
  private readonly perNamespace = new Map<string, number>();

  constructor(
    live: ClusterState,
    private readonly policy: DeschedulerPolicy,
    private readonly config: SchedulerConfig,
    private readonly allowances: Map<string, number>,
    private readonly seed: number,
  ) {
    this.cluster = copyCluster(live);
    for (const placed of scheduleAll(this.cluster, config, { seed }).placements) this.arriving(this.cluster.getPod(placed.pod)!);
  }

  /** A pod the prediction binds stays Pending there: it is still starting, so no strategy moves it in this pass. */
  private arriving(bound: Pod): void {
    this.cluster.updatePod({ ...bound, phase: 'Pending' });
  }

  /** The evictable pods among `pods` in the filtered namespaces, in eviction order; pods of nodes that are not Ready stay (upstream processes Ready nodes only). */
  candidates(pods: Iterable<Pod>, namespaces?: NamespaceFilter): Pod[] {
    return [...pods].filter((p) => p.nodeName !== '' && inNamespaces(namespaces, p.namespace) && this.evictable(p) && this.nodeReady(p.nodeName)).sort(byEvictionOrder);
  }

  /** Not tainted not-ready or unreachable by the node lifecycle controller. */
  private nodeReady(name: string): boolean {
    const node = this.cluster.nodeInfo(name)?.node;
    return node !== undefined && !node.taints.some((t) => t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE);
  }

  /** Whether the pod is still where a strategy saw it (an earlier eviction may have moved it). */
  stillOn(pod: Pod, node: string): boolean {
    const current = this.cluster.getPod(pod.key);
    return current !== undefined && current.uid === pod.uid && current.nodeName === node && current.phase === 'Running';
  }

  /** Records that a strategy's candidate stays, and why. */
  skip(pod: Pod, strategy: StrategyName, reason: string, why: string): false {
    this.skipped.push({ pod: pod.key, node: pod.nodeName, strategy, reason, why });
    return false;
  }

  /** Whether the evictor lets `pod` go. */
  evictable(pod: Pod): boolean {
    return notEvictable(pod, this.policy.evictor) === undefined;
  }

  /** Evicts `pod` when the scheduler would place its replacement elsewhere and `accept` agrees; records a skip otherwise. */
  tryMove(pod: Pod, strategy: StrategyName, reason: string, accept: Acceptance): boolean {
    const from = pod.nodeName;
    const skip = (why: string): false => this.skip(pod, strategy, reason, why);
    const limit = this.limitReached(pod);
    if (limit) return skip(limit);
    const pdb = blockingPdb(this.cluster, this.allowances, pod);
    if (pdb) return skip(`PodDisruptionBudget ${pdb} allows no more disruptions`);
    const sched = this.schedulerFor(pod);
    if (!sched) return skip(`no scheduler profile named ${JSON.stringify(pod.schedulerName)} would place the replacement`);

    const replacement = unbind(pod);
    this.cluster.removePod(pod.key);
    this.cluster.addPod(replacement);
    const outcome = sched.schedulePod(replacement);
    const restore = (why: string): false => {
      this.cluster.removePod(pod.key);
      this.cluster.addPod(pod);
      return skip(why);
    };
    if (outcome.kind !== 'scheduled') return restore(`no better placement now: the replacement would not schedule (${outcome.message})`);
    if (outcome.node === from) return restore('no better placement now: the scheduler would put the replacement back on the same node');
    const objection = accept(this.cluster.nodeInfo(outcome.node)!);
    if (objection) return restore(`no better placement now: the scheduler would place the replacement on ${outcome.node}, where ${objection}`);

    this.arriving(bindPod(replacement, outcome.node));
    for (const p of this.cluster.pdbs) if (p.namespace === pod.namespace && p.selector.matches(pod.labels)) this.allowances.set(p.key, (this.allowances.get(p.key) ?? 0) - 1);
    this.perNode.set(from, (this.perNode.get(from) ?? 0) + 1);
    this.perNamespace.set(pod.namespace, (this.perNamespace.get(pod.namespace) ?? 0) + 1);
    this.evictions.push({ pod: pod.key, node: from, strategy, reason, predictedNode: outcome.node });
    return true;
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
