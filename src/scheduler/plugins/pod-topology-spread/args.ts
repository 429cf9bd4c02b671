// PodTopologySpreadArgs: decoding, defaulting (SetDefaults_PodTopologySpreadArgs) and
// validation (ValidatePodTopologySpreadArgs) with upstream's field error texts, so a
// bad pluginConfig fails with the message kube-scheduler would print.

import { qualifiedNameErrors as labelKeyErrors } from '../../../model/label-syntax.js';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../../../model/node.js';

export type WhenUnsatisfiable = 'DoNotSchedule' | 'ScheduleAnyway';

/** One entry of defaultConstraints (a v1.TopologySpreadConstraint without a selector). */
export interface DefaultConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: WhenUnsatisfiable;
  /** Taken as written: upstream does not validate these in plugin args. */
  readonly minDomains?: number;
  readonly nodeAffinityPolicy?: string;
  readonly nodeTaintsPolicy?: string;
}

export interface PodTopologySpreadArgs {
  /** True with defaultingType System: changes which nodes PreScore ignores. */
  readonly systemDefaulted: boolean;
  readonly defaultConstraints: readonly DefaultConstraint[];
}

/** The cluster-level defaults kube-scheduler applies with defaultingType System, in upstream's order. */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly DefaultConstraint[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

const ARG_KEYS = new Set(['apiVersion', 'kind', 'defaultingType', 'defaultConstraints']);
const CONSTRAINT_KEYS = new Set(['maxSkew', 'topologyKey', 'whenUnsatisfiable', 'labelSelector', 'minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy', 'matchLabelKeys']);


// --- decoding ---

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function decodeError(path: string, what: string): Error {
  return new Error(`PodTopologySpreadArgs: ${path}: ${what}`);
}

function rejectUnknown(obj: Record<string, unknown>, known: ReadonlySet<string>, path: string): void {
  for (const k of Object.keys(obj)) {
    if (!known.has(k)) throw decodeError(path ? `${path}.${k}` : k, 'unknown field');
  }
}

interface RawConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: string;
  hasLabelSelector: boolean;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
}

function optionalString(obj: Record<string, unknown>, key: string, path: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw decodeError(`${path}.${key}`, 'must be a string');
  return v;
}

function optionalInt(obj: Record<string, unknown>, key: string, path: string): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw decodeError(`${path}.${key}`, 'must be an integer');
  return v;
}

function decodeConstraint(raw: unknown, path: string): RawConstraint {
  if (!isRecord(raw)) throw decodeError(path, 'must be an object');
  rejectUnknown(raw, CONSTRAINT_KEYS, path);
  if (raw.matchLabelKeys != null && !(Array.isArray(raw.matchLabelKeys) && raw.matchLabelKeys.every((k) => typeof k === 'string'))) {
    throw decodeError(`${path}.matchLabelKeys`, 'must be a list of strings');
  }
  const minDomains = optionalInt(raw, 'minDomains', path);
  const nodeAffinityPolicy = optionalString(raw, 'nodeAffinityPolicy', path);
  const nodeTaintsPolicy = optionalString(raw, 'nodeTaintsPolicy', path);
  return {
    // Absent scalars decode to Go's zero values, which validation then reports.
    maxSkew: optionalInt(raw, 'maxSkew', path) ?? 0,
    topologyKey: optionalString(raw, 'topologyKey', path) ?? '',
    whenUnsatisfiable: optionalString(raw, 'whenUnsatisfiable', path) ?? '',
    hasLabelSelector: raw.labelSelector != null,
    ...(minDomains !== undefined ? { minDomains } : {}),
    ...(nodeAffinityPolicy !== undefined ? { nodeAffinityPolicy } : {}),
    ...(nodeTaintsPolicy !== undefined ? { nodeTaintsPolicy } : {}),
  };
}

// --- validation ---

const quote = (s: string) => JSON.stringify(s);

function validateConstraint(c: RawConstraint, i: number, all: readonly RawConstraint[], prefix: string): string[] {
  const p = `${prefix}defaultConstraints[${i}]`;
  const errs: string[] = [];
  if (c.maxSkew <= 0) errs.push(`${p}.maxSkew: Invalid value: ${c.maxSkew}: not in valid range (0, inf)`);
  if (c.topologyKey.length === 0) errs.push(`${p}.topologyKey: Required value: can not be empty`);
  else for (const msg of labelKeyErrors(c.topologyKey)) errs.push(`${p}.topologyKey: Invalid value: ${quote(c.topologyKey)}: ${msg}`);
  if (c.whenUnsatisfiable.length === 0) errs.push(`${p}.whenUnsatisfiable: Required value: can not be empty`);
  else if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway') {
    errs.push(`${p}.whenUnsatisfiable: Unsupported value: ${quote(c.whenUnsatisfiable)}: supported values: "DoNotSchedule", "ScheduleAnyway"`);
  }
  if (c.hasLabelSelector) errs.push(`${p}.labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod`);
  if (all.slice(0, i).some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable)) {
    errs.push(`${p}: Duplicate value: ${quote(`{${c.topologyKey}, ${c.whenUnsatisfiable}}`)}`);
  }
  return errs;
}

/** utilerrors.Aggregate's message: one error as is, several deduplicated inside brackets. */
function aggregate(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/**
 * Decodes, defaults and validates the plugin's args; throws with upstream's
 * message when invalid. `path` prefixes field paths the way the configuration
 * validator does (e.g. "profiles[0].pluginConfig[1].args"); the plugin itself validates with none.
 */
export function parsePodTopologySpreadArgs(args: Readonly<Record<string, unknown>>, path = ''): PodTopologySpreadArgs {
  const prefix = path ? `${path}.` : '';
  rejectUnknown(args, ARG_KEYS, '');
  const rawType = args.defaultingType;
  if (rawType != null && typeof rawType !== 'string') throw decodeError('defaultingType', 'must be a string');
  // SetDefaults_PodTopologySpreadArgs: an unset type means System.
  const defaultingType = rawType || 'System';
  const rawList = args.defaultConstraints ?? [];
  if (!Array.isArray(rawList)) throw decodeError('defaultConstraints', 'must be a list');
  const constraints = rawList.map((c, i) => decodeConstraint(c, `defaultConstraints[${i}]`));

  const errs: string[] = [];
  if (defaultingType !== 'System' && defaultingType !== 'List') {
    errs.push(`${prefix}defaultingType: Unsupported value: ${quote(defaultingType)}: supported values: "System", "List"`);
  } else if (defaultingType === 'System' && constraints.length > 0) {
    errs.push(`${prefix}defaultingType: Invalid value: ${quote(defaultingType)}: when .defaultConstraints are not empty`);
  }
  constraints.forEach((c, i) => errs.push(...validateConstraint(c, i, constraints, prefix)));
  if (errs.length > 0) throw new Error(aggregate(errs));

  if (defaultingType === 'System') return { systemDefaulted: true, defaultConstraints: SYSTEM_DEFAULT_CONSTRAINTS };
  return {
    systemDefaulted: false,
    defaultConstraints: constraints.map((c) => ({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      whenUnsatisfiable: c.whenUnsatisfiable as WhenUnsatisfiable,
      ...(c.minDomains !== undefined ? { minDomains: c.minDomains } : {}),
      ...(c.nodeAffinityPolicy !== undefined ? { nodeAffinityPolicy: c.nodeAffinityPolicy } : {}),
      ...(c.nodeTaintsPolicy !== undefined ? { nodeTaintsPolicy: c.nodeTaintsPolicy } : {}),
    })),
  };
}
