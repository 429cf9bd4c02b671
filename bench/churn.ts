// Simulation throughput: the churn scenario (bench/churn-scenario.ts) run through
// the same path as `berth simulate`, timed from the loaded input to the end of the
// run. Reports simulated seconds per wall second and per CPU second (the machine
// may be shared; CPU time is the steadier figure).

import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadSources } from '../src/io/load.js';
import { loadScenario } from '../src/io/scenario.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import { runScenario } from '../src/sim/scenario.js';
import { churnScenario, FULL_CHURN, type ChurnSize } from './churn-scenario.js';

export interface ChurnResult extends ChurnSize {
  readonly events: number;
  readonly allScheduled: boolean;
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  /** Simulated seconds per wall-clock second. */
  readonly realTimeFactor: number;
  /** Simulated seconds per CPU second. */
  readonly cpuTimeFactor: number;
  readonly rssMiB: number;
}

/** The --quick size: 200 nodes, 2,000 pods, 2 h — the scenario whose event log each optimisation must keep byte-identical. */
export const QUICK_CHURN: ChurnSize = { nodes: 200, deployments: 20, replicas: 100, hours: 2 };

export function runChurn(size: ChurnSize = FULL_CHURN): ChurnResult {
  const text = churnScenario(size);
  const scenario = loadScenario({ name: 'churn.yaml', text });
  if (!scenario.ok) throw new Error(`churn scenario: ${scenario.errors.map((e) => e.message).join('; ')}`);
  const loaded = loadSources([{ name: 'churn.yaml', text }]);
  if (!loaded.ok) throw new Error(`churn scenario objects: ${loaded.errors.map((e) => e.message).join('; ')}`);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const run = runScenario(loaded.input, scenario.scenario.spec, { instanceTypes: bundledInstanceTypes() });
  const wallSeconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const simulatedSeconds = size.hours * 3600;
  return {
    ...size,
    events: run.events.length,
    allScheduled: run.expectations.every((e) => e.passed),
    wallSeconds,
    cpuSeconds,
    realTimeFactor: simulatedSeconds / wallSeconds,
    cpuTimeFactor: simulatedSeconds / cpuSeconds,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
  };
}

export function formatChurn(r: ChurnResult): string {
  return (
    `simulation throughput (churn: ${r.nodes} nodes, ${r.deployments * r.replicas} pods, ${r.hours} h simulated, ${r.events} events, ` +
    `allScheduled ${r.allScheduled ? 'passes' : 'FAILS'}): ${r.realTimeFactor.toFixed(0)}× real time (${r.wallSeconds.toFixed(1)} s wall), ` +
    `${r.cpuTimeFactor.toFixed(0)}× per CPU second (${r.cpuSeconds.toFixed(1)} s CPU), RSS ${r.rssMiB.toFixed(0)} MiB`
  );
}

/** `npm run bench`'s churn entry: the full scenario, or the small one with --quick; prints a line and writes bench/results/churn-<date>.json. */
export function benchChurn(quick: boolean): ChurnResult {
  const result = runChurn(quick ? QUICK_CHURN : FULL_CHURN);
  const file = `bench/results/churn-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(file, JSON.stringify({ quick, ...result }, null, 2));
  console.log(`\n${formatChurn(result)}\nwritten to ${file}`);
  return result;
}
