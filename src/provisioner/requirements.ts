// Karpenter's node requirements algebra. A Requirement is the set of values one label key may
// take: a finite set (In), the complement of one (NotIn, or Exists for the complement of
// nothing), or nothing at all (DoesNotExist), optionally cut down to an integer range by
// Gt/Lt bounds. Requirements maps keys to Requirements; adding one intersects it with what is
// already there, which is how a NodeClaim's labels narrow as pods join it.
//
// Karpenter mutates requirements in place; here a Requirement is immutable and only the
// Requirements map changes. Where Karpenter picks randomly (Any) or walks a Go map (error
// order), berth picks deterministically, as documented on each method.

import type { Labels, Operator } from '../model/selector.js';
import { normalizeLabelKey, RESTRICTED_LABELS, SCHEDULING_SIMULATION_LABELS, WELL_KNOWN_LABEL_LIST, WELL_KNOWN_LABELS } from './labels.js';

/** Node selector operators plus Karpenter's inclusive bounds, which NodeClaims are written with. */
export type RequirementOperator = Operator | 'Gte' | 'Lte';

/** A node selector requirement as a NodePool or NodeClaim spells it. */
export interface NodeSelectorRequirementWithMinValues {
  readonly key: string;
  readonly operator: RequirementOperator;
  readonly values: readonly string[];
  /** At least this many distinct values of the key must stay possible across the candidate instance types. */
  readonly minValues?: number;
}

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

/** strconv.Atoi on a 64-bit platform: the value (0 on a syntax error, clamped on overflow) and whether it parsed. */
function atoi(s: string): { value: bigint; ok: boolean } {
  if (!/^[+-]?[0-9]+$/.test(s)) return { value: 0n, ok: false };
  const value = BigInt(s);
  if (value > MAX_INT64) return { value: MAX_INT64, ok: false };
  if (value < MIN_INT64) return { value: MIN_INT64, ok: false };
  return { value, ok: true };
}

/** A Gt/Lt/Gte/Lte requirement's bound: its first value as strconv.Atoi reads it. */
const boundOf = (values: readonly string[]): bigint => atoi(values[0] ?? '').value;

function withinBounds(value: string, gte: bigint | undefined, lte: bigint | undefined): boolean {
  if (gte === undefined && lte === undefined) return true;
  // With bounds set, a value that is not an integer cannot be in range.
  const n = atoi(value);
  if (!n.ok) return false;
  if (gte !== undefined && n.value < gte) return false;
  if (lte !== undefined && n.value > lte) return false;
  return true;
}

function maxOf<T extends number | bigint>(a: T | undefined, b: T | undefined): T | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

function minOf<T extends number | bigint>(a: T | undefined, b: T | undefined): T | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a < b ? a : b;
}

function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}

export class Requirement {
  /** The (normalized) label key. */
  readonly key: string;
  /** True when the value set is everything except `excluded` (NotIn, Exists, Gt, Lt). */
  readonly complement: boolean;
  /** Inclusive integer bounds; only ever set on complements (Gt N is stored as gte N+1, Lt N as lte N-1). */
  readonly gte: bigint | undefined;
  readonly lte: bigint | undefined;
  readonly minValues: number | undefined;
  private readonly set: ReadonlySet<string>;

  private constructor(key: string, complement: boolean, set: ReadonlySet<string>, gte?: bigint, lte?: bigint, minValues?: number) {
    this.key = key;
    this.complement = complement;
    this.set = set;
    this.gte = gte;
    this.lte = lte;
    this.minValues = minValues;
  }

  /**
   * Builds a requirement from an operator and its values (Karpenter's NewRequirementWithFlexibility).
   * The key is normalized. Gt/Lt/Gte/Lte read only values[0], which callers validate first;
   * like Go's ignored strconv error, a non-integer reads as 0 and an overflowing one clamps.
   * Gt of the largest int64 matches nothing and becomes DoesNotExist (dropping minValues, as
   * Karpenter does), and Lt of the smallest wraps around as Go's int does.
   */
  static of(key: string, operator: RequirementOperator, values: readonly string[] = [], minValues?: number): Requirement {
    key = normalizeLabelKey(key);
    switch (operator) {
      case 'In':
        return new Requirement(key, false, new Set(values), undefined, undefined, minValues);
      case 'NotIn':
        return new Requirement(key, true, new Set(values), undefined, undefined, minValues);
      case 'Exists':
        return new Requirement(key, true, new Set(), undefined, undefined, minValues);
      case 'DoesNotExist':
        return new Requirement(key, false, new Set(), undefined, undefined, minValues);
      case 'Gt': {
        const n = boundOf(values);
        if (n === MAX_INT64) return new Requirement(key, false, new Set());
        return new Requirement(key, true, new Set(), n + 1n, undefined, minValues);
      }
      case 'Lt':
        return new Requirement(key, true, new Set(), undefined, BigInt.asIntN(64, boundOf(values) - 1n), minValues);
      case 'Gte':
        return new Requirement(key, true, new Set(), boundOf(values), undefined, minValues);
      case 'Lte':
        return new Requirement(key, true, new Set(), undefined, boundOf(values), minValues);
    }
  }

  /** Builds a requirement from its node selector form. */
  static fromNodeSelectorRequirement(r: NodeSelectorRequirementWithMinValues): Requirement {
    return Requirement.of(r.key, r.operator, r.values, r.minValues);
  }

  /** Whether a node whose label `key` has `value` satisfies this requirement. */
  has(value: string): boolean {
    return (this.complement ? !this.set.has(value) : this.set.has(value)) && withinBounds(value, this.gte, this.lte);
  }

  /**
   * The values both requirements allow. Bounds tighten (largest lower, smallest upper), minValues
   * takes the larger; crossing bounds give DoesNotExist; a finite result keeps only the values
   * inside the bounds and drops the bounds themselves.
   */
  intersection(other: Requirement): Requirement {
    const complement = this.complement && other.complement;
    const gte = maxOf(this.gte, other.gte);
    const lte = minOf(this.lte, other.lte);
    const minValues = maxOf(this.minValues, other.minValues);
    if (gte !== undefined && lte !== undefined && gte > lte) return new Requirement(this.key, false, new Set(), undefined, undefined, minValues);

    let values: Set<string>;
    if (this.complement && other.complement) values = new Set([...this.set, ...other.set]);
    else if (this.complement) values = new Set([...other.set].filter((v) => !this.set.has(v)));
    else if (other.complement) values = new Set([...this.set].filter((v) => !other.set.has(v)));
    else values = new Set([...this.set].filter((v) => other.set.has(v)));
    for (const v of values) if (!withinBounds(v, gte, lte)) values.delete(v);

    if (!complement) return new Requirement(this.key, false, values, undefined, undefined, minValues);
    return new Requirement(this.key, true, values, gte, lte, minValues);
  }

  /**
   * Whether intersection(other) would be non-empty, without building it. Like Karpenter, two
   * complements always intersect once their bounds do not cross, even if the excluded values
   * happen to cover the whole range.
   */
  hasIntersection(other: Requirement): boolean {
    const gte = maxOf(this.gte, other.gte);
    const lte = minOf(this.lte, other.lte);
    if (gte !== undefined && lte !== undefined && gte > lte) return false;
    if (this.complement && other.complement) return true;
    if (this.complement) {
      for (const v of other.set) if (!this.set.has(v) && withinBounds(v, gte, lte)) return true;
      return false;
    }
    if (other.complement) {
      for (const v of this.set) if (!other.set.has(v) && withinBounds(v, gte, lte)) return true;
      return false;
    }
    for (const v of this.set) if (other.set.has(v) && withinBounds(v, gte, lte)) return true;
    return false;
  }

  /**
   * How many values are allowed: the set's size, or Infinity for a complement (Karpenter counts
   * those as MaxInt64 minus the excluded values; only "finite or not" matters to callers).
   */
  len(): number {
    return this.complement ? Number.POSITIVE_INFINITY : this.set.size;
  }

  /** True for DoesNotExist (an empty finite set). */
  isEmpty(): boolean {
    return !this.complement && this.set.size === 0;
  }

  /**
   * The operator this requirement amounts to. Bounded complements count as Exists (or NotIn
   * when values are also excluded), as in Karpenter.
   */
  operator(): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
    if (this.complement) return this.set.size > 0 ? 'NotIn' : 'Exists';
    return this.set.size > 0 ? 'In' : 'DoesNotExist';
  }

  /**
   * The stored values, sorted: the allowed ones for In, the excluded ones for NotIn, none for
   * Exists/DoesNotExist (Karpenter's Values, which returns the raw set either way).
   */
  values(): string[] {
    return sorted(this.set);
  }

  /**
   * One value a node could carry for this key, or '' when none (DoesNotExist).
   * Karpenter picks at random (a random member of In, a random integer for complements);
   * berth picks the smallest member of In, and for a complement the integer nearest zero
   * inside the bounds that is not excluded (from the lower bound upwards when there is one,
   * from a negative upper bound downwards otherwise). Unlike Karpenter's pick it never lands
   * on an excluded value.
   */
  any(): string {
    if (!this.complement) return this.set.size > 0 ? (sorted(this.set)[0] as string) : '';
    const fits = (n: bigint) => (this.gte === undefined || n >= this.gte) && (this.lte === undefined || n <= this.lte);
    const downwards = this.gte === undefined && this.lte !== undefined && this.lte < 0n;
    let n = this.gte ?? (downwards ? (this.lte as bigint) : 0n);
    // The excluded set is finite, so at most that many candidates are skipped.
    for (let i = 0; i <= this.set.size && fits(n); i++) {
      if (!this.set.has(n.toString())) return n.toString();
      n = downwards ? n - 1n : n + 1n;
    }
    return '';
  }

  /** A copy with minValues replaced (Karpenter assigns MinValues in place when relaxing it). */
  withMinValues(minValues: number | undefined): Requirement {
    return new Requirement(this.key, this.complement, this.set, this.gte, this.lte, minValues);
  }

  /** A copy with more values in the set: allowed for In, excluded for NotIn (Karpenter's Insert). */
  withValues(...values: string[]): Requirement {
    return new Requirement(this.key, this.complement, new Set([...this.set, ...values]), this.gte, this.lte, this.minValues);
  }

  /**
   * The node selector form (Karpenter's NodeSelectorRequirement): Gte when there is a lower
   * bound, else Lte when there is an upper bound, else NotIn/Exists/In/DoesNotExist. Like
   * Karpenter this single form drops excluded values next to a bound, and the upper bound
   * when both are set; nodeSelectorRequirements() writes both bounds.
   */
  nodeSelectorRequirement(): NodeSelectorRequirementWithMinValues {
    const mv = this.minValues === undefined ? {} : { minValues: this.minValues };
    if (this.gte !== undefined) return { key: this.key, operator: 'Gte', values: [this.gte.toString()], ...mv };
    if (this.lte !== undefined) return { key: this.key, operator: 'Lte', values: [this.lte.toString()], ...mv };
    return { key: this.key, operator: this.operator(), values: this.values(), ...mv };
  }

  /** The node selector form, as two requirements (Gte and Lte) when both bounds are set. */
  nodeSelectorRequirements(): NodeSelectorRequirementWithMinValues[] {
    if (this.gte === undefined || this.lte === undefined) return [this.nodeSelectorRequirement()];
    const mv = this.minValues === undefined ? {} : { minValues: this.minValues };
    return [
      { key: this.key, operator: 'Gte', values: [this.gte.toString()], ...mv },
      { key: this.key, operator: 'Lte', values: [this.lte.toString()], ...mv },
    ];
  }

  /** Same key, kind, values, bounds and minValues. */
  equals(other: Requirement): boolean {
    if (this.key !== other.key || this.complement !== other.complement || this.gte !== other.gte || this.lte !== other.lte || this.minValues !== other.minValues) return false;
    if (this.set.size !== other.set.size) return false;
    for (const v of this.set) if (!other.set.has(v)) return false;
    return true;
  }

  /** Karpenter's format: `key In [a b]`, `key Exists >=2 <=8`, at most five values then `and N others`. */
  toString(): string {
    const op = this.operator();
    let s: string;
    if (op === 'Exists' || op === 'DoesNotExist') {
      s = `${this.key} ${op}`;
    } else {
      const values = this.values();
      const shown = values.length > 5 ? [...values.slice(0, 5), `and ${values.length - 5} others`] : values;
      s = `${this.key} ${op} [${shown.join(' ')}]`;
    }
    if (this.gte !== undefined) s += ` >=${this.gte}`;
    if (this.lte !== undefined) s += ` <=${this.lte}`;
    if (this.minValues !== undefined) s += ` minValues ${this.minValues}`;
    return s;
  }
}

export interface CompatibilityOptions {
  /** Let the other side constrain well-known keys this side leaves undefined (Karpenter's AllowUndefinedWellKnownLabels). */
  readonly allowUndefinedWellKnownLabels?: boolean;
  /** Further keys that may be undefined here. */
  readonly allowUndefined?: ReadonlySet<string>;
}

/** The option Karpenter passes when checking pods against NodeClaims and offerings. */
export const ALLOW_UNDEFINED_WELL_KNOWN: CompatibilityOptions = { allowUndefinedWellKnownLabels: true };

function suffixOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? key : key.slice(slash + 1);
}

function looksLike(candidate: string, key: string): boolean {
  return candidate.includes(key) || candidate.endsWith(suffixOf(key));
}

/** Requirements are immutable, so the Exists that get() answers for an undefined key is built once per key. */
const existsByKey = new Map<string, Requirement>();
function exists(key: string): Requirement {
  let r = existsByKey.get(key);
  if (r === undefined) existsByKey.set(key, (r = Requirement.of(key, 'Exists')));
  return r;
}

export class Requirements {
  private readonly byKey = new Map<string, Requirement>();

  /** Requirements from the given ones, intersecting any that share a key. */
  constructor(requirements: Iterable<Requirement> = []) {
    this.add(...requirements);
  }

  /** From node selector requirements (NodePool requirements, or a pod's matchExpressions). */
  static fromNodeSelectorRequirements(requirements: readonly NodeSelectorRequirementWithMinValues[]): Requirements {
    return new Requirements(requirements.map((r) => Requirement.fromNodeSelectorRequirement(r)));
  }

  /** One In requirement per label. */
  static fromLabels(labels: Labels): Requirements {
    return new Requirements(Object.entries(labels).map(([k, v]) => Requirement.of(k, 'In', [v])));
  }

  /** Intersects each requirement into this map in place. */
  add(...requirements: Requirement[]): void {
    for (const r of requirements) {
      const existing = this.byKey.get(r.key);
      this.byKey.set(r.key, existing === undefined ? r : r.intersection(existing));
    }
  }

  /** Intersects every requirement of `other` into this map in place. */
  addAll(other: Requirements): void {
    this.add(...other.byKey.values());
  }

  /** addAll, returning the keys whose requirement changed (added, or a set that shrank or gained a bound or minValues). */
  narrow(other: Requirements): string[] {
    const changed: string[] = [];
    for (const r of other.byKey.values()) {
      const existing = this.byKey.get(r.key);
      const next = existing === undefined ? r : r.intersection(existing);
      if (existing === undefined || !next.equals(existing)) changed.push(r.key);
      this.byKey.set(r.key, next);
    }
    return changed;
  }

  /** Replaces (does not intersect) the requirement for its key. */
  set(requirement: Requirement): void {
    this.byKey.set(requirement.key, requirement);
  }

  delete(key: string): boolean {
    return this.byKey.delete(key);
  }

  clone(): Requirements {
    const copy = new Requirements();
    for (const [k, r] of this.byKey) copy.byKey.set(k, r);
    return copy;
  }

  get size(): number {
    return this.byKey.size;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The requirement for `key`; an undefined key allows any value (Exists). */
  get(key: string): Requirement {
    return this.byKey.get(key) ?? exists(key);
  }

  /** Keys, sorted. */
  keys(): string[] {
    return sorted(this.byKey.keys());
  }

  /** Requirements, sorted by key. */
  values(): Requirement[] {
    return this.keys().map((k) => this.byKey.get(k) as Requirement);
  }

  hasMinValues(): boolean {
    for (const r of this.byKey.values()) if (r.minValues !== undefined) return true;
    return false;
  }

  /**
   * Why `other` cannot be met here, or undefined when it can (Karpenter's Compatible). A key
   * `other` constrains but this side leaves undefined is refused, unless it is allowed to be
   * undefined (well-known labels, with the option) or `other` only excludes values there
   * (NotIn or DoesNotExist), which an absent label satisfies. Then every shared key must
   * intersect. Only the first undefined key is reported; keys are checked in sorted order.
   */
  compatible(other: Requirements, options: CompatibilityOptions = {}): string | undefined {
    // Checked in map order first (this runs for every pod, claim and instance type); only a refusal pays for the sorted walk that names the first key.
    for (const [key, r] of other.byKey) {
      if (!this.refuses(key, r, options)) continue;
      const first = other.keys().find((k) => this.refuses(k, other.get(k), options)) as string;
      return `label ${JSON.stringify(first)} does not have known values${this.typoHint(first, options)}`;
    }
    return this.intersects(other);
  }

  /** Whether `r`, on a key this side leaves undefined and may not, asks for a value (only NotIn and DoesNotExist are met by an absent label). */
  private refuses(key: string, r: Requirement, options: CompatibilityOptions): boolean {
    if (this.byKey.has(key) || (options.allowUndefinedWellKnownLabels === true && WELL_KNOWN_LABELS.has(key)) || options.allowUndefined?.has(key) === true) return false;
    const op = r.operator();
    return op !== 'NotIn' && op !== 'DoesNotExist';
  }

  isCompatible(other: Requirements, options: CompatibilityOptions = {}): boolean {
    return this.compatible(other, options) === undefined;
  }

  /** Suggests an allowed-undefined key, then an existing key, that contains `key` or ends with its suffix. */
  private typoHint(key: string, options: CompatibilityOptions): string {
    const candidates = [
      ...(options.allowUndefinedWellKnownLabels === true ? WELL_KNOWN_LABEL_LIST : []),
      ...(options.allowUndefined === undefined ? [] : sorted(options.allowUndefined)),
      ...this.keys(),
    ];
    const hit = candidates.find((c) => looksLike(c, key));
    return hit === undefined ? '' : ` (typo of ${JSON.stringify(hit)}?)`;
  }

  /**
   * Why the keys both sides define cannot hold at once, or undefined when they can (Karpenter's
   * Intersects); keys only one side defines are ignored. Two requirements that both only
   * exclude values (NotIn/DoesNotExist) never conflict: a node without the label meets both.
   * Each conflict reads `key K, <other's requirement> not in <this requirement>`; several are
   * joined with "; " in key order.
   */
  intersects(other: Requirements): string | undefined {
    const small = this.byKey.size <= other.byKey.size ? this : other;
    // Map order first; only a conflict pays for the sorted walk that words every conflict in key order.
    if (!this.conflictsOn(other, small.byKey.keys())) return undefined;
    return small
      .keys()
      .filter((key) => this.conflictAt(other, key))
      .map((key) => `key ${key}, ${other.get(key)} not in ${this.get(key)}`)
      .join('; ');
  }

  /** Whether intersects(other) finds a conflict on one of `keys` (keys one side leaves undefined never conflict). */
  conflictsOn(other: Requirements, keys: Iterable<string>): boolean {
    for (const key of keys) if (this.conflictAt(other, key)) return true;
    return false;
  }

  private conflictAt(other: Requirements, key: string): boolean {
    const existing = this.byKey.get(key);
    const incoming = other.byKey.get(key);
    if (existing === undefined || incoming === undefined || existing.hasIntersection(incoming)) return false;
    const inOp = incoming.operator();
    const exOp = existing.operator();
    return !((inOp === 'NotIn' || inOp === 'DoesNotExist') && (exOp === 'NotIn' || exOp === 'DoesNotExist'));
  }

  /**
   * The labels a NodeClaim gets from these requirements at creation (Karpenter's
   * resolveCustomLabelsFromRequirements): custom keys only, since well-known ones depend on
   * the instance type launched; restricted and simulation-only keys are skipped; each gets
   * any() (so a multi-valued In gets its smallest value, Exists an integer), DoesNotExist none.
   */
  labels(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const r of this.values()) {
      if (WELL_KNOWN_LABELS.has(r.key) || RESTRICTED_LABELS.has(r.key) || SCHEDULING_SIMULATION_LABELS.has(r.key)) continue;
      const value = r.any();
      if (value !== '') out[r.key] = value;
    }
    return out;
  }

  /** Every key, well-known and restricted included, whose requirement is In exactly one value: labels any node launched from these will carry. */
  singleValueLabels(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const r of this.values()) if (!r.complement && r.len() === 1) out[r.key] = r.values()[0] as string;
    return out;
  }

  /** The node selector form of every requirement, by key (two entries for a key with both bounds). */
  nodeSelectorRequirements(): NodeSelectorRequirementWithMinValues[] {
    return this.values().flatMap((r) => r.nodeSelectorRequirements());
  }

  /** Karpenter's format: each requirement's string, sorted, joined with ", ", restricted keys (the hostname) left out. */
  toString(): string {
    return this.values()
      .filter((r) => !RESTRICTED_LABELS.has(r.key))
      .map((r) => r.toString())
      .sort()
      .join(', ');
  }
}
