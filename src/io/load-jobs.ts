// The batch stage of loading: Jobs and CronJobs (batch/v1), validated as the API
// server validates the fields berth simulates, defaulted as it defaults them, and
// their pod template compiled once. The simulated Job and CronJob controllers
// (sim/controllers/job.ts, cronjob.ts) create the pods; none are generated here.

import type { FieldPath } from '../model/errors.js';
import type { JobSpecManifest, PodManifest, PodTemplateManifest } from '../model/manifest.js';
import { CronError, knownTimeZone, parseCronSchedule, type CronSchedule } from '../model/cron.js';
import { EXIT_CODE_ANNOTATION, parseExitCode, parseRunDuration, RUN_DURATION_ANNOTATION } from '../model/job-run.js';
import { compilePod, type Pod } from '../model/pod.js';
import { compileLabelSelector } from '../model/selector.js';
import type { LoadContext } from './context.js';
import type { ParsedObject } from './kinds.js';
import type { RawObject } from './objects.js';

export interface PodFailurePolicyRule {
  readonly action: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
  readonly onExitCodes?: { readonly containerName?: string; readonly operator: 'In' | 'NotIn'; readonly values: readonly number[] };
  /** Pod conditions (type and status, status defaulted to True). */
  readonly onPodConditions?: readonly { readonly type: string; readonly status: string }[];
}

/** A JobSpec after the API server's defaulting: what the Job controller runs. */
export interface JobSpec {
  readonly parallelism: number;
  /** null: the Job is done when any pod succeeds (a work queue). */
  readonly completions: number | null;
  readonly backoffLimit: number;
  readonly activeDeadlineSeconds: number | null;
  readonly completionMode: 'NonIndexed' | 'Indexed';
  readonly suspend: boolean;
  readonly podFailurePolicy: readonly PodFailurePolicyRule[] | null;
  /** Failed when a podFailurePolicy is set (the API server's default then), else TerminatingOrFailed. */
  readonly podReplacementPolicy: 'TerminatingOrFailed' | 'Failed';
  readonly restartPolicy: 'OnFailure' | 'Never';
  /** The pod template as written (annotations carry the simulated run, model/job-run.ts). */
  readonly template: PodTemplateManifest;
  /** The template compiled as a pod (priority resolved); the controller adds the Job's labels and identity. */
  readonly templatePod: Pod;
}

export interface JobSummary {
  readonly kind: 'Job';
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
  readonly spec: JobSpec;
  /** The controlling owner as written (a CronJob's Job in a dump). */
  readonly owner?: { readonly kind: string; readonly name: string; readonly uid?: string };
  /** The input says the Job has finished (Complete or Failed condition): it is not run again. */
  readonly finished: boolean;
  /** metadata.creationTimestamp in ms since the epoch, when written. */
  readonly created?: number;
}

export interface CronJobSummary {
  readonly kind: 'CronJob';
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
  readonly uid: string;
  readonly schedule: CronSchedule;
  /** spec.schedule as written (for messages). */
  readonly scheduleText: string;
  readonly timeZone?: string;
  readonly startingDeadlineSeconds: number | null;
  readonly concurrencyPolicy: 'Allow' | 'Forbid' | 'Replace';
  readonly suspend: boolean;
  readonly successfulJobsHistoryLimit: number;
  readonly failedJobsHistoryLimit: number;
  readonly jobTemplate: { readonly labels: Readonly<Record<string, string>>; readonly annotations: Readonly<Record<string, string>>; readonly spec: JobSpec };
  readonly created?: number;
}

export interface LoadedJobs {
  readonly jobs: JobSummary[];
  readonly cronJobs: CronJobSummary[];
}

/** A CronJob's name leaves room for the 11-character suffix of its Jobs' names. */
const MAX_CRONJOB_NAME = 52;
/** IANA naming rules the API server checks before loading the zone. */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function timestamp(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

/** ValidateJobSpec for the fields berth runs, then the API server's defaults. */
function jobSpec(ctx: LoadContext, raw: RawObject, spec: JobSpecManifest, at: FieldPath, identity: { namespace: string; name: string }): JobSpec | undefined {
  const { reporter } = ctx;
  let ok = true;
  const fail = (path: FieldPath, message: string) => {
    reporter.error(raw, [...at, ...path], message);
    ok = false;
  };
  if (spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null) reporter.warn(raw, [...at, 'backoffLimitPerIndex'], 'not simulated: berth counts every failure against backoffLimit (per-index limits are not modelled)');
  const restart = spec.template.spec.restartPolicy;
  if (restart === undefined || restart === 'Always') fail(['template', 'spec', 'restartPolicy'], 'Required value: valid values: "OnFailure", "Never"');
  else if (spec.podFailurePolicy && restart !== 'Never') fail(['template', 'spec', 'restartPolicy'], `Invalid value: ${JSON.stringify(restart)}: only "Never" is supported when podFailurePolicy is specified`);
  const indexed = spec.completionMode === 'Indexed';
  if (indexed && (spec.completions === undefined || spec.completions === null)) fail(['completions'], 'Required value: when completion mode is Indexed');
  if (spec.podFailurePolicy && spec.podReplacementPolicy === 'TerminatingOrFailed') fail(['podReplacementPolicy'], 'Unsupported value: "TerminatingOrFailed": supported values: "Failed"');
  const containers = new Set([...spec.template.spec.containers, ...(spec.template.spec.initContainers ?? [])].map((c) => c.name));
  spec.podFailurePolicy?.rules.forEach((rule, i) => {
    const path: FieldPath = ['podFailurePolicy', 'rules', i];
    if (rule.onExitCodes && rule.onPodConditions) fail(path, 'Invalid value: specifying both OnExitCodes and OnPodConditions is not supported');
    else if (!rule.onExitCodes && !rule.onPodConditions) fail(path, 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required');
    if (rule.action === 'FailIndex' && (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null)) fail([...path, 'action'], 'Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set');
    const codes = rule.onExitCodes;
    if (codes?.containerName && !containers.has(codes.containerName)) fail([...path, 'onExitCodes', 'containerName'], `Invalid value: ${JSON.stringify(codes.containerName)}: must be one of the container or initContainer names in the pod template`);
    codes?.values.forEach((v, j) => {
      if (codes.operator === 'In' && v === 0) fail([...path, 'onExitCodes', 'values', j], 'Invalid value: 0: must not be 0 for the In operator');
    });
  });
  if (spec.selector) {
    const selector = reporter.attempt(raw, () => compileLabelSelector(spec.selector ?? {}), [...at, 'selector']);
    if (!selector) ok = false;
    else if (spec.manualSelector && !selector.matches(spec.template.metadata?.labels ?? {})) fail(['template', 'metadata', 'labels'], `Invalid value: ${JSON.stringify(spec.template.metadata?.labels ?? {})}: \`selector\` does not match template \`labels\``);
  }
  const annotations = spec.template.metadata?.annotations ?? {};
  const annotationPath: FieldPath = [...at, 'template', 'metadata', 'annotations'];
  for (const [key, parse] of [
    [RUN_DURATION_ANNOTATION, parseRunDuration],
    [EXIT_CODE_ANNOTATION, parseExitCode],
  ] as const) {
    const v = annotations[key];
    if (v === undefined) continue;
    try {
      parse(v);
    } catch (e) {
      reporter.error(raw, [...annotationPath, key], `Invalid value: ${JSON.stringify(v)}: ${(e as Error).message}`);
      ok = false;
    }
  }
  const admitted = ctx.admit(raw, spec.template.spec, [...at, 'template']);
  const manifest: PodManifest = { metadata: { ...identity, labels: spec.template.metadata?.labels ?? {}, annotations }, spec: admitted.spec };
  const templatePod = reporter.attempt(raw, () => compilePod(manifest, { order: 0, ...admitted.context }), [...at, 'template']);
  if (!ok || !templatePod || admitted.problems.some((p) => p.severity === 'error') || (restart !== 'OnFailure' && restart !== 'Never')) return undefined;
  // SetDefaults_Job: both unset means one pod to completion; parallelism alone means a work queue.
  const bothUnset = (spec.completions === undefined || spec.completions === null) && spec.parallelism === undefined;
  const rules = spec.podFailurePolicy?.rules.map((r) => ({
    action: r.action,
    ...(r.onExitCodes ? { onExitCodes: { operator: r.onExitCodes.operator, values: r.onExitCodes.values, ...(r.onExitCodes.containerName ? { containerName: r.onExitCodes.containerName } : {}) } } : {}),
    ...(r.onPodConditions ? { onPodConditions: r.onPodConditions.map((c) => ({ type: c.type, status: c.status ?? 'True' })) } : {}),
  }));
  return {
    parallelism: spec.parallelism ?? 1,
    completions: bothUnset ? 1 : (spec.completions ?? null),
    backoffLimit: spec.backoffLimit ?? 6,
    activeDeadlineSeconds: spec.activeDeadlineSeconds ?? null,
    completionMode: spec.completionMode ?? 'NonIndexed',
    suspend: spec.suspend ?? false,
    podFailurePolicy: rules ?? null,
    podReplacementPolicy: spec.podReplacementPolicy ?? (rules ? 'Failed' : 'TerminatingOrFailed'),
    restartPolicy: restart,
    template: spec.template,
    templatePod,
  };
}

function validateTimeZone(zone: string): string | undefined {
  if (zone === '') return 'timeZone must be nil or non-empty string';
  if (zone.split('/').some((part) => part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part))) return `unknown time zone ${zone}`;
  if (zone.toLowerCase() === 'local') return 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones';
  return knownTimeZone(zone) ? undefined : `unknown time zone ${zone}`;
}

function loadCronJob(ctx: LoadContext, p: Extract<ParsedObject, { kind: 'CronJob' }>): CronJobSummary | undefined {
  const { reporter } = ctx;
  const m = p.manifest;
  const name = ctx.requireName(p);
  if (!name) return undefined;
  const namespace = m.metadata.namespace || 'default';
  let ok = true;
  if (name.length > MAX_CRONJOB_NAME) {
    reporter.error(p.raw, ['metadata', 'name'], `Invalid value: ${JSON.stringify(name)}: must be no more than ${MAX_CRONJOB_NAME} characters`);
    ok = false;
  }
  const text = m.spec.schedule;
  let schedule: CronSchedule | undefined;
  try {
    if (text.trim() === '') throw new CronError('empty spec string');
    schedule = parseCronSchedule(text);
  } catch (e) {
    if (!(e instanceof CronError)) throw e;
    reporter.error(p.raw, ['spec', 'schedule'], `Invalid value: ${JSON.stringify(text)}: ${e.message}`);
  }
  if (text.includes('TZ')) {
    reporter.error(p.raw, ['spec', 'schedule'], `Invalid value: ${JSON.stringify(text)}: cannot use TZ or CRON_TZ in schedule, use timeZone field instead`);
    ok = false;
  }
  const zone = m.spec.timeZone ?? undefined;
  const zoneProblem = zone === undefined ? undefined : validateTimeZone(zone);
  if (zoneProblem) {
    reporter.error(p.raw, ['spec', 'timeZone'], `Invalid value: ${JSON.stringify(zone)}: ${zoneProblem}`);
    ok = false;
  }
  const template = m.spec.jobTemplate;
  const spec = jobSpec(ctx, p.raw, template.spec, ['spec', 'jobTemplate', 'spec'], { namespace, name });
  if (!ok || !schedule || !spec) return undefined;
  const created = timestamp(m.metadata.creationTimestamp);
  return {
    kind: 'CronJob',
    namespace,
    name,
    key: `${namespace}/${name}`,
    uid: m.metadata.uid ?? `${namespace}/${name}`,
    schedule,
    scheduleText: text,
    ...(zone !== undefined ? { timeZone: zone } : {}),
    startingDeadlineSeconds: m.spec.startingDeadlineSeconds ?? null,
    concurrencyPolicy: m.spec.concurrencyPolicy ?? 'Allow',
    suspend: m.spec.suspend ?? false,
    successfulJobsHistoryLimit: m.spec.successfulJobsHistoryLimit ?? 3,
    failedJobsHistoryLimit: m.spec.failedJobsHistoryLimit ?? 1,
    jobTemplate: { labels: template.metadata?.labels ?? {}, annotations: template.metadata?.annotations ?? {}, spec },
    ...(created !== undefined ? { created } : {}),
  };
}

function loadJob(ctx: LoadContext, p: Extract<ParsedObject, { kind: 'Job' }>): JobSummary | undefined {
  const m = p.manifest;
  const name = ctx.requireName(p);
  if (!name) return undefined;
  const namespace = m.metadata.namespace || 'default';
  const spec = jobSpec(ctx, p.raw, m.spec, ['spec'], { namespace, name });
  if (!spec) return undefined;
  const refs = m.metadata.ownerReferences ?? [];
  const ref = refs.find((r) => r.controller) ?? (refs.length === 1 ? refs[0] : undefined);
  const finished = (m.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  const created = timestamp(m.metadata.creationTimestamp);
  return {
    kind: 'Job',
    namespace,
    name,
    key: `${namespace}/${name}`,
    uid: m.metadata.uid ?? `${namespace}/${name}`,
    spec,
    ...(ref ? { owner: { kind: ref.kind, name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) } } : {}),
    finished,
    ...(created !== undefined ? { created } : {}),
  };
}

export function loadJobs(ctx: LoadContext, jobs: readonly Extract<ParsedObject, { kind: 'Job' }>[], cronJobs: readonly Extract<ParsedObject, { kind: 'CronJob' }>[]): LoadedJobs {
  return {
    jobs: jobs.flatMap((p) => loadJob(ctx, p) ?? []),
    cronJobs: cronJobs.flatMap((p) => loadCronJob(ctx, p) ?? []),
  };
}
