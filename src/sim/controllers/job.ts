// The Job controller (pkg/controller/job, kube-controller-manager v1.37): keeps up
// to `parallelism` pods running until `completions` of them succeed (any one, for
// a Job without completions), replaces failed pods after the pod-failure back-off
// (10 s doubling per failure since the last success, at most 10 minutes — the
// code's MaxJobPodFailureBackOff), counts failures against backoffLimit (or the
// pods' container restarts with restartPolicy OnFailure), applies the
// podFailurePolicy rules, and ends the Job with a Complete or Failed condition
// (BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy), deleting the pods
// still running. Pod creations and deletions take effect at once, so upstream's
// expectations, finalizer tracking and slow-start batches are left out.
//
// A pod that ends Failed carries its exit code; one deleted before it ended
// (evicted, preempted, garbage-collected) counts as failed with the
// DisruptionTarget condition when a disruption deleted it, and with exit code 143
// (SIGTERM) when a running kubelet stopped it (none when its node was gone).

import type { JobSpec, PodFailurePolicyRule } from '../../io/load-jobs.js';
import type { Pod } from '../../model/pod.js';
import type { World } from '../world.js';
import { podsToDelete } from './active-pods.js';
import { KeyedController } from './keyed-controller.js';
import { newControlledPod } from './new-pod.js';

export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
/** The back-off after a failed pod: 10 s, doubled per further failure, capped. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 600_000;
/** Exit code of a container its kubelet stopped on deletion (SIGTERM). */
const TERMINATED_EXIT_CODE = 143;
/** Deletions that give a pod the DisruptionTarget condition, by the reason the simulator records. */
const DISRUPTIONS: Readonly<Record<string, string>> = {
  TaintManagerEviction: 'DeletionByTaintManager',
  Preempted: 'PreemptionByScheduler',
  Evicted: 'EvictionByEvictionAPI',
  Drain: 'EvictionByEvictionAPI',
  Descheduled: 'EvictionByEvictionAPI',
  PodGCOrphaned: 'DeletionByPodGC',
};

export type JobConditionType = 'Complete' | 'Failed';

export interface JobCondition {
  readonly type: JobConditionType;
  readonly reason: string;
  readonly message: string;
  readonly at: number;
}

/** A pod that ended badly, as the failure policy sees it. */
export interface PodFailure {
  readonly pod: Pod;
  /** The containers' exit code, when they exited. */
  readonly exitCode?: number;
  /** DisruptionTarget reason, when a disruption deleted the pod. */
  readonly disruption?: string;
  readonly at: number;
}

export interface SimJob {
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
  readonly spec: JobSpec;
  /** Labels and annotations of the Job (a CronJob's Job carries its template's). */
  readonly labels: Readonly<Record<string, string>>;
  /** uid of the controlling CronJob, '' when none. */
  readonly owner: string;
  readonly creation: number;
  status: {
    succeeded: number;
    failed: number;
    startTime?: number;
    completedIndexes: Set<number>;
    condition?: JobCondition;
  };
  /** Uids of terminal pods already counted. */
  readonly counted: Set<string>;
  /** Failures and successes the controller has heard of but not yet counted. */
  readonly uncounted: { pod: Pod; succeeded: boolean; failure?: PodFailure }[];
  backoff: { failuresAfterLastSuccess: number; lastFailureTime?: number };
  /** When a delayed sync (back-off, deadline) is due, to avoid queuing it twice. */
  syncDueAt?: number;
}

export type JobInit = Pick<SimJob, 'namespace' | 'name' | 'uid' | 'spec'> & { readonly labels?: SimJob['labels']; readonly owner?: string; readonly finished?: boolean };

/** matchPodFailurePolicy: the first rule matching the failed pod decides; `count` false for Ignore. */
export function matchPodFailurePolicy(rules: readonly PodFailurePolicyRule[] | null, f: PodFailure, containerNames: readonly string[]): { failJob?: string; count: boolean } {
  if (!rules) return { count: true };
  for (const [i, rule] of rules.entries()) {
    const codes = rule.onExitCodes;
    if (codes) {
      const container = containerNames.find((n) => codes.containerName === undefined || codes.containerName === n);
      if (f.exitCode === undefined || f.exitCode === 0 || container === undefined) continue;
      if (codes.values.includes(f.exitCode) !== (codes.operator === 'In')) continue;
    } else if (rule.onPodConditions) {
      // A pod ending this way has DisruptionTarget=True when a disruption deleted it, and no other condition rules look at.
      if (!rule.onPodConditions.some((c) => c.type === 'DisruptionTarget' && c.status === 'True' && f.disruption !== undefined)) continue;
    } else continue;
    if (rule.action === 'Ignore') return { count: false };
    if (rule.action === 'FailJob') {
      const what = codes
        ? `Container ${containerNames.find((n) => codes.containerName === undefined || codes.containerName === n)} for pod ${f.pod.key} failed with exit code ${f.exitCode} matching FailJob rule at index ${i}`
        : `Pod ${f.pod.key} has condition DisruptionTarget matching FailJob rule at index ${i}`;
      return { failJob: what, count: true };
    }
    return { count: true };
  }
  return { count: true };
}

/** getRemainingTimeForFailuresCount: what is left of the back-off after `failures` failures, the last at `lastFailure`. */
export function remainingBackoffMs(failures: number, lastFailure: number | undefined, now: number, baseMs = POD_FAILURE_BACKOFF_MS, maxMs = MAX_POD_FAILURE_BACKOFF_MS): number {
  if (failures === 0 || lastFailure === undefined) return 0;
  let delay = baseMs;
  for (let i = 1; i < failures; i++) {
    delay *= 2;
    if (delay >= maxMs) {
      delay = maxMs;
      break;
    }
  }
  const elapsed = now - lastFailure;
  return delay < elapsed ? 0 : delay - elapsed;
}

export class JobController extends KeyedController<SimJob> {
  private readonly finishedListeners: ((job: SimJob) => void)[] = [];

  constructor(world: World) {
    super(world, 'job', 'job-sync');
  }

  start(): void {
    this.world.onChange((c) => {
      if (!('pod' in c)) return;
      const job = this.ownerOf(c.pod);
      if (!job || job.status.condition) return;
      if (c.kind === 'podFinished') job.uncounted.push({ pod: c.pod, succeeded: c.phase === 'Succeeded', ...(c.phase === 'Failed' ? { failure: { pod: c.pod, exitCode: c.exitCode, at: this.world.engine.now } } : {}) });
      else if (c.kind === 'podDeleted' && !job.counted.has(c.pod.uid)) job.uncounted.push({ pod: c.pod, succeeded: false, failure: this.deletedFailure(c.pod) });
      this.enqueue(job);
    });
  }

  /** Called with a Job when it gets its Complete or Failed condition. */
  onFinished(listener: (job: SimJob) => void): void {
    this.finishedListeners.push(listener);
  }

  add(init: JobInit): SimJob {
    const key = `${init.namespace}/${init.name}`;
    const job: SimJob = {
      namespace: init.namespace,
      name: init.name,
      key,
      uid: init.uid,
      spec: init.spec,
      labels: init.labels ?? {},
      owner: init.owner ?? '',
      creation: this.world.engine.now,
      status: { succeeded: 0, failed: 0, completedIndexes: new Set(), ...(init.finished ? { condition: { type: 'Complete', reason: 'InInput', message: 'finished before the simulation', at: this.world.engine.now } } : {}) },
      counted: new Set(),
      uncounted: [],
      backoff: { failuresAfterLastSuccess: 0 },
    };
    this.register(job);
    this.world.engine.record('JobCreated', { job: key, ...(init.owner ? { owner: init.owner } : {}) });
    if (!init.finished) this.enqueue(job);
    return job;
  }

  /** Deletes a Job; its pods are deleted with it (background propagation). */
  remove(job: SimJob, reason: string): void {
    if (!this.objects.has(job.key)) return;
    this.objects.delete(job.key);
    this.world.engine.record('JobDeleted', { job: job.key, reason });
    for (const p of this.world.podsControlledBy(job.uid)) this.world.deletePod(p.key, 'JobDeleted');
  }

  /** Active pods: not terminating (terminal pods leave the store). */
  activePods(job: SimJob): Pod[] {
    return this.world.podsControlledBy(job.uid).filter((p) => !p.terminating);
  }

  private deletedFailure(pod: Pod): PodFailure {
    const reason = this.world.deletionReason(pod.uid);
    const disruption = reason === undefined ? undefined : DISRUPTIONS[reason];
    const stopped = pod.nodeName !== '' && pod.phase === 'Running' && this.world.kubeletRunning(pod.nodeName) && this.world.cluster.nodeInfo(pod.nodeName) !== undefined;
    return { pod, at: this.world.engine.now, ...(disruption ? { disruption } : {}), ...(stopped ? { exitCode: TERMINATED_EXIT_CODE } : {}) };
  }

  private onlyReplaceFailed(job: SimJob): boolean {
    return job.spec.podReplacementPolicy === 'Failed' || job.spec.podFailurePolicy !== null;
  }

  /** syncJob */
  protected sync(job: SimJob): void {
    if (job.status.condition || !this.objects.has(job.key)) return;
    const now = this.world.engine.now;
    const spec = job.spec;
    const containers = [...spec.template.spec.containers, ...(spec.template.spec.initContainers ?? [])].map((c) => c.name);
    // Terminating pods count as failed at once unless only failed pods are replaced.
    if (!this.onlyReplaceFailed(job)) {
      for (const p of this.world.podsControlledBy(job.uid)) {
        if (p.terminating && !job.counted.has(p.uid)) job.uncounted.push({ pod: p, succeeded: false, failure: this.deletedFailure(p) });
      }
    }
    const newSucceeded: number[] = [];
    const newFailed: number[] = [];
    let failJob: string | undefined;
    for (const u of job.uncounted.splice(0)) {
      if (job.counted.has(u.pod.uid)) continue;
      job.counted.add(u.pod.uid);
      if (u.succeeded) {
        newSucceeded.push(now);
        if (spec.completionMode === 'Indexed') job.status.completedIndexes.add(Number(u.pod.labels[COMPLETION_INDEX]));
        else job.status.succeeded++;
        continue;
      }
      const f = u.failure ?? { pod: u.pod, at: now };
      newFailed.push(f.at);
      const match = matchPodFailurePolicy(spec.podFailurePolicy, f, containers);
      if (match.count) job.status.failed++;
      failJob ??= match.failJob;
    }
    if (spec.completionMode === 'Indexed') job.status.succeeded = job.status.completedIndexes.size;
    this.updateBackoff(job, newSucceeded, newFailed);
    if (job.status.startTime === undefined && !spec.suspend) job.status.startTime = now;

    let finished: Omit<JobCondition, 'at'> | undefined;
    if (failJob) finished = { type: 'Failed', reason: 'PodFailurePolicy', message: failJob };
    else if (job.status.failed > spec.backoffLimit || this.pastBackoffLimitOnFailure(job)) finished = { type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    else if (spec.activeDeadlineSeconds !== null && !spec.suspend && job.status.startTime !== undefined) {
      const deadline = job.status.startTime + spec.activeDeadlineSeconds * 1000;
      if (now >= deadline) finished = { type: 'Failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      else this.syncAt(job, deadline);
    }
    if (finished) {
      for (const p of this.activePods(job)) this.world.deletePod(p.key, `Job${finished.reason}`);
      this.finish(job, finished);
      return;
    }
    const active = this.manage(job);
    const done = spec.completions === null ? job.status.succeeded > 0 && active === 0 : job.status.succeeded >= spec.completions && active === 0;
    if (done) this.finish(job, { type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' });
  }

  /** newBackoffRecord: failures since the last success, and when the last of them happened. */
  private updateBackoff(job: SimJob, succeeded: readonly number[], failed: readonly number[]): void {
    if (succeeded.length === 0) {
      if (failed.length === 0) return;
      job.backoff = { failuresAfterLastSuccess: job.backoff.failuresAfterLastSuccess + failed.length, lastFailureTime: Math.max(...failed) };
      return;
    }
    const lastSuccess = Math.max(...succeeded);
    const after = failed.filter((t) => t > lastSuccess);
    job.backoff = after.length === 0 ? { failuresAfterLastSuccess: 0 } : { failuresAfterLastSuccess: after.length, lastFailureTime: Math.max(...after) };
  }

  /** pastBackoffLimitOnFailure: container restarts of running pods against the limit (restartPolicy OnFailure). */
  private pastBackoffLimitOnFailure(job: SimJob): boolean {
    if (job.spec.restartPolicy !== 'OnFailure') return false;
    let restarts = 0;
    for (const p of this.activePods(job)) for (const c of p.status?.containers ?? []) restarts += c.restartCount;
    return job.spec.backoffLimit === 0 ? restarts > 0 : restarts >= job.spec.backoffLimit;
  }

  /** manageJob: creates or deletes pods towards the wanted number of active ones; returns the active count. */
  private manage(job: SimJob): number {
    const spec = job.spec;
    const now = this.world.engine.now;
    const all = this.world.podsControlledBy(job.uid);
    const active = all.filter((p) => !p.terminating);
    if (spec.suspend) {
      for (const p of active) this.world.deletePod(p.key, 'JobSuspended');
      return 0;
    }
    let want: number;
    if (spec.completions === null) want = job.status.succeeded > 0 ? active.length : spec.parallelism;
    else want = Math.max(0, Math.min(spec.parallelism, spec.completions - job.status.succeeded));
    if (active.length > want) {
      const victims = podsToDelete(active, active, active.length - want, (k) => this.world.readySince(k), now);
      for (const v of victims) this.world.deletePod(v.key, 'TooManyActivePods');
      return want;
    }
    const terminating = this.onlyReplaceFailed(job) ? all.length - active.length : 0;
    let diff = want - terminating - active.length;
    if (diff <= 0) return active.length;
    const wait = remainingBackoffMs(job.backoff.failuresAfterLastSuccess, job.backoff.lastFailureTime, now);
    if (wait > 0) {
      this.syncAt(job, now + wait);
      return active.length;
    }
    const indexes = spec.completionMode === 'Indexed' ? this.pendingIndexes(job, active, diff) : [];
    if (spec.completionMode === 'Indexed') diff = indexes.length;
    for (let i = 0; i < diff; i++) this.world.createPod(this.newPod(job, indexes[i]));
    return active.length + diff;
  }

  /** firstPendingIndexes: the lowest indexes neither completed nor running. */
  private pendingIndexes(job: SimJob, active: readonly Pod[], count: number): number[] {
    const running = new Set(active.map((p) => Number(p.labels[COMPLETION_INDEX])));
    const out: number[] = [];
    for (let i = 0; i < (job.spec.completions ?? 0) && out.length < count; i++) if (!running.has(i) && !job.status.completedIndexes.has(i)) out.push(i);
    return out;
  }

  private syncAt(job: SimJob, at: number): void {
    if (job.syncDueAt !== undefined && job.syncDueAt <= at && job.syncDueAt > this.world.engine.now) return;
    job.syncDueAt = at;
    this.world.engine.at(at, 'job-sync-delayed', () => {
      if (job.syncDueAt === at) job.syncDueAt = undefined;
      this.enqueue(job);
    });
  }

  private finish(job: SimJob, c: Omit<JobCondition, 'at'>): void {
    job.status.condition = { ...c, at: this.world.engine.now };
    this.world.engine.record(c.type === 'Complete' ? 'JobComplete' : 'JobFailed', { job: job.key, reason: c.reason, message: c.message, succeeded: job.status.succeeded, failed: job.status.failed });
    for (const l of this.finishedListeners) l(job);
  }

  private newPod(job: SimJob, index: number | undefined): Pod {
    const t = job.spec.templatePod;
    const identity = { [CONTROLLER_UID_LABEL]: job.uid, [JOB_NAME_LABEL]: job.name, 'controller-uid': job.uid, 'job-name': job.name };
    const indexed: Record<string, string> = index === undefined ? {} : { [COMPLETION_INDEX]: String(index) };
    return newControlledPod(this.world, t, {
      namespace: job.namespace,
      prefix: index === undefined ? `${job.name}-` : `${job.name}-${index}-`,
      labels: { ...t.labels, ...identity, ...indexed },
      annotations: { ...t.annotations, ...indexed },
      owner: { apiVersion: 'batch/v1', kind: 'Job', name: job.name, uid: job.uid, controller: true },
    });
  }
}
