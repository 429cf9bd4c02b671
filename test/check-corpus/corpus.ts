// Runs `berth check` (the analyzer, in process) on each case of the corpus and compares
// its findings with the expected ones: shared by the test and bench/check-corpus.ts.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { analyze } from '../../src/analyze/analyze.js';
import type { Finding } from '../../src/analyze/finding.js';
import { loadSources, type LoadedInput } from '../../src/io/load.js';
import { catalogOrBundled } from '../../src/provisioner/catalog/catalog.js';

export const CORPUS_DIR = 'test/check-corpus';

export interface CorpusCase {
  readonly name: string;
  readonly files: readonly string[];
  readonly cluster: readonly string[];
  readonly expect: readonly string[];
}

export function corpusCases(): CorpusCase[] {
  return readdirSync(CORPUS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const spec = parse(readFileSync(join(CORPUS_DIR, d.name, 'case.yaml'), 'utf8')) as { files?: string[]; cluster?: string[]; expect: string[] };
      return { name: d.name, files: spec.files ?? [], cluster: spec.cluster ?? [], expect: spec.expect };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** What `berth check -f FILES --cluster CLUSTER` finds (provisioner on when a NodePool can launch). */
export function runCase(c: CorpusCase): { findings: Finding[]; input: LoadedInput } {
  const read = (f: string) => ({ name: join(CORPUS_DIR, f), text: readFileSync(join(CORPUS_DIR, f), 'utf8') });
  const r = loadSources([...c.files.map(read), ...c.cluster.map(read)], { clusterFrom: c.files.length });
  if (!r.ok) throw new Error(`${c.name}: ${JSON.stringify(r.errors)}`);
  const input = r.input;
  return { findings: analyze({ input, instanceTypes: catalogOrBundled(input.catalogs), provisioner: input.nodePools.some((np) => np.replicas === null), seed: 0 }), input };
}

export const label = (f: Finding) => `${f.severity} ${f.rule} ${f.object}`;

/** Expected findings found (true positives), reported but not expected, expected but missing. */
export function compare(expected: readonly string[], found: readonly Finding[]): { tp: string[]; extra: string[]; missing: string[] } {
  const got = found.map(label);
  return { tp: got.filter((g) => expected.includes(g)), extra: got.filter((g) => !expected.includes(g)), missing: expected.filter((e) => !got.includes(e)) };
}
