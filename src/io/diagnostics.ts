// Problems found while loading input, as data: where (file:line:column), which
// object, which field, and what. The CLI prints them with formatDiagnostic.

import type { FieldPath } from '../model/errors.js';

export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  /** "Pod default/web" or "Node n1"; absent for problems that belong to no object (malformed YAML, skipped kinds). */
  readonly object?: string;
  /** The offending field, written as Kubernetes writes field paths: spec.containers[0].resources.requests.cpu */
  readonly field?: string;
  readonly message: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** ['spec', 'containers', 0, 'resources', 'limits', 'nvidia.com/gpu'] → spec.containers[0].resources.limits[nvidia.com/gpu] */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${seg}]`;
  }
  return out;
}

/** `file:line:column: <kind> <ns/name>: <field.path>: <message>`, leaving out the parts a diagnostic does not have. */
export function formatDiagnostic(d: Diagnostic): string {
  const parts = [`${d.file}:${d.line}:${d.column}`];
  if (d.object) parts.push(d.object);
  if (d.field) parts.push(d.field);
  parts.push(d.message);
  return parts.join(': ');
}

/** Some model errors already start with their last field name ("values: Required value"); the path says it once. */
export function withoutRepeatedField(message: string, path: FieldPath): string {
  const last = path[path.length - 1];
  if (typeof last !== 'string') return message;
  const prefix = `${last}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}
