import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSources } from './load.js';

const errors = (text: string) => {
  const r = loadSources([{ name: 'b.yaml', text }]);
  return r.ok ? [] : r.errors.map((e) => `${e.line}:${e.field}: ${e.message}`);
};

const job = (spec: string, podSpec = 'restartPolicy: Never') => `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  ${spec}
  template:
    metadata: {annotations: {berth.dev/run-duration: 2m}}
    spec:
      ${podSpec}
      containers: [{name: c}]`;

describe('loading Jobs and CronJobs', () => {
  it('defaults a Job as the API server does', () => {
    const r = loadSources([{ name: 'b.yaml', text: job('backoffLimit: 1') }]);
    assert.ok(r.ok);
    const s = r.input.jobs![0]!.spec;
    assert.deepEqual([s.parallelism, s.completions, s.backoffLimit, s.completionMode, s.podReplacementPolicy], [1, 1, 1, 'NonIndexed', 'TerminatingOrFailed']);
  });

  it('refuses a Job whose pods would restart forever, naming the field', () => {
    assert.deepEqual(errors(job('parallelism: 1', 'restartPolicy: Always')), ['9:spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
  });

  it('refuses a bad run-duration annotation where it is written', () => {
    const text = job('parallelism: 1').replace('2m', 'soon');
    assert.match(errors(text)[0] ?? '', /^7:spec\.template\.metadata\.annotations\[berth\.dev\/run-duration\]: Invalid value: "soon": time: invalid duration/);
  });

  it('refuses an Indexed Job without completions', () => {
    assert.match(errors(job('completionMode: Indexed'))[0] ?? '', /spec\.completions: Required value: when completion mode is Indexed/);
  });

  const cron = (spec: string) => `apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  ${spec}
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: c}]}`;

  it('reads schedules with ranges, steps, names and descriptors', () => {
    for (const s of ['"0-30/10 1,3 * jan-mar mon-fri"', '"@daily"', '"*/15 * * * *"']) assert.deepEqual(errors(cron(`schedule: ${s}`)), [], s);
  });

  it('refuses an invalid schedule, TZ in the schedule and an unknown time zone, with upstream messages', () => {
    assert.match(errors(cron('schedule: "61 * * * *"'))[0] ?? '', /spec\.schedule: Invalid value: "61 \* \* \* \*": end of range \(61\) above maximum \(59\): 61/);
    assert.match(errors(cron('schedule: "TZ=UTC 0 * * * *"')).join('\n'), /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/);
    assert.match(errors(cron('schedule: "0 * * * *"\n  timeZone: Mars/Olympus'))[0] ?? '', /spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/);
    assert.match(errors(cron('schedule: "0 * * * *"\n  timeZone: Local'))[0] ?? '', /timeZone must be an explicit time zone/);
  });
});
