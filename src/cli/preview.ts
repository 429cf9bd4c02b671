// `berth preview`: what Karpenter's disruption loop, the descheduler and
// kube-scheduler will do next to the cluster as it stands (a dump, or the live
// cluster with --kubeconfig), with a NodePool or workload edit given by -f; as a
// table, JSON, or markdown for a pull-request comment.

import type { FeatureGates } from '../scheduler/feature-gates.js';
import { InvalidArgumentError, type Command } from 'commander';
import { preview, type Preview } from '../analyze/preview.js';
import { formatTime } from '../sim/timeline.js';
import { collect, inputOptions, nowOption, simulatedDescheduler, timeOriginOf, instanceTypesOf, loadCluster, loadConfig, parseSeed, parseSimulatedDuration, type InputFlags, parseFeatureGatesOption, FEATURE_GATES_HELP, type CatalogFlags, catalogOptions } from './common.js';
import { renderTable } from './table.js';

type PreviewOutput = 'table' | 'json' | 'markdown';


function parsePreviewOutput(v: string): PreviewOutput {
  if (v !== 'table' && v !== 'json' && v !== 'markdown') throw new InvalidArgumentError('must be "table", "json" or "markdown"');
  return v;
}

interface Section {
  readonly title: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Said instead of an empty table. */
  readonly none: string;
}

const moves = (ms: readonly { pod: string; predicted: string; landed: string }[]) =>
  ms.map((m) => `${m.pod} → ${m.landed || '(not placed)'}${m.predicted && m.predicted !== m.landed ? ` (predicted ${m.predicted})` : ''}`).join('; ');

function sections(p: Preview): Section[] {
  return [
    {
      title: 'kube-scheduler: pending pods',
      header: ['POD', 'WHY (explain with `berth explain NAMESPACE/POD`)'],
      rows: p.pending.map((x) => [x.pod, x.message]),
      none: 'no pending pod',
    },
    {
      title: 'Karpenter: drifted nodes',
      header: ['AT', 'NODE', 'NODEPOOL', 'REASON'],
      rows: p.drifted.map((d) => [formatTime(d.atMs), d.node, d.nodePool, d.reason]),
      none: 'no node is drifted',
    },
    {
      title: 'Karpenter: disruption commands, in order',
      header: ['AT', 'REASON', 'ACTION', 'NODES', 'REPLACEMENTS', 'DONE', 'PODS'],
      rows: p.disruptions.map((d) => [formatTime(d.atMs), d.reason, d.kind, d.nodes.join(' '), d.replacements.join(' ') || '-', d.doneAtMs === undefined ? 'draining' : formatTime(d.doneAtMs), moves(d.evictions)]),
      none: 'no disruption',
    },
    {
      title: 'Karpenter: nodes left alone, and why',
      header: ['NODE', 'EVENT', 'MESSAGE'],
      rows: p.blocked.map((b) => [b.node, b.event || '-', b.message]),
      none: 'no node was blocked',
    },
    {
      title: 'descheduler: evictions',
      header: ['AT', 'POD', 'FROM', 'PLUGIN', 'LANDED', 'FUTILE', 'REASON'],
      rows: p.descheduled.map((d) => [formatTime(d.atMs), d.move.pod, d.move.from, d.strategy, d.move.landed || '(not placed)', d.futile ? 'yes' : 'no', d.reason]),
      none: 'no eviction',
    },
  ];
}

function summary(p: Preview): string {
  const roll = p.disruptions.length === 0 ? '' : `; the last command is done at ${p.disruptions.every((d) => d.doneAtMs !== undefined) ? formatTime(Math.max(...p.disruptions.map((d) => d.doneAtMs!))) : 'a time past the horizon'}`;
  return `within ${formatTime(p.horizonMs)}: ${p.disruptions.length} disruption command(s) over ${p.disruptions.reduce((n, d) => n + d.nodes.length, 0)} node(s)${roll}; ${p.descheduled.length} descheduler eviction(s); ${p.pending.length} pending pod(s); nodes $/h ${p.costPerHour.now.toFixed(4)} → ${p.costPerHour.atHorizon.toFixed(4)}`;
}

export function formatPreviewTable(p: Preview): string {
  const out = [summary(p)];
  for (const s of sections(p)) out.push('', `${s.title}:`, s.rows.length === 0 ? `  ${s.none}` : renderTable(s.header, s.rows));
  return out.join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function formatPreviewMarkdown(p: Preview): string {
  const out = ['## berth preview', '', summary(p)];
  for (const s of sections(p)) {
    out.push('', `### ${s.title}`, '');
    if (s.rows.length === 0) out.push(`_${s.none}_`);
    else out.push(`| ${s.header.map(cell).join(' | ')} |`, `|${s.header.map(() => '---').join('|')}|`, ...s.rows.map((r) => `| ${r.map(cell).join(' | ')} |`));
  }
  return out.join('\n');
}

export function registerPreview(program: Command): void {
  catalogOptions(nowOption(inputOptions(program.command('preview'), true), 'the newest timestamp in the input')
    .description("what Karpenter's disruption loop, the descheduler and kube-scheduler will do next to the cluster as it stands, and why")
    .option('-f, --filename <path>', 'edits to preview (a changed NodePool, workload...), file, folder or - (repeatable); they replace the cluster\'s objects of the same name', collect, [])
    .option('--cluster <path>', 'the cluster: a `kubectl get -o yaml` dump (repeatable); or read it live with --kubeconfig', collect, []))
    .option('--until <duration>', 'how far ahead to look, in simulated time', parseSimulatedDuration, 60 * 60_000)
    .option('--descheduler-policy <file>', 'also run the descheduler with this DeschedulerPolicy (descheduler/v1alpha2), every 5 minutes')
    .option('--predict-placement', "with --descheduler-policy: berth's option, evict only when the scheduler would place the pod somewhere better")
    .option('--config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)')
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--seed <n>', 'seed for the decisions upstream makes at random', parseSeed, 0)
    .option('-o, --output <format>', 'table, json or markdown', parsePreviewOutput, 'table')
    .action(async (opts: InputFlags & CatalogFlags & { filename: string[]; cluster: string[]; until: number; deschedulerPolicy?: string; predictPlacement?: boolean; config?: string; featureGates?: FeatureGates; seed: number; now?: string; output: PreviewOutput }) => {
      const descheduler = await simulatedDescheduler(opts);
      const scheduler = await loadConfig(opts.config, opts.featureGates);
      const { input } = await loadCluster(opts, [...opts.filename, ...(opts.catalog ? [opts.catalog] : [])], opts.cluster);
      const originMs = timeOriginOf(opts);
      const p = preview({ input, instanceTypes: await instanceTypesOf(input, opts), seed: opts.seed, horizonMs: opts.until, scheduler, ...(descheduler ? { descheduler } : {}), ...(originMs !== undefined ? { originMs } : {}) });
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify(p, null, 2) : opts.output === 'markdown' ? formatPreviewMarkdown(p) : formatPreviewTable(p)}\n`);
    });
}
