import { FieldError } from './errors.js';
import { parseGoInt64 } from './quantity.js';

// Label selectors and node selectors, compiled once into predicates.
// Semantics follow apimachinery's labels.Selector and component-helpers' nodeaffinity:
// a nil LabelSelector selects nothing, an empty one selects everything; NotIn and
// DoesNotExist match objects that lack the key; Gt/Lt compare int64s and never
// match a label that is not one. Messages are field.Error bodies
// ("Required value: ...") with the field in the error's path.

export type Labels = Readonly<Record<string, string>>;

export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

export interface LabelSelectorSpec {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly Requirement[];
}

export interface Selector {
  /** True when this selector is the empty selector (matches every object). */
  readonly everything: boolean;
  /** True when this selector came from a nil selector (matches no object). */
  readonly nothing: boolean;
  readonly requirements: readonly Requirement[];
  matches(labels: Labels): boolean;
}

/** Raised for invalid selectors, with the path of the offending field relative to the selector. */
export class SelectorError extends FieldError {}

/**
 * A Gt/Lt value that is not an integer. API validation lets it through and only
 * labels.NewRequirement rejects it, so in a pod's required node affinity it
 * makes just its own term unsatisfiable (LazyErrorNodeSelector).
 */
export class SelectorValueError extends SelectorError {}

const NOTHING: Selector = { everything: false, nothing: true, requirements: [], matches: () => false };
const EVERYTHING: Selector = { everything: true, nothing: false, requirements: [], matches: () => true };

export function nothingSelector(): Selector {
  return NOTHING;
}

export function everythingSelector(): Selector {
  return EVERYTHING;
}

/** Compiles one requirement into a predicate over a label value (undefined = label absent). */
export function compileRequirement(req: Requirement, allowNumeric: boolean, path: (string | number)[] = []): (value: string | undefined) => boolean {
  const { operator, values } = req;
  switch (operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0) throw new SelectorError("Required value: must be specified when `operator` is 'In' or 'NotIn'", [...path, 'values']);
      const set = new Set(values);
      return operator === 'In' ? (v) => v !== undefined && set.has(v) : (v) => v === undefined || !set.has(v);
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) throw new SelectorError("Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'", [...path, 'values']);
      return operator === 'Exists' ? (v) => v !== undefined : (v) => v === undefined;
    case 'Gt':
    case 'Lt': {
      if (!allowNumeric) throw invalidOperator(operator, path, false);
      if (values.length !== 1) throw new SelectorError("Required value: must be specified single value when `operator` is 'Lt' or 'Gt'", [...path, 'values']);
      const bound = parseGoInt64(values[0]!);
      if (bound === undefined) {
        throw new SelectorValueError(`Invalid value: ${JSON.stringify(values[0])}: for 'Gt', 'Lt' operators, the value must be an integer`, [...path, 'values', 0]);
      }
      return operator === 'Gt'
        ? (v) => { const n = v === undefined ? undefined : parseGoInt64(v); return n !== undefined && n > bound; }
        : (v) => { const n = v === undefined ? undefined : parseGoInt64(v); return n !== undefined && n < bound; };
    }
    default:
      throw invalidOperator(operator, path, allowNumeric);
  }
}

/**
 * Label selectors report an unknown operator as API validation does; node
 * selectors as component-helpers' nodeaffinity does (also what scheduler
 * config validation reports for addedAffinity).
 */
function invalidOperator(operator: unknown, path: readonly (string | number)[], nodeSelector: boolean): SelectorError {
  const body = nodeSelector
    ? `Unsupported value: ${JSON.stringify(operator)}: supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`
    : `Invalid value: ${JSON.stringify(operator)}: not a valid selector operator`;
  return new SelectorError(body, [...path, 'operator']);
}

function andRequirements(reqs: readonly Requirement[], allowNumeric: boolean, path: (string | number)[]): (labels: Labels) => boolean {
  let valueError: SelectorValueError | undefined;
  const compiled = reqs.map((r, i) => {
    let test: (value: string | undefined) => boolean;
    try {
      test = compileRequirement(r, allowNumeric, [...path, i]);
    } catch (e) {
      // Report an API-level problem in a later requirement before a value problem here.
      if (!(e instanceof SelectorValueError)) throw e;
      valueError ??= e;
      test = () => false;
    }
    return (labels: Labels) => test(Object.hasOwn(labels, r.key) ? labels[r.key] : undefined);
  });
  if (valueError) throw valueError;
  return (labels) => {
    for (const c of compiled) if (!c(labels)) return false;
    return true;
  };
}

/** metav1.LabelSelectorAsSelector: undefined/null → nothing, {} → everything. */
export function compileLabelSelector(spec: LabelSelectorSpec | null | undefined): Selector {
  if (spec === null || spec === undefined) return NOTHING;
  const fromLabels: Requirement[] = Object.entries(spec.matchLabels ?? {}).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  const exprs = spec.matchExpressions ?? [];
  if (fromLabels.length === 0 && exprs.length === 0) return EVERYTHING;
  const labelTest = andRequirements(fromLabels, false, ['matchLabels']);
  const exprTest = andRequirements(exprs, false, ['matchExpressions']);
  return {
    everything: false,
    nothing: false,
    requirements: [...fromLabels, ...exprs],
    matches: (labels) => labelTest(labels) && exprTest(labels),
  };
}

/** Builds a selector directly from requirements (used when merging matchLabelKeys). */
export function selectorFromRequirements(requirements: readonly Requirement[]): Selector {
  if (requirements.length === 0) return EVERYTHING;
  const test = andRequirements(requirements, false, []);
  return { everything: false, nothing: false, requirements, matches: test };
}

export interface NodeSelectorTermSpec {
  readonly matchExpressions?: readonly Requirement[];
  readonly matchFields?: readonly Requirement[];
}

export interface NodeSelectorSpec {
  readonly nodeSelectorTerms: readonly NodeSelectorTermSpec[];
}

export interface NodeLike {
  readonly name: string;
  readonly labels: Labels;
}

/** A compiled node selector: terms are ORed, a term's expressions and fields ANDed, an empty term matches nothing. */
export interface NodeSelector {
  readonly terms: readonly NodeSelectorTermSpec[];
  matches(node: NodeLike): boolean;
}

export function compileNodeSelectorTerm(term: NodeSelectorTermSpec, path: (string | number)[] = []): (node: NodeLike) => boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return () => false;
  // Field requirements first, so that their API-level errors win over a deferred Gt/Lt value error.
  const fieldTests = fields.map((f, i) => {
    const fpath = [...path, 'matchFields', i];
    if (f.operator !== 'In' && f.operator !== 'NotIn') throw invalidOperator(f.operator, fpath, false);
    if (f.values.length !== 1) throw new SelectorError("Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector", [...fpath, 'values']);
    if (f.key !== 'metadata.name') throw new SelectorError(`Invalid value: ${JSON.stringify(f.key)}: not a valid field selector key`, [...fpath, 'key']);
    const test = compileRequirement(f, false, fpath);
    return (node: NodeLike) => test(node.name);
  });
  const exprTest = andRequirements(exprs, true, [...path, 'matchExpressions']);
  return (node) => {
    if (!exprTest(node.labels)) return false;
    // A node known by its labels alone (volume.CheckNodeAffinity builds one) has no fields: matchFields are not checked.
    if (node.name !== '') for (const t of fieldTests) if (!t(node)) return false;
    return true;
  };
}

export interface NodeSelectorOptions {
  /**
   * As a pod's required node affinity is read (LazyErrorNodeSelector): a term
   * whose Gt/Lt value is not an integer matches nothing instead of failing.
   */
  readonly lazyValueErrors?: boolean;
}

export function compileNodeSelector(spec: NodeSelectorSpec, path: (string | number)[] = [], opts: NodeSelectorOptions = {}): NodeSelector {
  const tests = spec.nodeSelectorTerms.map((t, i) => {
    try {
      return compileNodeSelectorTerm(t, [...path, 'nodeSelectorTerms', i]);
    } catch (e) {
      if (opts.lazyValueErrors && e instanceof SelectorValueError) return () => false;
      throw e;
    }
  });
  return {
    terms: spec.nodeSelectorTerms,
    matches: (node) => {
      for (const t of tests) if (t(node)) return true;
      return false;
    },
  };
}

const selectorKeys = new WeakMap<Selector, string>();

/** A string equal for selectors with the same requirements (their meaning), for keying caches. */
export function selectorKey(selector: Selector): string {
  let key = selectorKeys.get(selector);
  if (key === undefined) {
    key = selector.nothing ? '!' : selector.everything ? '*' : JSON.stringify(selector.requirements.map((r) => [r.key, r.operator, r.values]));
    selectorKeys.set(selector, key);
  }
  return key;
}
