// Times each HA check on its own over a dump, e.g. the one bench/check-200.ts writes:
// npx tsx bench/check-200.ts > /tmp/check-200.yaml && npx tsx bench/check-times.ts /tmp/check-200.yaml [--provisioner] [NodePool files...]
// Prints ms, CPU s and findings per check (the registered ones and node/zone-loss,
// co-location, scale-up, unsatisfiable, pdb), and the total; run with
// `node --expose-gc --import tsx` it also prints the heap left after each check
// (what the checks keep for later ones, after a full GC).

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Check } from '../src/analyze/check.js';
import { coLocationCheck } from '../src/analyze/checks/co-location.js';
import { ALL_CHECKS } from '../src/analyze/checks/index.js';
import { nodeLossCheck, zoneLossCheck } from '../src/analyze/checks/loss.js';
import { pdbCheck } from '../src/analyze/checks/pdb.js';
import { scaleUpCheck } from '../src/analyze/checks/scale-up.js';
import { unsatisfiableCheck } from '../src/analyze/checks/unsatisfiable.js';
import { loadSources } from '../src/io/load.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));
const loaded = loadSources(files.map((name) => ({ name, text: readFileSync(name, 'utf8') })));
if (!loaded.ok) throw new Error(`${files.join(', ')} does not load`);
const ctx = { input: loaded.input, instanceTypes: bundledInstanceTypes(), provisioner: args.includes('--provisioner'), seed: 0 };
const checks: Check[] = [...ALL_CHECKS];
for (const c of [nodeLossCheck, zoneLossCheck, coLocationCheck, scaleUpCheck, unsatisfiableCheck, pdbCheck]) if (!checks.some((x) => x.rule === c.rule)) checks.push(c);
console.log(`${loaded.input.nodes.length} nodes, ${loaded.input.workloads.length} workloads, ${loaded.input.pods.length} pods, provisioner ${ctx.provisioner ? 'on' : 'off'}`);
let total = 0;
const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  if (!gc) return '';
  gc();
  return `  heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`;
};
console.log(`${'loaded'.padEnd(22)}${heap()}`);
for (const c of checks) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const findings = c.run(ctx);
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  total += ms;
  const bySeverity = ['error', 'warning', 'info'].map((s) => `${findings.filter((f) => f.severity === s).length} ${s}`).join(', ');
  console.log(`${c.rule.padEnd(22)} ${ms.toFixed(0).padStart(7)} ms ${((used.user + used.system) / 1e6).toFixed(1).padStart(6)} CPU s  ${bySeverity}${heap()}`);
}
console.log(`${'total'.padEnd(22)} ${total.toFixed(0).padStart(7)} ms`);
