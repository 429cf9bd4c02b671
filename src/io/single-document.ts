// One document in a file of its own (PriceOverrides, DisruptionVariants, DeschedulerPolicy):
// parsed, checked against its zod schema, and every problem placed at its line and field.

import type { z } from 'zod';
import type { FieldPath } from '../model/errors.js';
import { formatFieldPath, type Diagnostic } from './diagnostics.js';
import { parseSource, type SourceInput } from './yaml-source.js';

/** Places a message at `path` of the document (`field` names it, when that differs). */
export type Locate = (path: FieldPath, message: string, field?: FieldPath) => Diagnostic;

export type SingleDocumentResult<T> = { ok: true; data: T; at: Locate } | { ok: false; errors: Diagnostic[] };

export function parseSingleDocument<S extends z.ZodTypeAny>(input: SourceInput, kind: string, schema: S): SingleDocumentResult<z.infer<S>> {
  const parsed = parseSource(input);
  const parseErrors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (parseErrors.length > 0) return { ok: false, errors: parseErrors };
  const doc = parsed.documents[0];
  if (!doc || parsed.documents.length !== 1) return { ok: false, errors: [{ severity: 'error', file: input.name, line: 1, column: 1, message: `expected exactly one ${kind} document` }] };
  const at: Locate = (path, message, field = path) => {
    const pos = doc.locate(path);
    return { severity: 'error', file: input.name, line: pos.line, column: pos.column, object: kind, field: formatFieldPath(field), message };
  };
  const result = schema.safeParse(doc.value);
  if (!result.success) {
    return {
      ok: false,
      errors: result.error.issues.map((i) => {
        const path = i.path.map((p) => (typeof p === 'number' ? p : String(p)));
        return i.code === 'unrecognized_keys' ? at([...path, i.keys[0]!], i.message, path) : at(path, i.message);
      }),
    };
  }
  return { ok: true, data: result.data, at };
}
