// The Scenario's `descheduler:` block: the descheduler switched on, its
// interval, and a DeschedulerPolicy in the upstream descheduler's words (the
// DefaultEvictor's args, the eviction limits, one entry per strategy with that
// plugin's args). Compiled into the policy disruption/deschedule.ts runs.

import { z } from 'zod';
import { FieldError, type FieldPath } from '../model/errors.js';
import { DEFAULT_STRATEGY_ARGS, type DeschedulerPolicy, type NamespaceFilter, type StrategyName } from '../disruption/deschedule/policy.js';
import { DEFAULT_DESCHEDULING_INTERVAL_MS, type ScenarioDescheduler } from './scenario-spec.js';
import { mapOf } from './schemas.js';

const count = z.int().min(0);
const namespaces = z.object({ include: z.array(z.string().min(1)).optional(), exclude: z.array(z.string().min(1)).optional() }).strict();
const thresholds = mapOf(z.number().min(0).max(100), z.string().min(1));

const strategies = z
  .object({
    RemovePodsViolatingNodeAffinity: z
      .object({ nodeAffinityType: z.array(z.enum(['requiredDuringSchedulingIgnoredDuringExecution', 'preferredDuringSchedulingIgnoredDuringExecution'])).min(1).optional(), namespaces: namespaces.optional() })
      .strict(),
    RemovePodsViolatingInterPodAntiAffinity: z.object({ namespaces: namespaces.optional() }).strict(),
    RemoveDuplicates: z.object({ excludeOwnerKinds: z.array(z.string().min(1)).optional(), namespaces: namespaces.optional() }).strict(),
    RemovePodsViolatingTopologySpreadConstraint: z.object({ constraints: z.array(z.enum(['DoNotSchedule', 'ScheduleAnyway'])).min(1).optional(), namespaces: namespaces.optional() }).strict(),
    LowNodeUtilization: z.object({ thresholds, targetThresholds: thresholds, numberOfNodes: count.optional(), evictableNamespaces: namespaces.optional() }).strict(),
    HighNodeUtilization: z.object({ thresholds, numberOfNodes: count.optional(), evictableNamespaces: namespaces.optional() }).strict(),
  })
  .partial()
  .strict();

/** The block's schema; `duration` is the Scenario's Go-duration string schema. */
export function deschedulerSchema<D extends z.ZodType<string, string>>(duration: D) {
  return z
    .object({
      enabled: z.boolean().optional(),
      interval: duration.optional(),
      evictor: z
        .object({ evictLocalStoragePods: z.boolean(), evictSystemCriticalPods: z.boolean(), evictDaemonSetPods: z.boolean(), ignorePvcPods: z.boolean(), priorityThreshold: z.object({ value: z.int() }).strict() })
        .partial()
        .strict()
        .optional(),
      maxNoOfPodsToEvictPerNode: count.optional(),
      maxNoOfPodsToEvictPerNamespace: count.optional(),
      maxNoOfPodsToEvictTotal: count.optional(),
      strategies: strategies.optional(),
    })
    .strict();
}

type RawDescheduler = z.infer<ReturnType<typeof deschedulerSchema<z.ZodString>>>;
type RawStrategies = z.infer<typeof strategies>;

function namespaceFilter(f: z.infer<typeof namespaces> | undefined, path: FieldPath): NamespaceFilter | undefined {
  if (!f) return undefined;
  if (f.include && f.exclude) throw new FieldError('Invalid value: only one of include and exclude can be set', path);
  return f;
}

function utilizationThresholds(low: Record<string, number>, target: Record<string, number>, path: FieldPath): void {
  const a = Object.keys(low).sort().join(',');
  const b = Object.keys(target).sort().join(',');
  if (a !== b) throw new FieldError(`Invalid value: thresholds (${a}) and targetThresholds (${b}) must configure the same resources`, path);
  for (const [r, v] of Object.entries(low)) {
    if (v > target[r]!) throw new FieldError(`Invalid value: ${v}: thresholds for "${r}" cannot be greater than targetThresholds (${target[r]})`, [...path, 'thresholds', r]);
  }
}

function compileStrategies(raw: RawStrategies, path: FieldPath): DeschedulerPolicy['strategies'] {
  if (raw.LowNodeUtilization && raw.HighNodeUtilization) {
    throw new FieldError('Invalid value: LowNodeUtilization spreads pods out and HighNodeUtilization packs them in; together they move pods back and forth, enable one', path);
  }
  const out: { -readonly [K in StrategyName]?: unknown } = {};
  for (const name of Object.keys(raw) as StrategyName[]) {
    const args = raw[name]!;
    const at = [...path, name];
    const ns = 'namespaces' in args ? { namespaces: namespaceFilter(args.namespaces, [...at, 'namespaces']) } : {};
    const evictable = 'evictableNamespaces' in args ? { evictableNamespaces: namespaceFilter(args.evictableNamespaces, [...at, 'evictableNamespaces']) } : {};
    if (name === 'LowNodeUtilization') {
      const low = raw.LowNodeUtilization!;
      utilizationThresholds(low.thresholds, low.targetThresholds, at);
    }
    out[name] = dropUndefined({ ...DEFAULT_STRATEGY_ARGS[name], ...args, ...ns, ...evictable });
  }
  return out as DeschedulerPolicy['strategies'];
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function compileDescheduler(raw: RawDescheduler, path: FieldPath, toMs: (d: string) => number): ScenarioDescheduler {
  const e = raw.evictor ?? {};
  const policy: DeschedulerPolicy = dropUndefined({
    evictor: dropUndefined({ ...e, priorityThreshold: e.priorityThreshold?.value }),
    maxNoOfPodsToEvictPerNode: raw.maxNoOfPodsToEvictPerNode,
    maxNoOfPodsToEvictPerNamespace: raw.maxNoOfPodsToEvictPerNamespace,
    maxNoOfPodsToEvictTotal: raw.maxNoOfPodsToEvictTotal,
    strategies: compileStrategies(raw.strategies ?? {}, [...path, 'strategies']),
  });
  const intervalMs = raw.interval === undefined ? DEFAULT_DESCHEDULING_INTERVAL_MS : toMs(raw.interval);
  if (intervalMs <= 0) throw new FieldError(`Invalid value: ${JSON.stringify(raw.interval)}: must be greater than 0`, [...path, 'interval']);
  return { enabled: raw.enabled ?? true, intervalMs, policy };
}
