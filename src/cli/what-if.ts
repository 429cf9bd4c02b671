// `berth what-if SCENARIO --variants F [--load-curve CSV] [--plot OUT.svg]`: runs one
// scenario timeline (its steps, plus scale steps from a load curve) under each NodePool
// disruption variant and compares what they cost: $/h over time, total dollars,
// evictions, pods disrupted per workload, time below desired replicas and below PDBs.

import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Command } from 'commander';
import type { LoadedInput } from '../io/load.js';
import type { ScenarioSpec } from '../io/scenario-spec.js';
import { loadDisruptionVariants, loadLoadCurve, type DisruptionVariant } from '../io/what-if-spec.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { runVariants, type VariantResult } from '../sim/policy-variants.js';
import { availableCores } from './cores.js';
import { parseJobs, withPool } from './pool.js';
import { CliError, instanceTypesOf, inputOptions, parseOutput, parseSeed, parseSimulatedDuration, printDiagnostics, type CatalogFlags, type InputFlags, catalogOptions } from './common.js';
import { costPlotSvg } from './cost-plot.js';
import { loadScenarioFile } from './simulate.js';
import { renderTable } from './table.js';

async function readText(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`berth: cannot read ${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

const minutes = (ms: number) => (ms / 60_000).toFixed(1);

function summarize(record: Readonly<Record<string, number>>, format: (v: number) => string): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}=${format(v)}`).join(' ');
}

export function formatWhatIf(results: readonly VariantResult[]): string {
  const table = renderTable(
    ['VARIANT', 'POLICY', 'AFTER', 'BUDGETS', 'TOTAL $', 'AVG $/H', 'PEAK $/H', 'LAUNCHED', 'DISRUPTED', 'EVICTIONS', 'PENDING'],
    results.map((r) => [r.name, r.optimize ? `${r.consolidationPolicy} +optimize ${r.optimize}` : r.consolidationPolicy, r.consolidateAfter, r.budgets, r.totalCost.toFixed(2), r.averageCostPerHour.toFixed(2), r.peakCostPerHour.toFixed(2), String(r.nodesLaunched), String(r.nodesDisrupted), String(r.evictions), String(r.pendingAtEnd)]),
  );
  const lines = [table, ''];
  for (const r of results) {
    lines.push(`${r.name}:`);
    lines.push(`  pods disrupted:      ${summarize(r.podsDisrupted, String)}`);
    lines.push(`  below desired (min): ${summarize(r.belowDesiredMs, minutes)}`);
    lines.push(`  below PDB (min):     ${summarize(r.belowPdbMs, minutes)}`);
  }
  return lines.join('\n');
}

type WhatIfFlags = InputFlags & CatalogFlags & { variants: string; loadCurve?: string; until?: number; seed?: number; sample: number; plot?: string; output: 'table' | 'json'; jobs?: number };

/** What every variant runs on: the scenario (load-curve steps merged in), the variants and the catalog. */
export interface WhatIfRun {
  readonly input: LoadedInput;
  readonly spec: ScenarioSpec;
  readonly variants: readonly DisruptionVariant[];
  readonly instanceTypes: readonly InstanceType[];
}

/** Reads and validates the scenario, variants and load curve (the main thread, and each worker once). */
export async function loadWhatIf(file: string, opts: WhatIfFlags): Promise<WhatIfRun> {
  const variants = loadDisruptionVariants({ name: opts.variants, text: await readText('--variants', opts.variants) });
  if (!variants.ok) {
    printDiagnostics(variants.errors);
    throw new CliError(`berth: invalid variants ${opts.variants}`);
  }
  const { input, spec: scenarioSpec } = await loadScenarioFile(file, opts);
  if (!input.nodePools.some((np) => np.replicas === null)) throw new CliError(`berth: ${file}: no NodePool that provisions nodes: disruption settings change nothing`);
  let spec = scenarioSpec;
  if (opts.loadCurve) {
    const curve = loadLoadCurve({ name: opts.loadCurve, text: await readText('--load-curve', opts.loadCurve) }, input.workloads);
    if (!curve.ok) {
      printDiagnostics(curve.errors);
      throw new CliError(`berth: invalid load curve ${opts.loadCurve}`);
    }
    spec = { ...spec, steps: [...spec.steps, ...curve.steps].sort((a, b) => a.at - b.at) };
  }
  return { input, spec, variants: variants.variants, instanceTypes: await instanceTypesOf(input, opts) };
}

/** Runs the variants at `indexes` of a loaded what-if, in that order. */
export function runWhatIfVariants(run: WhatIfRun, indexes: readonly number[], opts: WhatIfFlags, onVariant?: (name: string, index: number) => void): VariantResult[] {
  return runVariants(run.input, run.spec, indexes.map((i) => run.variants[i]!), {
    instanceTypes: run.instanceTypes,
    sampleMs: opts.sample,
    ...(opts.until !== undefined ? { untilMs: opts.until } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(onVariant ? { onVariant: (name, i) => onVariant(name, indexes[i]!) } : {}),
  });
}

/** A what-if worker thread's data: the command line, read again once per worker. */
export interface WhatIfWorkerData {
  readonly file: string;
  readonly opts: WhatIfFlags;
}

export function registerWhatIf(program: Command): void {
  catalogOptions(inputOptions(program.command('what-if'))
    .argument('<scenario>', 'a berth.dev/v1alpha1 Scenario: the cluster, its NodePools and workloads, and the timeline (steps)')
    .description('compare NodePool disruption settings on one scenario timeline: $/h over time, total cost, evictions, pods disrupted, time below desired/PDB')
    .requiredOption('--variants <file>', 'the settings to compare (berth.dev/v1alpha1 DisruptionVariants)')
    .option('--load-curve <csv>', 'replica counts over time: header "time,[Kind/][namespace/]name,...", one row per time (90m or HH:MM)')
    .option('--until <duration>', "simulated time to run (default: the scenario's spec.until, or its last step + 10m)", parseSimulatedDuration)
    .option('--seed <n>', 'override spec.seed', parseSeed)
    .option('--sample <duration>', 'resolution of the $/h series in the JSON and the plot', parseSimulatedDuration, 5 * 60_000)
    .option('--plot <file>', 'write an SVG plot of $/h over time, one line per variant')
    .option('-j, --jobs <n>', 'worker threads, one variant each at a time (default: the available cores, at most one per variant); the output is the same for any number', parseJobs)
    .option('-o, --output <format>', 'table or json', parseOutput, 'table'), false)
    .action(async (file: string, opts: WhatIfFlags) => {
      const run = await loadWhatIf(file, opts);
      const { spec, variants } = run;
      const indexes = variants.map((_, i) => i);
      const jobs = Math.min(opts.jobs ?? availableCores(), variants.length);
      let results: VariantResult[];
      if (jobs <= 1) {
        results = runWhatIfVariants(run, indexes, opts, (name, i) => {
          if (process.stderr.isTTY) process.stderr.write(`\r\x1b[Ksimulating variant ${i + 1}/${variants.length}: ${name}`);
        });
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
      } else {
        const worker = new URL(`./what-if-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url);
        results = await withPool<number, VariantResult, WhatIfWorkerData, VariantResult[]>(worker, { file, opts }, jobs, 'simulating variants', (task) => Promise.all(indexes.map((i) => task(i))));
      }
      if (opts.plot) {
        try {
          await writeFile(opts.plot, costPlotSvg(results, `${spec.name}: $/h by disruption variant`));
        } catch (e) {
          throw new CliError(`berth: cannot write --plot ${opts.plot}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
      }
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify({ scenario: spec.name, variants: results }, null, 2) : formatWhatIf(results)}\n`);
    });
}
