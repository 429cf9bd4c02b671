// `berth explain POD`: node × plugin table for one pending pod.

import type { FeatureGates } from '../scheduler/feature-gates.js';
import type { Command } from 'commander';
import { explainPod, type Explanation } from '../scheduler/explain.js';
import { ProfileError } from '../scheduler/profile.js';
import { CliError, collect, loadCluster, loadConfig, parseOutput, parseSeed, inputOptions, type InputFlags, parseFeatureGatesOption, FEATURE_GATES_HELP } from './common.js';
import { renderTable } from './table.js';

export function formatExplanation(e: Explanation): string {
  const lines: string[] = [`pod ${e.pod}`];
  const pre = e.preFilter.filter((p) => p.code !== 'Success' || p.nodeNames !== null);
  for (const p of pre) lines.push(`  prefilter ${p.plugin}: ${p.code}${p.reasons.length ? ` (${p.reasons.join(', ')})` : ''}${p.nodeNames ? ` nodes=[${p.nodeNames.join(' ')}]` : ''}`);
  const scorePlugins = [...new Set(e.nodes.flatMap((n) => n.scores.map((s) => s.plugin)))];
  const header = ['NODE', 'FILTER', ...scorePlugins, 'TOTAL'];
  const rows = e.nodes.map((n) => {
    const rejected = n.filters.find((f) => f.plugin === n.rejectedBy);
    const filter = n.feasible ? 'ok' : `${n.rejectedBy}: ${rejected?.reasons.join(', ') ?? ''}`;
    const cells = scorePlugins.map((p) => {
      const s = n.scores.find((x) => x.plugin === p);
      return s ? `${s.raw}→${s.normalized}×${s.weight}` : '';
    });
    return [n.node + (n.node === e.selected ? ' *' : ''), filter, ...cells, n.total === null ? '' : String(n.total)];
  });
  lines.push(renderTable(header, rows));
  lines.push(e.selected ? `selected: ${e.selected}` : `unschedulable: ${e.message}`);
  return lines.join('\n');
}

export function registerExplain(program: Command): void {
  inputOptions(program.command('explain'), true)
    .description('for one pending pod: every node × every plugin, filter verdicts, raw/normalized/weighted scores and the chosen node')
    .argument('<pod>', 'namespace/name (namespace defaults to "default")')
    .option('-f, --filename <path>', 'manifest file, folder or - for stdin (repeatable)', collect, [])
    .option('--config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)')
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--seed <n>', 'seed for the decisions upstream makes at random', parseSeed, 0)
    .option('-o, --output <format>', 'table or json', parseOutput, 'table')
    .action(async (podArg: string, opts: InputFlags & { filename: string[]; config?: string; featureGates?: FeatureGates; seed: number; output: 'table' | 'json' }) => {
      const key = podArg.includes('/') ? podArg : `default/${podArg}`;
      const config = await loadConfig(opts.config, opts.featureGates);
      const { cluster } = await loadCluster(opts, opts.filename);
      const pod = cluster.getPod(key);
      if (!pod) throw new CliError(`berth: pod ${key} not found in the input`);
      if (pod.nodeName) throw new CliError(`berth: pod ${key} is already bound to ${pod.nodeName}; explain takes a pending pod`);
      let e: Explanation | undefined;
      try {
        e = explainPod(cluster, config, key, opts.seed);
      } catch (err) {
        if (err instanceof ProfileError) throw new CliError(`berth: ${opts.config ?? 'scheduler configuration'}: ${err.message}`);
        throw err;
      }
      if (!e) throw new CliError(`berth: pod ${key} is not scheduled by any configured profile (schedulerName ${pod.schedulerName})`);
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify(e, null, 2) : formatExplanation(e)}\n`);
    });
}
