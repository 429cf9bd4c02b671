// Inputs as plain data that can cross to a worker thread (structured clone keeps
// values, not parser trees or closures): each document's value. A worker loads the
// values as they are, without parsing the texts again. The texts do not cross: the
// main thread has loaded the same documents and reported every problem with its
// position, and a worker reports none (positions there are the file's start). Pods
// and nodes cross with only the fields berth reads (schema-projection.ts): in a
// real dump they are most of the bytes, and most of their fields are status and
// container details no decision reads.

import type { FieldPath } from '../model/errors.js';
import { schemaOf } from './kinds.js';
import { isPlainObject, listItemKind } from './objects.js';
import { projectorOf } from './schema-projection.js';
import type { ValidationMode } from './strict-fields.js';
import { parseSource, SourceDocument, type Locator, type ParsedSource, type Position, type SourceInput } from './yaml-source.js';

export interface DetachedSource {
  readonly name: string;
  readonly validate?: ValidationMode;
  readonly documents: readonly { readonly index: number; readonly value: unknown }[];
}

/** `parsed` (the documents of the input `source`) as plain data. */
export function detachSource(source: SourceInput, parsed: ParsedSource): DetachedSource {
  return {
    name: source.name,
    ...(source.validate ? { validate: source.validate } : {}),
    documents: parsed.documents.map((d) => ({ index: d.index, value: projected(d.value) })),
  };
}

/**
 * The kinds whose loading reads nothing of an object but its schema's fields (the
 * rest only places messages). Not the workloads: a pod template's hash is of the
 * whole template as written.
 */
const PROJECTED = new Map([
  ['Pod', projectorOf(schemaOf('Pod'))],
  ['Node', projectorOf(schemaOf('Node'))],
]);

/** A document's value with its pods and nodes (a List's items included) projected onto what berth reads of them; `itemKind` for the items of a typed list. */
function projected(value: unknown, itemKind = ''): unknown {
  if (!isPlainObject(value)) return value;
  const kind = typeof value['kind'] === 'string' ? value['kind'] : itemKind;
  const items = value['items'];
  const childKind = listItemKind(kind, items);
  if (childKind !== undefined) return Array.isArray(items) ? { ...value, items: items.map((item) => projected(item, childKind)) } : value;
  const project = PROJECTED.get(kind);
  if (!project) return value;
  // The kind is not among the schema's fields: it chose the schema.
  return Object.hasOwn(value, 'kind') ? { kind: value['kind'], ...(project(value) as object) } : project(value);
}

/** The input a detached source stands for, its documents ready to load. */
export function attachSource(d: DetachedSource): SourceInput {
  const documents = d.documents.map((doc) => new SourceDocument(d.name, doc.index, doc.value, FILE_START));
  return { name: d.name, text: '', ...(d.validate ? { validate: d.validate } : {}), parsed: { documents, diagnostics: [] } };
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
/** Positions in a text that did not cross: the start of the file. */
const FILE_START: Locator = { locate: () => START };
