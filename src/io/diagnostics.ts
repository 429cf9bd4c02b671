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
  for (const whole of path) {
    // A map key is user data (a label key can be megabytes): shown only as far as it identifies the field.
    const seg = typeof whole === 'string' && whole.length > QUOTE_LIMIT ? `${whole.slice(0, QUOTE_LIMIT)}…` : whole;
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${seg}]`;
  }
  return out;
}

/** How much of a quoted value or a map key a message shows: enough to find it, never a whole file. */
export const QUOTE_LIMIT = 60;
/** An object is "Kind ns/name"; a name longer than the API's 253 characters is cut past that. */
const OBJECT_LIMIT = 300;

/**
 * Cuts every double-quoted string in a message longer than QUOTE_LIMIT (a 10 MB label
 * value, minified JSON, garbage). A scan, not a regex: a regex over a quoted string of
 * megabytes backtracks until V8 runs out of stack.
 */
export function clipQuotes(message: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const open = message.indexOf('"', i);
    if (open < 0) return out + message.slice(i);
    let close = open + 1;
    while (close < message.length && message[close] !== '"') close += message[close] === '\\' ? 2 : 1;
    if (close >= message.length) return out + message.slice(i);
    const body = message.slice(open + 1, close);
    out += `${message.slice(i, open + 1)}${body.length > QUOTE_LIMIT ? `${body.slice(0, QUOTE_LIMIT)}…` : body}"`;
    i = close + 1;
  }
}



/** `file:line:column: <kind> <ns/name>: <field.path>: <message>`, leaving out the parts a diagnostic does not have; long quoted values are cut. */
export function formatDiagnostic(d: Diagnostic): string {
  const parts = [`${d.file}:${d.line}:${d.column}`];
  if (d.object) parts.push(d.object.length > OBJECT_LIMIT ? `${d.object.slice(0, OBJECT_LIMIT)}…` : d.object);
  if (d.field) parts.push(d.field);
  parts.push(clipQuotes(d.message));
  return parts.join(': ');
}

/** Some model errors already start with their last field name ("values: Required value"); the path says it once. */
export function withoutRepeatedField(message: string, path: FieldPath): string {
  const last = path[path.length - 1];
  if (typeof last !== 'string') return message;
  const prefix = `${last}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}
