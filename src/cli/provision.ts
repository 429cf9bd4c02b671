// `berth provision`: the NodeClaims that let every pending pod schedule.

import { InvalidArgumentError, type Command } from 'commander';
import type { FeatureGates } from '../scheduler/feature-gates.js';
import { provisionInBatches } from '../provisioner/batches.js';
import type { MinValuesPolicy } from '../provisioner/nodeclaim.js';
import type { PlanOptimization, ProvisionPlan } from '../provisioner/plan.js';
import { loadHighsSolver } from './highs.js';
import type { PreferencePolicy } from '../provisioner/preferences.js';
import { ProfileError } from '../scheduler/profile.js';
import { parseOptimize, CliError, collect, instanceTypesOf, loadCluster, loadConfig, parseOutput, parseSeed, inputOptions, type InputFlags, parseFeatureGatesOption, FEATURE_GATES_HELP, type CatalogFlags, catalogOptions } from './common.js';
import { renderTable } from './table.js';

export function formatProvisionTable(plan: ProvisionPlan): string {
  const claims = renderTable(
    ['NODECLAIM', 'NODEPOOL', 'INSTANCE TYPE', 'ZONE', 'CAPACITY', '$/H', 'PODS'],
    plan.nodeClaims.map((c) => [c.name, c.nodePool, c.instanceType, c.zone, c.capacityType, c.pricePerHour.toFixed(4), c.pods.join(' ')]),
  );
  const pods = renderTable(
    ['POD', 'NODE', 'MESSAGE'],
    [...plan.placements.map((p) => [p.pod, p.node, '']), ...plan.unschedulable.map((u) => [u.pod, '', u.message])],
  );
  return `${claims}\n\n${pods}\n\ntotal: ${plan.nodeClaims.length} new node(s), ${plan.costPerHour.toFixed(4)} $/h${plan.optimization ? `\n${formatOptimization(plan.optimization)}` : ''}`;
}

function formatOptimization(o: PlanOptimization): string {
  const bound = o.lowerBound?.costPerHour;
  const lines = [`Karpenter-faithful plan: ${o.faithfulCostPerHour.toFixed(4)} $/h${o.repacked ? '' : ' (kept: repacking found nothing cheaper that passes the checks)'}`];
  lines.push(bound === undefined ? `lower bound: none (${o.lowerBound?.status ?? 'no solver'})` : `lower bound: ${bound.toFixed(4)} $/h (${o.lowerBound!.method})`);
  for (const v of o.violations) lines.push(`violation (repacked plan not used): ${v.pod || '-'} on ${v.node}: ${v.reason}`);
  return lines.join('\n');
}

function parseBatches(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

function parsePreferencePolicy(value: string): PreferencePolicy {
  if (value !== 'Respect' && value !== 'Ignore') throw new InvalidArgumentError('must be Respect or Ignore');
  return value;
}

function parseMinValuesPolicy(value: string): MinValuesPolicy {
  if (value !== 'Strict' && value !== 'BestEffort') throw new InvalidArgumentError('must be Strict or BestEffort');
  return value;
}

export function registerProvision(program: Command): void {
  catalogOptions(inputOptions(program.command('provision'), true)
    .description('plan the cheapest new nodes (Karpenter NodeClaims) that let every pending pod schedule')
    .option('-f, --filename <path>', 'manifests incl. karpenter.sh/v1 NodePools, file, folder or - (repeatable)', collect, []))
    .option('--config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)')
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--seed <n>', 'seed for the decisions upstream makes at random', parseSeed, 0)
    .option('-o, --output <format>', 'table or json', parseOutput, 'table')
    .option('--batches <n>', "at most this many provisioning batches (1: a single pass); default: Karpenter's loop until a batch launches nothing", parseBatches)
    .option('--preference-policy <policy>', "Karpenter's preferencePolicy: Respect (preferences first, then relaxed) or Ignore", parsePreferencePolicy, 'Respect')
    .option('--min-values-policy <policy>', "Karpenter's minValuesPolicy: Strict (a claim must meet minValues) or BestEffort (lower them)", parseMinValuesPolicy, 'Strict')
    .option('--optimize <objective>', "berth's own, off by default: cost repacks the pods of the new claims for price (each placement checked by the scheduler's filters and Karpenter's checks) and reports an LP lower bound (HiGHS)", parseOptimize)
    .option('--fail-on-pending', 'exit 1 when some pod stays pending')
    .option('--settle-selected', "berth's own: a pod another pod's spread or affinity term selects decides its claim's zone (or other open label) at once, so each batch's plan holds when its nodes exist (Karpenter leaves it open)")
    .action(async (opts: InputFlags & CatalogFlags & { filename: string[]; config?: string; featureGates?: FeatureGates; seed: number; output: 'table' | 'json'; batches?: number; preferencePolicy: PreferencePolicy; minValuesPolicy: MinValuesPolicy; failOnPending?: boolean; settleSelected?: boolean; optimize?: 'cost' }) => {
      const config = await loadConfig(opts.config, opts.featureGates);
      const files = opts.catalog ? [...opts.filename, opts.catalog] : opts.filename;
      const { input, cluster } = await loadCluster(opts, files);
      const instanceTypes = await instanceTypesOf(input, opts);
      if (input.nodePools.length === 0) process.stderr.write('warning: no karpenter.sh/v1 NodePool in the input: no node can be planned\n');
      const lpSolver = opts.optimize ? await loadHighsSolver() : undefined;
      let plan: ProvisionPlan;
      try {
        plan = provisionInBatches({
          cluster,
          // Static NodePools keep a fixed node count and never provision for pending pods.
          pools: input.nodePools.filter((np) => np.replicas === null),
          instanceTypes,
          daemonSetPods: input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod),
          config,
          seed: opts.seed,
          preferencePolicy: opts.preferencePolicy,
          minValuesPolicy: opts.minValuesPolicy,
          karpenterState: { nodeClaims: input.nodeClaims ?? [], nowMs: Date.now() },
          ...(opts.settleSelected ? { settleSelected: true } : {}),
          ...(opts.optimize && lpSolver ? { optimize: opts.optimize, lpSolver } : {}),
          ...(opts.batches === undefined ? {} : { maxBatches: opts.batches }),
        });
      } catch (e) {
        if (e instanceof ProfileError) throw new CliError(`berth: ${opts.config ?? 'scheduler configuration'}: ${e.message}`);
        throw e;
      }
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify(plan, null, 2) : formatProvisionTable(plan)}\n`);
      if (opts.failOnPending && plan.unschedulable.length > 0) process.exitCode = 1;
    });
}
