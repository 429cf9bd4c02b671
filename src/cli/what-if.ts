// `berth what-if SCENARIO --variants F [--load-curve CSV] [--plot OUT.svg]`: runs one
// scenario timeline (its steps, plus scale steps from a load curve) under each NodePool
// disruption variant and compares what they cost: $/h over time, total dollars,
// evictions, pods disrupted per workload, time below desired replicas and below PDBs.

import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadDisruptionVariants, loadLoadCurve } from '../io/what-if-spec.js';
import { runVariants, type VariantResult } from '../sim/policy-variants.js';
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
    results.map((r) => [r.name, r.consolidationPolicy, r.consolidateAfter, r.budgets, r.totalCost.toFixed(2), r.averageCostPerHour.toFixed(2), r.peakCostPerHour.toFixed(2), String(r.nodesLaunched), String(r.nodesDisrupted), String(r.evictions), String(r.pendingAtEnd)]),
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
    .option('-o, --output <format>', 'table or json', parseOutput, 'table'), false)
    .action(async (file: string, opts: InputFlags & CatalogFlags & { variants: string; loadCurve?: string; until?: number; seed?: number; sample: number; plot?: string; output: 'table' | 'json' }) => {
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
      const instanceTypes = await instanceTypesOf(input, opts);
      const results = runVariants(input, spec, variants.variants, {
        instanceTypes,
        sampleMs: opts.sample,
        ...(opts.until !== undefined ? { untilMs: opts.until } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        onVariant: (name, i) => {
          if (process.stderr.isTTY) process.stderr.write(`\r\x1b[Ksimulating variant ${i + 1}/${variants.variants.length}: ${name}`);
        },
      });
      if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
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
