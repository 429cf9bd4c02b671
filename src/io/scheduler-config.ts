// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): the subset berth
// uses — profiles, plugin enable/disable with weights, pluginConfig args and
// percentageOfNodesToScore — validated with positions for every error.

import { z } from 'zod';
import { ClusterState } from '../cluster/state.js';
import { buildFramework, ProfileError, type SchedulerConfig } from '../scheduler/profile.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { formatFieldPath, type Diagnostic } from './diagnostics.js';
import { parseSource, type SourceInput } from './yaml-source.js';

const API_VERSION = 'kubescheduler.config.k8s.io/v1';

const pluginRef = z.object({ name: z.string().min(1), weight: z.number().int().min(0).optional() });
const pluginSet = z.object({ enabled: z.array(pluginRef).optional(), disabled: z.array(pluginRef).optional() });
const percentage = z.number().int().min(0).max(100).nullable().optional();

const profile = z.object({
  schedulerName: z.string().min(1).optional(),
  percentageOfNodesToScore: percentage,
  // partialRecord: a profile names only the extension points it changes (z.record over an enum wants them all).
  plugins: z.partialRecord(z.enum(['multiPoint', 'preEnqueue', 'queueSort', 'preFilter', 'filter', 'postFilter', 'preScore', 'score', 'reserve', 'permit', 'preBind', 'bind', 'postBind']), pluginSet).optional(),
  pluginConfig: z.array(z.object({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() })).optional(),
});

const configSchema = z.object({
  apiVersion: z.literal(API_VERSION, { error: `must be ${JSON.stringify(API_VERSION)}` }),
  kind: z.literal('KubeSchedulerConfiguration', { error: 'must be "KubeSchedulerConfiguration"' }),
  percentageOfNodesToScore: percentage,
  profiles: z.array(profile).optional(),
});

export type ConfigResult = { ok: true; config: SchedulerConfig } | { ok: false; errors: Diagnostic[] };

export function loadSchedulerConfig(input: SourceInput): ConfigResult {
  const parsed = parseSource(input);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return { ok: false, errors };
  const doc = parsed.documents[0];
  if (!doc || parsed.documents.length !== 1) {
    return { ok: false, errors: [{ severity: 'error', file: input.name, line: 1, column: 1, message: 'expected exactly one KubeSchedulerConfiguration document' }] };
  }
  const result = configSchema.safeParse(doc.value);
  if (result.success) {
    const names = (result.data.profiles ?? []).map((p) => p.schedulerName ?? 'default-scheduler');
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) {
      const i = names.lastIndexOf(dup);
      const pos = doc.locate(['profiles', i, 'schedulerName']);
      return { ok: false, errors: [{ severity: 'error', file: input.name, line: pos.line, column: pos.column, field: `profiles[${i}].schedulerName`, message: `Duplicate value: ${JSON.stringify(dup)}` }] };
    }
    const config = result.data as SchedulerConfig;
    // Build each profile once so plugin and args errors point at the profile that has them.
    const profiles = config.profiles ?? [];
    for (const [i, profile] of profiles.entries()) {
      try {
        new Scheduler(new ClusterState(), (h) => buildFramework(config, profile, h));
      } catch (e) {
        if (!(e instanceof ProfileError)) throw e;
        const plugin = /plugin "([^"]+)"/.exec(e.message)?.[1];
        const argsIndex = plugin === undefined ? -1 : (profile.pluginConfig ?? []).findIndex((pc) => pc.name === plugin);
        const path = argsIndex >= 0 ? ['profiles', i, 'pluginConfig', argsIndex, 'args'] : ['profiles', i];
        const pos = doc.locate(path);
        return { ok: false, errors: [{ severity: 'error', file: input.name, line: pos.line, column: pos.column, object: 'KubeSchedulerConfiguration', field: formatFieldPath(path), message: e.message }] };
      }
    }
    return { ok: true, config };
  }
  return {
    ok: false,
    errors: result.error.issues.map((issue) => {
      const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
      const pos = doc.locate(path);
      return { severity: 'error' as const, file: input.name, line: pos.line, column: pos.column, object: 'KubeSchedulerConfiguration', field: formatFieldPath(path), message: issue.message };
    }),
  };
}
