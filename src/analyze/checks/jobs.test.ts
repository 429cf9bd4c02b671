import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { checkCases, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { jobCompletion } from './jobs.js';

const job = (spec: string, cpu = '1', annotations = '{berth.dev/run-duration: 10m}') => `- apiVersion: batch/v1
  kind: Job
  metadata: {name: report, namespace: default}
  spec:
    ${spec}
    template:
      metadata: {annotations: ${annotations}}
      spec: {restartPolicy: Never, containers: [{name: c, image: r, resources: {requests: {cpu: "${cpu}"}}}]}`;
const cron = `- apiVersion: batch/v1
  kind: CronJob
  metadata: {name: nightly, namespace: default}
  spec:
    schedule: "0 3 * * *"
    jobTemplate:
      spec:
        backoffLimit: 0
        template:
          metadata: {annotations: {berth.dev/run-duration: 10m}}
          spec: {restartPolicy: Never, containers: [{name: c, image: r}]}`;
const nodes = listYaml(nodeYaml('n1', 'us-west-2a'), nodeYaml('n2', 'us-west-2b'));

const cases: CheckCase[] = [
  { name: 'a Job that completes undisturbed and after a node loss (default backoffLimit 6) is not reported', input: () => loadInput({ text: nodes + '\n' + job('completions: 1') }), want: [] },
  {
    name: 'backoffLimit 0: losing the node mid-run fails the Job; fix backoffLimit 1, re-simulated',
    input: () => loadInput({ text: nodes + '\n' + job('backoffLimit: 0') }),
    want: ['warning Job/default/report'],
    message: /^losing node n\d halfway through a run: the Job fails: BackoffLimitExceeded/,
  },
  {
    name: 'pods larger than any node never schedule: error with the scheduler message',
    input: () => loadInput({ text: nodes + '\n' + job('completions: 1', '64') }),
    want: ['error Job/default/report'],
    message: /^its pods never schedule, so the Job cannot complete: 0\/2 nodes are available: 2 Insufficient cpu/,
  },
  {
    name: 'a Job whose pods exit 1 fails undisturbed: error',
    input: () => loadInput({ text: nodes + '\n' + job('backoffLimit: 1', '1', '{berth.dev/run-duration: 10s, berth.dev/exit-code: "1"}') }),
    want: ['error Job/default/report'],
    message: /^the Job fails on this cluster without any disruption: BackoffLimitExceeded/,
  },
  { name: "a CronJob's run is checked like a Job", input: () => loadInput({ text: nodes + '\n' + cron }), want: ['warning CronJob/default/nightly'] },
];

describe('job-completion', () =>
  checkCases(jobCompletion, cases, (f) => {
    assert.ok(f.evidence.length > 0);
    // The node-loss findings carry the re-simulated backoffLimit fix as a merge patch.
    if (f.severity === 'warning') assert.match(f.fix[0] ?? '', /^backoffLimit: 1 /);
  }));
