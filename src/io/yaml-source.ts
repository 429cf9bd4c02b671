// One input text parsed into YAML documents that remember where every value came
// from, so a problem found at a field path can be reported at its line and column.
// JSON is read by the same parser (it is a subset of YAML), so it gets positions too.

import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, type CST, type Document, type Pair } from 'yaml';
import type { FieldPath } from '../model/errors.js';
import { goYamlV2Tags } from './go-yaml-scalars.js';
import { boundMessage, formatFieldPath, type Diagnostic } from './diagnostics.js';
import type { ValidationMode } from './strict-fields.js';

/** A named text: a file's path and contents, or "<stdin>" and what was piped in. */
export interface SourceInput {
  readonly name: string;
  readonly text: string;
  /** The text already parsed, when the caller has read it before (a Scenario, then its inline objects): a 10 MB text is not parsed twice. */
  readonly parsed?: ParsedSource;
  /** This input's field validation, where it differs from the run's (objects read back from an API server). */
  readonly validate?: ValidationMode;
}

export interface Position {
  readonly line: number;
  readonly column: number;
  /** Character offset in the text; orders diagnostics within a file. */
  readonly offset: number;
}

// kubectl reads YAML through sigs.k8s.io/yaml (go-yaml v2, YAML 1.1 rules): scalars
// resolve as go-yaml v2 resolves them (go-yaml-scalars.ts), so `on` is a boolean
// (and a label value written so is refused, as by the API server) and `e1` a string.
// Duplicate keys are found by duplicateKeys below, which names the field and follows --validate;
// as for go-yaml outside strict mode, the last one wins.
const PARSE_OPTIONS = { version: '1.1', prettyErrors: false, uniqueKeys: false, merge: true, customTags: goYamlV2Tags } as const;

type YamlNode = NonNullable<Document.Parsed['contents']>;

/** Where a field path of one document is written in its text. */
export interface Locator {
  /**
   * Where the value at `path` is written. A scalar is reported at the scalar; a
   * mapping or list (or an empty value) at its key, which is where a reader looks.
   * A path that does not exist is reported at its nearest existing ancestor. With
   * `at: 'key'`, a mapping's field is reported at its key (an unknown field).
   */
  locate(path: FieldPath, at?: 'value' | 'key'): Position;
}

/** One document of an input: its value, and where each of its fields is written. */
export class SourceDocument {
  constructor(
    readonly file: string,
    /** Which document of the stream (0-based), for ordering. */
    readonly index: number,
    /** The document as plain data. */
    readonly value: unknown,
    private readonly locator: Locator,
  ) {}

  /** See Locator.locate. */
  locate(path: FieldPath, at: 'value' | 'key' = 'value'): Position {
    return this.locator.locate(path, at);
  }

  /**
   * What finds positions in this document, to keep without the document's value;
   * undefined when that is the YAML parser's tree of its text (many times the size
   * of the value: parse the text again instead).
   */
  get lightLocator(): Locator | undefined {
    return this.locator instanceof YamlLocator ? undefined : this.locator;
  }
}

/** Positions from the YAML parser's nodes, which keep their source ranges. */
class YamlLocator implements Locator {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
    /** Where the parsed text starts in the input (a value of a JSON stream is parsed on its own). */
    private readonly base = 0,
  ) {}

  private position(offset: number): Position {
    const { line, col } = this.lines.linePos(this.base + offset);
    return { line, column: col, offset: this.base + offset };
  }

  locate(path: FieldPath, at: 'value' | 'key' = 'value'): Position {
    let node: unknown = this.doc.contents;
    let offset = rangeStart(node) ?? this.doc.range[0];
    for (const [i, seg] of path.entries()) {
      const target = this.deref(node);
      if (isMap(target)) {
        const pair = this.findPair(target, String(seg));
        if (!pair) break;
        node = pair.value;
        offset = at === 'key' && i === path.length - 1 ? (rangeStart(pair.key) ?? 0) : this.pairOffset(pair);
      } else if (isSeq(target) && typeof seg === 'number') {
        const item = target.items[seg];
        if (item === undefined) break;
        node = item;
        offset = rangeStart(item) ?? offset;
      } else {
        break;
      }
    }
    return this.position(offset);
  }

  private deref(node: unknown): unknown {
    return isAlias(node) ? node.resolve(this.doc) : node;
  }

  /** The pair for `key`, looking through `<<` merge keys as YAML 1.1 does. */
  private findPair(map: { items: Pair[] }, key: string, depth = 0): Pair | undefined {
    const own = map.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    if (own || depth > 8) return own;
    for (const p of map.items) {
      if (!isMergeKey(p.key)) continue;
      const merged = this.deref(p.value);
      const sources = isSeq(merged) ? merged.items.map((i) => this.deref(i)) : [merged];
      for (const s of sources) {
        if (!isMap(s)) continue;
        const found = this.findPair(s, key, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  }

  private pairOffset(pair: Pair): number {
    const value = pair.value;
    const keyStart = rangeStart(pair.key) ?? 0;
    if (isScalar(value) && value.value !== null) return rangeStart(value) ?? keyStart;
    if (isAlias(value)) return rangeStart(value) ?? keyStart;
    return keyStart;
  }
}

/** `<<`: a plain string in some parse modes, a Symbol once resolved as a YAML 1.1 merge key. */
function isMergeKey(key: unknown): boolean {
  if (!isScalar(key)) return false;
  const v = key.value;
  return v === '<<' || (typeof v === 'symbol' && v.description === '<<');
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range?.[0];
}

export interface ParsedSource {
  readonly documents: SourceDocument[];
  readonly diagnostics: Diagnostic[];
}

/**
 * How deeply a document may nest mappings and lists. Real manifests stay far below
 * (a CRD schema nests a few dozen levels); the YAML library composes recursively and
 * would exhaust the stack somewhere near a thousand levels, depending on the thread.
 */
export const MAX_NESTING = 256;

/** The offset of the first collection nested deeper than MAX_NESTING in a CST document, walked without recursion. */
function tooDeepAt(doc: CST.Token): number | undefined {
  const stack: { token: CST.Token; depth: number }[] = [{ token: doc, depth: 0 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { token, depth } = next;
    let children: (CST.Token | null | undefined)[] = [];
    if (token.type === 'document') children = [token.value];
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > MAX_NESTING) return token.offset;
      children = token.items.flatMap((i) => ['key' in i ? i.key : undefined, i.value]);
    }
    for (const c of children) if (c) stack.push({ token: c, depth: token.type === 'document' ? depth : depth + 1 });
  }
  return undefined;
}

// YAML's printable set: go-yaml (what kubectl reads with) refuses any other character
// anywhere in the stream, which is how binary data is told from text.
export const NOT_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/**
 * Every key written twice in one mapping (after the first), with its path; merge keys
 * (`<<`) may repeat. `path` is the walk's own stack, copied only into a finding: the
 * walk visits every node of every document.
 */
function duplicateKeys(node: unknown, path: (string | number)[], out: { path: FieldPath; offset: number }[]): void {
  if (isMap(node)) {
    let seen: Set<string> | undefined;
    for (const pair of node.items) {
      if (!isScalar(pair.key) || isMergeKey(pair.key)) continue;
      const key = String(pair.key.value);
      path.push(key);
      seen ??= new Set();
      if (seen.has(key)) out.push({ path: [...path], offset: rangeStart(pair.key) ?? 0 });
      seen.add(key);
      if (isMap(pair.value) || isSeq(pair.value)) duplicateKeys(pair.value, path, out);
      path.pop();
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const item = node.items[i];
      if (!isMap(item) && !isSeq(item)) continue;
      path.push(i);
      duplicateKeys(item, path, out);
      path.pop();
    }
  }
}

/**
 * The values of a JSON stream (`{...}{...}` or one per line, as kubectl accepts), as
 * [start, end) offsets; undefined when the text is not one (YAML, or a single value).
 */
export function jsonStreamValues(text: string): [number, number][] | undefined {
  const out: [number, number][] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t' || text[i] === '\ufeff')) i++;
  };
  for (skipSpace(); i < text.length; skipSpace()) {
    if (text[i] !== '{') return undefined;
    const start = i;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) break;
      }
    }
    if (depth !== 0) return undefined; // unterminated: let the parser say where
    out.push([start, ++i]);
  }
  return out.length > 1 ? out : undefined;
}

// A line that starts a Go template action outside quotes: `{{ .Values.x }}`, `{{- if ... }}`, `{{ include ... }}`.
const TEMPLATE_ACTION = /^[^#'"\n]*\{\{-?\s*(?:[.$]|\/\*|(?:if|else|end|range|with|include|template|define|toYaml|tpl|required|default|printf|quote|nindent|indent)\b)/m;

/**
 * Splits a text into its documents; malformed documents become diagnostics with the
 * parser's position. A field written twice in one mapping is an error under
 * `validate: 'strict'` (the default, as kubectl's strict field validation), a
 * warning under 'warn', nothing under 'ignore'; the last value is used. A JSON stream
 * is read value by value. A file that does not parse and has Go template actions is
 * one error (render it first); a file with no object one warning.
 */
export function parseSource(input: SourceInput, validate: ValidationMode = 'strict'): ParsedSource {
  const lines = new LineCounter();
  const documents: SourceDocument[] = [];
  let diagnostics: Diagnostic[] = [];
  const at = (offset: number) => lines.linePos(offset);
  const error = (offset: number, message: string) => {
    const { line, col } = at(offset);
    diagnostics.push({ severity: 'error', file: input.name, line, column: col, message: `${invalid}: ${boundMessage(message)}` });
  };
  const invalid = input.name.toLowerCase().endsWith('.json') ? 'invalid JSON' : 'invalid YAML';
  const text = input.text;
  lines.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
  const bad = NOT_PRINTABLE.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    error(bad.index, `control character U+${code} is not allowed (is this a binary file?)`);
    return { documents, diagnostics };
  }
  const parsed: { doc: Document.Parsed; base: number }[] = [];
  for (const [start, end] of jsonStreamValues(text) ?? [[0, text.length]]) {
    const composer = new Composer<YamlNode>(PARSE_OPTIONS);
    for (const token of new Parser().parse(start === 0 && end === text.length ? text : text.slice(start, end))) {
      const deep = token.type === 'document' ? tooDeepAt(token) : undefined;
      if (deep !== undefined) error(start + deep, `nested more than ${MAX_NESTING} levels deep`);
      else parsed.push(...Array.from(composer.next(token), (doc) => ({ doc, base: start })));
    }
    parsed.push(...Array.from(composer.end(), (doc) => ({ doc, base: start })));
  }
  let emptyDocuments = 0;
  parsed.forEach(({ doc, base }, index) => {
    for (const w of doc.warnings) {
      const { line, col } = at(base + w.pos[0]);
      diagnostics.push({ severity: 'warning', file: input.name, line, column: col, message: boundMessage(w.message) });
    }
    if (doc.errors.length > 0) {
      for (const e of doc.errors) error(base + e.pos[0], e.message);
      return;
    }
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
      // A trailing `---` makes an empty last document: that is how many tools end a stream.
      if (index < parsed.length - 1) emptyDocuments++;
      return;
    }
    if (validate !== 'ignore') {
      const duplicates: { path: FieldPath; offset: number }[] = [];
      duplicateKeys(doc.contents, [], duplicates);
      for (const d of duplicates) {
        const { line, col } = at(base + d.offset);
        diagnostics.push({ severity: validate === 'strict' ? 'error' : 'warning', file: input.name, line, column: col, field: formatFieldPath(d.path), message: `duplicate field ${JSON.stringify(String(d.path[d.path.length - 1]))}` });
      }
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      error(base + (rangeStart(doc.contents) ?? 0), e instanceof Error ? e.message : String(e));
      return;
    }
    documents.push(new SourceDocument(input.name, index, value, new YamlLocator(doc, lines, base)));
  });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const template = errors.length > 0 ? TEMPLATE_ACTION.exec(text) : null;
  if (template) {
    const { line, col } = at(template.index + template[0].indexOf('{{'));
    diagnostics = [{ severity: 'error', file: input.name, line, column: col, message: 'looks like a Helm template: render it with `helm template` first (berth reads manifests, not templates)' }];
  } else if (documents.length === 0 && errors.length === 0) {
    diagnostics.push({ severity: 'warning', file: input.name, line: 1, column: 1, message: 'no objects: the file is empty' });
  } else if (emptyDocuments > 0) {
    diagnostics.push({ severity: 'warning', file: input.name, line: 1, column: 1, message: `${emptyDocuments} empty document(s) skipped (only \`---\`, comments or null)` });
  }
  return { documents, diagnostics };
}
