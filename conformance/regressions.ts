// Regression files: a shrunk case on which berth disagreed with the oracle, with
// the oracle's result, so the case can be replayed against berth alone.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceCase } from './generators.js';
import type { AttemptResult } from './result.js';

export const REGRESSIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'regressions');

export interface Regression {
  /** What differed when the case was found (dimension:plugin), and a note on the fix. */
  readonly description: string;
  /** How to find it again: the run's seed, chunk seed and fast-check path. */
  readonly origin?: { readonly seed: number; readonly chunkSeed: number; readonly path: string };
  readonly case: ConformanceCase;
  /** The oracle's result for the case: what berth must reproduce. */
  readonly oracle: AttemptResult;
}

export function caseHash(c: ConformanceCase): string {
  return createHash('sha256').update(JSON.stringify(c)).digest('hex').slice(0, 16);
}

/** Writes `r` as `<hash>.json` and returns the path. */
export function writeRegression(r: Regression, dir = REGRESSIONS_DIR): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${caseHash(r.case)}.json`);
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  return file;
}

export function readRegressions(dir = REGRESSIONS_DIR): { file: string; regression: Regression }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return names.map((f) => ({ file: f, regression: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Regression }));
}
