// `berth check --fix-dir D`: the first fix of every finding that has patches,
// applied to the manifests as written and saved one object per file in D
// (Kind_namespace_name.yaml), new objects (nodes to add) as written by berth; an
// object a fix deletes is listed, not written. Objects read from standard input
// (`-f -`) have no file of their own to stand beside: they go, patched, into one
// multi-document STDIN_FIX_FILE in D.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import type { ReportedFinding, ObjectPatch } from '../analyze/finding.js';
import { applyMergePatch, composeMergePatches } from '../analyze/patches.js';
import { fixPatches } from '../analyze/report.js';
import { objectRef } from '../io/load.js';
import { STDIN_NAME } from '../io/read-files.js';
import type { SourceInput } from '../io/yaml-source.js';

export const STDIN_FIX_FILE = 'stdin.yaml';

/** The objects of the sources as written (List items included), by "Kind/namespace/name", and whether each came from stdin. */
function writtenObjects(sources: readonly SourceInput[]): Map<string, { value: Record<string, unknown>; stdin: boolean }> {
  const out = new Map<string, { value: Record<string, unknown>; stdin: boolean }>();
  let stdin = false;
  const add = (v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
    const o = v as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown }; items?: unknown };
    if (o.kind === 'List' && Array.isArray(o.items)) return o.items.forEach(add);
    if (typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string') return;
    const key = objectRef(o.kind, typeof o.metadata.namespace === 'string' && o.metadata.namespace !== '' ? o.metadata.namespace : 'default', o.metadata.name);
    if (!out.has(key)) out.set(key, { value: v as Record<string, unknown>, stdin });
  };
  for (const s of sources) {
    stdin = s.name === STDIN_NAME;
    if (s.parsed) for (const doc of s.parsed.documents) add(doc.value);
    else for (const doc of parseAllDocuments(s.text)) if (!('empty' in doc)) add(doc.toJS());
  }
  return out;
}

/** Writes the patched objects; returns what it wrote and what it could not. */
export async function writeFixDir(dir: string, findings: readonly ReportedFinding[], sources: readonly SourceInput[]): Promise<{ written: string[]; notes: string[] }> {
  const patches: ObjectPatch[] = [];
  for (const f of findings) {
    const first = fixPatches(f)?.[0];
    if (!first) continue;
    for (const p of first) {
      const i = patches.findIndex((x) => x.object === p.object && x.type === 'merge' && p.type === 'merge');
      if (i >= 0) patches[i] = { ...p, patch: composeMergePatches(patches[i]!.patch, p.patch) };
      else if (!patches.some((x) => x.object === p.object && x.type === p.type)) patches.push(p);
    }
  }
  const objects = writtenObjects(sources);
  const written: string[] = [];
  const notes: string[] = [];
  const fromStdin: unknown[] = [];
  await mkdir(dir, { recursive: true });
  for (const p of patches) {
    const file = join(dir, `${p.object.replaceAll('/', '_')}.yaml`);
    if (p.type === 'delete') {
      notes.push(`delete ${p.object}`);
      continue;
    }
    const base = p.type === 'create' ? undefined : objects.get(p.object);
    if (p.type === 'merge' && !base) {
      notes.push(`${p.object} is not in the input as written: its patch is only in -o json`);
      continue;
    }
    const patched = p.type === 'create' ? p.patch : applyMergePatch(base!.value, p.patch);
    if (base?.stdin) {
      fromStdin.push(patched);
      continue;
    }
    await writeFile(file, stringify(patched));
    written.push(file);
  }
  if (fromStdin.length > 0) {
    const file = join(dir, STDIN_FIX_FILE);
    await writeFile(file, fromStdin.map((o) => stringify(o)).join('---\n'));
    written.push(file);
  }
  return { written, notes };
}
