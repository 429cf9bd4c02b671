// `berth deschedule`: one pass of the descheduler with the user's
// DeschedulerPolicy over the cluster in the manifests: what it evicts, which
// plugin and why, and where the scheduler would place each evicted pod.

import type { Command } from 'commander';
import type { FeatureGates } from '../scheduler/feature-gates.js';
import { deschedule, type DeschedulingResult } from '../disruption/deschedule.js';
import { collect, inputOptions, parseTime, loadCluster, loadConfig, loadDeschedulerPolicyFile, parseOutput, parseSeed, type InputFlags, parseFeatureGatesOption, FEATURE_GATES_HELP } from './common.js';
import { renderTable } from './table.js';


export function formatDescheduleTable(result: DeschedulingResult): string {
  if (result.evictions.length === 0) return 'no evictions';
  return renderTable(
    ['POD', 'NODE', 'PLUGIN', 'PREDICTED NODE', 'REASON'],
    result.evictions.map((e) => [e.pod, e.node, e.strategy, e.predictedNode || '(pending)', e.reason]),
  );
}

export function registerDeschedule(program: Command): void {
  inputOptions(program.command('deschedule'), true)
    .description("run one descheduler pass with a DeschedulerPolicy: the pods it evicts and where the scheduler would place each")
    .option('-f, --filename <path>', 'manifest file, folder or - for stdin (repeatable)', collect, [])
    .requiredOption('--policy <file>', 'DeschedulerPolicy (descheduler/v1alpha2)')
    .option('--predict-placement', "berth's option: evict only when the scheduler would place the pod on a better node (off by default, as upstream)")
    .option('--config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the placement prediction')
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--seed <n>', 'seed for the scheduler decisions upstream makes at random', parseSeed, 0)
    .option('--now <time>', 'RFC 3339 time the pass runs at, for pod ages (default: now)', parseTime)
    .option('-o, --output <format>', 'table or json', parseOutput, 'table')
    .action(async (opts: InputFlags & { filename: string[]; policy: string; predictPlacement?: boolean; config?: string; featureGates?: FeatureGates; seed: number; now?: string; output: 'table' | 'json' }) => {
      const policy = await loadDeschedulerPolicyFile(opts.policy, opts.predictPlacement === true);
      const config = await loadConfig(opts.config, opts.featureGates);
      const { cluster } = await loadCluster(opts, opts.filename);
      // Pod ages (PodLifeTime, RemoveFailedPods, minPodAge) are measured against the wall clock, as the descheduler does.
      const result = deschedule({ cluster, policy, scheduler: config, seed: opts.seed, nowMs: opts.now === undefined ? Date.now() : Date.parse(opts.now) });
      const json = { evictions: result.evictions, skipped: result.skipped };
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify(json, null, 2) : formatDescheduleTable(result)}\n`);
    });
}
