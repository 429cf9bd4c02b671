// Karpenter NodePools (karpenter.sh/v1), validated as a cluster running Karpenter
// would: the CRD's OpenAPI schema (patterns, bounds, enums, defaults), its CEL rules,
// and the checks Karpenter's NodePool validation controller runs (RuntimeValidate:
// qualified-name keys, label values, duplicate taints, capacity-type values). A
// NodePool failing those is accepted by the API server but never turns Ready, so
// Karpenter never provisions from it; berth reports both kinds as errors.
//
// Rules follow Karpenter v1.14 / main (kubernetes-sigs/karpenter pkg/apis/v1):
// since v1.9 labels and requirement keys in kubernetes.io and k8s.io are allowed;
// only the karpenter.sh domain and kubernetes.io/hostname are restricted. A NodePool
// whose nodeClassRef is in karpenter.k8s.aws also gets the AWS provider's CRD rule
// (its copy of this CRD restricts the karpenter.k8s.aws domain to its own labels).

import { FieldError, type FieldPath } from './errors.js';
import { parseGoDuration, NANOS_PER_SECOND } from './go-duration.js';
import { CronError, nextCronTime, parseCronSchedule, type CronSchedule } from './cron.js';
import { isRfc3339, nodePoolHash, NODEPOOL_HASH_VERSION_ANNOTATION } from './nodepool-hash.js';
import { labelValueErrors, qualifiedNameErrors } from './label-syntax.js';
import type { ObjectMetaManifest, Quantity } from './manifest.js';
import { parseQuantity, QuantityError } from './quantity.js';
import type { ResourceList } from './resources.js';
import type { Labels } from './selector.js';
import type { Taint, TaintEffect } from './taints.js';

export const NODEPOOL_API_VERSION = 'karpenter.sh/v1';
export const NODEPOOL_KIND = 'NodePool';

export const LABEL_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
const LABEL_HOSTNAME = 'kubernetes.io/hostname';

const AWS_GROUP = 'karpenter.k8s.aws';
/** The karpenter.k8s.aws keys the AWS provider's NodePool CRD lets labels and requirements use. */
const AWS_ALLOWED_KEYS: ReadonlySet<string> = new Set(
  [
    'instance-tenancy', 'capacity-reservation-type', 'capacity-reservation-id', 'capacity-reservation-interruptible', 'ec2nodeclass',
    'instance-encryption-in-transit-supported', 'nitro-sandbox', 'instance-category', 'instance-hypervisor', 'instance-family',
    'instance-generation', 'instance-local-nvme', 'instance-size', 'instance-cpu', 'instance-cpu-manufacturer',
    'instance-cpu-sustained-clock-speed-mhz', 'instance-memory', 'instance-ebs-bandwidth', 'instance-network-bandwidth',
    'instance-gpu-name', 'instance-gpu-manufacturer', 'instance-gpu-count', 'instance-gpu-memory', 'instance-accelerator-name',
    'instance-accelerator-manufacturer', 'instance-accelerator-count', 'instance-capability-flex', 'placement-group-id',
    'placement-group-partition',
  ].map((k) => `${AWS_GROUP}/${k}`),
);

export type NodePoolOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';
export const NODEPOOL_OPERATORS: readonly NodePoolOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'];

export type ConsolidationPolicy = 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
export const CONSOLIDATION_POLICIES: readonly ConsolidationPolicy[] = ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'];

export type DisruptionReason = 'Underutilized' | 'Empty' | 'Drifted';
export const DISRUPTION_REASONS: readonly DisruptionReason[] = ['Underutilized', 'Empty', 'Drifted'];

const TAINT_EFFECTS: readonly TaintEffect[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Values Karpenter knows for karpenter.sh/capacity-type (an `In` needs at least one of them). */
export const CAPACITY_TYPE_VALUES: readonly string[] = ['on-demand', 'reserved', 'spot'];

// Well-known labels (Karpenter's WellKnownLabels) and the aliases it normalizes to them.
const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
};

export const DEFAULT_EXPIRE_AFTER = '720h';
export const DEFAULT_CONSOLIDATE_AFTER = '0s';
export const DEFAULT_CONSOLIDATION_POLICY: ConsolidationPolicy = 'WhenEmptyOrUnderutilized';
export const DEFAULT_BUDGET_NODES = '10%';

// ---------------------------------------------------------------------------------------
// The manifest, as written. Enumerations stay strings here: they are checked on compile.

export interface NodePoolRequirementManifest {
  key: string;
  operator: string;
  values?: string[];
  minValues?: number;
}

export interface NodePoolTaintManifest {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface NodeClassRefManifest {
  group: string;
  kind: string;
  name: string;
}

export interface BudgetManifest {
  nodes?: string;
  schedule?: string;
  duration?: string;
  reasons?: string[];
}

export interface NodePoolManifest {
  apiVersion?: string;
  kind?: 'NodePool';
  metadata: ObjectMetaManifest;
  spec: {
    template: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: {
        requirements: NodePoolRequirementManifest[];
        nodeClassRef: NodeClassRefManifest;
        taints?: NodePoolTaintManifest[];
        startupTaints?: NodePoolTaintManifest[];
        expireAfter?: string;
        terminationGracePeriod?: string;
      };
    };
    disruption?: { consolidationPolicy?: string; consolidateAfter?: string; budgets?: BudgetManifest[] };
    limits?: Record<string, Quantity>;
    weight?: number;
    replicas?: number;
  };
}

// ---------------------------------------------------------------------------------------
// The compiled NodePool.

export interface NodePoolRequirement {
  /** As written (aliases such as beta.kubernetes.io/arch are not rewritten here). */
  readonly key: string;
  readonly operator: NodePoolOperator;
  readonly values: readonly string[];
  readonly minValues?: number;
}

export interface NodeClassRef {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

export interface DisruptionBudget {
  /** As written, after defaulting: "10%" or a count such as "5". */
  readonly nodes: string;
  /** `nodes` parsed: a percentage of the pool's nodes (rounded up when applied) or a count. */
  readonly maxNodes: { readonly percent: boolean; readonly value: number };
  /** The cron schedule as written; null when the budget is always active. */
  readonly schedule: string | null;
  readonly cron: CronSchedule | null;
  /** How long the budget stays active after each schedule hit; null with no schedule. */
  readonly durationSeconds: number | null;
  /** null: the budget applies to every reason. An empty list applies to none. */
  readonly reasons: readonly DisruptionReason[] | null;
}

export interface NodePoolDisruption {
  readonly consolidationPolicy: ConsolidationPolicy;
  /** null for "Never". */
  readonly consolidateAfterSeconds: number | null;
  readonly budgets: readonly DisruptionBudget[];
}

export interface NodePool {
  readonly name: string;
  readonly uid: string;
  /** 0 when unset; otherwise 1..100. Higher weights are tried first. */
  readonly weight: number;
  /** Static NodePools (alpha) keep this many nodes and are not used for provisioning; null for dynamic ones. */
  readonly replicas: number | null;
  /** spec.template.metadata.labels (without the karpenter.sh/nodepool label Karpenter adds to each NodeClaim). */
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly requirements: readonly NodePoolRequirement[];
  readonly taints: readonly Taint[];
  /** Taints a node carries while it starts; pods need not tolerate them to get a node provisioned. */
  readonly startupTaints: readonly Taint[];
  readonly nodeClassRef: NodeClassRef;
  /** null for "Never". */
  readonly expireAfterSeconds: number | null;
  /** null when unset: draining waits indefinitely. */
  readonly terminationGracePeriodSeconds: number | null;
  /**
   * Karpenter's NodePool.Hash() of the template (karpenter.sh/nodepool-hash, hash version
   * NODEPOOL_HASH_VERSION): a NodeClaim stamped with another hash has drifted.
   */
  readonly hash: string;
  /**
   * The karpenter.sh/nodepool-hash-version annotation the NodePool carries (written by
   * the Karpenter that last hashed it; undefined when absent): another version than
   * NODEPOOL_HASH_VERSION makes Karpenter re-stamp the pool's NodeClaims.
   */
  readonly hashVersion: string | undefined;
  /**
   * Only the resources written: cpu in millicores, memory and storage in bytes, nodes
   * and other resources as counts. Floored to those units, so for the engine's integer
   * usage `usage > limit` is exactly Karpenter's Quantity comparison.
   */
  readonly limits: ResourceList;
  readonly disruption: NodePoolDisruption;
}

// ---------------------------------------------------------------------------------------
// Validation helpers

class Problems {
  readonly list: FieldError[] = [];
  add(path: FieldPath, message: string): void {
    this.list.push(new FieldError(message, path));
  }
}

const show = (v: unknown) => JSON.stringify(v);
const supported = (values: readonly string[]) => values.map(show).join(', ');
const shouldMatch = (value: string, pattern: RegExp) => `Invalid value: ${show(value)}: should match '${pattern.source}'`;
const tooMany = (n: number, max: number) => `Too many: ${n}: must have at most ${max} items`;
const utf8 = new TextEncoder();

// Patterns of the CRD, written as Karpenter's CRD writes them.
const NILLABLE_DURATION = /^(([0-9]+(s|m|h))+|Never)$/;
const DURATION = /^([0-9]+(s|m|h))+$/;
const BUDGET_DURATION = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;
const BUDGET_NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;
// `\s` of Go's RE2 is ASCII white space only.
const BUDGET_SCHEDULE = /^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+)[\t\n\f\r ](.+))$/;
const QUALIFIED_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const GROUP = /^[^/]*$/;
const QUANTITY = /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;

const MAX_INT64 = (1n << 63n) - 1n;

function seconds(nanos: bigint): number {
  return Number(nanos / NANOS_PER_SECOND);
}

/**
 * A duration field: checked against its CRD pattern, then parsed as Go does (which
 * fails only on overflow past ~292 years). Seconds, or null for "Never".
 */
function durationField(p: Problems, path: FieldPath, text: string, pattern: RegExp): number | null | undefined {
  if (!pattern.test(text)) {
    p.add(path, shouldMatch(text, pattern));
    return undefined;
  }
  if (text === 'Never') return null;
  try {
    return seconds(parseGoDuration(text));
  } catch (e) {
    p.add(path, `Invalid value: ${show(text)}: ${(e as Error).message}`);
    return undefined;
  }
}

/**
 * Seconds of a Karpenter nillable duration ("720h", "1h30m", "30s"), or null for
 * "Never"; throws a FieldError at `path` when it is not one.
 */
export function parseNillableDuration(text: string, path: FieldPath = []): number | null {
  const p = new Problems();
  const v = durationField(p, path, text, NILLABLE_DURATION);
  if (p.list[0]) throw p.list[0];
  return v ?? null;
}

function enumField<T extends string>(p: Problems, path: FieldPath, value: string, allowed: readonly T[]): T | undefined {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  p.add(path, `Unsupported value: ${show(value)}: supported values: ${supported(allowed)}`);
  return undefined;
}

function intRange(p: Problems, path: FieldPath, value: number, min: number, max?: number): boolean {
  if (value < min) p.add(path, `Invalid value: ${value}: must be greater than or equal to ${min}`);
  else if (max !== undefined && value > max) p.add(path, `Invalid value: ${value}: must be less than or equal to ${max}`);
  else return true;
  return false;
}

/** The first segment of a key before '/', as CEL's find("^([^/]+)") sees it (the whole key when it has no '/'). */
const domainOf = (key: string) => /^([^/]+)/.exec(key)?.[1] ?? '';

/** The CRD's CEL rules on label keys, in template labels and requirement keys alike; `aws` adds the AWS provider's rule. */
function restrictedKeyMessage(key: string, aws: boolean): string | undefined {
  if (key !== LABEL_CAPACITY_TYPE && key !== LABEL_NODEPOOL && domainOf(key).endsWith('karpenter.sh')) return 'label domain "karpenter.sh" is restricted';
  if (key === LABEL_NODEPOOL) return `label "${LABEL_NODEPOOL}" is restricted`;
  if (key === LABEL_HOSTNAME) return `label "${LABEL_HOSTNAME}" is restricted`;
  if (aws && !AWS_ALLOWED_KEYS.has(key) && domainOf(key).endsWith(AWS_GROUP)) return `label domain "${AWS_GROUP}" is restricted`;
  return undefined;
}

function labelValueField(p: Problems, path: FieldPath, value: string): boolean {
  if (utf8.encode(value).length > 63) p.add(path, 'Too long: may not be more than 63 bytes');
  else if (!LABEL_VALUE.test(value)) p.add(path, shouldMatch(value, LABEL_VALUE));
  else return true;
  return false;
}

// ---------------------------------------------------------------------------------------
// Parts of the spec

function compileLabels(p: Problems, labels: Record<string, string>, path: FieldPath, aws: boolean): void {
  const keys = Object.keys(labels);
  if (keys.length > 100) p.add(path, tooMany(keys.length, 100));
  for (const key of keys) {
    const at = [...path, key];
    const restricted = restrictedKeyMessage(key, aws);
    if (restricted) p.add(at, `Invalid value: ${show(key)}: ${restricted}`);
    else {
      const reasons = qualifiedNameErrors(key);
      if (reasons.length > 0) p.add(at, `Invalid value: ${show(key)}: ${reasons.join('; ')}`);
    }
    labelValueField(p, at, labels[key]!);
  }
}

function compileTaints(p: Problems, taints: readonly NodePoolTaintManifest[], path: FieldPath, seen: Map<string, FieldPath>): Taint[] {
  const out: Taint[] = [];
  taints.forEach((t, i) => {
    const at = [...path, i];
    let ok = true;
    if (t.key === '') {
      p.add([...at, 'key'], 'Required value');
      ok = false;
    } else if (!QUALIFIED_KEY.test(t.key)) {
      p.add([...at, 'key'], shouldMatch(t.key, QUALIFIED_KEY));
      ok = false;
    } else {
      const reasons = qualifiedNameErrors(t.key);
      if (reasons.length > 0) {
        p.add([...at, 'key'], `Invalid value: ${show(t.key)}: ${reasons.join('; ')}`);
        ok = false;
      }
    }
    const value = t.value ?? '';
    if (t.value !== undefined && !QUALIFIED_KEY.test(t.value)) {
      p.add([...at, 'value'], shouldMatch(t.value, QUALIFIED_KEY));
      ok = false;
    } else if (value !== '') {
      // Karpenter checks a taint value as a qualified name, not as a label value.
      const reasons = qualifiedNameErrors(value);
      if (reasons.length > 0) {
        p.add([...at, 'value'], `Invalid value: ${show(value)}: ${reasons.join('; ')}`);
        ok = false;
      }
    }
    if (t.timeAdded !== undefined && !isRfc3339(t.timeAdded)) {
      p.add([...at, 'timeAdded'], `Invalid value: ${show(t.timeAdded)}: must be an RFC 3339 date-time`);
      ok = false;
    }
    const effect = enumField(p, [...at, 'effect'], t.effect, TAINT_EFFECTS);
    if (!effect) return;
    // A key may carry one taint per effect, across taints and startupTaints together.
    const pair = `${t.key}=${effect}`;
    const first = seen.get(pair);
    if (first) p.add(at, `Duplicate value: ${show(pair)}: duplicate taint Key/Effect pair`);
    else seen.set(pair, at);
    if (ok) out.push({ key: t.key, value, effect });
  });
  return out;
}

/** Gt, Lt, Gte and Lte take one integer, at least 0 and within int64 (CEL's int()). */
function isSingleNonNegativeInteger(values: readonly string[]): boolean {
  if (values.length !== 1 || !/^[0-9]+$/.test(values[0]!)) return false;
  return BigInt(values[0]!) <= MAX_INT64;
}

function compileRequirement(p: Problems, r: NodePoolRequirementManifest, at: FieldPath, aws: boolean): NodePoolRequirement | undefined {
  const before = p.list.length;
  const keyPath = [...at, 'key'];
  if (utf8.encode(r.key).length > 316) p.add(keyPath, 'Too long: may not be more than 316 bytes');
  else if (!QUALIFIED_KEY.test(r.key)) p.add(keyPath, shouldMatch(r.key, QUALIFIED_KEY));
  else {
    const restricted = restrictedKeyMessage(r.key, aws);
    if (restricted) p.add(keyPath, `Invalid value: ${show(r.key)}: ${restricted}`);
    else {
      const reasons = qualifiedNameErrors(NORMALIZED_LABELS[r.key] ?? r.key);
      if (reasons.length > 0) p.add(keyPath, `Invalid value: ${show(r.key)}: ${reasons.join('; ')}`);
    }
  }
  const operator = enumField(p, [...at, 'operator'], r.operator, NODEPOOL_OPERATORS);
  const values = r.values ?? [];
  const valuesPath = [...at, 'values'];
  let valuesOk = true;
  if (operator === 'In' && values.length === 0) {
    p.add(valuesPath, `Invalid value: []: requirements with operator 'In' must have a value defined`);
    valuesOk = false;
  } else if ((operator === 'Gt' || operator === 'Lt' || operator === 'Gte' || operator === 'Lte') && !isSingleNonNegativeInteger(values)) {
    p.add(valuesPath, `Invalid value: ${show(values)}: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value`);
    valuesOk = false;
  }
  if (valuesOk) {
    values.forEach((v, j) => {
      const reasons = labelValueErrors(v);
      if (reasons.length > 0) {
        p.add([...valuesPath, j], `Invalid value: ${show(v)}: ${reasons.join('; ')}`);
        valuesOk = false;
      }
    });
  }
  if (r.minValues !== undefined && intRange(p, [...at, 'minValues'], r.minValues, 1, 50)) {
    if (operator === 'In' && values.length < r.minValues) {
      p.add([...at, 'minValues'], `Invalid value: ${r.minValues}: requirements with 'minValues' must have at least that many values specified in the 'values' field`);
    }
  }
  // Karpenter's validation controller: a capacity-type `In` needs values it knows.
  if (valuesOk && operator === 'In' && (NORMALIZED_LABELS[r.key] ?? r.key) === LABEL_CAPACITY_TYPE) {
    const known = values.filter((v) => CAPACITY_TYPE_VALUES.includes(v));
    if (known.length === 0) {
      p.add(valuesPath, `Invalid value: ${show(values)}: no valid values found for ${LABEL_CAPACITY_TYPE}, expected one of: ${supported(CAPACITY_TYPE_VALUES)}`);
    } else if (r.minValues !== undefined && known.length < r.minValues && r.minValues <= values.length) {
      p.add(valuesPath, `Invalid value: ${show(values)}: not enough valid values found for ${LABEL_CAPACITY_TYPE}, expected at least ${r.minValues} valid values from: ${supported(CAPACITY_TYPE_VALUES)}, got: ${known.length}`);
    }
  }
  if (p.list.length > before || !operator) return undefined;
  return { key: r.key, operator, values: [...values], ...(r.minValues !== undefined ? { minValues: r.minValues } : {}) };
}

function compileNodeClassRef(p: Problems, ref: NodeClassRefManifest, path: FieldPath): NodeClassRef {
  for (const field of ['group', 'kind', 'name'] as const) {
    if (ref[field] === '') p.add([...path, field], `Invalid value: "": ${field} may not be empty`);
  }
  if (!GROUP.test(ref.group)) p.add([...path, 'group'], shouldMatch(ref.group, GROUP));
  return { group: ref.group, kind: ref.kind, name: ref.name };
}

/** Floors a quantity to the engine's units (see NodePool.limits). */
function floorResource(resource: string, q: Quantity): number {
  const { num, den } = parseQuantity(q);
  const scaled = resource === 'cpu' ? num * 1000n : num;
  let v = scaled / den;
  if (scaled % den !== 0n && scaled < 0n) v -= 1n;
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new QuantityError(`quantity ${show(q)} is too large`);
  return Number(v);
}

function compileLimits(p: Problems, limits: Record<string, Quantity>, path: FieldPath): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(limits)) {
    const at = [...path, name];
    // int-or-string: a bare number must be an integer; a string must look like a quantity.
    if (typeof q === 'number' ? !Number.isInteger(q) : !QUANTITY.test(q)) {
      p.add(at, typeof q === 'number' ? `Invalid value: ${q}: must be an integer or a quantity string` : shouldMatch(q, QUANTITY));
      continue;
    }
    try {
      out[name] = floorResource(name, q);
    } catch (e) {
      if (!(e instanceof QuantityError)) throw e;
      p.add(at, e.message);
    }
  }
  return out;
}

function compileBudget(p: Problems, b: BudgetManifest, at: FieldPath): DisruptionBudget | undefined {
  const before = p.list.length;
  const nodes = b.nodes ?? DEFAULT_BUDGET_NODES;
  let maxNodes = { percent: true, value: 10 };
  if (!BUDGET_NODES.test(nodes)) p.add([...at, 'nodes'], shouldMatch(nodes, BUDGET_NODES));
  else if (nodes.endsWith('%')) maxNodes = { percent: true, value: Number(nodes.slice(0, -1)) };
  else if (BigInt(nodes) > MAX_INT64) p.add([...at, 'nodes'], `Invalid value: ${show(nodes)}: value out of range`);
  else maxNodes = { percent: false, value: Number(nodes) };

  let cron: CronSchedule | null = null;
  if (b.schedule !== undefined) {
    if (!BUDGET_SCHEDULE.test(b.schedule)) p.add([...at, 'schedule'], shouldMatch(b.schedule, BUDGET_SCHEDULE));
    else {
      // The CRD pattern lets through what cron cannot parse ("@dailyish", six fields);
      // Karpenter then treats the budget as misconfigured and blocks all disruption.
      try {
        cron = parseCronSchedule(b.schedule);
      } catch (e) {
        if (!(e instanceof CronError)) throw e;
        p.add([...at, 'schedule'], `Invalid value: ${show(b.schedule)}: invalid cron: ${e.message}`);
      }
    }
  }
  let durationSeconds: number | null = null;
  if (b.duration !== undefined) durationSeconds = durationField(p, [...at, 'duration'], b.duration, BUDGET_DURATION) ?? null;
  if (b.schedule !== undefined && b.duration === undefined) p.add([...at, 'duration'], "Required value: 'schedule' must be set with 'duration'");
  if (b.duration !== undefined && b.schedule === undefined) p.add([...at, 'schedule'], "Required value: 'schedule' must be set with 'duration'");

  let reasons: DisruptionReason[] | null = null;
  if (b.reasons !== undefined) {
    reasons = [];
    if (b.reasons.length > 50) p.add([...at, 'reasons'], tooMany(b.reasons.length, 50));
    b.reasons.forEach((r, j) => {
      const reason = enumField(p, [...at, 'reasons', j], r, DISRUPTION_REASONS);
      if (!reason) return;
      if (reasons!.includes(reason)) p.add([...at, 'reasons', j], `Duplicate value: ${show(reason)}`);
      else reasons!.push(reason);
    });
  }
  if (p.list.length > before) return undefined;
  return { nodes, maxNodes, schedule: b.schedule ?? null, cron, durationSeconds, reasons };
}

function compileDisruption(p: Problems, d: NonNullable<NodePoolManifest['spec']['disruption']>, path: FieldPath): NodePoolDisruption {
  const consolidationPolicy = d.consolidationPolicy === undefined ? DEFAULT_CONSOLIDATION_POLICY : enumField(p, [...path, 'consolidationPolicy'], d.consolidationPolicy, CONSOLIDATION_POLICIES);
  const consolidateAfterSeconds = durationField(p, [...path, 'consolidateAfter'], d.consolidateAfter ?? DEFAULT_CONSOLIDATE_AFTER, NILLABLE_DURATION);
  // The CRD defaults an absent list to one 10% budget; an explicit empty list stays empty (no limit).
  const written = d.budgets ?? [{ nodes: DEFAULT_BUDGET_NODES }];
  if (written.length > 50) p.add([...path, 'budgets'], tooMany(written.length, 50));
  const budgets: DisruptionBudget[] = [];
  written.forEach((b, i) => {
    const budget = compileBudget(p, b, [...path, 'budgets', i]);
    if (budget) budgets.push(budget);
  });
  return {
    consolidationPolicy: consolidationPolicy ?? DEFAULT_CONSOLIDATION_POLICY,
    consolidateAfterSeconds: consolidateAfterSeconds === undefined ? 0 : consolidateAfterSeconds,
    budgets,
  };
}

function check(m: NodePoolManifest): { pool: NodePool; problems: FieldError[] } {
  const p = new Problems();
  const name = m.metadata.name ?? '';
  if (!name) p.add(['metadata', 'name'], 'Required value: name or generateName is required');
  const spec = m.spec;
  const replicas = spec.replicas ?? null;
  if (replicas !== null) intRange(p, ['spec', 'replicas'], replicas, 0);
  if (spec.weight !== undefined) {
    intRange(p, ['spec', 'weight'], spec.weight, 1, 100);
    if (replicas !== null) p.add(['spec', 'weight'], "Forbidden: 'weight' is not supported on static NodePools");
  }
  const limitsPath = ['spec', 'limits'];
  if (replicas !== null) {
    for (const key of Object.keys(spec.limits ?? {})) if (key !== 'nodes') p.add([...limitsPath, key], "Forbidden: only 'limits.nodes' is supported on static NodePools");
  }
  const limits = compileLimits(p, spec.limits ?? {}, limitsPath);

  const tmplPath = ['spec', 'template'];
  const t = spec.template.spec;
  const aws = t.nodeClassRef.group === AWS_GROUP;
  const labels = spec.template.metadata?.labels ?? {};
  compileLabels(p, labels, [...tmplPath, 'metadata', 'labels'], aws);
  const tSpecPath = [...tmplPath, 'spec'];

  const reqPath = [...tSpecPath, 'requirements'];
  if (t.requirements.length > 100) p.add(reqPath, tooMany(t.requirements.length, 100));
  const requirements: NodePoolRequirement[] = [];
  t.requirements.forEach((r, i) => {
    const req = compileRequirement(p, r, [...reqPath, i], aws);
    if (req) requirements.push(req);
  });

  const seenTaints = new Map<string, FieldPath>();
  const taints = compileTaints(p, t.taints ?? [], [...tSpecPath, 'taints'], seenTaints);
  const startupTaints = compileTaints(p, t.startupTaints ?? [], [...tSpecPath, 'startupTaints'], seenTaints);
  const nodeClassRef = compileNodeClassRef(p, t.nodeClassRef, [...tSpecPath, 'nodeClassRef']);
  const expireAfterSeconds = durationField(p, [...tSpecPath, 'expireAfter'], t.expireAfter ?? DEFAULT_EXPIRE_AFTER, NILLABLE_DURATION);
  const terminationGracePeriodSeconds = t.terminationGracePeriod === undefined ? null : (durationField(p, [...tSpecPath, 'terminationGracePeriod'], t.terminationGracePeriod, DURATION) ?? null);
  const disruption = compileDisruption(p, spec.disruption ?? {}, ['spec', 'disruption']);

  const pool: NodePool = {
    name,
    uid: m.metadata.uid ?? name,
    weight: spec.weight ?? 0,
    replicas,
    labels: { ...labels },
    annotations: { ...spec.template.metadata?.annotations },
    requirements,
    taints,
    startupTaints,
    nodeClassRef,
    expireAfterSeconds: expireAfterSeconds === undefined ? null : expireAfterSeconds,
    terminationGracePeriodSeconds,
    // Hashed only once valid: the hash parses the durations and times the checks above accept.
    hash: p.list.length === 0 ? nodePoolHash(m) : '',
    hashVersion: m.metadata.annotations?.[NODEPOOL_HASH_VERSION_ANNOTATION],
    limits,
    disruption,
  };
  return { pool, problems: p.list };
}

/** Every problem with the NodePool, each a FieldError at its field (empty when it is valid). */
export function nodePoolErrors(m: NodePoolManifest): FieldError[] {
  return check(m).problems;
}

/**
 * A NodePool's spec.disruption on its own, with the CRD's defaults and checks (a what-if
 * variant swaps it into existing pools). Problems carry paths under `path`.
 */
export function compileNodePoolDisruption(d: NonNullable<NodePoolManifest['spec']['disruption']>, path: FieldPath): { disruption: NodePoolDisruption; problems: FieldError[] } {
  const p = new Problems();
  const disruption = compileDisruption(p, d, path);
  return { disruption, problems: p.list };
}

/** Compiles a NodePool with Karpenter's defaults; throws the first of nodePoolErrors(m). */
export function compileNodePool(m: NodePoolManifest): NodePool {
  const { pool, problems } = check(m);
  if (problems[0]) throw problems[0];
  return pool;
}

/**
 * NodePools in the order Karpenter's provisioner tries them: higher weight first
 * and, at equal weight, names later in the alphabet first (a new array).
 */
export function orderNodePools<P extends Pick<NodePool, 'name' | 'weight'>>(pools: readonly P[]): P[] {
  return [...pools].sort((a, b) => b.weight - a.weight || (a.name > b.name ? -1 : a.name < b.name ? 1 : 0));
}

/** The label Karpenter puts on a NodeClaim for its NodeClass: `<group>/<lowercased kind>` = name. */
export function nodeClassLabelKey(ref: NodeClassRef): string {
  return `${ref.group}/${ref.kind.toLowerCase()}`;
}

// ---------------------------------------------------------------------------------------
// Disruption budgets (Budget.IsActive, GetAllowedDisruptions)

/** Karpenter's "unbounded" allowance (math.MaxInt32). */
export const UNBOUNDED_DISRUPTIONS = 2147483647;

/**
 * Whether a budget is in force at `nowMs` (Unix ms): always without a schedule;
 * otherwise when the schedule hit in (now - duration, now], i.e. each hit opens a
 * window [hit, hit + duration). A schedule that never fires counts as active, as in
 * Karpenter (cron's zero time lies in the past).
 */
export function isBudgetActive(budget: DisruptionBudget, nowMs: number): boolean {
  if (budget.cron === null) return true;
  const next = nextCronTime(budget.cron, nowMs - (budget.durationSeconds ?? 0) * 1000);
  return next === null || next <= nowMs;
}

/** How many of `numNodes` nodes the budget lets be disrupted at once at `nowMs` (percentages round up). */
export function budgetAllowedDisruptions(budget: DisruptionBudget, nowMs: number, numNodes: number): number {
  if (!isBudgetActive(budget, nowMs)) return UNBOUNDED_DISRUPTIONS;
  const { percent, value } = budget.maxNodes;
  return percent ? Math.ceil((value * numNodes) / 100) : value;
}

/** The most restrictive active budget that applies to `reason` (UNBOUNDED_DISRUPTIONS when none does). */
export function allowedDisruptions(pool: NodePool, nowMs: number, numNodes: number, reason: DisruptionReason): number {
  let allowed = UNBOUNDED_DISRUPTIONS;
  for (const b of pool.disruption.budgets) {
    if (b.reasons !== null && !b.reasons.includes(reason)) continue;
    allowed = Math.min(allowed, budgetAllowedDisruptions(b, nowMs, numNodes));
  }
  return allowed;
}
