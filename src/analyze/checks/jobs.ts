// job-completion: does each Job (and one run of each CronJob) finish? Simulated
// twice on the cluster as it is, with the simulated Job controller and the pods'
// berth.dev/run-duration and berth.dev/exit-code (docs/scenario.md):
//   undisturbed — a Job that fails, or whose pods never schedule, is an error
//     (a spec that cannot succeed here);
//   a node loss mid-run — the node running its first pod fails halfway through
//     that pod's run; a Job that then fails (an evicted pod counts against
//     backoffLimit, a deadline too short for the 5-minute eviction) or does not
//     finish is a warning. Fixes (a higher backoffLimit, a longer deadline) are
//     re-simulated through the same loss and reduced like every other fix.

import type { JobSpec, JobSummary } from '../../io/load-jobs.js';
import type { LoadedInput } from '../../io/load.js';
import { podRun } from '../../model/job-run.js';
import type { ScenarioRun } from '../../sim/scenario.js';
import { formatTime } from '../../sim/timeline.js';
import type { JobCondition } from '../../sim/controllers/job.js';
import type { AnalysisContext, Check } from '../check.js';
import type { Finding, ObjectPatch, Remedy } from '../finding.js';
import { proveFixes } from '../prove.js';
import { simulateWhatIf } from '../what-if.js';

const RULE = 'job-completion';
const BASE_HORIZON_MS = 30 * 60_000;
const MAX_HORIZON_MS = 12 * 3_600_000;
/** Pod start (1 s) before a run begins: the node fails halfway through the first pod's run. */
const START_MS = 1_000;

/** What is analysed: a Job of the input, or the Job a CronJob creates at its next run. */
interface Target {
  readonly object: string;
  readonly namespace: string;
  /** The Job's name in the simulation. */
  readonly jobName: string;
  readonly spec: JobSpec;
  /** The input with only this target's Job spec (a CronJob's jobTemplate) changed to `spec`. */
  readonly inputWith: (input: LoadedInput, spec: JobSpec) => LoadedInput;
  /** What is simulated: the input itself, or with the CronJob replaced by one run of it. */
  readonly simulated: (input: LoadedInput) => LoadedInput;
  /** The merge patch that writes `spec`'s change of one field. */
  readonly patch: (fields: Partial<Pick<JobSpec, 'backoffLimit' | 'activeDeadlineSeconds'>>) => ObjectPatch;
}

function targets(input: LoadedInput): Target[] {
  const jobs = (input.jobs ?? []).filter((j) => !j.finished && !j.spec.suspend && j.spec.parallelism > 0);
  const out: Target[] = jobs.map((j) => ({
    object: `Job/${j.namespace}/${j.name}`,
    namespace: j.namespace,
    jobName: j.name,
    spec: j.spec,
    inputWith: (inp, spec) => ({ ...inp, jobs: (inp.jobs ?? []).map((x) => (x.key === j.key ? { ...x, spec } : x)) }),
    simulated: (inp) => inp,
    patch: (fields) => ({ object: `Job/${j.namespace}/${j.name}`, type: 'merge', patch: { spec: fields } }),
  }));
  for (const c of input.cronJobs ?? []) {
    const spec = c.jobTemplate.spec;
    if (spec.suspend || c.suspend || spec.parallelism === 0) continue;
    const jobName = `${c.name}-0`;
    const run = (s: JobSpec): JobSummary => ({ kind: 'Job', namespace: c.namespace, name: jobName, key: `${c.namespace}/${jobName}`, uid: `${c.uid}/run`, spec: s, finished: false });
    out.push({
      object: `CronJob/${c.namespace}/${c.name}`,
      namespace: c.namespace,
      jobName,
      spec,
      inputWith: (inp, s) => ({ ...inp, cronJobs: (inp.cronJobs ?? []).map((x) => (x.key === c.key ? { ...x, jobTemplate: { ...x.jobTemplate, spec: s } } : x)) }),
      simulated: (inp) => ({ ...inp, jobs: [...(inp.jobs ?? []), run(spec)], cronJobs: (inp.cronJobs ?? []).filter((x) => x.key !== c.key) }),
      patch: (fields) => ({ object: `CronJob/${c.namespace}/${c.name}`, type: 'merge', patch: { spec: { jobTemplate: { spec: fields } } } }),
    });
  }
  return out;
}

/** Long enough for every wave of pods and the retries backoffLimit allows. */
function horizon(spec: JobSpec): number {
  const run = podRun(spec.templatePod.annotations).durationMs + START_MS;
  const waves = spec.completions === null ? 1 : Math.ceil(spec.completions / Math.max(1, spec.parallelism));
  return Math.min(MAX_HORIZON_MS, BASE_HORIZON_MS + waves * run + Math.min(spec.backoffLimit, 10) * (run + 10 * 60_000));
}

interface Outcome {
  readonly run: ScenarioRun;
  readonly condition?: JobCondition;
}

/** The target as `ctx.input` has it, undisturbed or with a node lost at a time. */
function simulate(ctx: AnalysisContext, t: Target, loss?: { node: string; at: number }): Outcome {
  const run = simulateWhatIf(
    { ...ctx, input: t.simulated(ctx.input) },
    { name: RULE, steps: loss ? [{ at: loss.at, action: { type: 'failNode', node: loss.node } }] : [], untilMs: horizon(t.spec) + (loss?.at ?? 0) },
  );
  const job = run.sim.jobs.objects.get(`${t.namespace}/${t.jobName}`);
  return { run, ...(job?.status.condition ? { condition: job.status.condition } : {}) };
}

const isJobPod = (t: Target, pod: unknown) => typeof pod === 'string' && new RegExp(`^${t.namespace}/${t.jobName}-(\\d+-)?[a-z0-9]{5}$`).test(pod);

function jobEvidence(t: Target, o: Outcome, from = 0): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const e of o.run.events) {
    if (e.t < from) continue;
    const pod = e['pod'];
    const mine = isJobPod(t, pod);
    if (e.type === 'Step') lines.push(`t=${formatTime(e.t)} ${String(e['action'])} ${String(e['node'] ?? '')}`.trimEnd());
    else if (mine && e.type === 'FailedScheduling') {
      const m = String(e['message']);
      if (!seen.has(m)) lines.push(`t=${formatTime(e.t)} FailedScheduling ${String(pod)}: ${m}`);
      seen.add(m);
    } else if (mine && ['Scheduled', 'PodSucceeded', 'PodFailed', 'PodTerminating'].includes(e.type)) {
      lines.push(`t=${formatTime(e.t)} ${e.type} ${String(pod)}${e['node'] ? ` on ${String(e['node'])}` : ''}${e['reason'] ? ` (${String(e['reason'])})` : ''}`);
    } else if ((e.type === 'JobComplete' || e.type === 'JobFailed') && e['job'] === `${t.namespace}/${t.jobName}`) {
      lines.push(`t=${formatTime(e.t)} ${e.type} ${String(e['reason'])}: ${String(e['message'])} (succeeded ${String(e['succeeded'])}, failed ${String(e['failed'])})`);
    }
  }
  return lines.slice(0, 40);
}

/** The node running the Job's first pod, and halfway through that pod's run. */
function lossPoint(t: Target, o: Outcome): { node: string; at: number } | undefined {
  const first = o.run.events.find((e) => e.type === 'Scheduled' && isJobPod(t, e['pod']));
  if (!first) return undefined;
  return { node: String(first['node']), at: first.t + START_MS + Math.floor(podRun(t.spec.templatePod.annotations).durationMs / 2) };
}

function undisturbedFinding(t: Target, o: Outcome, limit: number): Finding | undefined {
  if (o.condition?.type === 'Complete') return undefined;
  const evidence = jobEvidence(t, o);
  if (o.condition) {
    return { severity: 'error', rule: RULE, object: t.object, message: `the Job fails on this cluster without any disruption: ${o.condition.reason} (${o.condition.message})`, evidence, fix: [] };
  }
  const pending = o.run.final.pending.filter((p) => isJobPod(t, p.pod));
  const why = [...o.run.events].reverse().find((e) => e.type === 'FailedScheduling' && isJobPod(t, e['pod']));
  if (pending.length > 0 && why) {
    return { severity: 'error', rule: RULE, object: t.object, message: `its pods never schedule, so the Job cannot complete: ${String(why['message'])}`, evidence, fix: [] };
  }
  return { severity: 'warning', rule: RULE, object: t.object, message: `the Job has not completed ${formatTime(limit)} after it started`, evidence, fix: [] };
}

function lossCandidates(t: Target, o: Outcome): Remedy[] {
  const out: Remedy[] = [];
  const spec = t.spec;
  const change = (description: string, next: JobSpec, fields: Parameters<Target['patch']>[0]): Remedy => ({
    description,
    apply: (input) => t.inputWith(input, next),
    patches: [t.patch(fields)],
  });
  if (o.condition?.reason === 'BackoffLimitExceeded') {
    const backoffLimit = spec.backoffLimit + 1;
    out.push(change(`backoffLimit: ${backoffLimit} (a pod lost with its node counts as one failure)`, { ...spec, backoffLimit }, { backoffLimit }));
  }
  if (o.condition?.reason === 'DeadlineExceeded' && spec.activeDeadlineSeconds !== null) {
    // The eviction (50 s lease grace + 300 s toleration) and a full rerun of the pod.
    const activeDeadlineSeconds = spec.activeDeadlineSeconds + 360 + Math.ceil(podRun(spec.templatePod.annotations).durationMs / 1000);
    out.push(change(`activeDeadlineSeconds: ${activeDeadlineSeconds} (room for the 5-minute eviction and a rerun after a node loss)`, { ...spec, activeDeadlineSeconds }, { activeDeadlineSeconds }));
  }
  return out;
}

function lossFinding(ctx: AnalysisContext, t: Target, undisturbed: Outcome): Finding | undefined {
  const at = lossPoint(t, undisturbed);
  if (!at) return undefined;
  const o = simulate(ctx, t, at);
  if (o.condition?.type === 'Complete') return undefined;
  const clears = (input: LoadedInput) => {
    const target = targets(input).find((x) => x.object === t.object);
    return target !== undefined && simulate({ ...ctx, input }, target, at).condition?.type === 'Complete';
  };
  const remedies = proveFixes(lossCandidates(t, o), ctx.input, clears);
  const what = o.condition
    ? `the Job fails: ${o.condition.reason} (${o.condition.message})`
    : `the Job has not completed ${formatTime(horizon(t.spec))} later${t.spec.podReplacementPolicy === 'Failed' ? ': with podReplacementPolicy Failed (implied by a podFailurePolicy) the lost pod is replaced only once it is Failed, and a pod on a node that stopped answering stays Terminating until the Node object is deleted' : ''}`;
  return {
    severity: 'warning',
    rule: RULE,
    object: t.object,
    message: `losing node ${at.node} halfway through a run: ${what}`,
    evidence: [`failure model "node loss": node ${at.node}, which runs the Job's first pod, stops answering at t=${formatTime(at.at)}; its pods are evicted 300 s after it turns NotReady`, ...jobEvidence(t, o, at.at)],
    fix: [
      ...remedies.map((r) => `${r.description} (re-simulated through the same node loss: the Job completes)`),
      'advice: a podFailurePolicy rule `{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}` keeps evictions from counting, where lost Nodes are deleted promptly (cloud node lifecycle, Karpenter)',
    ],
    ...(remedies.length > 0 ? { remedies } : {}),
  };
}

export const jobCompletion: Check = {
  rule: RULE,
  description: 'Simulates each Job and one run of each CronJob: does it complete undisturbed, and after losing the node running it',
  run(ctx) {
    const out: Finding[] = [];
    for (const t of targets(ctx.input)) {
      const undisturbed = simulate(ctx, t);
      const f = undisturbedFinding(t, undisturbed, horizon(t.spec)) ?? lossFinding(ctx, t, undisturbed);
      if (f) out.push(f);
    }
    return out;
  },
};
