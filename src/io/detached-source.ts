// Inputs as plain data that can cross to a worker thread (structured clone keeps
// values, not parser trees or closures): each document's value, and the source's
// text when it was read as text. A worker loads the values as they are, without
// parsing the texts again; positions are worked out only if a diagnostic asks for
// one, by parsing the text then (once per source).

import type { FieldPath } from '../model/errors.js';
import type { ValidationMode } from './strict-fields.js';
import { parseSource, SourceDocument, type Locator, type ParsedSource, type Position, type SourceInput } from './yaml-source.js';

export interface DetachedSource {
  readonly name: string;
  readonly validate?: ValidationMode;
  /**
   * The text the documents were parsed from. Absent for a source that came parsed
   * (objects read from an API server): its text is made only on demand and may be
   * large, so positions in it are not known on the other side.
   */
  readonly text?: string;
  readonly documents: readonly { readonly index: number; readonly value: unknown }[];
}

/** `source` (parsed as `parsed`) as plain data. */
export function detachSource(source: SourceInput, parsed: ParsedSource): DetachedSource {
  return {
    name: source.name,
    ...(source.validate ? { validate: source.validate } : {}),
    // A pre-parsed source's text may be a getter that renders the whole input.
    ...(source.parsed ? {} : { text: source.text }),
    documents: parsed.documents.map((d) => ({ index: d.index, value: d.value })),
  };
}

/** The input a detached source stands for, its documents ready to load. */
export function attachSource(d: DetachedSource): SourceInput {
  const locators = d.text === undefined ? undefined : reparsedDocuments(d.name, d.text);
  const documents = d.documents.map((doc) => new SourceDocument(d.name, doc.index, doc.value, locators ? reparsedLocator(locators, doc.index) : FILE_START));
  return { name: d.name, text: d.text ?? '', ...(d.validate ? { validate: d.validate } : {}), parsed: { documents, diagnostics: [] } };
}

/** The documents of `text` as the parser reads them, parsed at the first call. */
export function reparsedDocuments(name: string, text: string): () => ReadonlyMap<number, SourceDocument> {
  let byIndex: Map<number, SourceDocument> | undefined;
  return () => (byIndex ??= new Map(parseSource({ name, text }, 'ignore').documents.map((doc) => [doc.index, doc])));
}

/** Positions in document `index` of a text parsed again (holding only these two: nothing of a first parse). */
export const reparsedLocator = (documents: () => ReadonlyMap<number, SourceDocument>, index: number): Locator => new ReparsedLocator(documents, index);

class ReparsedLocator implements Locator {
  constructor(
    private readonly documents: () => ReadonlyMap<number, SourceDocument>,
    private readonly index: number,
  ) {}

  locate(path: FieldPath, at: 'value' | 'key' = 'value'): Position {
    return this.documents().get(this.index)?.locate(path, at) ?? START;
  }
}

const START: Position = { line: 1, column: 1, offset: 0 };
/** For a source whose text did not cross: the start of the file. */
const FILE_START: Locator = { locate: () => START };
