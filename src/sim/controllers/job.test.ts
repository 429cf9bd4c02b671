import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClusterState, loadSources } from '../../io/load.js';
import { createSimulation, type Simulation } from '../simulation.js';
import { addJobs } from '../workloads.js';
import { indentLines } from '../fixtures.test-support.js';
import { matchPodFailurePolicy, remainingBackoffMs, type SimJob } from './job.js';
import type { Pod } from '../../model/pod.js';

const NODES = (count: number, cpu = '2') =>
  Array.from({ length: count }, (_, i) => `---
apiVersion: v1
kind: Node
metadata: {name: n${i + 1}, labels: {kubernetes.io/hostname: n${i + 1}}}
status: {allocatable: {cpu: "${cpu}", memory: 8Gi, pods: "110"}}`).join('\n');

/** A Job `j` whose pods ask for 1 CPU, with the spec fields and template annotations given. */
function jobYaml(spec: string, annotations = '{}', restartPolicy = 'Never'): string {
  return `---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: default}
spec:
${indentLines(spec)}
  template:
    metadata: {annotations: ${annotations}}
    spec:
      restartPolicy: ${restartPolicy}
      containers: [{name: main, resources: {requests: {cpu: "1"}}}]`;
}

function run(text: string, nodes = 2, cpu = '2'): { sim: Simulation; job: SimJob } {
  const r = loadSources([{ name: 'job.yaml', text: NODES(nodes, cpu) + '\n' + text }]);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  const sim = createSimulation(buildClusterState(r.input), { seed: 1 });
  addJobs(sim, r.input.jobs ?? [], r.input.cronJobs ?? []);
  return { sim, job: sim.jobs.objects.get('default/j')! };
}

const created = (sim: Simulation) => sim.engine.log.filter((e) => e.type === 'PodCreated').map((e) => e.t);
const finished = (sim: Simulation) => sim.engine.log.find((e) => e.type === 'JobComplete' || e.type === 'JobFailed');

// Translations of kube-controller-manager's TestControllerSyncJob cases (pkg/controller/job/job_controller_test.go), as runs of the simulated controller.
describe('Job controller (TestControllerSyncJob)', () => {
  it('"job start": creates parallelism pods at once, owned by the Job and labelled with its name', () => {
    const { sim, job } = run(jobYaml('parallelism: 2\ncompletions: 5'));
    sim.engine.run(0);
    const pods = sim.jobs.activePods(job);
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.match(p.name, /^j-[a-z0-9]{5}$/);
      assert.equal(p.labels['batch.kubernetes.io/job-name'], 'j');
      assert.equal(p.ownerReferences[0]?.kind, 'Job');
    }
  });

  it('"WQ job start": a Job without completions starts parallelism pods and completes when one succeeds and none is active', () => {
    const { sim, job } = run(jobYaml('parallelism: 2'));
    sim.engine.run(10 * 60_000);
    assert.equal(created(sim).length, 2);
    assert.equal(job.status.condition?.type, 'Complete');
    assert.equal(job.status.succeeded, 2);
  });

  it('"more active pods than remaining completions" / "job finish": runs completions pods in all, parallelism at a time, then Complete', () => {
    const { sim, job } = run(jobYaml('parallelism: 2\ncompletions: 3', '{berth.dev/run-duration: 2m}'));
    sim.engine.run(60 * 60_000);
    // Two at t=0; the third when the first two succeed (start 1 s + run 2 min).
    assert.deepEqual(created(sim), [0, 121_000, 121_000].slice(0, 3).map((t, i) => (i < 2 ? 0 : t)));
    assert.equal(job.status.condition?.type, 'Complete');
    assert.equal(job.status.condition?.reason, 'CompletionsReached');
    assert.equal(job.status.succeeded, 3);
    assert.equal(finished(sim)?.t, 242_000);
  });

  it('"pending pods": pods that cannot be scheduled keep the Job active, and no more are created', () => {
    const { sim, job } = run(jobYaml('parallelism: 3\ncompletions: 3'), 1, '500m');
    sim.engine.run(30 * 60_000);
    assert.equal(created(sim).length, 3);
    assert.equal(job.status.condition, undefined);
    assert.equal(sim.world.cluster.pendingPods().length, 3);
  });

  it('"correct # of pods": parallelism 3 of completions 3 on room for one run one after another', () => {
    const { sim, job } = run(jobYaml('parallelism: 3\ncompletions: 3'), 1, '1');
    sim.engine.run(30 * 60_000);
    assert.equal(created(sim).length, 3);
    assert.equal(job.status.condition?.type, 'Complete');
  });

  it('"too many job failures": failures beyond backoffLimit fail the Job with BackoffLimitExceeded, after back-offs of 10 s, 20 s', () => {
    const { sim, job } = run(jobYaml('backoffLimit: 2', '{berth.dev/exit-code: "1", berth.dev/run-duration: 5s}'));
    sim.engine.run(10 * 60_000);
    // Each pod fails 6 s after it is created (start 1 s, run 5 s); the next waits 10 s, then 20 s.
    assert.deepEqual(created(sim), [0, 16_000, 42_000]);
    assert.equal(job.status.failed, 3);
    assert.deepEqual([job.status.condition?.type, job.status.condition?.reason], ['Failed', 'BackoffLimitExceeded']);
    assert.equal(finished(sim)?.t, 48_000);
  });

  it('"new failed pod" with restartPolicy OnFailure: container restarts count against backoffLimit', () => {
    const { sim, job } = run(jobYaml('backoffLimit: 2', '{berth.dev/exit-code: "3", berth.dev/run-duration: 5s}', 'OnFailure'));
    sim.engine.run(10 * 60_000);
    assert.equal(created(sim).length, 1, 'the pod restarts in place');
    assert.deepEqual([job.status.condition?.type, job.status.condition?.reason], ['Failed', 'BackoffLimitExceeded']);
    assert.equal(sim.engine.log.filter((e) => e.type === 'ContainerRestarted').length, 2);
  });

  it('"indexed job start" / "indexed job completed": one pod per index, named and labelled with it', () => {
    const { sim, job } = run(jobYaml('completionMode: Indexed\ncompletions: 3\nparallelism: 2'));
    sim.engine.run(0);
    const names = sim.jobs.activePods(job).map((p) => p.labels['batch.kubernetes.io/job-completion-index']);
    assert.deepEqual(names, ['0', '1']);
    assert.match(sim.jobs.activePods(job)[0]!.name, /^j-0-[a-z0-9]{5}$/);
    sim.engine.run(10 * 60_000);
    assert.deepEqual([...job.status.completedIndexes].sort(), [0, 1, 2]);
    assert.equal(job.status.condition?.type, 'Complete');
  });

  it('"suspending a job with satisfied expectations": a suspended Job creates no pods', () => {
    const { sim, job } = run(jobYaml('suspend: true'));
    sim.engine.run(10 * 60_000);
    assert.equal(created(sim).length, 0);
    assert.equal(job.status.condition, undefined);
  });
});

// TestSyncJobPastDeadline (job_controller_test.go).
describe('Job controller: activeDeadlineSeconds (TestSyncJobPastDeadline)', () => {
  it('"activeDeadlineSeconds less than single pod execution": the Job fails with DeadlineExceeded and its pod is deleted', () => {
    const { sim, job } = run(jobYaml('activeDeadlineSeconds: 10', '{berth.dev/run-duration: 1m}'));
    sim.engine.run(5 * 60_000);
    assert.deepEqual([job.status.condition?.reason, job.status.condition?.at], ['DeadlineExceeded', 10_000]);
    assert.ok(sim.engine.log.some((e) => e.type === 'PodTerminating' && e['reason'] === 'JobDeadlineExceeded'));
  });

  it('"activeDeadlineSeconds bigger than single pod execution": the Job completes', () => {
    const { sim, job } = run(jobYaml('activeDeadlineSeconds: 600', '{berth.dev/run-duration: 1m}'));
    sim.engine.run(15 * 60_000);
    assert.equal(job.status.condition?.type, 'Complete');
  });

  it('"activeDeadlineSeconds times-out before any pod starts": an unschedulable Job fails at its deadline', () => {
    const { sim, job } = run(jobYaml('activeDeadlineSeconds: 30'), 1, '500m');
    sim.engine.run(5 * 60_000);
    assert.equal(job.status.condition?.reason, 'DeadlineExceeded');
  });
});

// TestGetRemainingBackoffTime (backoff_utils_test.go): default back-off 5 s, maximum 700 s.
describe('remainingBackoffMs (TestGetRemainingBackoffTime)', () => {
  const cases: [string, number, number, number][] = [
    ['no failures', 0, 0, 0],
    ['one failure; current time and failure time are same', 1, 0, 5_000],
    ['one failure; current time == 1 second + failure time', 1, 1_000, 4_000],
    ['one failure; current time == expected backoff time', 1, 5_000, 0],
    ['one failure; current time == expected backoff time + 1 Second', 1, 6_000, 0],
    ['three failures; current time and failure time are same', 3, 0, 20_000],
    ['eight failures; current time and failure time are same; backoff not exceeding maxBackoff', 8, 0, 640_000],
    ['nine failures; current time and failure time are same; backoff exceeding maxBackoff', 9, 0, 700_000],
  ];
  for (const [name, failures, elapsed, want] of cases) {
    it(name, () => assert.equal(remainingBackoffMs(failures, failures === 0 ? undefined : 1_000_000, 1_000_000 + elapsed, 5_000, 700_000), want));
  }
});

// TestMatchPodFailurePolicy (pod_failure_policy_test.go).
describe('matchPodFailurePolicy (TestMatchPodFailurePolicy)', () => {
  const pod = { key: 'default/mypod' } as Pod;
  const exit = (code: number) => ({ pod, exitCode: code, at: 0 });
  const disrupted = { pod, disruption: 'DeletionByTaintManager', at: 0 };
  const names = ['main-container'];
  it('"no policy rules": counted', () => assert.deepEqual(matchPodFailurePolicy([], exit(2), names), { count: true }));
  it('"ignore rule matched for exit codes": not counted', () => assert.deepEqual(matchPodFailurePolicy([{ action: 'Ignore', onExitCodes: { operator: 'In', values: [1, 2, 3] } }], exit(2), names), { count: false }));
  it('"FailJob rule matched for exit codes": the Job fails with the container, pod, code and rule index', () =>
    assert.deepEqual(matchPodFailurePolicy([{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 2, 3] } }], exit(2), names), {
      failJob: 'Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 0',
      count: true,
    }));
  it('"pod failure policy with NotIn operator and value 0": a non-zero code not listed matches', () =>
    assert.deepEqual(matchPodFailurePolicy([{ action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [0] } }], exit(1), names).count, true));
  it('"second jobfail rule matched for exit codes": the first matching rule decides', () =>
    assert.match(
      matchPodFailurePolicy(
        [
          { action: 'Count', onExitCodes: { operator: 'In', values: [1, 2, 3] } },
          { action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [5, 6, 7] } },
        ],
        exit(4),
        names,
      ).failJob ?? '',
      /matching FailJob rule at index 1$/,
    ));
  it('"ignore rule matched for pod conditions": a disrupted pod is not counted', () =>
    assert.deepEqual(matchPodFailurePolicy([{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }], disrupted, names), { count: false }));
  it('"job fail rule matched for pod conditions"', () =>
    assert.equal(matchPodFailurePolicy([{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }], disrupted, names).failJob, 'Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0'));
  it('"no rule matched": counted', () => assert.deepEqual(matchPodFailurePolicy([{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }], exit(3), names), { count: true }));
});

describe('Job controller: a node lost during a run', () => {
  const lose = (spec: string) => {
    const { sim, job } = run(jobYaml(spec, '{berth.dev/run-duration: 20m}'));
    sim.engine.run(60_000);
    const node = sim.jobs.activePods(job)[0]!.nodeName;
    // The instance is gone: its kubelet stops and, 2 minutes later, its Node object is deleted.
    sim.world.setKubeletRunning(node, false);
    sim.engine.run(3 * 60_000);
    sim.world.deleteNode(node, 'InstanceTerminated');
    sim.engine.run(40 * 60_000);
    return job;
  };
  it('with backoffLimit 0 the lost pod is a failure and the Job fails', () => {
    assert.equal(lose('backoffLimit: 0').status.condition?.reason, 'BackoffLimitExceeded');
  });
  it('a podFailurePolicy that ignores DisruptionTarget lets the replacement finish the Job', () => {
    const job = lose('backoffLimit: 0\npodFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]}');
    assert.equal(job.status.condition?.type, 'Complete');
    assert.equal(job.status.failed, 0);
  });
});
