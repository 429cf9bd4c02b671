// descheduler/v1alpha2 DeschedulerPolicy, read as the descheduler reads it:
// profiles with pluginConfig (each plugin's args) and plugins per extension
// point, the global nodeSelector and eviction limits. The DefaultEvictor is the
// evictor of every profile, with its pluginConfig args when given. Unknown
// fields are errors, each with its file:line:column and field path; plugins
// berth does not implement are named as such instead of being skipped.

import { z } from 'zod';
import { compileLabelSelector, type Requirement, type Selector } from '../model/selector.js';
import { atPath, FieldError, type FieldPath } from '../model/errors.js';
import { parseGoDuration } from '../model/go-duration.js';
import {
  BALANCE_PLUGINS,
  DEFAULT_STRATEGY_ARGS,
  DESCHEDULE_PLUGINS,
  type DeschedulerPolicy,
  type DeschedulerProfile,
  type EvictorArgs,
  type NamespaceFilter,
  type PluginEntry,
  type StrategyName,
} from '../model/descheduler-policy.js';
import type { Diagnostic } from './diagnostics.js';
import { labelSelector, mapOf } from './schemas.js';
import { parseSingleDocument } from './single-document.js';
import type { SourceInput } from './yaml-source.js';

export const DESCHEDULER_API_VERSION = 'descheduler/v1alpha2';
/** Upstream plugins berth does not run yet: a policy enabling one is refused, not half-run. */
const UNSUPPORTED: readonly string[] = [];
const RESTART_STATES = ['Running', 'CrashLoopBackOff'];
const LIFETIME_STATES = ['Running', 'Pending', 'Succeeded', 'Failed', 'Unknown', 'NodeAffinity', 'NodeLost', 'Shutdown', 'UnexpectedAdmissionError', 'PodInitializing', 'ContainerCreating', 'ImagePullBackOff', 'CrashLoopBackOff', 'CreateContainerConfigError', 'ErrImagePull', 'CreateContainerError', 'InvalidImageName', 'OOMKilled', 'Error', 'Completed', 'DeadlineExceeded', 'Evicted', 'ContainerCannotRun', 'StartError'];

const uint = z.int().min(0);
const strictSelector = labelSelector.strict();
const namespaces = z.object({ include: z.array(z.string().min(1)).optional(), exclude: z.array(z.string().min(1)).optional() }).strict();
const thresholds = mapOf(z.number().min(0).max(100), z.string().min(1));
const pluginSet = z.object({ enabled: z.array(z.string().min(1)).nullish(), disabled: z.array(z.string().min(1)).nullish() }).strict();

const profileSchema = z
  .object({
    name: z.string().min(1),
    pluginConfig: z.array(z.object({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).nullish() }).strict()).nullish(),
    plugins: z.object({ presort: pluginSet, sort: pluginSet, deschedule: pluginSet, balance: pluginSet, filter: pluginSet, preevictionfilter: pluginSet }).partial().strict().nullish(),
  })
  .strict();

export const policyFields = {
  profiles: z.array(profileSchema).optional(),
  nodeSelector: z.string().optional(),
  maxNoOfPodsToEvictPerNode: uint.optional(),
  maxNoOfPodsToEvictPerNamespace: uint.optional(),
  maxNoOfPodsToEvictTotal: uint.optional(),
  evictionFailureEventNotification: z.boolean().optional(),
  gracePeriodSeconds: z.int().min(0).optional(),
};

const policySchema = z
  .object({
    apiVersion: z.literal(DESCHEDULER_API_VERSION, { error: `must be ${JSON.stringify(DESCHEDULER_API_VERSION)}` }),
    kind: z.literal('DeschedulerPolicy', { error: 'must be "DeschedulerPolicy"' }),
    ...policyFields,
  })
  .strict();

export type RawPolicy = z.infer<z.ZodObject<typeof policyFields>>;

const protection = z.enum(['PodsWithLocalStorage', 'DaemonSetPods', 'SystemCriticalPods', 'FailedBarePods', 'PodsWithPVC', 'PodsWithoutPDB', 'PodsWithResourceClaims']);

const evictorArgs = z
  .object({
    nodeSelector: z.string(),
    labelSelector: strictSelector,
    namespaceLabelSelector: strictSelector,
    priorityThreshold: z.object({ value: z.int(), name: z.string() }).partial().strict(),
    nodeFit: z.boolean(),
    minReplicas: uint,
    noEvictionPolicy: z.enum(['Preferred', 'Mandatory']),
    minPodAge: z.string(),
    podProtections: z
      .object({
        extraEnabled: z.array(protection),
        defaultDisabled: z.array(protection),
      })
      .partial()
      .strict(),
    evictLocalStoragePods: z.boolean(),
    evictDaemonSetPods: z.boolean(),
    evictSystemCriticalPods: z.boolean(),
    ignorePvcPods: z.boolean(),
    ignorePodsWithoutPDB: z.boolean(),
    evictFailedBarePods: z.boolean(),
  })
  .partial()
  .strict();

const filtered = { namespaces: namespaces.optional(), labelSelector: strictSelector.optional() };
const pluginArgs: { readonly [K in StrategyName]: z.ZodType } = {
  RemovePodsViolatingNodeAffinity: z
    .object({ ...filtered, nodeAffinityType: z.array(z.enum(['requiredDuringSchedulingIgnoredDuringExecution', 'preferredDuringSchedulingIgnoredDuringExecution'])).optional() })
    .strict(),
  RemovePodsViolatingInterPodAntiAffinity: z.object(filtered).strict(),
  RemovePodsViolatingNodeTaints: z
    .object({ ...filtered, includePreferNoSchedule: z.boolean().optional(), excludedTaints: z.array(z.string()).optional(), includedTaints: z.array(z.string()).optional() })
    .strict(),
  RemovePodsHavingTooManyRestarts: z
    .object({ ...filtered, podRestartThreshold: z.int().optional(), includingInitContainers: z.boolean().optional(), states: z.array(z.string()).optional() })
    .strict(),
  PodLifeTime: z
    .object({
      ...filtered,
      maxPodLifeTimeSeconds: uint.optional(),
      states: z.array(z.string()).optional(),
      ownerKinds: namespaces.optional(),
      exitCodes: z.array(z.int()).optional(),
      includingInitContainers: z.boolean().optional(),
    })
    .strict(),
  RemoveFailedPods: z
    .object({
      ...filtered,
      excludeOwnerKinds: z.array(z.string().min(1)).optional(),
      minPodLifetimeSeconds: uint.optional(),
      reasons: z.array(z.string()).optional(),
      exitCodes: z.array(z.int()).optional(),
      includingInitContainers: z.boolean().optional(),
    })
    .strict(),
  RemoveDuplicates: z.object({ namespaces: namespaces.optional(), excludeOwnerKinds: z.array(z.string().min(1)).optional() }).strict(),
  RemovePodsViolatingTopologySpreadConstraint: z
    .object({ ...filtered, constraints: z.array(z.enum(['DoNotSchedule', 'ScheduleAnyway'])).optional(), topologyBalanceNodeFit: z.boolean().optional() })
    .strict(),
  LowNodeUtilization: z
    .object({
      thresholds: thresholds.optional(),
      targetThresholds: thresholds.optional(),
      useDeviationThresholds: z.boolean().optional(),
      numberOfNodes: uint.optional(),
      evictableNamespaces: namespaces.optional(),
      evictionLimits: z.object({ node: uint.optional() }).strict().optional(),
    })
    .strict(),
  HighNodeUtilization: z
    .object({ thresholds: thresholds.optional(), numberOfNodes: uint.optional(), evictableNamespaces: namespaces.optional(), evictionModes: z.array(z.enum(['OnlyThresholdingResources'])).optional() })
    .strict(),
};

function validate<T>(schema: z.ZodType, value: unknown, path: FieldPath): T {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data as T;
  const issue = r.error.issues[0]!;
  throw new FieldError(issue.message, [...path, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))]);
}

/** A label selector in string form (`a=b,c!=d,e in (x,y),!f`), as labels.Parse reads it. */
export function parseSelectorString(s: string, path: FieldPath): Selector {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '' || parts.length > 0) parts.push(cur);
  const reqs: Requirement[] = [];
  for (const raw of parts) {
    const p = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^([^\s=!(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) reqs.push({ key: m[1]!, operator: m[2] === 'in' ? 'In' : 'NotIn', values: m[3]!.split(',').map((v) => v.trim()) });
    else if ((m = /^([^\s=!(),]+)\s*!=\s*([^\s=!(),]*)$/.exec(p))) reqs.push({ key: m[1]!, operator: 'NotIn', values: [m[2]!] });
    else if ((m = /^([^\s=!(),]+)\s*==?\s*([^\s=!(),]*)$/.exec(p))) reqs.push({ key: m[1]!, operator: 'In', values: [m[2]!] });
    else if ((m = /^!\s*([^\s=!(),]+)$/.exec(p))) reqs.push({ key: m[1]!, operator: 'DoesNotExist', values: [] });
    else if ((m = /^([^\s=!(),]+)$/.exec(p))) reqs.push({ key: m[1]!, operator: 'Exists', values: [] });
    else throw new FieldError(`Invalid value: ${JSON.stringify(s)}: unable to parse requirement ${JSON.stringify(p)}`, path);
  }
  try {
    return compileLabelSelector({ matchExpressions: reqs });
  } catch (e) {
    if (e instanceof FieldError) throw new FieldError(e.message, path);
    throw e;
  }
}

function namespaceFilter(f: NamespaceFilter | undefined, path: FieldPath, excludeOnly = false): NamespaceFilter | undefined {
  if (!f) return undefined;
  if ((f.include?.length ?? 0) > 0 && (f.exclude?.length ?? 0) > 0) throw new FieldError('Invalid value: only one of Include/Exclude namespaces can be set', path);
  if (excludeOnly && (f.include?.length ?? 0) > 0) throw new FieldError('Invalid value: only Exclude namespaces can be set, inclusion is not supported', [...path, 'include']);
  return f;
}

function compileEvictor(raw: z.infer<typeof evictorArgs>, path: FieldPath): EvictorArgs {
  if (raw.priorityThreshold?.name !== undefined && raw.priorityThreshold.value !== undefined) throw new FieldError('Invalid value: only one of priorityThreshold fields can be set', [...path, 'priorityThreshold']);
  if (raw.priorityThreshold?.name !== undefined) throw new FieldError('Unsupported value: berth reads priorityThreshold.value only; give the PriorityClass value', [...path, 'priorityThreshold', 'name']);
  const sel = (s: z.infer<typeof strictSelector> | undefined, at: string) => (s && (Object.keys(s.matchLabels ?? {}).length > 0 || (s.matchExpressions?.length ?? 0) > 0) ? atPath([...path, at], () => compileLabelSelector(s)) : undefined);
  return dropUndefined({
    ...raw,
    priorityThreshold: raw.priorityThreshold?.value,
    labelSelector: sel(raw.labelSelector, 'labelSelector'),
    namespaceLabelSelector: sel(raw.namespaceLabelSelector, 'namespaceLabelSelector'),
    nodeSelector: raw.nodeSelector ? parseSelectorString(raw.nodeSelector, [...path, 'nodeSelector']) : undefined,
    minPodAge: undefined,
    minPodAgeMs: raw.minPodAge === undefined ? undefined : atPath([...path, 'minPodAge'], () => Number(parseGoDuration(raw.minPodAge!) / 1_000_000n)),
  }) as EvictorArgs;
}

function checkThresholds(t: Record<string, number> | undefined, path: FieldPath): Record<string, number> {
  if (!t || Object.keys(t).length === 0) throw new FieldError('Required value: no resource threshold is configured', path);
  return t;
}

function compileArgs(name: StrategyName, raw: Record<string, unknown>, path: FieldPath): PluginEntry['args'] {
  const args = validate<Record<string, unknown>>(pluginArgs[name], raw, path);
  const out: Record<string, unknown> = { ...DEFAULT_STRATEGY_ARGS[name], ...dropUndefined(args) };
  if ('namespaces' in args) out['namespaces'] = namespaceFilter(args['namespaces'] as NamespaceFilter, [...path, 'namespaces']);
  if ('evictableNamespaces' in args) out['evictableNamespaces'] = namespaceFilter(args['evictableNamespaces'] as NamespaceFilter, [...path, 'evictableNamespaces'], true);
  if (args['labelSelector']) out['labelSelector'] = atPath([...path, 'labelSelector'], () => compileLabelSelector(args['labelSelector'] as never));
  if (name === 'LowNodeUtilization') {
    const low = checkThresholds(args['thresholds'] as Record<string, number>, [...path, 'thresholds']);
    const target = checkThresholds(args['targetThresholds'] as Record<string, number>, [...path, 'targetThresholds']);
    for (const [r, v] of Object.entries(low)) {
      if (target[r] === undefined || Object.keys(low).length !== Object.keys(target).length) throw new FieldError('Invalid value: thresholds and targetThresholds configured different resources', [...path, 'targetThresholds']);
      if (v > target[r] && !args['useDeviationThresholds']) throw new FieldError(`Invalid value: thresholds' ${r} percentage is greater than targetThresholds'`, [...path, 'thresholds', r]);
    }
  }
  if (name === 'HighNodeUtilization') checkThresholds(args['thresholds'] as Record<string, number>, [...path, 'thresholds']);
  if (name === 'RemovePodsHavingTooManyRestarts') {
    if (((args['podRestartThreshold'] as number | undefined) ?? 0) < 1) throw new FieldError('Invalid value: invalid PodsHavingTooManyRestarts threshold', [...path, 'podRestartThreshold']);
    states(args['states'], RESTART_STATES, [...path, 'states']);
  }
  if (name === 'PodLifeTime') {
    states(args['states'], LIFETIME_STATES, [...path, 'states']);
    namespaceFilter(args['ownerKinds'] as NamespaceFilter | undefined, [...path, 'ownerKinds']);
    if (args['maxPodLifeTimeSeconds'] === undefined && !(args['states'] as unknown[] | undefined)?.length && !(args['exitCodes'] as unknown[] | undefined)?.length) {
      throw new FieldError('Required value: at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)', path);
    }
  }
  if (name === 'RemovePodsViolatingNodeTaints' && args['excludedTaints'] && args['includedTaints']) throw new FieldError('Invalid value: either includedTaints or excludedTaints can be set, not both', path);
  return out as PluginEntry['args'];
}

function states(list: unknown, allowed: readonly string[], path: FieldPath): void {
  const bad = ((list as string[] | undefined) ?? []).findIndex((s) => !allowed.includes(s));
  if (bad >= 0) throw new FieldError(`Unsupported value: states must be one of [${[...allowed].sort().join(' ')}]`, [...path, bad]);
}

type RawProfile = z.infer<typeof profileSchema>;

function compileProfile(p: RawProfile, path: FieldPath): DeschedulerProfile {
  const configs = p.pluginConfig ?? [];
  const argsFor = (name: string) => {
    const i = configs.findIndex((c) => c.name === name);
    return { raw: i >= 0 ? (configs[i]!.args ?? {}) : {}, path: i >= 0 ? [...path, 'pluginConfig', i, 'args'] : [...path, 'pluginConfig'] };
  };
  const known = new Set<string>([...STRATEGY_LIST, 'DefaultEvictor']);
  for (const [i, c] of configs.entries()) {
    if (UNSUPPORTED.includes(c.name)) throw new FieldError(`Unsupported value: ${JSON.stringify(c.name)}: berth does not run this plugin yet`, [...path, 'pluginConfig', i, 'name']);
    if (!known.has(c.name)) throw new FieldError(`Unsupported value: ${JSON.stringify(c.name)}: no such descheduler plugin`, [...path, 'pluginConfig', i, 'name']);
    if (configs.findIndex((o) => o.name === c.name) !== i) throw new FieldError(`Duplicate value: ${JSON.stringify(c.name)}`, [...path, 'pluginConfig', i, 'name']);
  }
  const ev = argsFor('DefaultEvictor');
  const evictor = compileEvictor(validate(evictorArgs, ev.raw, ev.path), ev.path);
  const point = (which: 'deschedule' | 'balance', allowed: readonly string[]): PluginEntry[] => {
    const set = p.plugins?.[which];
    const disabled = set?.disabled ?? [];
    return (set?.enabled ?? []).flatMap((name, i) => {
      const at = [...path, 'plugins', which, 'enabled', i];
      if (UNSUPPORTED.includes(name)) throw new FieldError(`Unsupported value: ${JSON.stringify(name)}: berth does not run this plugin yet`, at);
      if (!allowed.includes(name)) {
        const other = which === 'deschedule' ? 'balance' : 'deschedule';
        throw new FieldError(known.has(name) ? `Invalid value: ${JSON.stringify(name)} is not a ${which} plugin (enable it under ${other})` : `Unsupported value: ${JSON.stringify(name)}: no such descheduler plugin`, at);
      }
      if (disabled.includes(name) || disabled.includes('*')) return [];
      const a = argsFor(name);
      if (configs.some((c) => c.name === name)) return [{ name, args: compileArgs(name as StrategyName, a.raw, a.path) } as PluginEntry];
      try {
        return [{ name, args: compileArgs(name as StrategyName, {}, at) } as PluginEntry];
      } catch (e) {
        if (e instanceof FieldError) throw new FieldError(`${e.message} (no pluginConfig entry gives ${name} its args)`, at);
        throw e;
      }
    });
  };
  for (const ext of ['filter', 'preevictionfilter', 'sort', 'presort'] as const) {
    for (const [i, name] of (p.plugins?.[ext]?.enabled ?? []).entries()) {
      if (name !== 'DefaultEvictor') throw new FieldError(`Unsupported value: ${JSON.stringify(name)}: berth's evictor is the DefaultEvictor`, [...path, 'plugins', ext, 'enabled', i]);
    }
  }
  return { name: p.name, evictor, deschedule: point('deschedule', DESCHEDULE_PLUGINS), balance: point('balance', BALANCE_PLUGINS) };
}

const STRATEGY_LIST: readonly string[] = [...DESCHEDULE_PLUGINS, ...BALANCE_PLUGINS];

/** Compiles a validated policy body (the fields after apiVersion/kind); throws FieldError under `path`. */
export function compileDeschedulerPolicy(raw: RawPolicy, path: FieldPath, predictPlacement = false): DeschedulerPolicy {
  const profiles = raw.profiles ?? [];
  for (const [i, p] of profiles.entries()) {
    if (profiles.findIndex((o) => o.name === p.name) !== i) throw new FieldError(`Duplicate value: ${JSON.stringify(p.name)}`, [...path, 'profiles', i, 'name']);
  }
  return dropUndefined({
    profiles: profiles.map((p, i) => compileProfile(p, [...path, 'profiles', i])),
    nodeSelector: raw.nodeSelector ? parseSelectorString(raw.nodeSelector, [...path, 'nodeSelector']) : undefined,
    maxNoOfPodsToEvictPerNode: raw.maxNoOfPodsToEvictPerNode,
    maxNoOfPodsToEvictPerNamespace: raw.maxNoOfPodsToEvictPerNamespace,
    maxNoOfPodsToEvictTotal: raw.maxNoOfPodsToEvictTotal,
    predictPlacement: predictPlacement || undefined,
  });
}

export type PolicyResult = { ok: true; policy: DeschedulerPolicy } | { ok: false; errors: Diagnostic[] };

/** Reads one DeschedulerPolicy document. */
export function loadDeschedulerPolicy(input: SourceInput, predictPlacement = false): PolicyResult {
  const doc = parseSingleDocument(input, 'DeschedulerPolicy', policySchema);
  if (!doc.ok) return doc;
  try {
    return { ok: true, policy: compileDeschedulerPolicy(doc.data, [], predictPlacement) };
  } catch (e) {
    if (e instanceof FieldError) return { ok: false, errors: [doc.at(e.path, e.message)] };
    throw e;
  }
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
