// Documents → the Kubernetes objects in them. A document is one object, or a List
// of them (`kind: List` as kubectl writes it, or a typed list such as PodList whose
// items carry no kind of their own). Each object remembers where it sits in its
// document so its diagnostics can point into the source.

import type { FieldPath } from '../model/errors.js';
import { formatFieldPath, type Diagnostic } from './diagnostics.js';
import { describeValue } from './schemas.js';
import type { Position, SourceDocument } from './yaml-source.js';

export interface RawObject {
  readonly doc: SourceDocument;
  /** Which input the document came from, for ordering. */
  readonly input: number;
  /** The object's path inside its document: [] or ['items', 3]. */
  readonly base: FieldPath;
  readonly kind: string;
  /** '' when the document does not say. */
  readonly apiVersion: string;
  /** The object as written, with null fields removed (Go decodes null as "unset"). */
  readonly value: Record<string, unknown>;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Removes null-valued fields at every level; null list items stay (and fail validation).
 * A value without null fields is returned as it is (objects read from an API server
 * rarely have one), so only the mappings on the way to a null are copied.
 * Keys become own properties (fromEntries): an assignment to `__proto__` would set
 * the copy's prototype instead, and the key would vanish without an error.
 */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const kept = dropNulls(item);
      if (kept !== item) return [...v.slice(0, i), kept, ...v.slice(i + 1).map(dropNulls)];
    }
    return v;
  }
  if (!isPlainObject(v)) return v;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    const x = v[key];
    const kept = x === null ? null : dropNulls(x);
    if (kept === x && x !== null) continue;
    // The first field that changes: the fields before it are kept as they are, the rest cleaned.
    const entries = Object.entries(v);
    const i = entries.findIndex(([k]) => k === key);
    const rest = entries.slice(i + 1).flatMap(([k, y]) => (y === null ? [] : [[k, dropNulls(y)]]));
    return Object.fromEntries([...entries.slice(0, i), ...(kept === null ? [] : [[key, kept]]), ...rest]);
  }
  return v;
}

export function positionOf(obj: RawObject, path: FieldPath, at: 'value' | 'key' = 'value'): Position {
  return obj.doc.locate([...obj.base, ...path], at);
}

/** Cluster-scoped kinds are named without a namespace. */
const CLUSTER_SCOPED = new Set(['Node', 'Namespace', 'PriorityClass', 'NodePool', 'InstanceTypeCatalog', 'PersistentVolume', 'StorageClass', 'CSINode', 'CSIDriver', 'VolumeAttachment']);

export function isNamespaced(kind: string): boolean {
  // Karpenter NodeClasses (EC2NodeClass, AKSNodeClass...) are cluster-scoped too.
  return !CLUSTER_SCOPED.has(kind) && !kind.endsWith('NodeClass');
}

/** The metadata.name as written, or '' when missing or not a string. */
export function rawName(obj: RawObject): string {
  const meta = obj.value['metadata'];
  const name = isPlainObject(meta) ? meta['name'] : undefined;
  return typeof name === 'string' ? name : '';
}

export function rawNamespace(obj: RawObject): string {
  const meta = obj.value['metadata'];
  const ns = isPlainObject(meta) ? meta['namespace'] : undefined;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}

/** "Pod default/web", "Node n1": how diagnostics name an object. */
export function objectLabel(obj: RawObject): string {
  const meta = obj.value['metadata'];
  const generateName = isPlainObject(meta) && typeof meta['generateName'] === 'string' ? `${meta['generateName']}*` : '';
  const name = rawName(obj) || generateName || '<unnamed>';
  return isNamespaced(obj.kind) ? `${obj.kind} ${rawNamespace(obj)}/${name}` : `${obj.kind} ${name}`;
}

const LIST_SUFFIX = 'List';

/**
 * The kind a list's items take when they omit their own, when `kind` (with `items`)
 * is a list: '' for a `List`, whose items carry their kind; Pod for a PodList.
 * Undefined when it is not a list.
 */
export function listItemKind(kind: string, items: unknown): string | undefined {
  if (kind === LIST_SUFFIX) return '';
  return kind.endsWith(LIST_SUFFIX) && Array.isArray(items) ? kind.slice(0, -LIST_SUFFIX.length) : undefined;
}

/** The objects of one document, with diagnostics for documents that are not objects. */
export const SCENARIO_API_VERSION = 'berth.dev/v1alpha1';
export const SCENARIO_KIND = 'Scenario';

export function collectObjects(doc: SourceDocument, input: number, diagnostics: Diagnostic[]): RawObject[] {
  const out: RawObject[] = [];
  const error = (path: FieldPath, message: string) => {
    const { line, column } = doc.locate(path);
    const field = formatFieldPath(path);
    diagnostics.push({ severity: 'error', file: doc.file, line, column, ...(field ? { field } : {}), message });
  };

  const visit = (value: unknown, base: FieldPath, itemKind: string, itemApiVersion: string) => {
    if (!isPlainObject(value)) {
      error(base, `expected a Kubernetes object (a mapping with apiVersion and kind), got ${describeValue(value)}`);
      return;
    }
    const kindValue = value['kind'] ?? (itemKind || undefined);
    const apiValue = value['apiVersion'] ?? itemApiVersion;
    if (kindValue === undefined || kindValue === null || kindValue === '') {
      error([...base, 'kind'], 'Required value: every object needs apiVersion and kind');
      return;
    }
    if (typeof kindValue !== 'string') {
      error([...base, 'kind'], `Invalid type: expected string, got ${describeValue(kindValue)}`);
      return;
    }
    const apiVersion = typeof apiValue === 'string' ? apiValue : '';
    const items = value['items'];
    const childKind = listItemKind(kindValue, items);
    if (childKind !== undefined) {
      if (items === undefined || items === null) return; // an empty List
      if (!Array.isArray(items)) {
        error([...base, 'items'], `Invalid type: expected list, got ${describeValue(items)}`);
        return;
      }
      // Items of a typed list (PodList) omit their kind; those of a `List` carry their own.
      const childApi = childKind === '' ? '' : apiVersion;
      items.forEach((item, i) => visit(item, [...base, 'items', i], childKind, childApi));
      return;
    }
    if (kindValue === SCENARIO_KIND && apiVersion === SCENARIO_API_VERSION) {
      // A scenario carries its cluster inline: every entry of spec.objects that is not a `files:` reference.
      const spec = value['spec'];
      const objects = isPlainObject(spec) ? spec['objects'] : undefined;
      if (Array.isArray(objects)) objects.forEach((o, i) => !(isPlainObject(o) && 'files' in o) && visit(o, [...base, 'spec', 'objects', i], '', ''));
      return;
    }
    out.push({ doc, input, base, kind: kindValue, apiVersion, value: dropNulls(value) as Record<string, unknown> });
  };

  visit(doc.value, [], '', '');
  return out;
}
