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
function clipQuotes(message: string): string {
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

/** A run of text without spaces longer than this is a source excerpt (minified JSON, a tag, garbage), not words. */
const TOKEN_LIMIT = 120;
/** A whole library message: the parser's run to about 100 characters before their excerpt. */
export const MESSAGE_LIMIT = 500;

// A run of a single character class: the regex engine does not backtrack over it.
const LONG_TOKEN = new RegExp(`\\S{${TOKEN_LIMIT + 1},}`, 'g');

/**
 * A message written by a library (the YAML parser quoting the source line it stopped
 * at, zod listing every unknown key): long quoted values and long unbroken excerpts
 * are cut, then the whole message, so that one line of a minified 10 MB file never
 * ends up on the screen. berth's own messages are only clipped (clipQuotes): some,
 * like upstream's aggregated plugin-args errors, are long by design.
 */
export function boundMessage(message: string): string {
  const clipped = clipQuotes(message).replace(LONG_TOKEN, (t) => `${t.slice(0, TOKEN_LIMIT)}…`);
  return clipped.length > MESSAGE_LIMIT ? `${clipped.slice(0, MESSAGE_LIMIT)}…` : clipped;
}

/** `<kind> <ns/name>: <field.path>: <message>`, leaving out the parts a diagnostic does not have; long names and quoted values are cut. */
export function describeDiagnostic(d: Omit<Diagnostic, 'file' | 'line' | 'column'>): string {
  const parts: string[] = [];
  if (d.object) parts.push(d.object.length > OBJECT_LIMIT ? `${d.object.slice(0, OBJECT_LIMIT)}…` : d.object);
  if (d.field) parts.push(d.field);
  parts.push(clipQuotes(d.message));
  return parts.join(': ');
}

/** `file:line:column: ` and describeDiagnostic. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${describeDiagnostic(d)}`;
}

/** Some model errors already start with their last field name ("values: Required value"); the path says it once. */
export function withoutRepeatedField(message: string, path: FieldPath): string {
  const last = path[path.length - 1];
  if (typeof last !== 'string') return message;
  const prefix = `${last}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}
