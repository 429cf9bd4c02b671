// Strict field validation as kubectl and the API server do it (the default since
// Kubernetes 1.27): a field the kind's schema does not declare is an error under
// --validate=strict, a warning under warn, and dropped silently under ignore. The
// declared fields come from upstream's own schemas (openapi/fields.generated.ts),
// so every kind of those group versions is covered, read by berth or not yet.

import type { FieldPath } from '../model/errors.js';
import { FIELD_TABLE } from './openapi/fields.generated.js';

export type ValidationMode = 'strict' | 'warn' | 'ignore';

export const VALIDATION_MODES: readonly ValidationMode[] = ['strict', 'warn', 'ignore'];

/** LEAF: a scalar. ANY: free-form (RawExtension, FieldsV1, x-kubernetes-preserve-unknown-fields). */
const LEAF = 0;
const ANY = 1;

/** A mapping's declared fields (and, with `m`, the value of any other key), a map's value, or a list's item; numbers index FieldTable.nodes. */
export type FieldNode = { readonly p: Readonly<Record<string, number>>; readonly m?: number } | { readonly m: number } | { readonly a: number };

export interface FieldTable {
  /** Where the table was generated from, with versions. */
  readonly sources: readonly string[];
  /** "apps/v1/Deployment" → its node. */
  readonly kinds: Readonly<Record<string, number>>;
  /** Index 0 is LEAF, 1 is ANY; a named type that is only a scalar or free-form is stored as 0 or 1. */
  readonly nodes: readonly (FieldNode | 0 | 1)[];
}

function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/** berth's own kinds: the envelope is checked here, the spec by its own parser (which refuses unknown fields itself). */
function withBerthKinds(table: FieldTable): FieldTable {
  const namespace = table.nodes[table.kinds[kindKey('v1', 'Namespace')]!] as { p: Record<string, number> };
  const objectMeta = namespace.p['metadata']!;
  const nodes = [...table.nodes, { p: { apiVersion: LEAF, kind: LEAF, metadata: objectMeta, spec: ANY } }];
  return { ...table, kinds: { ...table.kinds, [kindKey('berth.dev/v1alpha1', 'InstanceTypeCatalog')]: nodes.length - 1 }, nodes };
}

const TABLE = withBerthKinds(FIELD_TABLE);

/** Whether the schemas know the kind at this apiVersion. */
export function hasFieldSchema(apiVersion: string, kind: string): boolean {
  return Object.hasOwn(TABLE.kinds, kindKey(apiVersion, kind));
}

export interface UnknownField {
  readonly path: FieldPath;
  /** A declared field one or two edits away (`replicas` for `replicaz`), when there is exactly one closest. */
  readonly suggestion?: string;
}

/**
 * The fields of `value` (an object of `kind` at `apiVersion`) that its schema does not
 * declare, in document order; [] for a kind the table does not know. Values of the
 * wrong shape (a scalar where a mapping is declared) are left to the type checks of
 * whoever reads the field.
 */
export function unknownFields(apiVersion: string, kind: string, value: unknown): UnknownField[] {
  const root = TABLE.kinds[kindKey(apiVersion, kind)];
  const out: UnknownField[] = [];
  if (root !== undefined) walk(root, value, [], out);
  return out;
}

/** `path` is the walk's own stack (pushed and popped, copied only into a finding): the walk runs over every field of every object. */
function walk(at: number, value: unknown, path: (string | number)[], out: UnknownField[]): void {
  const node = TABLE.nodes[at];
  if (node === undefined || node === LEAF || node === ANY || value === null || typeof value !== 'object') return;
  if ('a' in node) {
    if (!Array.isArray(value)) return;
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walk(node.a, value[i], path, out);
      path.pop();
    }
    return;
  }
  if (Array.isArray(value)) return;
  const declared = 'p' in node ? node.p : undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const next = declared !== undefined && Object.hasOwn(declared, key) ? declared[key]! : node.m;
    path.push(key);
    if (next !== undefined) walk(next, (value as Record<string, unknown>)[key], path, out);
    else {
      const suggestion = declared ? closest(key, Object.keys(declared)) : undefined;
      out.push({ path: [...path], ...(suggestion ? { suggestion } : {}) });
    }
    path.pop();
  }
}

/** The one declared name at the smallest edit distance (at most 2, ignoring case), if one is closest. */
function closest(key: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  let tie = false;
  for (const name of names) {
    // Exact below bestDistance + 1, so a second name at the best distance is seen as a tie.
    const d = editDistance(key.toLowerCase(), name.toLowerCase(), Math.min(bestDistance + 1, 3));
    if (d < bestDistance) [best, bestDistance, tie] = [name, d, false];
    else if (d === bestDistance && d < 3) tie = true;
  }
  return tie ? undefined : best;
}

/** Levenshtein distance, or `limit` once it is certain to reach it. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...row) >= limit) return limit;
    prev = row;
  }
  return Math.min(prev[b.length]!, limit);
}

/** `unknown field "replicaz" (did you mean "replicas"?)`: the diagnostic names the path, the message the field as written. */
export function unknownFieldMessage(field: UnknownField): string {
  const name = field.path[field.path.length - 1];
  return `unknown field ${JSON.stringify(String(name))}${field.suggestion ? ` (did you mean ${JSON.stringify(field.suggestion)}?)` : ''}`;
}

/** The sources of the table, for docs and tests. */
export const FIELD_SCHEMA_SOURCES = TABLE.sources;
