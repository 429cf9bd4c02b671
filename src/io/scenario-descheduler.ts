// The Scenario's `descheduler:` block: the descheduler switched on, its
// interval, and its policy, either as `policy:` (the body of a
// descheduler/v1alpha2 DeschedulerPolicy, exactly as the descheduler reads it)
// or as the shorthand `evictor` + `strategies` (one profile, the DefaultEvictor's
// args, one entry per plugin with its args, run in upstream's default order).
// `predictPlacement` switches on berth's option (see model/descheduler-policy.ts).

import { z } from 'zod';
import { FieldError, type FieldPath } from '../model/errors.js';
import { BALANCE_PLUGINS, DESCHEDULE_PLUGINS, type DeschedulerPolicy } from '../model/descheduler-policy.js';
import { compileDeschedulerPolicy, policyFields } from './descheduler-policy.js';
import { DEFAULT_DESCHEDULING_INTERVAL_MS, type ScenarioDescheduler } from './scenario-spec.js';

const count = z.int().min(0);
const strategies = z.record(z.string(), z.record(z.string(), z.unknown()).nullish());

/** The block's schema; `duration` is the Scenario's Go-duration string schema. */
export function deschedulerSchema<D extends z.ZodType<string, string>>(duration: D) {
  return z
    .object({
      enabled: z.boolean().optional(),
      interval: duration.optional(),
      predictPlacement: z.boolean().optional(),
      policy: z.object({ apiVersion: z.literal('descheduler/v1alpha2').optional(), kind: z.literal('DeschedulerPolicy').optional(), ...policyFields }).strict().optional(),
      evictor: z.record(z.string(), z.unknown()).optional(),
      maxNoOfPodsToEvictPerNode: count.optional(),
      maxNoOfPodsToEvictPerNamespace: count.optional(),
      maxNoOfPodsToEvictTotal: count.optional(),
      strategies: strategies.optional(),
    })
    .strict();
}

type RawDescheduler = z.infer<ReturnType<typeof deschedulerSchema<z.ZodString>>>;

/** The shorthand as a one-profile policy: plugins in upstream's order, each with its args. */
function shorthandPolicy(raw: RawDescheduler, path: FieldPath): DeschedulerPolicy {
  const s = raw.strategies ?? {};
  for (const name of Object.keys(s)) {
    if (![...DESCHEDULE_PLUGINS, ...BALANCE_PLUGINS].includes(name as never)) throw new FieldError(`Unsupported value: ${JSON.stringify(name)}: no such descheduler plugin in berth`, [...path, 'strategies', name]);
  }
  const enabled = (list: readonly string[]) => list.filter((n) => n in s);
  const pluginConfig = [{ name: 'DefaultEvictor', args: raw.evictor ?? {} }, ...Object.entries(s).map(([name, args]) => ({ name, args: args ?? {} }))];
  const body = {
    profiles: [{ name: 'default', pluginConfig, plugins: { deschedule: { enabled: enabled(DESCHEDULE_PLUGINS) }, balance: { enabled: enabled(BALANCE_PLUGINS) } } }],
    maxNoOfPodsToEvictPerNode: raw.maxNoOfPodsToEvictPerNode,
    maxNoOfPodsToEvictPerNamespace: raw.maxNoOfPodsToEvictPerNamespace,
    maxNoOfPodsToEvictTotal: raw.maxNoOfPodsToEvictTotal,
  };
  try {
    return compileDeschedulerPolicy(body, [], raw.predictPlacement);
  } catch (e) {
    if (!(e instanceof FieldError)) throw e;
    throw new FieldError(e.message, [...path, ...shorthandPath(e.path, pluginConfig.map((c) => c.name))]);
  }
}

/** Maps a path inside the generated profile back to the shorthand field it came from. */
function shorthandPath(p: FieldPath, names: readonly string[]): FieldPath {
  if (p[0] === 'profiles' && p[2] === 'pluginConfig' && typeof p[3] === 'number') {
    const name = names[p[3]]!;
    const rest = p.slice(5);
    return name === 'DefaultEvictor' ? ['evictor', ...rest] : ['strategies', name, ...rest];
  }
  return p;
}

export function compileDescheduler(raw: RawDescheduler, path: FieldPath, toMs: (d: string) => number): ScenarioDescheduler {
  if (raw.policy && (raw.strategies || raw.evictor || raw.maxNoOfPodsToEvictPerNode !== undefined || raw.maxNoOfPodsToEvictPerNamespace !== undefined || raw.maxNoOfPodsToEvictTotal !== undefined)) {
    throw new FieldError('Invalid value: give either policy or the evictor/strategies shorthand, not both', [...path, 'policy']);
  }
  const policy = raw.policy ? compileDeschedulerPolicy(raw.policy, [...path, 'policy'], raw.predictPlacement) : shorthandPolicy(raw, path);
  const intervalMs = raw.interval === undefined ? DEFAULT_DESCHEDULING_INTERVAL_MS : toMs(raw.interval);
  if (intervalMs <= 0) throw new FieldError(`Invalid value: ${JSON.stringify(raw.interval)}: must be greater than 0`, [...path, 'interval']);
  return { enabled: raw.enabled ?? true, intervalMs, policy };
}
