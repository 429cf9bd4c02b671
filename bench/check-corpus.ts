// Precision and recall of `berth check` over test/check-corpus/, and its runtime per case.
// npx tsx bench/check-corpus.ts

import { performance } from 'node:perf_hooks';
import { compare, corpusCases, runCase } from '../test/check-corpus/corpus.js';

let tp = 0;
let fp = 0;
let fn = 0;
let total = 0;
for (const c of corpusCases()) {
  const t = performance.now();
  const found = runCase(c).findings;
  const ms = performance.now() - t;
  total += ms;
  const r = compare(c.expect, found);
  tp += r.tp.length;
  fp += r.extra.length;
  fn += r.missing.length;
  console.log(`${c.name.padEnd(20)} ${String(found.length).padStart(2)} finding(s), ${r.extra.length} extra, ${r.missing.length} missing, ${(ms / 1000).toFixed(1)} s`);
  for (const x of r.extra) console.log(`  extra:   ${x}`);
  for (const x of r.missing) console.log(`  missing: ${x}`);
}
const precision = tp / Math.max(1, tp + fp);
const recall = tp / Math.max(1, tp + fn);
console.log(`precision ${(precision * 100).toFixed(1)}% (${tp}/${tp + fp}), recall ${(recall * 100).toFixed(1)}% (${tp}/${tp + fn}), check took ${(total / 1000).toFixed(1)} s over ${corpusCases().length} cases`);
