// Scheduling every pending pod of a cluster in queue order, each placement visible
// to the next pod, with preemption applied as kube-scheduler would (victims
// deleted, the preemptor nominated and retried).

import type { ClusterState } from '../cluster/state.js';
import { bindPod, type Pod } from '../model/pod.js';
import { CycleState, type QueuedPod } from './framework.js';
import { buildFramework, DEFAULT_SCHEDULER_NAME, type ProfileConfig, type SchedulerConfig } from './profile.js';
import { Scheduler, type ScheduleOutcome } from './scheduler.js';

export interface Placement {
  readonly pod: string;
  readonly node: string;
}

export interface Unschedulable {
  readonly pod: string;
  readonly message: string;
  /** The attempt ended on a plugin's error: the pod's PodScheduled reason is SchedulerError, not Unschedulable. */
  readonly error?: true;
}

export interface Preemption {
  readonly pod: string;
  readonly node: string;
  readonly victims: readonly string[];
}

export interface ScheduleReport {
  readonly placements: Placement[];
  readonly unschedulable: Unschedulable[];
  readonly preemptions: Preemption[];
}

export const SCHEDULING_GATED_MESSAGE = 'Scheduling is blocked due to non-empty scheduling gates';
/** A preempting pod is retried after its victims are gone; bound the retries so a cycle of preemptions ends. */
const MAX_ATTEMPTS_AFTER_PREEMPTION = 3;

export function profileFor(config: SchedulerConfig, schedulerName: string): ProfileConfig | undefined {
  const profiles = config.profiles && config.profiles.length > 0 ? config.profiles : [{}];
  return profiles.find((p) => (p.schedulerName ?? DEFAULT_SCHEDULER_NAME) === schedulerName);
}

/** Pending pods in queue order for a profile's QueueSort plugin: input order breaks ties. */
export function queueOrder(sched: Scheduler, pods: readonly Pod[]): Pod[] {
  const queued: QueuedPod[] = pods.map((pod, seq) => ({ pod, timestamp: pod.creation, seq }));
  const less = sched.framework.plugins.queueSort.less;
  queued.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : a.seq - b.seq));
  return queued.map((q) => q.pod);
}

export interface RunOptions {
  readonly seed?: number;
  /** Stop after scheduling this pod (its outcome is the last one reported). */
  readonly stopAt?: string;
  /** Called with each attempt's outcome, e.g. to explain a pod. */
  readonly onAttempt?: (pod: Pod, outcome: ScheduleOutcome, sched: Scheduler) => void;
}

/** Schedules the cluster's pending pods for the default profile (or the profile named by each pod). Mutates `cluster`. */
export function scheduleAll(cluster: ClusterState, config: SchedulerConfig, opts: RunOptions = {}): ScheduleReport {
  const report: ScheduleReport = { placements: [], unschedulable: [], preemptions: [] };
  const pending = cluster.pendingPods();
  const names = [...new Set(pending.map((p) => p.schedulerName))];
  for (const name of names) {
    const profile = profileFor(config, name);
    if (!profile) continue; // Another scheduler's pods: kube-scheduler leaves them alone.
    const sched = new Scheduler(cluster, (h) => buildFramework(config, profile, h), opts.seed === undefined ? {} : { seed: opts.seed });
    const queue = new PodQueue(queueOrder(sched, pending.filter((p) => p.schedulerName === name)));
    const attempts = new Map<string, number>();
    while (queue.size > 0) {
      const pod = queue.shift();
      if (pod.schedulingGates.length > 0) {
        report.unschedulable.push({ pod: pod.key, message: SCHEDULING_GATED_MESSAGE });
        continue;
      }
      const current = cluster.getPod(pod.key) ?? pod;
      const state = new CycleState();
      const outcome = sched.schedulePod(current, state);
      opts.onAttempt?.(current, outcome, sched);
      if (outcome.kind === 'scheduled') {
        // Reserve and PreBind: the pod's volume bindings are assumed, so the next pod sees them.
        sched.framework.runReserveAndPreBind(state, current, outcome.node);
        sched.clearNomination(current);
        cluster.updatePod(bindPod(current, outcome.node));
        report.placements.push({ pod: pod.key, node: outcome.node });
      } else if (outcome.preemption && (attempts.get(pod.key) ?? 0) < MAX_ATTEMPTS_AFTER_PREEMPTION) {
        const { nominatedNodeName, victims } = outcome.preemption;
        for (const v of victims) {
          cluster.removePod(v.key);
          queue.remove(v.key);
        }
        report.preemptions.push({ pod: pod.key, node: nominatedNodeName, victims: victims.map((v) => v.key) });
        sched.nominate(current, nominatedNodeName);
        attempts.set(pod.key, (attempts.get(pod.key) ?? 0) + 1);
        // Victims are gone: the preemptor is the highest-priority pod waiting, so it goes next.
        queue.unshift(current);
        continue;
      } else {
        sched.clearNomination(current);
        report.unschedulable.push({ pod: pod.key, message: outcome.message, ...(outcome.error ? { error: true as const } : {}) });
      }
      if (opts.stopAt === pod.key) return report;
    }
  }
  return report;
}

/** Pods in queue order, taken from the front by moving an index (Array.shift copies a long array each time). */
class PodQueue {
  private head = 0;
  constructor(private readonly pods: Pod[]) {}

  get size(): number {
    return this.pods.length - this.head;
  }

  shift(): Pod {
    return this.pods[this.head++]!;
  }

  unshift(pod: Pod): void {
    if (this.head > 0) this.pods[--this.head] = pod;
    else this.pods.unshift(pod);
  }

  remove(key: string): void {
    const i = this.pods.findIndex((p, j) => j >= this.head && p.key === key);
    if (i >= 0) this.pods.splice(i, 1);
  }
}
