// A fast reader for the YAML that dumps are written in: block mappings and lists,
// one-line flow collections (`{a: b, c: [d]}`), one-line plain and quoted scalars,
// literal block scalars and comments. It makes the values the YAML parser makes
// (yaml-source.ts, with go-yaml v2's scalars) without the parser's tree: about ten
// objects per value, which for a 50 MB dump was a 5 GB heap and most of the load
// time. Anything else (anchors, aliases, tags, merge keys, a scalar over several
// lines, a key written twice or that is not a string, deep nesting, tabs, a
// character go-yaml refuses, an empty document) gives the text to the YAML parser,
// so every diagnostic stays the parser's. Positions are worked out when asked for,
// by the YAML parser reading the text then (detached-source.ts).

import { reparsedDocuments, reparsedLocator } from './detached-source.js';
import { goYamlPlainScalar, NOT_JSON } from './go-yaml-scalars.js';
import type { FieldPath } from '../model/errors.js';
import { NOT_PRINTABLE, parseSource, SourceDocument, type Locator, type ParsedSource, type Position, type SourceInput } from './yaml-source.js';

/** Thrown at anything outside the forms read here; never escapes readPlainYaml. */
class Unsupported extends Error {}

const unsupported = (): never => {
  throw new Unsupported();
};

/** Under the YAML parser's limit on an implicit key (1,024 characters). */
const MAX_KEY = 1000;
/** Well under the YAML path's MAX_NESTING, whose error needs the parser's position. */
const MAX_DEPTH = 128;

/** YAML's indicators, which a plain scalar may not start with (`-` may, when a non-space follows). */
const INDICATORS = "-?:,[]{}#&*!|>'\"%@`";

/**
 * The documents of `input` when it is written in the forms read here, as the YAML
 * parser would read it without a diagnostic; undefined otherwise.
 */
export function readPlainYaml(input: SourceInput): ParsedSource | undefined {
  const text = input.text;
  if (text.includes('\r') || text.includes('\t') || text.includes('\ufeff') || NOT_PRINTABLE.test(text)) return undefined;
  const lines = new Lines(text);
  const reader = new Reader(lines);
  let values: unknown[];
  try {
    values = reader.documents();
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
  const reparsed = reparsedDocuments(input.name, text);
  const itemOffsets = new Map([...reader.items.values()].flatMap((items) => [...items.starts, items.end].map((line) => [line, lines.offset(line)])));
  const documents = values.map((value, index) => {
    const whole = reparsedLocator(reparsed, index);
    const items = reader.items.get(index);
    return new SourceDocument(input.name, index, value, items ? new ItemLocator(input.name, text, items, itemOffsets, whole) : whole);
  });
  return { documents, diagnostics: [] };
}

/**
 * A text's lines, each sliced out of it when read. Split into strings, they took 40
 * bytes a line or more beside the text (a 480 MB dump has 17 million lines), all at
 * once while the text was read.
 */
class Lines {
  readonly length: number;
  /** Where each line starts in the text, and one past the end. */
  private readonly starts: Uint32Array;
  /** The line read last: the reader reads one line several times in a row. */
  private last = -1;
  private lastLine = '';

  constructor(private readonly text: string) {
    let count = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
    this.starts = new Uint32Array(count + 1);
    let line = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts[line++] = i + 1;
    this.starts[count] = text.length + 1;
    this.length = count;
  }

  /** Line `i` (0-based), without its newline. */
  at(i: number): string {
    if (i !== this.last) {
      this.lastLine = this.text.slice(this.starts[i], this.starts[i + 1]! - 1);
      this.last = i;
    }
    return this.lastLine;
  }

  /** Where line `i` starts in the text. */
  offset(i: number): number {
    return this.starts[i]!;
  }

  /** The first character of line `i`, without slicing it out ('' for an empty last line). */
  first(i: number): string {
    return this.text.charAt(this.starts[i]!);
  }
}

/** The lines of a block list: where each item starts, and where the list ends. */
interface ItemLines {
  readonly starts: number[];
  end: number;
}

/**
 * Positions in a document's `items` list (a kind: List dump of 100,000 objects),
 * found by the YAML parser reading only the lines of the item asked about; other
 * paths by its reading of the whole text. An item's lines parse to the same nodes
 * alone as in the document (the lines are whole, their indentation kept). It keeps
 * the text and where its items start, not the text's lines: a 480 MB dump has 17
 * million, which took more heap than the loaded cluster.
 */
class ItemLocator implements Locator {
  constructor(
    private readonly name: string,
    private readonly text: string,
    private readonly items: ItemLines,
    /** Where the items' first lines and the list's end start in the text, by line index. */
    private readonly offsets: ReadonlyMap<number, number>,
    private readonly whole: Locator,
  ) {}

  locate(path: FieldPath, at: 'value' | 'key' = 'value'): Position {
    const i = path[1];
    if (path[0] !== 'items' || typeof i !== 'number' || i < 0 || i >= this.items.starts.length) return this.whole.locate(path, at);
    const first = this.items.starts[i]!;
    const from = this.offsets.get(first)!;
    const lines = this.text.slice(from, this.offsets.get(this.items.starts[i + 1] ?? this.items.end)!);
    const [item] = parseSource({ name: this.name, text: lines.endsWith('\n') ? lines : `${lines}\n` }, 'ignore').documents;
    if (!item) return this.whole.locate(path, at);
    const pos = item.locate([0, ...path.slice(2)], at);
    return { line: pos.line + first, column: pos.column, offset: from + pos.offset };
  }
}

/** The first column at or after `from` that is not a space. */
function skip(line: string, from = 0): number {
  let i = from;
  while (line.charCodeAt(i) === 0x20) i++;
  return i;
}

/** Nothing to read from `from` on: the end of the line, or a comment. */
const isBlank = (line: string, from = skip(line)): boolean => from >= line.length || line[from] === '#';

/** Whether `line` has a list item's dash at column `at`. */
const isItem = (line: string, at: number): boolean => line[at] === '-' && (at + 1 === line.length || line[at + 1] === ' ');

/** A document marker line (`---`, perhaps with a comment); one with content after it is not read here. */
function isMarker(line: string): boolean {
  if (!line.startsWith('---') || (line.length > 3 && line[3] !== ' ')) return false;
  return isBlank(line, skip(line, 3)) || unsupported();
}

class Reader {
  /** The `items` list of a document's top mapping, by document index. */
  readonly items = new Map<number, ItemLines>();
  /** Set while the top mapping's `items` are read. */
  private itemLines?: ItemLines;
  private line = 0;
  /** The current document's index. */
  private index = 0;
  /** Where the current document's lines end. */
  private end = 0;

  constructor(private readonly lines: Lines) {}

  documents(): unknown[] {
    const out: unknown[] = [];
    let start = 0;
    let marked = false;
    const close = (end: number, last: boolean) => {
      let content = start;
      while (content < end && isBlank(this.lines.at(content))) content++;
      if (content < end) out.push(this.document(content, end, out.length));
      // An empty document after a marker: nothing when it ends the stream, the YAML path's warning otherwise.
      else if (marked && !last) unsupported();
    };
    for (let i = 0; i < this.lines.length; i++) {
      // Only a line that starts with one of these can be a directive or a marker.
      const first = this.lines.first(i);
      if (first !== '%' && first !== '.' && first !== '-') continue;
      const line = this.lines.at(i);
      if (line.startsWith('%') || line.startsWith('...')) unsupported();
      if (!isMarker(line)) continue;
      close(i, false);
      start = i + 1;
      marked = true;
    }
    close(this.lines.length, true);
    // No object at all: the YAML path's warning.
    if (out.length === 0) unsupported();
    return out;
  }

  private document(start: number, end: number, index: number): unknown {
    this.index = index;
    this.line = start;
    this.end = end;
    const value = this.node(skip(this.lines.at(start)), 0);
    this.skipBlank();
    if (this.line < this.end) unsupported();
    return value;
  }

  private skipBlank(): void {
    while (this.line < this.end && isBlank(this.lines.at(this.line))) this.line++;
  }

  /** The block node on the current line (not blank), indented `indent`. */
  private node(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) unsupported();
    const line = this.lines.at(this.line);
    if (isItem(line, indent)) return this.sequence(indent, depth);
    if (keyAt(line, indent)) return this.mapping(indent, indent, depth);
    return this.value(line, indent, indent - 1, depth, false);
  }

  /** A block mapping whose first key is at column `first` of the current line, the others at `indent`. */
  private mapping(indent: number, first: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let at = first; ; at = indent) {
      const line = this.lines.at(this.line);
      const key = keyAt(line, at) ?? unsupported();
      if (Object.hasOwn(out, key.name)) unsupported();
      if (depth === 0 && key.name === 'items') this.itemLines = { starts: [], end: 0 };
      out[key.name] = this.value(line, key.valueAt, indent, depth, true);
      if (this.itemLines) {
        if (this.itemLines.starts.length > 0) this.items.set(this.index, this.itemLines);
        this.itemLines = undefined;
      }
      this.skipBlank();
      if (this.line >= this.end) return out;
      const next = this.lines.at(this.line);
      const nextAt = skip(next);
      if (nextAt < indent) return out;
      if (nextAt > indent || isItem(next, nextAt)) unsupported();
    }
  }

  /** A block list whose dashes are at column `indent`. */
  private sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    const items = depth === 1 ? this.itemLines : undefined;
    const done = () => {
      if (items) items.end = this.line;
      return out;
    };
    for (;;) {
      items?.starts.push(this.line);
      const line = this.lines.at(this.line);
      const at = skip(line, indent + 1);
      if (isItem(line, at)) unsupported();
      out.push(keyAt(line, at) ? this.mapping(at, at, depth + 1) : this.value(line, at, indent, depth, false));
      this.skipBlank();
      if (this.line >= this.end) return done();
      const next = this.lines.at(this.line);
      const nextAt = skip(next);
      if (nextAt < indent) return done();
      if (nextAt === indent && isItem(next, nextAt)) continue;
      // A key at the dashes' column ends a list that is a mapping's value (`key:\n- a\nother: b`); the caller judges it.
      if (nextAt === indent && keyAt(next, nextAt)) return done();
      unsupported();
    }
  }

  /**
   * The value written from column `at` of the current line, in a node indented
   * `parent`: on this line, or (nothing written there) the block on the next lines,
   * which for a mapping's value (`listAtParent`) may be a list at the mapping's column.
   */
  private value(line: string, at: number, parent: number, depth: number, listAtParent: boolean): unknown {
    const from = skip(line, at);
    this.line++;
    if (isBlank(line, from)) return this.nested(parent, depth, listAtParent);
    if (line[from] === '|') return this.literal(line, from, parent);
    const c = line[from];
    let value: unknown;
    let end: number;
    let last = line;
    if (c === '{' || c === '[') [value, end] = flowNode(line, from, depth + 1);
    else if ((c === '"' || c === "'") && closingQuote(line, from + 1, c) >= 0) [value, end] = quoted(line, from);
    else if (c === '"' || c === "'") {
      let text: string;
      [text, last, end] = this.folded(line.slice(from), parent, c);
      [value] = quoted(text, 0);
    } else {
      end = line.indexOf(' #', from);
      if (end >= 0) value = plain(line.slice(from, end).trimEnd(), false);
      else {
        let text: string;
        [text, last, end] = this.folded(line.slice(from), parent, undefined);
        value = plain(text, false);
      }
    }
    const rest = skip(last, end);
    if (rest < last.length && (last[rest] !== '#' || rest === end)) unsupported();
    // Anything more indented after the value.
    this.skipBlank();
    if (this.line < this.end && skip(this.lines.at(this.line)) > parent) unsupported();
    return value;
  }

  /**
   * A scalar that began with `first` on the line before and goes on over the lines
   * after that are more indented than `parent` (up to its closing `quote`, or while
   * they last when plain), folded as YAML folds it: a line break between two lines is
   * a space, each empty line between them a newline, and the spaces around a break go.
   * Gives the folded text (with the quotes), the scalar's last line and the column
   * after the scalar there.
   */
  private folded(first: string, parent: number, quote: string | undefined): [string, string, number] {
    let text = first.trimEnd();
    let last = first;
    let breaks = 0;
    // An escaped line break or an escaped space before a break folds otherwise.
    const escapedEnd = (piece: string) => quote === '"' && /\\ *$/.test(piece) && unsupported();
    escapedEnd(first);
    for (let r = this.line; r < this.end; r++) {
      const l = this.lines.at(r);
      const at = skip(l);
      if (at === l.length) {
        breaks++;
        continue;
      }
      // The end of a plain scalar (what follows is judged by the caller); a quoted one must close first.
      if (at <= parent || at === 0 || (quote === undefined && INDICATORS.includes(l[at]!))) break;
      const close = quote === undefined ? -1 : closingQuote(l, at, quote);
      const piece = close < 0 ? l.slice(at) : l.slice(at, close + 1);
      if (close < 0) escapedEnd(piece);
      text += (breaks > 0 ? '\n'.repeat(breaks) : ' ') + piece.trimEnd();
      breaks = 0;
      last = l;
      this.line = r + 1;
      if (close >= 0) return [text, last, close + 1];
    }
    return quote === undefined ? [text, last, last.length] : unsupported();
  }

  /** A value on the next lines: more indented than `parent`, or a list at its column (`listAtParent`); null when there is none. */
  private nested(parent: number, depth: number, listAtParent: boolean): unknown {
    this.skipBlank();
    if (this.line >= this.end) return null;
    const line = this.lines.at(this.line);
    const at = skip(line);
    if (at > parent) return this.node(at, depth + 1);
    if (listAtParent && at === parent && isItem(line, at)) return this.sequence(at, depth + 1);
    return null;
  }

  /** A literal block scalar (`|`, `|-`; not `|+` or an explicit indentation) whose header is at `from`. */
  private literal(line: string, from: number, parent: number): string {
    const strip = line[from + 1] === '-';
    const header = from + (strip ? 2 : 1);
    const rest = skip(line, header);
    if (rest < line.length && (line[rest] !== '#' || rest === header)) unsupported();
    const body: string[] = [];
    let indent = -1;
    for (; this.line < this.end; this.line++) {
      const l = this.lines.at(this.line);
      const at = skip(l);
      if (at === l.length) {
        // Blank lines: before the first line, or with spaces past the indentation, are left to the YAML parser.
        if (indent < 0 || at > indent) unsupported();
        body.push('');
        continue;
      }
      if (indent < 0) indent = at > parent ? at : unsupported();
      if (at < indent) break;
      body.push(l.slice(indent));
    }
    // The text's last line, without a newline after it: left to the YAML parser.
    if (this.line === this.lines.length && this.lines.at(this.line - 1) !== '') unsupported();
    let kept = body.length;
    while (kept > 0 && body[kept - 1] === '') kept--;
    // Trailing blank lines are read again by what follows, as blank lines.
    this.line -= body.length - kept;
    const content = body.slice(0, kept).join('\n');
    return strip ? content : `${content}\n`;
  }
}

/** The mapping key at column `at` of `line`: its name and where its value starts; undefined when the line has no `key:` there. */
function keyAt(line: string, at: number): { name: string; valueAt: number } | undefined {
  const c = line[at];
  if (c === undefined || c === '{' || c === '[' || c === '#' || c === '|' || isItem(line, at)) return undefined;
  let name: unknown;
  let colon: number;
  if (c === '"' || c === "'") {
    if (closingQuote(line, at + 1, c) < 0) return undefined;
    let end: number;
    [name, end] = quoted(line, at);
    colon = skip(line, end);
    if (line[colon] !== ':' || !(colon + 1 === line.length || line[colon + 1] === ' ')) return undefined;
  } else {
    colon = line.indexOf(':', at);
    while (colon >= 0 && colon + 1 < line.length && line[colon + 1] !== ' ') colon = line.indexOf(':', colon + 1);
    const comment = line.indexOf(' #', at);
    if (colon < 0 || (comment >= 0 && comment < colon)) return undefined;
    name = plain(line.slice(at, colon).trimEnd(), false);
  }
  if (typeof name !== 'string' || name.length > MAX_KEY || name === '__proto__' || name === '<<') unsupported();
  return { name: name as string, valueAt: colon + 1 };
}

/** A plain scalar as go-yaml v2 resolves it, in a flow collection when `inFlow`. */
function plain(s: string, inFlow: boolean): unknown {
  if (s === '' || s === '<<' || (INDICATORS.includes(s[0]!) && !(s[0] === '-' && s.length > 1 && s[1] !== ' '))) unsupported();
  if (s.includes(': ') || s.endsWith(':') || s.includes(' #') || (inFlow && /[[\]{},]/.test(s))) unsupported();
  const v = goYamlPlainScalar(s);
  return v === NOT_JSON ? unsupported() : v;
}

const ESCAPES: Readonly<Record<string, string>> = { '0': '\0', a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029' };
const HEX_DIGITS: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/** The column of the quote `q` that closes a quoted scalar on `line`, scanning from `from`; -1 when it goes on past the line. */
function closingQuote(line: string, from: number, q: string): number {
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (q === '"' && c === '\\') i++;
    else if (c === q && q === "'" && line[i + 1] === "'") i++;
    else if (c === q) return i;
  }
  return -1;
}

/**
 * The quoted scalar at `from` and the column after it; one going on to the next line is not read here.
 * Runs without escapes are taken as slices of the line: built a character at a time, a
 * scalar was a chain of one string per character past the twelfth (V8 concatenates
 * lazily), which a dump's quoted timestamps, uids and numbers kept for the whole run.
 */
function quoted(line: string, from: number): [string, number] {
  const q = line[from];
  let out = '';
  /** Where the run of characters taken as they are began. */
  let run = from + 1;
  for (let i = from + 1; i < line.length; ) {
    const c = line[i]!;
    if (c === q && q === "'" && line[i + 1] === "'") {
      out += line.slice(run, i + 1);
      i += 2;
      run = i;
    } else if (c === q) {
      return [out + line.slice(run, i), i + 1];
    } else if (q === '"' && c === '\\') {
      out += line.slice(run, i);
      const e = line[i + 1] ?? unsupported();
      const digits = HEX_DIGITS[e];
      if (digits === undefined) {
        out += ESCAPES[e] ?? unsupported();
        i += 2;
      } else {
        const hex = line.slice(i + 2, i + 2 + digits);
        const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === digits ? parseInt(hex, 16) : unsupported();
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) unsupported();
        out += String.fromCodePoint(code);
        i += 2 + digits;
      }
      run = i;
    } else {
      i++;
    }
  }
  return unsupported();
}

/** The flow node at `from` (a collection, or a scalar inside one) and the column after it; the whole collection is on this line. */
function flowNode(line: string, from: number, depth: number): [unknown, number] {
  if (depth > MAX_DEPTH) unsupported();
  const c = line[from];
  if (c === '"' || c === "'") return quoted(line, from);
  if (c === '{' || c === '[') {
    const map = c === '{';
    const close = map ? '}' : ']';
    const out: Record<string, unknown> | unknown[] = map ? {} : [];
    let i = skip(line, from + 1);
    if (line[i] === close) return [out, i + 1];
    for (;;) {
      let value: unknown;
      if (map) {
        const [key, colon] = flowKey(line, i);
        if (Object.hasOwn(out, key)) unsupported();
        [value, i] = flowNode(line, skip(line, colon + 2), depth + 1);
        (out as Record<string, unknown>)[key] = value;
      } else {
        [value, i] = flowNode(line, i, depth + 1);
        (out as unknown[]).push(value);
      }
      i = skip(line, i);
      if (line[i] === close) return [out, i + 1];
      if (line[i] !== ',') unsupported();
      i = skip(line, i + 1);
      if (line[i] === close) unsupported();
    }
  }
  // A plain scalar: up to the `,`, `]` or `}` after it, on this line.
  let end = from;
  while (end < line.length && line[end] !== ',' && line[end] !== ']' && line[end] !== '}') end++;
  if (end >= line.length) unsupported();
  return [plain(line.slice(from, end).trimEnd(), true), end];
}

/** A flow mapping's key at `from`, and the column of the `: ` after it. */
function flowKey(line: string, from: number): [string, number] {
  let key: unknown;
  let colon: number;
  if (line[from] === '"' || line[from] === "'") {
    let end: number;
    [key, end] = quoted(line, from);
    colon = skip(line, end);
  } else {
    colon = from;
    while (colon < line.length && !',[]{}'.includes(line[colon]!) && !(line[colon] === ':' && line[colon + 1] === ' ')) colon++;
    key = plain(line.slice(from, colon).trimEnd(), true);
  }
  if (line[colon] !== ':' || line[colon + 1] !== ' ' || typeof key !== 'string' || key.length > MAX_KEY || key === '__proto__' || key === '<<') unsupported();
  return [key as string, colon];
}
