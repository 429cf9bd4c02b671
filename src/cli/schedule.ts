// `berth schedule`: place every pending pod as kube-scheduler would.

import type { FeatureGates } from '../scheduler/feature-gates.js';
import type { Command } from 'commander';
import { ProfileError } from '../scheduler/profile.js';
import { scheduleAll, type ScheduleReport } from '../scheduler/run.js';
import { CliError, collect, loadCluster, loadConfig, parseOutput, parseSeed, inputOptions, type InputFlags, parseFeatureGatesOption, FEATURE_GATES_HELP } from './common.js';
import { renderTable } from './table.js';

export function formatScheduleTable(report: ScheduleReport): string {
  const rows: string[][] = [
    ...report.placements.map((p) => [p.pod, p.node, 'Scheduled', '']),
    ...report.unschedulable.map((u) => [u.pod, '', 'Pending', u.message]),
  ];
  let out = renderTable(['POD', 'NODE', 'RESULT', 'MESSAGE'], rows);
  for (const p of report.preemptions) out += `\npreemption: ${p.pod} nominated to ${p.node}, evicting ${p.victims.join(', ')}`;
  return out;
}

export function registerSchedule(program: Command): void {
  inputOptions(program.command('schedule'), true)
    .description('schedule every pod without spec.nodeName, in queue order, each placement visible to the next pod')
    .option('-f, --filename <path>', 'manifest file, folder or - for stdin (repeatable)', collect, [])
    .option('--config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)')
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--seed <n>', 'seed for the decisions upstream makes at random (preemption candidate offset)', parseSeed, 0)
    .option('-o, --output <format>', 'table or json', parseOutput, 'table')
    .option('--fail-on-pending', 'exit 1 when some pod stays pending')
    .action(async (opts: InputFlags & { filename: string[]; config?: string; featureGates?: FeatureGates; seed: number; output: 'table' | 'json'; failOnPending?: boolean }) => {
      const config = await loadConfig(opts.config, opts.featureGates);
      const { cluster } = await loadCluster(opts, opts.filename);
      let report: ScheduleReport;
      try {
        report = scheduleAll(cluster, config, { seed: opts.seed });
      } catch (e) {
        if (e instanceof ProfileError) throw new CliError(`berth: ${opts.config ?? 'scheduler configuration'}: ${e.message}`);
        throw e;
      }
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify(report, null, 2) : formatScheduleTable(report)}\n`);
      if (opts.failOnPending && report.unschedulable.length > 0) process.exitCode = 1;
    });
}
