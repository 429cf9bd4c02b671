// `berth provision`: the NodeClaims that let every pending pod schedule.

import type { Command } from 'commander';
import { planProvisioning, type ProvisionPlan } from '../provisioner/plan.js';
import { ProfileError } from '../scheduler/profile.js';
import { CliError, collect, instanceTypesOf, loadCluster, loadConfig, parseOutput, parseSeed, inputOptions, type InputFlags } from './common.js';
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
  return `${claims}\n\n${pods}\n\ntotal: ${plan.nodeClaims.length} new node(s), ${plan.costPerHour.toFixed(4)} $/h`;
}

export function registerProvision(program: Command): void {
  inputOptions(program.command('provision'))
    .description('plan the cheapest new nodes (Karpenter NodeClaims) that let every pending pod schedule')
    .option('-f, --filename <path>', 'manifests incl. karpenter.sh/v1 NodePools, file, folder or - (repeatable)', collect, [])
    .option('--catalog <file>', 'instance types (berth.dev/v1alpha1 InstanceTypeCatalog) instead of the bundled AWS us-west-2 catalog')
    .option('--config <file>', 'KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)')
    .option('--seed <n>', 'seed for the decisions upstream makes at random', parseSeed, 0)
    .option('-o, --output <format>', 'table or json', parseOutput, 'table')
    .action(async (opts: InputFlags & { filename: string[]; catalog?: string; config?: string; seed: number; output: 'table' | 'json' }) => {
      const config = await loadConfig(opts.config);
      const files = opts.catalog ? [...opts.filename, opts.catalog] : opts.filename;
      const { input, cluster } = await loadCluster(opts, files);
      const instanceTypes = instanceTypesOf(input, opts.catalog);
      if (input.nodePools.length === 0) process.stderr.write('warning: no karpenter.sh/v1 NodePool in the input: no node can be planned\n');
      let plan: ProvisionPlan;
      try {
        plan = planProvisioning({
          cluster,
          // Static NodePools keep a fixed node count and never provision for pending pods.
          pools: input.nodePools.filter((np) => np.replicas === null),
          instanceTypes,
          daemonSetPods: input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod),
          config,
          seed: opts.seed,
        });
      } catch (e) {
        if (e instanceof ProfileError) throw new CliError(`berth: ${opts.config ?? 'scheduler configuration'}: ${e.message}`);
        throw e;
      }
      process.stdout.write(`${opts.output === 'json' ? JSON.stringify(plan, null, 2) : formatProvisionTable(plan)}\n`);
    });
}
