import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClusterState, loadSources } from '../../io/load.js';
import { createSimulation, type Simulation } from '../simulation.js';
import { addJobs } from '../workloads.js';
import { indentLines } from '../fixtures.test-support.js';
import { parseCronSchedule } from '../../model/cron.js';
import { mostRecentScheduleTime } from './cronjob.js';

const NODE = `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}`;

function cron(spec: string, runDuration = '1m'): string {
  return `---
apiVersion: batch/v1
kind: CronJob
metadata: {name: c, namespace: default}
spec:
${indentLines(spec)}
  jobTemplate:
    spec:
      template:
        metadata: {annotations: {berth.dev/run-duration: ${runDuration}}}
        spec:
          restartPolicy: Never
          containers: [{name: main, resources: {requests: {cpu: 100m}}}]`;
}

function run(text: string, untilMs: number, startTime = '2026-01-01T00:00:00Z'): Simulation {
  const r = loadSources([{ name: 'cron.yaml', text: NODE + '\n' + text }]);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  const sim = createSimulation(buildClusterState(r.input), { seed: 1, startTimeMs: Date.parse(startTime) });
  addJobs(sim, r.input.jobs ?? [], r.input.cronJobs ?? []);
  sim.engine.run(untilMs);
  return sim;
}

const scheduled = (sim: Simulation) => sim.engine.log.filter((e) => e.type === 'CronJobScheduled').map((e) => [e['job'], e['scheduled']]);

describe('CronJob controller', () => {
  it('creates a Job at each scheduled time, named after the scheduled minute', () => {
    const sim = run(cron('schedule: "*/10 * * * *"'), 25 * 60_000);
    const t0 = Date.parse('2026-01-01T00:00:00Z') / 60_000;
    assert.deepEqual(scheduled(sim), [
      [`default/c-${t0 + 10}`, '2026-01-01T00:10:00.000Z'],
      [`default/c-${t0 + 20}`, '2026-01-01T00:20:00.000Z'],
    ]);
    assert.equal(sim.engine.log.filter((e) => e.type === 'JobComplete').length, 2);
  });

  it('reads the schedule in spec.timeZone', () => {
    const sim = run(cron('schedule: "0 9 * * *"\ntimeZone: Asia/Tokyo'), 60 * 60_000, '2026-01-01T23:30:00Z');
    assert.deepEqual(scheduled(sim).map((s) => s[1]), ['2026-01-02T00:00:00.000Z']);
  });

  it('@hourly descriptors and suspend', () => {
    assert.equal(scheduled(run(cron('schedule: "@hourly"'), 61 * 60_000)).length, 1);
    assert.equal(scheduled(run(cron('schedule: "@hourly"\nsuspend: true'), 61 * 60_000)).length, 0);
  });

  it('concurrencyPolicy Forbid skips a run while the last Job is active and starts it when that Job finishes', () => {
    const sim = run(cron('schedule: "*/5 * * * *"\nconcurrencyPolicy: Forbid', '7m'), 16 * 60_000);
    assert.ok(sim.engine.log.some((e) => e.type === 'JobAlreadyActive'));
    // 00:05 runs until ~00:12; the 00:10 run waits for it and starts late, at ~00:12.
    const jobs = sim.engine.log.filter((e) => e.type === 'CronJobScheduled');
    assert.deepEqual(jobs.map((e) => e['scheduled']), ['2026-01-01T00:05:00.000Z', '2026-01-01T00:10:00.000Z']);
    assert.ok(jobs[1]!.t > 12 * 60_000);
  });

  it('concurrencyPolicy Forbid with startingDeadlineSeconds drops a run that cannot start in time', () => {
    const sim = run(cron('schedule: "*/5 * * * *"\nconcurrencyPolicy: Forbid\nstartingDeadlineSeconds: 60', '7m'), 14 * 60_000);
    assert.deepEqual(scheduled(sim).map((s) => s[1]), ['2026-01-01T00:05:00.000Z']);
  });

  it('concurrencyPolicy Replace deletes the active Job before starting the next', () => {
    const sim = run(cron('schedule: "*/5 * * * *"\nconcurrencyPolicy: Replace', '7m'), 11 * 60_000);
    assert.ok(sim.engine.log.some((e) => e.type === 'JobDeleted' && e['reason'] === 'CronJobReplace'));
    assert.equal(scheduled(sim).length, 2);
  });

  it('keeps successfulJobsHistoryLimit finished Jobs', () => {
    const sim = run(cron('schedule: "* * * * *"\nsuccessfulJobsHistoryLimit: 1', '10s'), 5 * 60_000);
    assert.equal([...sim.jobs.objects.values()].filter((j) => j.status.condition?.type === 'Complete').length, 1);
  });
});

// TestMostRecentScheduleTime (pkg/controller/cronjob/utils_test.go): times from the top of the hour 2016-05-19T10:00:00Z.
describe('mostRecentScheduleTime (TestMostRecentScheduleTime)', () => {
  const top = Date.parse('2016-05-19T10:00:00Z');
  const min = 60_000;
  const hour = 60 * min;
  const at = (ms: number) => top + ms;
  const c = (schedule: string, startingDeadlineSeconds: number | null = null) => ({ schedule: parseCronSchedule(schedule), startingDeadlineSeconds });
  const cases: [string, ReturnType<typeof c>, number, number, number, number | undefined, boolean][] = [
    // name, cronjob, last scheduled (or created), now, want earliest, want most recent, too many missed
    ['now before next schedule', c('0 * * * *'), at(0), at(30_000), at(0), undefined, false],
    ['now just after next schedule', c('0 * * * *'), at(0), at(61 * min), at(0), at(60 * min), false],
    ['missed 5 schedules', c('0 * * * *'), at(10_000), at(301 * min), at(10_000), at(300 * min), false],
    ['complex schedule', c('30 6-16/4 * * 1-5'), at(30 * min), at(24 * hour + 31 * min), at(30 * min), at(24 * hour + 30 * min), false],
    ['another complex schedule', c('30 10,11,12 * * 1-5'), at(30 * min), at(30 * hour + 30 * min), at(30 * min), undefined, false],
    ['complex schedule with longer diff between executions', c('30 6-16/4 * * 1-5'), at(30 * min), at(96 * hour + 31 * min), at(30 * min), at(96 * hour + 30 * min), false],
    ['@every schedule', c('@every 1h'), at(1 * min), at(7 * 24 * hour), at(1 * min), at(6 * 24 * hour + 23 * hour + 1 * min), true],
    ['earliestTime being LastScheduleTime', c('*/5 * * * *'), at(30 * min), at(31 * min), at(30 * min), undefined, false],
    ['earliestTime being LastScheduleTime (within StartingDeadlineSeconds)', c('*/5 * * * *', 60), at(30 * min), at(31 * min), at(30 * min), undefined, false],
    ['earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)', c('*/5 * * * *', 60), at(30 * min), at(32 * min), at(31 * min), undefined, false],
  ];
  for (const [name, cron, last, now, earliest, recent, many] of cases) {
    it(name, () => {
      const got = mostRecentScheduleTime(cron, last, now);
      assert.equal(got.earliest, earliest);
      assert.equal(got.time, recent);
      assert.equal(got.missed > 100, many);
    });
  }
});
