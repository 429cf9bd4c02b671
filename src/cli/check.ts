// `berth check`: the HA analyzer. Loads workloads and the cluster they run on,
// runs every check (analyze/), prints the findings as text, JSON or SARIF, and
// exits 1 when one is an error (so CI fails), 0 otherwise, 2 on bad input.

import { InvalidArgumentError, type Command } from 'commander';
import { analyze, hasErrors } from '../analyze/analyze.js';
import { ALL_CHECKS } from '../analyze/checks/index.js';
import { formatText, toJson, toSarif } from '../analyze/report.js';
import { collect, instanceTypesOf, loadCluster, parseSeed, inputOptions, type InputFlags } from './common.js';

type CheckOutput = 'table' | 'json' | 'sarif';

function parseCheckOutput(value: string): CheckOutput {
  if (value !== 'table' && value !== 'json' && value !== 'sarif') throw new InvalidArgumentError('must be "table", "json" or "sarif"');
  return value;
}

function parseSwitch(value: string): boolean {
  if (value !== 'on' && value !== 'off') throw new InvalidArgumentError('must be "on" or "off"');
  return value === 'on';
}

export function registerCheck(program: Command): void {
  inputOptions(program.command('check'))
    .description('prove rollout and failure properties of workloads on their cluster by simulation; exit 1 on an error-level finding')
    .option('-f, --filename <path>', 'workloads (Deployments, StatefulSets, DaemonSets, PDBs...), file, folder or - (repeatable)', collect, [])
    .option('--cluster <path>', 'the cluster: nodes, pods, NodePools, or a `kubectl get nodes,pods,deploy,sts,ds,pdb -A -o yaml` dump (repeatable)', collect, [])
    .option('--catalog <file>', 'instance types (berth.dev/v1alpha1 InstanceTypeCatalog) instead of the bundled AWS us-west-2 catalog')
    .option('--provisioner <on|off>', 'let NodePools launch nodes in the simulations (default: on when the input has a dynamic NodePool)', parseSwitch)
    .option('--seed <n>', 'seed for the decisions upstream makes at random', parseSeed, 0)
    .option('-o, --output <format>', 'table, json or sarif', parseCheckOutput, 'table')
    .action(async (opts: InputFlags & { filename: string[]; cluster: string[]; catalog?: string; provisioner?: boolean; seed: number; output: CheckOutput }) => {
      // The workloads under review come first: where the cluster dump has the same object, theirs is checked.
      const { input } = await loadCluster(opts, [...opts.filename, ...(opts.catalog ? [opts.catalog] : [])], opts.cluster);
      const instanceTypes = instanceTypesOf(input, opts.catalog);
      const findings = analyze({ input, instanceTypes, provisioner: opts.provisioner ?? input.nodePools.some((np) => np.replicas === null), seed: opts.seed });
      const out =
        opts.output === 'json'
          ? JSON.stringify(toJson(findings), null, 2)
          : opts.output === 'sarif'
            ? JSON.stringify(toSarif(findings, ALL_CHECKS, input.locations, program.version() ?? ''), null, 2)
            : formatText(findings);
      process.stdout.write(`${out}\n`);
      if (hasErrors(findings)) process.exitCode = 1;
    });
}
