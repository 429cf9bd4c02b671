// npm run conformance:sim-vs-real -- [--cases N] [--seed S] [--shrink-seconds T] [--write] [--keep-cluster] [--save-dir D]
// Random scenarios run on the harness's own test cluster and by the simulator
// (with the real run's phase times, tie-breaking seeds 1..SIM_SEEDS); a summary
// per compared dimension. A disagreement is shrunk (each candidate run on both
// sides again, within --shrink-seconds) and, with --write, stored under
// regressions/ with the real side's observation, replayed by `npm test`.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { clusterDown, clusterUp } from './cluster.js';
import { generateScenario, shrinkCandidates } from './generate.js';
import { judge } from './judge.js';
import type { Difference } from './observation.js';
import { runReal, Watcher, type RealObservation } from './real-side.js';
import type { SvrScenario } from './scenario.js';

const HERE = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cases: { type: 'string', default: '10' },
      seed: { type: 'string', default: '1' },
      'shrink-seconds': { type: 'string', default: '0' },
      write: { type: 'boolean', default: false },
      'keep-cluster': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      /** Every scenario's real observation, for judging again offline after a simulator change. */
      'save-dir': { type: 'string' },
    },
  });
  const cases = Number(values.cases);
  const seed = Number(values.seed);
  const kube = clusterUp();
  const w = new Watcher(kube, '');
  w.start();
  let counter = Date.now() % 100_000;
  const real = (s: SvrScenario) => runReal(kube, w, s, `svr-${++counter}`);
  const byDimension = new Map<string, number>();
  const disagreeing: string[] = [];
  let agreed = 0;
  let realMs = 0;
  const t0 = Date.now();
  try {
    while (!w.synced) await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < cases; i++) {
      const s = generateScenario(seed, i);
      const started = Date.now();
      const r = await real(s);
      realMs += Date.now() - started;
      if (values['save-dir']) {
        mkdirSync(values['save-dir'], { recursive: true });
        writeFileSync(join(values['save-dir'], `${s.name}.json`), `${JSON.stringify({ scenario: s, real: r })}\n`);
      }
      const v = judge(s, r);
      if (v.agreedWith !== undefined) {
        agreed++;
        if (!values.quiet) console.log(`${s.name}: agree (sim ${v.agreedWith}; real ${((Date.now() - started) / 1000).toFixed(1)} s)`);
        if (values.write && i < 5) store(s, r, undefined);
        continue;
      }
      for (const d of new Set(v.differences.map((x) => x.dimension))) byDimension.set(d, (byDimension.get(d) ?? 0) + 1);
      console.log(`${s.name}: DISAGREE\n${describe(v.differences)}`);
      const shrunk = await shrink(s, r, v.differences, real, Number(values['shrink-seconds']) * 1000);
      disagreeing.push(shrunk.scenario.name);
      if (shrunk.scenario !== s) console.log(`  shrunk to ${JSON.stringify(shrunk.scenario)}\n${describe(shrunk.differences)}`);
      if (values.write) store(shrunk.scenario, shrunk.real, shrunk.differences);
    }
  } finally {
    await w.stop();
    if (!values['keep-cluster']) clusterDown();
  }
  const dims = [...byDimension].map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`sim-vs-real: ${cases} scenarios (seed ${seed}): ${agreed} agree, ${cases - agreed} disagree${dims ? ` (${dims})` : ''}; real side ${(realMs / 1000).toFixed(0)} s, total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (disagreeing.length > 0) process.exitCode = 1;
}

function describe(ds: readonly Difference[]): string {
  return ds.map((d) => `  ${d.dimension} after "${d.phase}": real ${JSON.stringify(d.real)} sim ${JSON.stringify(d.sim)}`).join('\n');
}

async function shrink(s: SvrScenario, r: RealObservation, differences: Difference[], real: (s: SvrScenario) => Promise<RealObservation>, budgetMs: number) {
  let best = { scenario: s, real: r, differences };
  const deadline = Date.now() + budgetMs;
  let progress = true;
  while (progress && Date.now() < deadline) {
    progress = false;
    for (const c of shrinkCandidates(best.scenario)) {
      if (Date.now() >= deadline) break;
      const cr = await real({ ...c, name: `${s.name}-shrunk` });
      const v = judge(c, cr);
      if (v.agreedWith === undefined) {
        best = { scenario: { ...c, name: `${s.name}-shrunk` }, real: cr, differences: v.differences };
        progress = true;
        break;
      }
    }
  }
  return best;
}

/** A regression file: the scenario, the real side's observation, and the differences still open when it was written. */
function store(s: SvrScenario, real: RealObservation, open: Difference[] | undefined): void {
  const file = join(HERE, 'regressions', `${s.name}.json`);
  writeFileSync(file, `${JSON.stringify({ scenario: s, real, ...(open ? { openDifferences: open.length } : {}) }, null, 1)}\n`);
  console.log(`  wrote ${file}`);
}


await main();
