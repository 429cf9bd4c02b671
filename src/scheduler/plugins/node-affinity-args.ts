// NodeAffinityArgs.addedAffinity: parsed the way kube-scheduler parses it
// (component-helpers' nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms
// over labels.NewRequirement and the node field selector), not the way the API
// server validates a pod's affinity. The two differ in their messages, and the
// scheduler checks less: field selector keys and values are not validated.
// Every problem is reported, aggregated as upstream prints it.

import type { NodeSelectorTermManifest } from '../../model/manifest.js';
import { labelValueErrors, qualifiedNameErrors } from '../../model/label-syntax.js';
import { parseGoInt64 } from '../../model/quantity.js';
import type { NodeLike } from '../../model/selector.js';

export interface AddedAffinityArgs {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTermManifest[] } | null;
  preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; preference?: NodeSelectorTermManifest | null }[] | null;
}

export interface WeightedTerm {
  readonly weight: number;
  matches(node: NodeLike): boolean;
}

export interface AddedAffinity {
  /** null when addedAffinity has no required node selector. */
  readonly required: { matches(node: NodeLike): boolean } | null;
  readonly preferred: readonly WeightedTerm[];
  /** addedAffinity lists preferred terms (even only ignored ones): NodeAffinity's PreScore then never skips. */
  readonly hasPreferred: boolean;
}

type Req = { key?: unknown; operator?: unknown; values?: unknown };

const LABEL_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
const FIELD_OPERATORS = ['In', 'NotIn'];

/** A field.Error value as upstream prints it: strings quoted, lists as JSON. */
const show = (v: unknown) => JSON.stringify(v ?? null);
const supported = (ops: readonly string[]) => ops.map((o) => JSON.stringify(o)).join(', ');

function valuesOf(r: Req): string[] {
  return Array.isArray(r.values) ? r.values.map(String) : [];
}

/** labels.NewRequirement's checks for one matchExpressions entry (after the operator was recognised). */
function requirementErrors(r: Req, path: string, errors: string[]): void {
  const key = typeof r.key === 'string' ? r.key : '';
  const values = valuesOf(r);
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errors.push(`${path}.key: Invalid value: ${show(key)}: ${keyErrs.join('; ')}`);
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errors.push(`${path}.values: Invalid value: ${show(values)}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) errors.push(`${path}.values: Invalid value: ${show(values)}: values set must be empty for exists and does not exist`);
      break;
    default:
      if (values.length !== 1) errors.push(`${path}.values: Invalid value: ${show(values)}: for 'Gt', 'Lt' operators, exactly one value is required`);
      values.forEach((v, i) => {
        if (parseGoInt64(v) === undefined) errors.push(`${path}.values[${i}]: Invalid value: ${show(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      });
  }
  values.forEach((v, i) => {
    const errs = labelValueErrors(v);
    if (errs.length > 0) errors.push(`${path}.values[${i}][${key}]: Invalid value: ${show(v)}: ${errs.join('; ')}`);
  });
}

function labelTest(r: Req): (labels: NodeLike['labels']) => boolean {
  const key = String(r.key);
  const values = valuesOf(r);
  const has = (labels: NodeLike['labels']) => Object.hasOwn(labels, key);
  switch (r.operator) {
    case 'In':
      return (labels) => has(labels) && values.includes(labels[key]!);
    case 'NotIn':
      return (labels) => !has(labels) || !values.includes(labels[key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return (labels) => !has(labels);
    default: {
      const bound = parseGoInt64(values[0]!)!;
      const gt = r.operator === 'Gt';
      return (labels) => {
        const n = has(labels) ? parseGoInt64(labels[key]!) : undefined;
        return n !== undefined && (gt ? n > bound : n < bound);
      };
    }
  }
}

/** A fields.Selector term: a node's only field is metadata.name; any other key reads as "". */
function fieldTest(r: Req): (node: NodeLike) => boolean {
  const key = String(r.key);
  const value = valuesOf(r)[0]!;
  const get = (node: NodeLike) => (key === 'metadata.name' ? node.name : '');
  return r.operator === 'In' ? (node) => get(node) === value : (node) => get(node) !== value;
}

/** newNodeSelectorTerm: checks the term (pushing messages) and returns its matcher (nothing matches an empty term). */
function parseTerm(term: NodeSelectorTermManifest, path: string, errors: string[]): (node: NodeLike) => boolean {
  const exprs = (term.matchExpressions ?? []) as Req[];
  const fields = (term.matchFields ?? []) as Req[];
  const tests: ((node: NodeLike) => boolean)[] = [];
  const before = errors.length;
  exprs.forEach((r, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    if (!LABEL_OPERATORS.includes(r.operator as string)) {
      errors.push(`${p}.operator: Unsupported value: ${show(r.operator)}: supported values: ${supported(LABEL_OPERATORS)}`);
      return;
    }
    const n = errors.length;
    requirementErrors(r, p, errors);
    if (errors.length === n) {
      const test = labelTest(r);
      tests.push((node) => test(node.labels));
    }
  });
  fields.forEach((r, i) => {
    const p = `${path}.matchFields[${i}]`;
    if (!FIELD_OPERATORS.includes(r.operator as string)) {
      errors.push(`${p}.operator: Unsupported value: ${show(r.operator)}: supported values: ${supported(FIELD_OPERATORS)}`);
    } else if (valuesOf(r).length !== 1) {
      errors.push(`${p}.values: Invalid value: ${show(valuesOf(r))}: must have one element`);
    } else {
      tests.push(fieldTest(r));
    }
  });
  if (errors.length > before || (exprs.length === 0 && fields.length === 0)) return () => false;
  return (node) => tests.every((t) => t(node));
}

const isEmptyTerm = (t: NodeSelectorTermManifest | null | undefined) => !t || ((t.matchExpressions ?? []).length === 0 && (t.matchFields ?? []).length === 0);

/** ValidateNodeAffinityArgs, then the parsed selectors. Throws with every problem (one as is, several in brackets). */
export function parseAddedAffinity(args: Readonly<Record<string, unknown>>): AddedAffinity {
  const added = args.addedAffinity as AddedAffinityArgs | undefined | null;
  if (!added) return { required: null, preferred: [], hasPreferred: false };
  const errors: string[] = [];
  let required: AddedAffinity['required'] = null;
  const ns = added.requiredDuringSchedulingIgnoredDuringExecution;
  if (ns) {
    const base = 'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
    const terms = (ns.nodeSelectorTerms ?? []).flatMap((t, i) => (isEmptyTerm(t) ? [] : [parseTerm(t, `${base}[${i}]`, errors)]));
    required = { matches: (node) => terms.some((t) => t(node)) };
  }
  // A preferred term's path leaves out "preference"; terms of weight 0 or without requirements are skipped.
  const preferred: WeightedTerm[] = [];
  (added.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t, i) => {
    if (t.weight === 0 || isEmptyTerm(t.preference)) return;
    preferred.push({ weight: t.weight, matches: parseTerm(t.preference!, `addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}]`, errors) });
  });
  const unique = [...new Set(errors)];
  if (unique.length === 1) throw new Error(unique[0]);
  if (unique.length > 1) throw new Error(`[${unique.join(', ')}]`);
  return { required, preferred, hasPreferred: (added.preferredDuringSchedulingIgnoredDuringExecution ?? []).length > 0 };
}
