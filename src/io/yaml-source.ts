// One input text parsed into YAML documents that remember where every value came
// from, so a problem found at a field path can be reported at its line and column.
// JSON is read by the same parser (it is a subset of YAML), so it gets positions too.

import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Pair, type Tags } from 'yaml';
import type { FieldPath } from '../model/errors.js';
import type { Diagnostic } from './diagnostics.js';

/** A named text: a file's path and contents, or "<stdin>" and what was piped in. */
export interface SourceInput {
  readonly name: string;
  readonly text: string;
}

export interface Position {
  readonly line: number;
  readonly column: number;
  /** Character offset in the text; orders diagnostics within a file. */
  readonly offset: number;
}

// kubectl reads YAML through sigs.k8s.io/yaml (go-yaml v2, YAML 1.1 rules): `yes`,
// `no`, `on`, `off`, `y` and `n` are booleans there, so a label value written `on`
// is rejected as a non-string by the API server; parsing as 1.1 reports the same.
// go-yaml v2 does not read timestamps or sexagesimal numbers (`12:30`), though:
// those stay strings, so the 1.1 tags for them are left out.
const GO_YAML_V2_TAGS = (tags: Tags): Tags =>
  tags.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || ('format' in t && t.format === 'TIME'))));

const PARSE_OPTIONS = { version: '1.1', prettyErrors: false, uniqueKeys: true, merge: true, customTags: GO_YAML_V2_TAGS } as const;

type YamlNode = NonNullable<Document.Parsed['contents']>;

export class SourceDocument {
  constructor(
    readonly file: string,
    /** Which document of the stream (0-based), for ordering. */
    readonly index: number,
    /** The document as plain data. */
    readonly value: unknown,
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  position(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col, offset };
  }

  /**
   * Where the value at `path` is written. A scalar is reported at the scalar; a
   * mapping or list (or an empty value) at its key, which is where a reader looks.
   * A path that does not exist is reported at its nearest existing ancestor.
   */
  locate(path: FieldPath): Position {
    let node: unknown = this.doc.contents;
    let offset = rangeStart(node) ?? this.doc.range[0];
    for (const seg of path) {
      const target = this.deref(node);
      if (isMap(target)) {
        const pair = this.findPair(target, String(seg));
        if (!pair) break;
        node = pair.value;
        offset = this.pairOffset(pair);
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

/** Splits a text into its documents; malformed documents become diagnostics with the parser's position. */
export function parseSource(input: SourceInput): ParsedSource {
  const lines = new LineCounter();
  const documents: SourceDocument[] = [];
  const diagnostics: Diagnostic[] = [];
  const at = (offset: number) => lines.linePos(offset);
  const invalid = input.name.toLowerCase().endsWith('.json') ? 'invalid JSON' : 'invalid YAML';
  const parsed = parseAllDocuments(input.text, { ...PARSE_OPTIONS, lineCounter: lines });
  parsed.forEach((doc, index) => {
    for (const w of doc.warnings) {
      const { line, col } = at(w.pos[0]);
      diagnostics.push({ severity: 'warning', file: input.name, line, column: col, message: w.message });
    }
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const { line, col } = at(e.pos[0]);
        diagnostics.push({ severity: 'error', file: input.name, line, column: col, message: `${invalid}: ${e.message}` });
      }
      return;
    }
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      const { line, col } = at(rangeStart(doc.contents as YamlNode) ?? 0);
      diagnostics.push({ severity: 'error', file: input.name, line, column: col, message: `${invalid}: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    documents.push(new SourceDocument(input.name, index, value, doc, lines));
  });
  return { documents, diagnostics };
}
