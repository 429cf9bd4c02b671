// The berth.dev/v1alpha1 Scenario document: settings, steps and expectations,
// validated with positions for every error. Its inline objects are read by
// loadSources like any other input (objects.ts treats the Scenario as a
// container); `files:` entries and `spec.catalog` come back as paths relative to
// the scenario, for the caller to read.

import { z } from 'zod';
import { atPath, FieldError, type FieldPath } from '../model/errors.js';
import { DurationError, parseGoDuration } from '../model/go-duration.js';
import { compileNode } from '../model/node.js';
import { compileNodePool, nodePoolErrors, type NodePool, type NodePoolManifest } from '../model/nodepool.js';
import { compileLabelSelector } from '../model/selector.js';
import {
  compilePersistentVolume,
  compilePersistentVolumeClaim,
  compileStorageClass,
  type PersistentVolumeClaimManifest,
  type PersistentVolumeManifest,
  type StorageClassManifest,
} from '../model/volumes.js';
import { MAX_SIMULATED_MS, MAX_SIMULATED_TEXT, type Action, type Check, type Expectation, type PodSelection, type ScenarioSpec, type Step } from './scenario-spec.js';
import { formatFieldPath, type Diagnostic } from './diagnostics.js';
import { compileDescheduler, deschedulerSchema } from './scenario-descheduler.js';
import { SCENARIO_API_VERSION, SCENARIO_KIND } from './objects.js';
import { nodePoolSchema } from './nodepool-schema.js';
import { persistentVolumeClaimSchema, persistentVolumeSchema, storageClassSchema } from './volume-schemas.js';
import { issueMessage, labelSelector, nodeSchema } from './schemas.js';
import { MAX_GENERATED_PODS } from './workloads.js';
import { parseSource, type ParsedSource, type SourceDocument, type SourceInput } from './yaml-source.js';

const duration = z.string().superRefine((v, ctx) => {
  try {
    const ns = parseGoDuration(v);
    if (ns < 0n) ctx.addIssue({ code: 'custom', message: `Invalid value: ${JSON.stringify(v)}: must not be negative` });
    if (ns > BigInt(MAX_SIMULATED_MS) * 1_000_000n) ctx.addIssue({ code: 'custom', message: `Invalid value: ${JSON.stringify(v)}: ${TOO_LONG}` });
  } catch (e) {
    if (!(e instanceof DurationError)) throw e;
    ctx.addIssue({ code: 'custom', message: `Invalid value: ${JSON.stringify(v)}: ${e.message}` });
  }
});
const TOO_LONG = `must be at most ${MAX_SIMULATED_TEXT}: a scenario simulates up to a year`;
const toMs = (d: string) => Number(parseGoDuration(d) / 1_000_000n);

const count = z.int().min(0);
const nodeRef = z.object({ node: z.string().min(1) }).strict();
const selection = { selector: labelSelector, namespace: z.string().min(1).optional() };
const workloadRef = z.string().min(1);

const actions = {
  scale: z.object({ deployment: workloadRef.optional(), statefulSet: workloadRef.optional(), replicaSet: workloadRef.optional(), replicas: count.max(MAX_GENERATED_PODS) }).strict(),
  rollout: z.object({ deployment: workloadRef.optional(), statefulSet: workloadRef.optional(), daemonSet: workloadRef.optional(), image: z.string().min(1).optional(), container: z.string().min(1).optional() }).strict(),
  failNode: nodeRef,
  recoverNode: nodeRef,
  failZone: z.object({ zone: z.string().min(1) }).strict(),
  recoverZone: z.object({ zone: z.string().min(1) }).strict(),
  terminateNode: nodeRef,
  spotInterruption: nodeRef,
  insufficientCapacity: z
    .object({ instanceType: z.string().min(1).optional(), zone: z.string().min(1).optional(), capacityType: z.enum(['on-demand', 'spot']).optional(), for: duration })
    .strict(),
  cordon: nodeRef,
  uncordon: nodeRef,
  drain: nodeRef,
  addNode: z.record(z.string(), z.unknown()),
  removeNode: nodeRef,
  deletePod: z.object({ pod: z.string().min(1) }).strict(),
  deleteStatefulSet: z.object({ statefulSet: workloadRef }).strict(),
  provisioner: z.object({ enabled: z.boolean() }).strict(),
  updateNodePool: z.record(z.string(), z.unknown()),
  addPersistentVolume: z.record(z.string(), z.unknown()),
  deletePersistentVolume: z.object({ name: z.string().min(1) }).strict(),
  addPersistentVolumeClaim: z.record(z.string(), z.unknown()),
  deletePersistentVolumeClaim: z.object({ claim: z.string().min(1) }).strict(),
  addStorageClass: z.record(z.string(), z.unknown()),
  deleteStorageClass: z.object({ name: z.string().min(1) }).strict(),
} as const;
export const ACTION_NAMES = Object.keys(actions) as (keyof typeof actions)[];

const checks = {
  allScheduled: z.object({}).strict().nullable(),
  pending: z.object({ ...selection, count }).strict(),
  distinctNodes: z.object(selection).strict(),
  distinctZones: z.object({ ...selection, min: count }).strict(),
  maxPerNode: z.object({ ...selection, max: count }).strict(),
  nodeCount: z.object({ nodePool: z.string().min(1).optional(), min: count.optional(), max: count.optional() }).strict(),
  rolloutComplete: z.object({ deployment: workloadRef, within: duration }).strict(),
  rolloutStuck: z.object({ deployment: workloadRef, for: duration }).strict(),
  availableReplicas: z.object({ deployment: workloadRef, min: count, throughout: z.boolean().optional() }).strict(),
  disruptions: z.object({ reason: z.enum(['Empty', 'Underutilized', 'Drifted', 'Expired']).optional(), min: count.optional(), max: count.optional(), maxConcurrent: count.optional() }).strict(),
} as const;
export const CHECK_NAMES = Object.keys(checks) as (keyof typeof checks)[];

const stepSchema = z.object({ at: duration.optional(), after: z.string().optional(), ...partial(actions) }).strict();
const expectSchema = z.object({ at: duration.optional(), ...partial(checks) }).strict();

function partial<T extends Record<string, z.ZodType>>(shape: T): { [K in keyof T]: z.ZodOptional<T[K]> } {
  return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };
}

export const scenarioSchema = z
  .object({
    apiVersion: z.literal(SCENARIO_API_VERSION),
    kind: z.literal(SCENARIO_KIND),
    metadata: z.object({ name: z.string().min(1) }).loose(),
    spec: z
      .object({
        seed: z.int().min(0).max(0xffffffff).optional(),
        startTime: z.iso.datetime({ offset: true }).optional(),
        until: duration.optional(),
        objects: z.array(z.union([z.object({ files: z.array(z.string().min(1)).min(1) }).strict(), z.record(z.string(), z.unknown())])).optional(),
        catalog: z.string().min(1).optional(),
        provisioner: z.object({ enabled: z.boolean().optional(), batchIdle: duration.optional(), batchMax: duration.optional() }).strict().optional(),
        disruption: z
          .object({ enabled: z.boolean().optional(), spotToSpotConsolidation: z.boolean().optional(), pollInterval: duration.optional(), validationDelay: duration.optional(), optimize: z.literal('cost', { error: 'must be "cost"' }).optional() })
          .strict()
          .optional(),
        timing: z
          .object({ podStart: duration, podReady: duration, nodeLaunch: duration, nodeRegister: duration, nodeReady: duration, startupTaints: duration, volumeProvision: duration })
          .partial()
          .strict()
          .optional(),
        descheduler: deschedulerSchema(duration).optional(),
        steps: z.array(stepSchema).optional(),
        expect: z.array(expectSchema).optional(),
      })
      .strict(),
  })
  .loose();

type RawScenario = z.infer<typeof scenarioSchema>;

export interface LoadedScenario {
  readonly spec: ScenarioSpec;
  /** Files the scenario refers to (objects and catalog), resolved against its own path. */
  readonly files: readonly string[];
}

/** `source` is the parsed text, for loadSources to read the inline objects from without parsing it again. */
export type ScenarioResult = { readonly ok: true; readonly scenario: LoadedScenario; readonly source: ParsedSource } | { readonly ok: false; readonly errors: Diagnostic[] };

const AFTER = /^(?:previous\s*\+\s*)?(.+)$/;

/** Resolves `rel` against the folder of `file` ('/'-separated, as the CLI passes paths). */
function resolveRelative(file: string, rel: string): string {
  if (rel.startsWith('/')) return rel;
  const slash = file.lastIndexOf('/');
  return slash < 0 ? rel : `${file.slice(0, slash + 1)}${rel}`;
}

export function loadScenario(input: SourceInput): ScenarioResult {
  const parsed = parseSource(input);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return { ok: false, errors };
  const docs = parsed.documents.filter((d) => isScenario(d.value));
  const first = docs[0];
  if (!first || docs.length > 1) {
    const pos = docs[1]?.locate([]) ?? { line: 1, column: 1 };
    return { ok: false, errors: [{ severity: 'error', file: input.name, line: pos.line, column: pos.column, message: `expected exactly one ${SCENARIO_API_VERSION} ${SCENARIO_KIND} document, found ${docs.length}` }] };
  }
  const doc = first;
  const fail = (path: FieldPath, message: string): ScenarioResult => ({ ok: false, errors: [diagnostic(doc, path, message)] });
  const result = scenarioSchema.safeParse(doc.value, { error: issueMessage });
  if (!result.success) {
    return { ok: false, errors: result.error.issues.map((i) => diagnostic(doc, i.path.map((p) => (typeof p === 'number' ? p : String(p))), i.message)) };
  }
  try {
    return { ok: true, scenario: compileScenario(result.data, doc, input.name), source: parsed };
  } catch (e) {
    if (e instanceof FieldError) return fail(e.path, e.message);
    throw e;
  }
}

function isScenario(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as Record<string, unknown>)['kind'] === SCENARIO_KIND;
}

function diagnostic(doc: SourceDocument, path: FieldPath, message: string): Diagnostic {
  const pos = doc.locate(path);
  const field = formatFieldPath(path);
  return { severity: 'error', file: doc.file, line: pos.line, column: pos.column, object: SCENARIO_KIND, ...(field ? { field } : {}), message };
}

function compileScenario(raw: RawScenario, doc: SourceDocument, file: string): LoadedScenario {
  const spec = raw.spec;
  const at = (path: FieldPath) => {
    const p = doc.locate(path);
    return `${file}:${p.line}`;
  };
  const steps: Step[] = [];
  let previous = 0;
  (spec.steps ?? []).forEach((s, i) => {
    const path: FieldPath = ['spec', 'steps', i];
    const names = ACTION_NAMES.filter((n) => s[n] !== undefined);
    if (names.length !== 1) throw new FieldError(`Invalid value: a step has exactly one action (${ACTION_NAMES.join(', ')}), found ${names.length === 0 ? 'none' : names.join(', ')}`, path);
    if ((s.at === undefined) === (s.after === undefined)) throw new FieldError('Required value: a step has either `at` (time from the start) or `after` (time after the previous step)', path);
    let time: number;
    if (s.at !== undefined) time = toMs(s.at);
    else {
      const m = AFTER.exec(s.after!.trim());
      time = previous + parseDurationAt(m?.[1] ?? '', [...path, 'after']);
    }
    if (time < previous) throw new FieldError(`Invalid value: ${JSON.stringify(s.at)}: steps are in time order; the previous step is at ${previous / 1000}s`, [...path, 'at']);
    if (time > MAX_SIMULATED_MS) throw new FieldError(`Invalid value: ${JSON.stringify(s.at ?? s.after)}: the step would run at ${time / 1000}s; steps ${TOO_LONG}`, [...path, s.at !== undefined ? 'at' : 'after']);
    previous = time;
    const name = names[0]!;
    steps.push({ at: time, action: compileAction(name, s, [...path, name], time), source: at(path) });
  });
  const expect: Expectation[] = (spec.expect ?? []).map((e, i) => {
    const path: FieldPath = ['spec', 'expect', i];
    const names = CHECK_NAMES.filter((n) => e[n] !== undefined);
    if (names.length !== 1) throw new FieldError(`Invalid value: an expectation has exactly one check (${CHECK_NAMES.join(', ')}), found ${names.length === 0 ? 'none' : names.join(', ')}`, path);
    const name = names[0]!;
    return { ...(e.at !== undefined ? { at: toMs(e.at) } : {}), check: compileCheck(name, e, [...path, name]), source: at(path) };
  });
  const files = (spec.objects ?? []).flatMap((o) => ('files' in o && Array.isArray(o['files']) ? (o['files'] as string[]) : [])).map((f) => resolveRelative(file, f));
  if (spec.catalog) files.push(resolveRelative(file, spec.catalog));
  const timing = spec.timing ?? {};
  const ms = (d: string | undefined) => (d === undefined ? undefined : toMs(d));
  const out: ScenarioSpec = {
    name: raw.metadata.name,
    seed: spec.seed ?? 0,
    ...(spec.startTime !== undefined ? { startTimeMs: Date.parse(spec.startTime) } : {}),
    ...(spec.until !== undefined ? { untilMs: toMs(spec.until) } : {}),
    provisioner: {
      enabled: spec.provisioner?.enabled ?? true,
      ...(spec.provisioner?.batchIdle !== undefined ? { batchIdleMs: toMs(spec.provisioner.batchIdle) } : {}),
      ...(spec.provisioner?.batchMax !== undefined ? { batchMaxMs: toMs(spec.provisioner.batchMax) } : {}),
    },
    ...(spec.disruption ? { disruption: compileDisruption(spec.disruption) } : {}),
    timing: dropUndefined({
      podStartMs: ms(timing.podStart),
      podReadyMs: ms(timing.podReady),
      nodeLaunchMs: ms(timing.nodeLaunch),
      nodeRegisterMs: ms(timing.nodeRegister),
      nodeReadyMs: ms(timing.nodeReady),
      startupTaintMs: ms(timing.startupTaints),
      volumeProvisionMs: ms(timing.volumeProvision),
    }),
    ...(spec.descheduler ? { descheduler: compileDescheduler(spec.descheduler, ['spec', 'descheduler'], toMs) } : {}),
    steps,
    expect,
  };
  return { spec: out, files };
}

function compileDisruption(d: NonNullable<RawScenario['spec']['disruption']>): NonNullable<ScenarioSpec['disruption']> {
  return {
    enabled: d.enabled ?? true,
    spotToSpotConsolidation: d.spotToSpotConsolidation ?? false,
    ...(d.pollInterval !== undefined ? { pollIntervalMs: toMs(d.pollInterval) } : {}),
    ...(d.validationDelay !== undefined ? { validationDelayMs: toMs(d.validationDelay) } : {}),
    ...(d.optimize ? { optimize: d.optimize } : {}),
  };
}

/** An object written inline in a step, checked against its kind's schema; the first problem at its field under `path`. */
function parseInline<T extends z.ZodType>(schema: T, raw: unknown, path: FieldPath): z.infer<T> {
  const m = schema.safeParse(raw, { error: issueMessage });
  if (m.success) return m.data;
  const issue = m.error.issues[0]!;
  throw new FieldError(issue.message, [...path, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))]);
}

/** A NodePool written inline (a step, a sweep's variant): its types, then every Karpenter rule, each error at its field under `path`. */
export function compileInlineNodePool(raw: unknown, path: FieldPath): NodePool {
  const manifest = parseInline(nodePoolSchema, raw, path) as NodePoolManifest;
  const problem = nodePoolErrors(manifest)[0];
  if (problem) throw new FieldError(problem.message, [...path, ...problem.path]);
  return compileNodePool(manifest);
}

function dropUndefined<T extends Record<string, number | undefined>>(o: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
}

function parseDurationAt(text: string, path: FieldPath): number {
  try {
    const n = parseGoDuration(text);
    if (n < 0n) throw new FieldError(`Invalid value: ${JSON.stringify(text)}: must not be negative`, path);
    return Number(n / 1_000_000n);
  } catch (e) {
    if (e instanceof DurationError) throw new FieldError(`Invalid value: ${JSON.stringify(text)}: expected "previous+<duration>" or a duration: ${e.message}`, path);
    throw e;
  }
}

/** Exactly one of the named keys set: which kind of workload an action names. */
function oneOf<K extends string>(o: Partial<Record<K, string>>, keys: readonly K[], path: FieldPath): { key: K; name: string } {
  const set = keys.filter((k) => o[k] !== undefined);
  if (set.length !== 1) throw new FieldError(`Required value: exactly one of ${keys.join(', ')}`, path);
  return { key: set[0]!, name: withNamespace(o[set[0]!]!) };
}

/** Workloads are named `namespace/name`, or `name` in the default namespace. */
function withNamespace(ref: string): string {
  return ref.includes('/') ? ref : `default/${ref}`;
}

const KIND_OF = { deployment: 'Deployment', statefulSet: 'StatefulSet', replicaSet: 'ReplicaSet', daemonSet: 'DaemonSet' } as const;

type RawStep = z.infer<typeof stepSchema>;
type RawExpect = z.infer<typeof expectSchema>;

function compileAction(name: (typeof ACTION_NAMES)[number], s: RawStep, path: FieldPath, time: number): Action {
  switch (name) {
    case 'scale': {
      const a = s.scale!;
      const { key, name: ref } = oneOf(a, ['deployment', 'statefulSet', 'replicaSet'] as const, path);
      return { type: 'scale', kind: KIND_OF[key], name: ref, replicas: a.replicas };
    }
    case 'rollout': {
      const a = s.rollout!;
      const { key, name: ref } = oneOf(a, ['deployment', 'statefulSet', 'daemonSet'] as const, path);
      return { type: 'rollout', kind: KIND_OF[key], name: ref, ...(a.image ? { image: a.image } : {}), ...(a.container ? { container: a.container } : {}) };
    }
    case 'insufficientCapacity': {
      const { for: d, ...rest } = s.insufficientCapacity!;
      return { type: 'insufficientCapacity', ...rest, durationMs: toMs(d) };
    }
    case 'addNode': {
      const m = parseInline(nodeSchema, s.addNode, path);
      return { type: 'addNode', node: atPath(path, () => compileNode({ ...m, kind: 'Node' } as Parameters<typeof compileNode>[0], time)) };
    }
    case 'failZone':
    case 'recoverZone':
      return { type: name, zone: s[name]!.zone };
    case 'deletePod':
      return { type: 'deletePod', pod: withNamespace(s.deletePod!.pod) };
    case 'deleteStatefulSet':
      return { type: 'deleteStatefulSet', name: withNamespace(s.deleteStatefulSet!.statefulSet) };
    case 'provisioner':
      return { type: 'provisioner', enabled: s.provisioner!.enabled };
    case 'updateNodePool':
      return { type: 'updateNodePool', pool: compileInlineNodePool(s.updateNodePool, path) };
    case 'addPersistentVolume': {
      const m = parseInline(persistentVolumeSchema, s.addPersistentVolume, path) as PersistentVolumeManifest;
      return { type: 'addPersistentVolume', volume: atPath(path, () => compilePersistentVolume(m)) };
    }
    case 'addPersistentVolumeClaim': {
      const m = parseInline(persistentVolumeClaimSchema, s.addPersistentVolumeClaim, path) as PersistentVolumeClaimManifest;
      // Validated now; compiled again when the step runs, with the default class admitted.
      atPath(path, () => compilePersistentVolumeClaim(m));
      return { type: 'addPersistentVolumeClaim', claim: m };
    }
    case 'addStorageClass': {
      const m = parseInline(storageClassSchema, s.addStorageClass, path) as StorageClassManifest;
      return { type: 'addStorageClass', storageClass: atPath(path, () => compileStorageClass(m)) };
    }
    case 'deletePersistentVolume':
    case 'deleteStorageClass':
      return { type: name, name: s[name]!.name };
    case 'deletePersistentVolumeClaim':
      return { type: name, claim: withNamespace(s.deletePersistentVolumeClaim!.claim) };
    default:
      return { type: name, node: s[name]!.node };
  }
}

function pods(p: { selector: z.infer<typeof labelSelector>; namespace?: string | undefined }, path: FieldPath): PodSelection {
  const selector = atPath([...path, 'selector'], () => compileLabelSelector(p.selector));
  return { ...(p.namespace ? { namespace: p.namespace } : {}), selector, text: JSON.stringify(p.selector) };
}

function compileCheck(name: (typeof CHECK_NAMES)[number], e: RawExpect, path: FieldPath): Check {
  switch (name) {
    case 'allScheduled':
      return { type: 'allScheduled' };
    case 'pending':
      return { type: 'pending', pods: pods(e.pending!, path), count: e.pending!.count };
    case 'distinctNodes':
      return { type: 'distinctNodes', pods: pods(e.distinctNodes!, path) };
    case 'distinctZones':
      return { type: 'distinctZones', pods: pods(e.distinctZones!, path), min: e.distinctZones!.min };
    case 'maxPerNode':
      return { type: 'maxPerNode', pods: pods(e.maxPerNode!, path), max: e.maxPerNode!.max };
    case 'nodeCount': {
      const c = e.nodeCount!;
      return { type: 'nodeCount', ...(c.nodePool ? { nodePool: c.nodePool } : {}), ...(c.min !== undefined ? { min: c.min } : {}), ...(c.max !== undefined ? { max: c.max } : {}) };
    }
    case 'rolloutComplete':
      return { type: 'rolloutComplete', deployment: withNamespace(e.rolloutComplete!.deployment), withinMs: toMs(e.rolloutComplete!.within) };
    case 'rolloutStuck':
      return { type: 'rolloutStuck', deployment: withNamespace(e.rolloutStuck!.deployment), forMs: toMs(e.rolloutStuck!.for) };
    case 'availableReplicas': {
      const c = e.availableReplicas!;
      return { type: 'availableReplicas', deployment: withNamespace(c.deployment), min: c.min, throughout: c.throughout ?? false };
    }
    case 'disruptions': {
      const c = e.disruptions!;
      return { type: 'disruptions', ...(c.reason ? { reason: c.reason } : {}), ...(c.min !== undefined ? { min: c.min } : {}), ...(c.max !== undefined ? { max: c.max } : {}), ...(c.maxConcurrent !== undefined ? { maxConcurrent: c.maxConcurrent } : {}) };
    }
  }
}

/** The JSON Schema of the Scenario document (docs/scenario.schema.json is this, written by `npm run scenario-schema`). */
export function scenarioJsonSchema(): unknown {
  return z.toJSONSchema(scenarioSchema, { io: 'input', unrepresentable: 'any' });
}
