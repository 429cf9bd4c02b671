import { FieldError } from './errors.js';

// Label selectors and node selectors, compiled once into predicates.
// Semantics follow apimachinery's labels.Selector and component-helpers' nodeaffinity:
// a nil LabelSelector selects nothing, an empty one selects everything; NotIn and
// DoesNotExist match objects that lack the key; Gt/Lt compare integers and never
// match a label that is not an integer.

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

const NOTHING: Selector = { everything: false, nothing: true, requirements: [], matches: () => false };
const EVERYTHING: Selector = { everything: true, nothing: false, requirements: [], matches: () => true };

export function nothingSelector(): Selector {
  return NOTHING;
}

export function everythingSelector(): Selector {
  return EVERYTHING;
}

function parseIntStrict(s: string): bigint | undefined {
  return /^[+-]?[0-9]+$/.test(s) ? BigInt(s) : undefined;
}

/** Compiles one requirement into a predicate over a label value (undefined = label absent). */
export function compileRequirement(req: Requirement, allowNumeric: boolean, path: (string | number)[] = []): (value: string | undefined) => boolean {
  const { operator, values } = req;
  switch (operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0) throw new SelectorError(`values: Required value: must be specified when \`operator\` is '${operator}'`, [...path, 'values']);
      const set = new Set(values);
      return operator === 'In' ? (v) => v !== undefined && set.has(v) : (v) => v === undefined || !set.has(v);
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) throw new SelectorError(`values: Forbidden: may not be specified when \`operator\` is '${operator}'`, [...path, 'values']);
      return operator === 'Exists' ? (v) => v !== undefined : (v) => v === undefined;
    case 'Gt':
    case 'Lt': {
      if (!allowNumeric) throw new SelectorError(`operator: Unsupported value: "${operator}"`, [...path, 'operator']);
      const first = values[0];
      const bound = values.length === 1 && first !== undefined ? parseIntStrict(first) : undefined;
      if (bound === undefined) throw new SelectorError(`values: Required value: must be specified single value when \`operator\` is '${operator}' and it must be an integer`, [...path, 'values']);
      return operator === 'Gt'
        ? (v) => { const n = v === undefined ? undefined : parseIntStrict(v); return n !== undefined && n > bound; }
        : (v) => { const n = v === undefined ? undefined : parseIntStrict(v); return n !== undefined && n < bound; };
    }
    default:
      throw new SelectorError(`operator: Unsupported value: ${JSON.stringify(operator)}: supported values: "In", "NotIn", "Exists", "DoesNotExist"${allowNumeric ? ', "Gt", "Lt"' : ''}`, [...path, 'operator']);
  }
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

export function compileNodeSelectorTerm(term: NodeSelectorTermSpec, path: (string | number)[] = []): (node: NodeLike) => boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return () => false;
  const exprTest = andRequirements(exprs, true, [...path, 'matchExpressions']);
  const fieldTests = fields.map((f, i) => {
    const fpath = [...path, 'matchFields', i];
    if (f.key !== 'metadata.name') throw new SelectorError(`key: Invalid value: ${JSON.stringify(f.key)}: must be 'metadata.name'`, [...fpath, 'key']);
    if (f.operator !== 'In' && f.operator !== 'NotIn') throw new SelectorError(`operator: Invalid value: ${JSON.stringify(f.operator)}: not a valid selector operator`, [...fpath, 'operator']);
    if (f.values.length !== 1) throw new SelectorError(`values: Required value: must be only one value when \`operator\` is 'In' or 'NotIn' for node field selector`, [...fpath, 'values']);
    const test = compileRequirement(f, false, fpath);
    return (node: NodeLike) => test(node.name);
  });
  return (node) => {
    if (!exprTest(node.labels)) return false;
    for (const t of fieldTests) if (!t(node)) return false;
    return true;
  };
}

export function compileNodeSelector(spec: NodeSelectorSpec, path: (string | number)[] = []): NodeSelector {
  const tests = spec.nodeSelectorTerms.map((t, i) => compileNodeSelectorTerm(t, [...path, 'nodeSelectorTerms', i]));
  return {
    terms: spec.nodeSelectorTerms,
    matches: (node) => {
      for (const t of tests) if (t(node)) return true;
      return false;
    },
  };
}
