// Args of NodeResourcesFit and NodeResourcesBalancedAllocation as written in a v1
// KubeSchedulerConfiguration: upstream's defaulting (SetDefaults_*Args) followed by
// its validation (ValidateNodeResources*Args), with field errors worded the same way
// and collected into one message the way an aggregated field.ErrorList prints.

import { qualifiedNameErrors as labelKeyErrors } from '../../model/label-syntax.js';
import type { ResourceSpec, ShapePoint } from './resource-scoring.js';
import { DEFAULT_RESOURCE_SPEC } from './resource-scoring.js';

/** field.Error bodies and ErrorList.ToAggregate().Error() formatting. */
export class FieldErrors {
  private readonly messages: string[] = [];

  private static value(v: unknown): string {
    if (v === undefined || v === null) return 'null';
    return typeof v === 'string' ? JSON.stringify(v) : String(v);
  }

  invalid(field: string, value: unknown, detail: string): void {
    this.messages.push(`${field}: Invalid value: ${FieldErrors.value(value)}${detail ? `: ${detail}` : ''}`);
  }

  required(field: string, detail: string): void {
    this.messages.push(`${field}: Required value${detail ? `: ${detail}` : ''}`);
  }

  duplicate(field: string, value: unknown): void {
    this.messages.push(`${field}: Duplicate value: ${FieldErrors.value(value)}`);
  }

  forbidden(field: string, detail: string): void {
    this.messages.push(`${field}: Forbidden${detail ? `: ${detail}` : ''}`);
  }

  notSupported(field: string, value: unknown, supported: readonly string[]): void {
    this.messages.push(`${field}: Unsupported value: ${FieldErrors.value(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`);
  }

  /** One error prints as itself; several (deduplicated) as "[a, b]". */
  throwIfAny(): void {
    const unique = [...new Set(this.messages)];
    if (unique.length === 0) return;
    throw new Error(unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`);
  }
}

// --- helpers over untyped args ---

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/** A list of objects (an absent field is an empty list); anything else is a type error, as JSON decoding would report. */
function objectList(raw: unknown, field: string): Record<string, unknown>[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((r) => typeof r !== 'object' || r === null || Array.isArray(r))) throw new Error(`${field}: Invalid value: must be a list of objects`);
  return raw as Record<string, unknown>[];
}

function stringList(raw: unknown, field: string): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string')) throw new Error(`${field}: Invalid value: must be a list of strings`);
  return raw as string[];
}

function intField(v: unknown, field: string): number {
  if (v === undefined || v === null) return 0;
  if (!isInt(v)) throw new Error(`${field}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  return v;
}

/**
 * ResourceSpec list with SetDefaults_*: an empty list becomes cpu+memory, an unset
 * (or 0) weight becomes 1. Names are not checked here.
 */
function defaultedResources(raw: unknown, field: string): ResourceSpec[] {
  const list = objectList(raw, field);
  if (list.length === 0) return DEFAULT_RESOURCE_SPEC.map((r) => ({ ...r }));
  return list.map((r, i) => {
    const name = r.name === undefined || r.name === null ? '' : r.name;
    if (typeof name !== 'string') throw new Error(`${field}[${i}].name: Invalid value: must be a string`);
    const weight = intField(r.weight, `${field}[${i}].weight`);
    return { name, weight: weight === 0 ? 1 : weight };
  });
}

// --- NodeResourcesFit ---

export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
const STRATEGY_TYPES: readonly ScoringStrategyType[] = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];

export interface FitArgs {
  readonly ignoredResources: ReadonlySet<string>;
  readonly ignoredResourceGroups: ReadonlySet<string>;
  readonly strategy: ScoringStrategyType;
  readonly resources: readonly ResourceSpec[];
  /** Only for RequestedToCapacityRatio. */
  readonly shape: readonly ShapePoint[];
}

function validateShape(shape: readonly ShapePoint[], field: string, errs: FieldErrors): void {
  if (shape.length === 0) {
    errs.required(field, 'at least one point must be specified');
    return;
  }
  for (let i = 1; i < shape.length; i++) {
    if (shape[i - 1]!.utilization >= shape[i]!.utilization) {
      errs.invalid(`${field}[${i}].utilization`, shape[i]!.utilization, 'values must be sorted in increasing order');
      break;
    }
  }
  shape.forEach((p, i) => {
    if (p.utilization < 0 || p.utilization > 100) errs.invalid(`${field}[${i}].utilization`, p.utilization, 'not in valid range [0, 100]');
    if (p.score < 0 || p.score > 10) errs.invalid(`${field}[${i}].score`, p.score, 'not in valid range [0, 10]');
  });
}

/** NodeResourcesFitArgs: defaults (LeastAllocated on cpu+memory) then ValidateNodeResourcesFitArgs. */
export function parseFitArgs(args: Readonly<Record<string, unknown>>): FitArgs {
  const ignoredResources = stringList(args.ignoredResources, 'ignoredResources');
  const ignoredResourceGroups = stringList(args.ignoredResourceGroups, 'ignoredResourceGroups');
  const rawStrategy = args.scoringStrategy;
  if (rawStrategy !== undefined && rawStrategy !== null && (typeof rawStrategy !== 'object' || Array.isArray(rawStrategy))) {
    throw new Error('scoringStrategy: Invalid value: must be an object');
  }
  const strategy = (rawStrategy ?? null) as Record<string, unknown> | null;
  // Without a scoringStrategy the default is LeastAllocated; a given one keeps its (possibly empty) type.
  const type = strategy === null ? 'LeastAllocated' : strategy.type === undefined || strategy.type === null ? '' : strategy.type;
  const resources = defaultedResources(strategy?.resources, 'scoringStrategy.resources');
  const rtcr = strategy?.requestedToCapacityRatio;

  const errs = new FieldErrors();
  ignoredResources.forEach((r, i) => {
    for (const msg of labelKeyErrors(r)) errs.invalid(`ignoredResources[${i}]`, r, msg);
  });
  ignoredResourceGroups.forEach((g, i) => {
    if (g.includes('/')) errs.invalid(`ignoredResourceGroups[${i}]`, g, "resource group name can't contain '/'");
    for (const msg of labelKeyErrors(g)) errs.invalid(`ignoredResourceGroups[${i}]`, g, msg);
  });
  if (!STRATEGY_TYPES.includes(type as ScoringStrategyType)) errs.notSupported('scoringStrategy.type', type, STRATEGY_TYPES);
  resources.forEach((r, i) => {
    if (r.weight <= 0 || r.weight > 100) errs.invalid(`scoringStrategy.resources[${i}].weight`, r.weight, `resource weight of ${r.name} not in valid range (0, 100]`);
  });
  let shape: ShapePoint[] = [];
  if (type === 'RequestedToCapacityRatio') {
    if (rtcr === undefined || rtcr === null) {
      errs.required('scoringStrategy.requestedToCapacityRatio', 'must be specified when type is RequestedToCapacityRatio');
    } else {
      const points = objectList((rtcr as Record<string, unknown>).shape, 'scoringStrategy.requestedToCapacityRatio.shape');
      shape = points.map((p, i) => ({
        utilization: intField(p.utilization, `scoringStrategy.requestedToCapacityRatio.shape[${i}].utilization`),
        score: intField(p.score, `scoringStrategy.requestedToCapacityRatio.shape[${i}].score`),
      }));
      validateShape(shape, 'scoringStrategy.requestedToCapacityRatio.shape', errs);
    }
  } else if (rtcr !== undefined && rtcr !== null) {
    errs.forbidden('scoringStrategy.requestedToCapacityRatio', 'must be nil when type is not RequestedToCapacityRatio');
  }
  errs.throwIfAny();
  return {
    ignoredResources: new Set(ignoredResources),
    ignoredResourceGroups: new Set(ignoredResourceGroups),
    strategy: type as ScoringStrategyType,
    resources,
    shape,
  };
}

// --- NodeResourcesBalancedAllocation ---

/** NodeResourcesBalancedAllocationArgs: defaults then ValidateNodeResourcesBalancedAllocationArgs (unique names, weight 1). */
export function parseBalancedAllocationArgs(args: Readonly<Record<string, unknown>>): ResourceSpec[] {
  const resources = defaultedResources(args.resources, 'resources');
  const errs = new FieldErrors();
  const seen = new Set<string>();
  resources.forEach((r, i) => {
    if (seen.has(r.name)) errs.duplicate(`resources[${i}].name`, r.name);
    else seen.add(r.name);
    if (r.weight !== 1) errs.invalid(`resources[${i}].weight`, r.weight, 'must be 1');
  });
  errs.throwIfAny();
  return resources;
}
