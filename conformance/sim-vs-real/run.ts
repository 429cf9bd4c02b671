// npm run conformance:sim-vs-real -- [--cases N] [--seed S] [--clusters K] [--real-runs R] [--shrink-seconds T] [--write] [--keep-cluster] [--save-dir D] [--quiet] [regression files…]
// npm run conformance:sim-vs-real -- --judge D   (the runs saved in D judged again, no cluster)
// Random scenarios run on the harness's own test clusters and by the simulator
// (with the real run's phase times, score ties broken as the real cluster broke
// them); a summary per compared dimension. K clusters (separate control planes,
// see cluster.ts) run K scenarios at a time. A disagreement is shrunk (each
// candidate run on both sides again, within --shrink-seconds) and, with --write,
// stored under regressions/ with the real side's observation, replayed by
// `npm test`. Given regression files, their scenarios run instead of generated
// ones, and --write stores each again under its own name (a fresh real run).
// --real-runs R (default 1): a scenario that disagrees is run on the real
// cluster again, up to R runs in all; it passes if a later real run agrees,
// i.e. the simulator's outcome is one the real control plane also produces
// (upstream races the harness does not tolerate yet). Counted apart in the
// summary, never as a plain agreement.
// A real run that cannot finish (a phase that never settles: controllers stalled on an
// overloaded machine; an API error) is an infrastructure failure: the cluster is
// restarted and the scenario run once more; if it fails again it is counted apart, not
// judged, and the run exits 1.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { clusterDown, clusterUp, MAX_CLUSTERS } from './cluster.js';
import { generateScenario, shrinkCandidates } from './generate.js';
import { judge } from './judge.js';
import type { Difference } from './observation.js';
import { runReal, Watcher, type RealObservation } from './real-side.js';
import { laterAgreement, realRunWithRetries } from './real-runs.js';
import type { Kube } from '../../src/live/kube.js';
import { validateScenario, type SvrScenario } from './scenario.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Real tries of a scenario whose run fails (the cluster restarted in between). */
const INFRASTRUCTURE_TRIES = 2;

class InfrastructureFailure extends Error {}

/** One of the run's clusters; a restart after an infrastructure failure replaces its client and watcher. */
interface Cluster {
  readonly k: number;
  kube: Kube;
  w: Watcher;
}

async function startCluster(k: number): Promise<Cluster> {
  const kube = await clusterUp(k);
  const w = new Watcher(kube, '');
  w.start();
  while (!w.synced) await new Promise((r) => setTimeout(r, 100));
  return { k, kube, w };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      cases: { type: 'string', default: '10' },
      seed: { type: 'string', default: '1' },
      clusters: { type: 'string', default: '1' },
      /** The first cluster's number (cluster.ts), so two runs can go side by side on separate clusters. */
      'first-cluster': { type: 'string', default: '0' },
      'real-runs': { type: 'string', default: '1' },
      'shrink-seconds': { type: 'string', default: '0' },
      write: { type: 'boolean', default: false },
      'keep-cluster': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      /** Every scenario's real observation, for judging again offline after a simulator change. */
      'save-dir': { type: 'string' },
      /** Judge the real runs saved in this directory (by --save-dir) with the current simulator; no cluster. */
      judge: { type: 'string' },
    },
  });
  if (values.judge) return judgeSaved(values.judge, values.quiet);
  const seed = Number(values.seed);
  const rerun = positionals.length > 0;
  const scenarios: SvrScenario[] = rerun ? positionals.map(readScenario) : Array.from({ length: Number(values.cases) }, (_, i) => generateScenario(seed, i));
  const clusters = Number(values.clusters);
  const first = Number(values['first-cluster']);
  if (!Number.isInteger(first) || first < 0 || first >= MAX_CLUSTERS) throw new Error(`--first-cluster: 0 to ${MAX_CLUSTERS - 1}, not ${values['first-cluster']}`);
  if (!Number.isInteger(clusters) || clusters < 1 || first + clusters > MAX_CLUSTERS) throw new Error(`--clusters: 1 to ${MAX_CLUSTERS - first}, not ${values.clusters}`);
  const realRuns = Number(values['real-runs']);
  if (!Number.isInteger(realRuns) || realRuns < 1) throw new Error(`--real-runs: a whole number from 1, not ${values['real-runs']}`);
  const byDimension = new Map<string, number>();
  const disagreeing: string[] = [];
  const agreedOnRetry: string[] = [];
  const infrastructureFailures: string[] = [];
  let agreed = 0;
  let choicesFollowed = 0;
  let realMs = 0;
  let counter = Date.now() % 100_000;
  let next = 0;
  const t0 = Date.now();

  // One worker per cluster, each taking the next scenario until none is left.
  const worker = async (c: Cluster) => {
    const k = c.k;
    const real = async (s: SvrScenario) => {
      const r = await realRunWithRetries(
        INFRASTRUCTURE_TRIES,
        () => runReal(c.kube, c.w, s, `svr-${++counter}`),
        async (error, n) => {
          console.log(`${s.name}: infrastructure failure on cluster ${k} (real try ${n}): ${error}; restarting the cluster`);
          await c.w.stop();
          await clusterDown(k);
          Object.assign(c, await startCluster(k));
        },
      );
      if ('infrastructureFailure' in r) throw new InfrastructureFailure(r.infrastructureFailure);
      return r.observation;
    };
    while (next < scenarios.length) {
      const i = next++;
      const s = scenarios[i]!;
      try {
        await one(s, i, k, real);
      } catch (e) {
        if (!(e instanceof InfrastructureFailure)) throw e;
        infrastructureFailures.push(s.name);
        console.log(`${s.name}: INFRASTRUCTURE FAILURE (cluster ${k}), not judged: ${e.message}`);
      }
    }
  };

  /** One scenario on the real cluster (and again, as --real-runs and shrinking ask), judged. */
  const one = async (s: SvrScenario, i: number, k: number, real: (s: SvrScenario) => Promise<RealObservation>) => {
    const started = Date.now();
    const r = await real(s);
    realMs += Date.now() - started;
    if (values['save-dir']) {
      mkdirSync(values['save-dir'], { recursive: true });
      writeFileSync(join(values['save-dir'], `${s.name}.json`), `${JSON.stringify({ scenario: s, real: r })}\n`);
    }
    const v = judge(s, r);
    choicesFollowed += v.choicesFollowed;
    if (!v.agrees && realRuns > 1) {
      const run = await laterAgreement(
        realRuns,
        async () => {
          const again = Date.now();
          const r2 = await real(s);
          realMs += Date.now() - again;
          return judge(s, r2);
        },
        (v2, n) => {
          if (!values.quiet && describe(v2.differences) !== describe(v.differences)) console.log(`${s.name}: real run ${n} differs otherwise:\n${describe(v2.differences)}`);
        },
      );
      if (run) {
        agreedOnRetry.push(`${s.name} (real run ${run})`);
        console.log(`${s.name}: agrees with real run ${run} of ${realRuns}; real run 1 differed (cluster ${k}):\n${describe(v.differences)}`);
        return;
      }
    }
    if (v.agrees) {
      agreed++;
      if (!values.quiet) console.log(`${s.name}: agree (${v.choicesFollowed} random choices made the real way; real ${((Date.now() - started) / 1000).toFixed(1)} s, cluster ${k})`);
      if (values.write && (rerun || i < 5)) store(s, r, undefined);
      return;
    }
    for (const d of new Set(v.differences.map((x) => x.dimension))) byDimension.set(d, (byDimension.get(d) ?? 0) + 1);
    console.log(`${s.name}: DISAGREE (cluster ${k})\n${describe(v.differences)}`);
    const shrunk = rerun ? { scenario: s, real: r, differences: v.differences } : await shrink(s, r, v.differences, real, Number(values['shrink-seconds']) * 1000);
    disagreeing.push(shrunk.scenario.name);
    if (shrunk.scenario !== s) console.log(`  shrunk to ${JSON.stringify(shrunk.scenario)}\n${describe(shrunk.differences)}`);
    if (values.write) store(shrunk.scenario, shrunk.real, shrunk.differences);
  };

  const started: Cluster[] = [];
  try {
    for (let k = first; k < first + Math.min(clusters, scenarios.length); k++) started.push(await startCluster(k));
    const results = await Promise.allSettled(started.map((c) => worker(c)));
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  } finally {
    for (const c of started) await c.w.stop();
    if (!values['keep-cluster']) for (const c of started) await clusterDown(c.k);
  }
  const dims = [...byDimension].map(([k, n]) => `${k} ${n}`).join(', ');
  const what = rerun ? `${scenarios.length} stored scenarios` : `${scenarios.length} scenarios (seed ${seed})`;
  console.log(
    `sim-vs-real: ${what}: ${agreed} agree, ${agreedOnRetry.length > 0 ? `${agreedOnRetry.length} agree with a later real run (${agreedOnRetry.join(', ')}), ` : ''}${disagreeing.length} disagree${dims ? ` (${dims})` : ''}${infrastructureFailures.length > 0 ? `, ${infrastructureFailures.length} infrastructure failures (not judged: ${infrastructureFailures.join(' ')})` : ''}; ${choicesFollowed} upstream-random choices made the real cluster's way; ` +
      `real side ${(realMs / 1000).toFixed(0)} s on ${started.length} cluster(s), total ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  if (disagreeing.length > 0 || infrastructureFailures.length > 0) process.exitCode = 1;
}

/** --judge DIR: every saved real run judged again by the current simulator, with the usual summary. */
function judgeSaved(dir: string, quiet: boolean): void {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const byDimension = new Map<string, number>();
  const disagreeing: string[] = [];
  for (const f of files) {
    const saved = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { scenario?: SvrScenario; real?: RealObservation };
    if (!saved.scenario || !saved.real) throw new Error(`${join(dir, f)}: not a run saved by --save-dir (needs "scenario" and "real")`);
    validateScenario(saved.scenario, f);
    const v = judge(saved.scenario, saved.real);
    if (v.agrees) continue;
    disagreeing.push(saved.scenario.name);
    for (const d of new Set(v.differences.map((x) => x.dimension))) byDimension.set(d, (byDimension.get(d) ?? 0) + 1);
    if (!quiet) console.log(`${saved.scenario.name}: DISAGREE\n${describe(v.differences)}`);
  }
  const dims = [...byDimension].map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`sim-vs-real: ${files.length} saved real runs judged again: ${files.length - disagreeing.length} agree, ${disagreeing.length} disagree${dims ? ` (${dims}: ${disagreeing.join(' ')})` : ''}`);
  if (disagreeing.length > 0) process.exitCode = 1;
}

function readScenario(file: string): SvrScenario {
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { scenario?: SvrScenario };
  if (!stored.scenario) throw new Error(`${file}: no "scenario" field`);
  validateScenario(stored.scenario, basename(file));
  return stored.scenario;
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
      if (!v.agrees) {
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
