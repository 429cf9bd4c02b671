import { FieldError } from './errors.js';
import { labelValueErrors, qualifiedNameErrors } from './label-syntax.js';
import { parseGoInt64 } from './quantity.js';

// Label selectors and node selectors, compiled once into predicates.
// Semantics follow apimachinery's labels.Selector and component-helpers' nodeaffinity:
// a nil LabelSelector selects nothing, an empty one selects everything; NotIn and
// DoesNotExist match objects that lack the key; Gt/Lt compare int64s and never
// match a label that is not one. Messages are field.Error bodies
// ("Required value: ...") with the field in the error's path.

export type Labels = Readonly<Record<string, string>>;

/** Whether two label maps hold the same pairs. Without key arrays: it runs for every node of every cluster copy and every node update, and a kubectl node carries a dozen labels. */
export function sameLabels(a: Labels, b: Labels): boolean {
  if (a === b) return true;
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k)) continue;
    if (!Object.hasOwn(b, k) || a[k] !== b[k]) return false;
    n++;
  }
  for (const k in b) if (Object.hasOwn(b, k) && n-- === 0) return false;
  return n === 0;
}

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
 * A requirement labels.NewRequirement refuses although the object was stored: a
 * Gt/Lt value that is not an integer (API validation lets it through), or a label
 * key or value the API server refuses today but old objects still carry. Upstream
 * parses such selectors lazily, so each consumer decides what the error does: in a
 * pod's required node affinity it makes just its own term unsatisfiable
 * (LazyErrorNodeSelector).
 */
export class SelectorValueError extends SelectorError {}

/**
 * labels.NewRequirement's checks that API validation of an old object may have
 * skipped, as field.Error texts under `path` (Go's field.Path string, '' at the root):
 * the key, a Gt/Lt bound that is not an integer, each value.
 */
export function requirementSyntaxErrors(req: Requirement, path = ''): string[] {
  const at = (child: string) => (path === '' ? child : `${path}.${child}`);
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(req.key);
  if (keyErrs.length > 0) errs.push(`${at('key')}: Invalid value: ${JSON.stringify(req.key)}: ${keyErrs.join('; ')}`);
  if (req.operator === 'Gt' || req.operator === 'Lt') {
    req.values.forEach((v, i) => {
      if (parseGoInt64(v) === undefined) errs.push(`${at('values')}[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
    });
  }
  req.values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(`${at('values')}[${i}][${req.key}]: Invalid value: ${JSON.stringify(v)}: ${valueErrs.join('; ')}`);
  });
  return errs;
}

/** utilerrors.NewAggregate(errs).Error(): one message as it is, several deduplicated in brackets. */
export function aggregateErrors(errs: readonly string[]): string {
  const seen = [...new Set(errs)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}

/**
 * The error metav1.LabelSelectorAsSelector returns for a stored selector, or
 * undefined: the first requirement (matchLabels, then matchExpressions) that
 * labels.NewRequirement refuses.
 */
export function labelSelectorParseError(spec: LabelSelectorSpec | null | undefined): string | undefined {
  if (spec == null) return undefined;
  const fromLabels: Requirement[] = Object.entries(spec.matchLabels ?? {}).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  for (const r of [...fromLabels, ...(spec.matchExpressions ?? [])]) {
    const errs = requirementSyntaxErrors(r);
    if (errs.length > 0) return aggregateErrors(errs);
  }
  return undefined;
}

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
      // Not an integer: the requirement cannot be parsed (requirementSyntaxErrors says why); it matches nothing.
      if (bound === undefined) return () => false;
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
  const compiled = reqs.map((r, i) => {
    const test = compileRequirement(r, allowNumeric, [...path, i]);
    return (labels: Labels) => test(Object.hasOwn(labels, r.key) ? labels[r.key] : undefined);
  });
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

/**
 * nodeaffinity's parse errors for one term (labels.NewRequirement on each
 * expression; field requirements have only API-level checks), under `path`.
 */
export function nodeSelectorTermErrors(term: NodeSelectorTermSpec, path: string): string[] {
  const at = path === '' ? 'matchExpressions' : `${path}.matchExpressions`;
  return (term.matchExpressions ?? []).flatMap((r, i) => requirementSyntaxErrors(r, `${at}[${i}]`));
}

/**
 * One term as a predicate. API-level problems throw; a term upstream cannot parse
 * (nodeSelectorTermErrors) matches nothing, as nodeaffinity's terms do.
 */
export function compileNodeSelectorTerm(term: NodeSelectorTermSpec, path: (string | number)[] = []): (node: NodeLike) => boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return () => false;
  const fieldTests = fields.map((f, i) => {
    const fpath = [...path, 'matchFields', i];
    if (f.operator !== 'In' && f.operator !== 'NotIn') throw invalidOperator(f.operator, fpath, false);
    if (f.values.length !== 1) throw new SelectorError("Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector", [...fpath, 'values']);
    if (f.key !== 'metadata.name') throw new SelectorError(`Invalid value: ${JSON.stringify(f.key)}: not a valid field selector key`, [...fpath, 'key']);
    const test = compileRequirement(f, false, fpath);
    return (node: NodeLike) => test(node.name);
  });
  const exprTest = andRequirements(exprs, true, [...path, 'matchExpressions']);
  if (nodeSelectorTermErrors(term, '').length > 0) return () => false;
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
   * upstream cannot parse (a Gt/Lt value that is not an integer, a label key or
   * value refused today) matches nothing instead of failing.
   */
  readonly lazyValueErrors?: boolean;
}

export function compileNodeSelector(spec: NodeSelectorSpec, path: (string | number)[] = [], opts: NodeSelectorOptions = {}): NodeSelector {
  const tests = spec.nodeSelectorTerms.map((t, i) => compileNodeSelectorTerm(t, [...path, 'nodeSelectorTerms', i]));
  if (!opts.lazyValueErrors) {
    // nodeaffinity.NewNodeSelector: every term's parse errors, at once.
    const errs = spec.nodeSelectorTerms.flatMap((t, i) => nodeSelectorTermErrors(t, `nodeSelectorTerms[${i}]`));
    if (errs.length > 0) throw new SelectorValueError(aggregateErrors(errs), path);
  }
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
