// `berth simulate SCENARIO`: runs a berth.dev/v1alpha1 Scenario and prints its
// timeline, the final placement and each expectation; exit 1 when one fails.

import type { FeatureGates } from '../scheduler/feature-gates.js';
import { readFile } from 'node:fs/promises';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { loadSources } from '../io/load.js';
import { readSources } from '../io/read-files.js';
import { loadScenario } from '../io/scenario.js';
import type { LoadedInput } from '../io/load.js';
import type { ScenarioSpec } from '../io/scenario-spec.js';
import { formatTime, timeline } from '../sim/timeline.js';
import { runScenario, type ScenarioRun } from '../sim/scenario.js';
import { fromOrigin } from '../sim/time-origin.js';
import { parseOptimize, CliError, nowOption, parseOutput, instanceTypesOf, type CatalogFlags, parseSimulatedDuration, parseSeed, printDiagnostics, progressLine, inputOptions, readOptions, inputLoadOptions, timeOriginOf, type InputFlags, parseFeatureGatesOption, FEATURE_GATES_HELP, catalogOptions } from './common.js';
import { liveFlagsProblem, readLiveInput } from './live-input.js';
import { renderTable } from './table.js';

export function formatRun(run: ScenarioRun, opts: { events: boolean }): string {
  const lines = [...timeline(run.events, opts.events), ''];
  lines.push(`final placement at ${formatTime(run.final.timeMs)} (${run.final.nodes.length} nodes, new capacity ${run.final.costPerHour.toFixed(4)} $/h):`);
  lines.push(renderTable(['ZONE', 'NODE', 'NODEPOOL', 'PODS'], [...run.final.nodes].sort((a, b) => a.zone.localeCompare(b.zone) || a.name.localeCompare(b.name)).map((n) => [n.zone, n.name, n.nodePool, n.pods.join(' ')])));
  if (run.final.pending.length > 0) lines.push(`pending: ${run.final.pending.map((p) => p.pod).join(' ')}`);
  lines.push('', 'expectations:');
  for (const e of run.expectations) lines.push(`  ${e.passed ? 'PASS' : 'FAIL'}  ${e.name}: ${e.detail}  (${e.source})`);
  return lines.join('\n');
}

export function toJson(run: ScenarioRun): unknown {
  return {
    events: run.events.map(({ t, ...rest }) => ({ t: formatTime(t), ...rest })),
    expectations: run.expectations.map(({ name, passed, detail }) => ({ name, passed, detail })),
    final: { nodes: run.final.nodes, pods: run.final.nodes.flatMap((n) => n.pods.map((p) => ({ pod: p, node: n.name }))).concat(run.final.pending.map((p) => ({ pod: p.pod, node: '' }))), costPerHour: run.final.costPerHour },
  };
}


/**
 * Reads a Scenario file and the files it names, and loads its objects; with --kubeconfig
 * the live cluster is read too, as the initial state (the scenario's own objects replace
 * the cluster's of the same name). Problems are printed and end the command.
 */
export async function loadScenarioFile(file: string, opts: InputFlags): Promise<{ input: LoadedInput; spec: ScenarioSpec }> {
  const problem = liveFlagsProblem(opts);
  if (problem) throw new CliError(`berth: ${problem}`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`berth: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const scenario = loadScenario({ name: file, text });
  if (!scenario.ok) {
    printDiagnostics(scenario.errors);
    throw new CliError(`berth: invalid scenario ${file}`);
  }
  let sources;
  try {
    sources = [{ name: file, text, parsed: scenario.source }, ...(await readSources(scenario.scenario.files, readOptions(opts)))];
  } catch (e) {
    throw new CliError(`berth: ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const clusterFrom = sources.length;
  if (opts.kubeconfig !== undefined) {
    try {
      sources.push(await readLiveInput(opts, opts.validate, progressLine));
    } catch (e) {
      throw new CliError(`berth: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const loaded = loadSources(sources, { clusterFrom, ...inputLoadOptions(opts) });
  if (!loaded.ok) {
    printDiagnostics(loaded.errors);
    throw new CliError(`berth: ${loaded.errors.length} error(s) in the scenario's objects`);
  }
  printDiagnostics(loaded.warnings);
  return { input: loaded.input, spec: scenario.scenario.spec };
}

export function registerSimulate(program: Command): void {
  catalogOptions(nowOption(inputOptions(program.command('simulate'), true), 'the times as written')
    .argument('<scenario>', 'a berth.dev/v1alpha1 Scenario file; with --kubeconfig, run on the live cluster as its initial state (the scenario\'s own objects replace the cluster\'s of the same name)')
    .description('run a scenario in simulated time: controllers, scheduler, provisioner, faults; check its expectations')
    .option('--until <duration>', 'simulated time to run (default: the scenario\'s spec.until, or its last step + 10m)', parseSimulatedDuration)
    .option('--seed <n>', 'override spec.seed', parseSeed)
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--optimize <objective>', "berth's own, off by default: cost lets the disruption loop, once Karpenter's consolidation finds nothing, replace a set of nodes by any number of cheaper ones (spec.disruption.optimize)", parseOptimize)
    .option('-o, --output <format>', 'table or json', parseOutput, 'table')
    .option('--events', 'print every event, not just the timeline'), false)
    .action(async (file: string, opts: InputFlags & CatalogFlags & { until?: number; seed?: number; featureGates?: FeatureGates; optimize?: 'cost'; output: 'table' | 'json'; events?: boolean; now?: string }) => {
      const loaded = await loadScenarioFile(file, opts);
      const { input } = loaded;
      let { spec } = loaded;
      if (opts.optimize) {
        if (!spec.disruption?.enabled) throw new CliError(`berth: --optimize ${opts.optimize} needs the scenario's disruption loop (spec.disruption in ${file})`);
        spec = { ...spec, disruption: { ...spec.disruption, optimize: opts.optimize } };
      }
      const bar = process.stderr.isTTY ? new SingleBar({ format: 'simulating {bar} {value}/{total} s simulated', stream: process.stderr, clearOnComplete: true }, Presets.shades_classic) : undefined;
      let started = false;
      // Simulated time 0 is when the live state was read (or --now): a node created an hour before is an hour old.
      const origin = timeOriginOf(opts);
      const run = runScenario(origin === undefined ? input : fromOrigin(input, origin), spec, {
        instanceTypes: await instanceTypesOf(input, opts),
        ...(opts.until !== undefined ? { untilMs: opts.until } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...(opts.featureGates ? { schedulerConfig: { featureGates: opts.featureGates } } : {}),
        ...(bar
          ? {
              onProgress: (now: number, until: number) => {
                if (!started) bar.start(Math.round(until / 1000), 0);
                started = true;
                bar.update(Math.round(now / 1000));
              },
            }
          : {}),
      });
      bar?.stop();
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify(toJson(run), null, 2) : formatRun(run, { events: opts.events ?? false })}\n`);
      if (run.expectations.some((e) => !e.passed)) process.exitCode = 1;
    });
}
