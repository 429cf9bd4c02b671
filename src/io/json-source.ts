// A document that is already data (objects read from an API server and parsed as
// JSON), with positions worked out only when a diagnostic asks for one: its JSON
// text is scanned then, up to the field. Loading 100,000 objects this way costs no
// position bookkeeping at all, where the YAML parser keeps a node per value.
// Positions are the ones the YAML parser would give for the same text.

import type { FieldPath } from '../model/errors.js';
import type { ValidationMode } from './strict-fields.js';
import { parseSource, SourceDocument, type Locator, type ParsedSource, type Position, type SourceInput } from './yaml-source.js';

/**
 * `value` as the one document of the input `name`, whose text is `text()`: JSON, or
 * YAML (a document, comments before it allowed) that `value` was parsed from or
 * serialized to. `text` is called at most once, at the first position asked for;
 * a YAML text is then parsed whole, JSON only scanned up to the field.
 */
export function dataSource(name: string, value: unknown, format: 'json' | 'yaml', text: () => string): ParsedSource {
  const locator = format === 'json' ? new JsonLocator(text) : new DeferredYamlLocator(name, text);
  return { documents: [new SourceDocument(name, 0, value, locator)], diagnostics: [] };
}

/**
 * An input loaded from `value` as it is (see dataSource), whose text `text()` is
 * made once, when first read: by a position, or by a caller writing it out.
 */
export function dataInput(name: string, value: unknown, format: 'json' | 'yaml', text: () => string, validate?: ValidationMode): SourceInput {
  let rendered: string | undefined;
  const render = () => (rendered ??= text());
  return {
    name,
    get text() {
      return render();
    },
    parsed: dataSource(name, value, format, render),
    ...(validate ? { validate } : {}),
  };
}

class DeferredYamlLocator implements Locator {
  private doc?: SourceDocument;
  constructor(
    private readonly name: string,
    private readonly text: () => string,
  ) {}

  locate(path: FieldPath, at: 'value' | 'key' = 'value'): Position {
    this.doc ??= parseSource({ name: this.name, text: this.text() }, 'ignore').documents[0];
    return this.doc?.locate(path, at) ?? { line: 1, column: 1, offset: 0 };
  }
}

/** Scans JSON text for field paths. Arrays it has walked remember where their items start. */
export class JsonLocator implements Locator {
  private loaded?: { text: string; lineStarts: number[] };
  private readonly itemStarts = new Map<number, number[]>();

  constructor(private readonly source: () => string) {}

  private get text(): string {
    return this.load().text;
  }

  private load(): { text: string; lineStarts: number[] } {
    if (!this.loaded) {
      const text = this.source();
      const lineStarts = [0];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
      this.loaded = { text, lineStarts };
    }
    return this.loaded;
  }

  locate(path: FieldPath, at: 'value' | 'key' = 'value'): Position {
    let node = this.skipSpace(0);
    let offset = node;
    for (const [i, seg] of path.entries()) {
      const c = this.text[node];
      if (c === '{') {
        const member = this.member(node, String(seg));
        if (!member) break;
        node = member.value;
        const v = this.text[node];
        const scalar = v !== '{' && v !== '[' && !this.text.startsWith('null', node);
        offset = (at === 'key' && i === path.length - 1) || !scalar ? member.key : member.value;
      } else if (c === '[' && typeof seg === 'number') {
        const item = this.items(node)[seg];
        if (item === undefined) break;
        node = offset = item;
      } else {
        break;
      }
    }
    return this.position(offset);
  }

  private position(offset: number): Position {
    const { lineStarts } = this.load();
    let [lo, hi] = [0, lineStarts.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - lineStarts[lo]! + 1, offset };
  }

  /** The first member named `key` of the object at `start`: where its key and its value start. */
  private member(start: number, key: string): { key: number; value: number } | undefined {
    const text = this.text;
    let i = this.skipSpace(start + 1);
    while (text[i] === '"') {
      const keyStart = i;
      const keyEnd = this.skipString(i);
      const raw = text.slice(keyStart + 1, keyEnd - 1);
      const name = raw.includes('\\') ? (JSON.parse(text.slice(keyStart, keyEnd)) as string) : raw;
      const value = this.skipSpace(this.skipSpace(keyEnd) + 1); // past the colon
      if (name === key) return { key: keyStart, value };
      i = this.skipSpace(this.skipValue(value));
      if (text[i] !== ',') return undefined;
      i = this.skipSpace(i + 1);
    }
    return undefined;
  }

  /** Where each item of the array at `start` begins; computed once per array. */
  private items(start: number): number[] {
    let out = this.itemStarts.get(start);
    if (out) return out;
    out = [];
    const text = this.text;
    let i = this.skipSpace(start + 1);
    if (text[i] !== ']') {
      for (;;) {
        out.push(i);
        i = this.skipSpace(this.skipValue(i));
        if (text[i] !== ',') break;
        i = this.skipSpace(i + 1);
      }
    }
    this.itemStarts.set(start, out);
    return out;
  }

  private skipSpace(i: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xfeff) return i;
      i++;
    }
  }

  /** `i` at an opening quote: the offset past the closing one. */
  private skipString(i: number): number {
    const text = this.text;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i++;
      else if (c === 0x22) return i + 1;
    }
    return i;
  }

  /** The offset just past the value starting at `i`. */
  private skipValue(i: number): number {
    const text = this.text;
    const c = text[i];
    if (c === '"') return this.skipString(i);
    if (c !== '{' && c !== '[') {
      while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) i++;
      return i;
    }
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = this.skipString(i) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return i;
  }
}
