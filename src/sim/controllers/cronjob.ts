// The CronJob controller (pkg/controller/cronjob, controller v2): at each time the
// schedule fires (in spec.timeZone, UTC by default) it creates a Job named
// `<cronjob>-<scheduled time in minutes since the epoch>` from the jobTemplate,
// unless the CronJob is suspended, the run is later than startingDeadlineSeconds,
// or concurrencyPolicy Forbid finds a Job still active (the missed run starts when
// that Job finishes, if still within the deadline); Replace deletes the active
// Jobs first. Finished Jobs beyond successful/failedJobsHistoryLimit are deleted,
// oldest first. The schedule reads a wall clock: the simulation's start time
// (SimulationOptions.startTimeMs) plus simulated time.

import type { CronJobSummary } from '../../io/load-jobs.js';
import { nextCronTimeIn } from '../../model/cron.js';
import type { World } from '../world.js';
import type { JobController, SimJob } from './job.js';
import { KeyedController } from './keyed-controller.js';

/** A schedule missing more start times than this is reported and only its latest is run (as upstream). */
const TOO_MANY_MISSED = 100;

export interface SimCronJob {
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
  readonly cron: CronJobSummary;
  /** Wall-clock ms: when it was created, and when it last started a Job. */
  readonly createdWall: number;
  lastScheduleWall?: number;
  /** Keys of its Jobs that have not finished. */
  readonly active: Set<string>;
  /** Its finished Jobs, oldest first. */
  readonly finished: SimJob[];
  nextWakeAt?: number;
}

/**
 * mostRecentScheduleTime, as upstream computes it: counting from the last scheduled
 * run (or the creation), moved up to now − startingDeadlineSeconds when that is
 * later, take the first two fire times t1 < t2; past t2, the runs missed are
 * estimated from the gap t2 − t1, and the latest fire time at or before `now` is
 * searched from one gap before the estimate. On an irregular schedule
 * ("30 10,11,12 * * 1-5") that estimate can overshoot and find none, as upstream's
 * does. Times are wall-clock ms.
 */
export function mostRecentScheduleTime(
  c: Pick<CronJobSummary, 'schedule' | 'timeZone' | 'startingDeadlineSeconds'>,
  lastOrCreated: number,
  now: number,
): { earliest: number; time?: number; missed: number } {
  let earliest = lastOrCreated;
  if (c.startingDeadlineSeconds !== null) earliest = Math.max(earliest, now - c.startingDeadlineSeconds * 1000);
  const next = (t: number) => nextCronTimeIn(c.schedule, t, c.timeZone);
  const t1 = next(earliest);
  if (t1 === null || now < t1) return { earliest, missed: 0 };
  const t2 = next(t1);
  if (t2 === null || now < t2) return { earliest, time: t1, missed: 0 };
  const gapSeconds = Math.round((t2 - t1) / 1000);
  const missed = Math.floor(Math.floor((now - t1) / 1000) / gapSeconds) + 1;
  let time: number | undefined;
  for (let t = next(t1 + (missed - 2) * gapSeconds * 1000); t !== null && t <= now; t = next(t)) time = t;
  return { earliest, ...(time !== undefined ? { time } : {}), missed };
}

export class CronJobController extends KeyedController<SimCronJob> {
  constructor(
    world: World,
    private readonly jobs: JobController,
    /** Wall-clock ms at simulated time 0. */
    private readonly startTimeMs: number,
  ) {
    super(world, 'cronjob', 'cronjob-sync');
  }

  start(): void {
    this.jobs.onFinished((job) => {
      const cj = [...this.objects.values()].find((c) => c.uid === job.owner);
      if (!cj || !cj.active.delete(job.key)) return;
      cj.finished.push(job);
      this.cleanupHistory(cj);
      this.enqueue(cj);
    });
  }

  private wallNow(): number {
    return this.startTimeMs + this.world.engine.now;
  }

  add(cron: CronJobSummary): SimCronJob {
    const cj: SimCronJob = {
      namespace: cron.namespace,
      name: cron.name,
      key: cron.key,
      uid: cron.uid,
      cron,
      createdWall: cron.created !== undefined && cron.created <= this.wallNow() ? cron.created : this.wallNow(),
      active: new Set(),
      finished: [],
    };
    this.register(cj);
    this.enqueue(cj);
    return cj;
  }

  /** A Job of the input that this CronJob created and that has not finished. */
  adoptActive(cj: SimCronJob, job: SimJob): void {
    cj.active.add(job.key);
  }

  /** syncCronJob */
  protected sync(cj: SimCronJob): void {
    const c = cj.cron;
    const now = this.wallNow();
    const { engine } = this.world;
    if (c.suspend) return;
    const { time, missed } = mostRecentScheduleTime(c, cj.lastScheduleWall ?? cj.createdWall, now);
    if (missed > TOO_MANY_MISSED) engine.record('CronJobTooManyMissedTimes', { cronJob: cj.key, missed });
    if (time !== undefined) this.runAt(cj, time, now);
    this.wakeAtNext(cj, now);
  }

  private runAt(cj: SimCronJob, scheduled: number, now: number): void {
    const c = cj.cron;
    const { engine } = this.world;
    if (c.startingDeadlineSeconds !== null && scheduled + c.startingDeadlineSeconds * 1000 < now) {
      engine.record('CronJobMissedSchedule', { cronJob: cj.key, scheduled: new Date(scheduled).toISOString() });
      return;
    }
    if (c.concurrencyPolicy === 'Forbid' && cj.active.size > 0) {
      engine.record('JobAlreadyActive', { cronJob: cj.key, scheduled: new Date(scheduled).toISOString() });
      return;
    }
    if (c.concurrencyPolicy === 'Replace') {
      for (const key of [...cj.active]) {
        const job = this.jobs.objects.get(key);
        cj.active.delete(key);
        if (job) this.jobs.remove(job, 'CronJobReplace');
      }
    }
    const name = `${cj.name}-${Math.floor(scheduled / 60_000)}`;
    if (this.jobs.objects.has(`${cj.namespace}/${name}`)) return;
    const job = this.jobs.add({
      namespace: cj.namespace,
      name,
      uid: this.world.newUid(),
      spec: c.jobTemplate.spec,
      labels: c.jobTemplate.labels,
      owner: cj.uid,
    });
    engine.record('CronJobScheduled', { cronJob: cj.key, job: job.key, scheduled: new Date(scheduled).toISOString() });
    cj.active.add(job.key);
    cj.lastScheduleWall = scheduled;
  }

  private wakeAtNext(cj: SimCronJob, now: number): void {
    const next = nextCronTimeIn(cj.cron.schedule, now, cj.cron.timeZone);
    if (next === null) return;
    const at = next - this.startTimeMs;
    if (cj.nextWakeAt === at) return;
    cj.nextWakeAt = at;
    this.world.engine.at(at, 'cronjob-wake', () => {
      if (cj.nextWakeAt === at) this.enqueue(cj);
    });
  }

  /** cleanupFinishedJobs: keep the newest successful and failed Jobs up to the history limits. */
  private cleanupHistory(cj: SimCronJob): void {
    for (const [type, limit] of [
      ['Complete', cj.cron.successfulJobsHistoryLimit],
      ['Failed', cj.cron.failedJobsHistoryLimit],
    ] as const) {
      const of = cj.finished.filter((j) => j.status.condition?.type === type);
      for (const old of of.slice(0, Math.max(0, of.length - limit))) {
        cj.finished.splice(cj.finished.indexOf(old), 1);
        this.jobs.remove(old, 'CronJobHistoryLimit');
      }
    }
  }
}
