// `berth check`: the HA analyzer. Loads workloads and the cluster they run on,
// runs every check (analyze/), prints the findings as text, JSON or SARIF, and
// exits 1 when one is an error (so CI fails), 0 otherwise, 2 on bad input.

import { extname } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { analyze, finishFindings, hasErrors } from '../analyze/analyze.js';
import { ALL_CHECKS } from '../analyze/checks/index.js';
import type { ReportedFinding } from '../analyze/finding.js';
import { checkTasks, mergeTasks, type TaskResult } from '../analyze/parallel.js';
import type { CheckWorkerData } from './check-worker.js';
import { defaultJobs, parseJobs, runOnPool } from './pool.js';
import { formatText, toJson, toSarif } from '../analyze/report.js';
import { collect, simulatedDescheduler, inputOptions, instanceTypesOf, loadCluster, parseSeed, type InputFlags } from './common.js';
import { writeFixDir } from './fix-dir.js';

type CheckOutput = 'table' | 'json' | 'sarif';

function parseCheckOutput(value: string): CheckOutput {
  if (value !== 'table' && value !== 'json' && value !== 'sarif') throw new InvalidArgumentError('must be "table", "json" or "sarif"');
  return value;
}

function parseFactor(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 1 || n > 100) throw new InvalidArgumentError('must be a number above 1 and at most 100');
  return n;
}

function parseSwitch(value: string): boolean {
  if (value !== 'on' && value !== 'off') throw new InvalidArgumentError('must be "on" or "off"');
  return value === 'on';
}

export function registerCheck(program: Command): void {
  inputOptions(program.command('check'), true)
    .description('prove rollout and failure properties of workloads on their cluster by simulation; exit 1 on an error-level finding')
    .option('-f, --filename <path>', 'workloads (Deployments, StatefulSets, DaemonSets, PDBs...), file, folder or - (repeatable)', collect, [])
    .option('--cluster <path>', 'the cluster: nodes, pods, NodePools, or a `kubectl get nodes,pods,deploy,sts,ds,pdb -A -o yaml` dump (repeatable)', collect, [])
    .option('--catalog <file>', 'instance types (berth.dev/v1alpha1 InstanceTypeCatalog) instead of the bundled AWS us-west-2 catalog')
    .option('--provisioner <on|off>', 'let NodePools launch nodes in the simulations (default: on when the input has a dynamic NodePool)', parseSwitch)
    .option('--seed <n>', 'seed for the decisions upstream makes at random', parseSeed, 0)
    .option('--scale-up <factor>', 'also scale workloads without an autoscaler to FACTOR × replicas in the scale-up checks (default: only autoscaled ones, to maxReplicas)', parseFactor)
    .option('--descheduler-policy <file>', 'run the descheduler with this DeschedulerPolicy (descheduler/v1alpha2) in every simulation, every 5 minutes')
    .option('--predict-placement', "with --descheduler-policy: berth's option, evict only when the scheduler would place the pod somewhere better")
    .option('-o, --output <format>', 'table, json or sarif', parseCheckOutput, 'table')
    .option('--fix-dir <dir>', 'write the objects the first fix of each finding changes, patched, one file per object (new nodes included)')
    .option('-v, --verbose', 'evidence and fixes under each finding')
    .option('-j, --jobs <n>', 'worker threads running the simulations in parallel (default: the available cores); the output is the same for any number', parseJobs)
    .action(async (opts: InputFlags & { filename: string[]; cluster: string[]; catalog?: string; provisioner?: boolean; seed: number; scaleUp?: number; deschedulerPolicy?: string; predictPlacement?: boolean; output: CheckOutput; verbose?: boolean; fixDir?: string; jobs?: number }) => {
      const descheduler = await simulatedDescheduler(opts);
      // The workloads under review come first: where the cluster dump has the same object, theirs is checked.
      const jobs = opts.jobs ?? defaultJobs();
      const { input, sources, loadOptions, detached } = await loadCluster(opts, [...opts.filename, ...(opts.catalog ? [opts.catalog] : [])], opts.cluster, jobs > 1);
      const instanceTypes = instanceTypesOf(input, opts.catalog);
      const provisioner = opts.provisioner ?? input.nodePools.some((np) => np.replicas === null);
      let findings: readonly ReportedFinding[];
      if (jobs === 1) findings = analyze({ input, instanceTypes, provisioner, seed: opts.seed, ...(opts.scaleUp !== undefined ? { scaleUp: opts.scaleUp } : {}), ...(descheduler ? { descheduler } : {}) });
      else {
        const data: CheckWorkerData = {
          // The documents as plain data: a worker does not parse the texts again.
          sources: detached!,
          loadOptions,
          ...(opts.catalog !== undefined ? { catalog: opts.catalog } : {}),
          provisioner,
          seed: opts.seed,
          ...(opts.scaleUp !== undefined ? { scaleUp: opts.scaleUp } : {}),
          ...(opts.deschedulerPolicy !== undefined ? { deschedulerPolicy: opts.deschedulerPolicy, predictPlacement: opts.predictPlacement ?? false } : {}),
        };
        // Twice as many parts as workers: a worker that draws short parts takes another.
        const tasks = checkTasks(ALL_CHECKS, 2 * jobs);
        const results = await runOnPool<(typeof tasks)[number], TaskResult, CheckWorkerData>(new URL(`./check-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url), data, tasks, jobs, 'checking');
        findings = finishFindings(mergeTasks(ALL_CHECKS, tasks, results));
      }
      const out =
        opts.output === 'json'
          ? JSON.stringify(toJson(findings), null, 2)
          : opts.output === 'sarif'
            ? JSON.stringify(toSarif(findings, ALL_CHECKS, input.locations, program.version() ?? ''), null, 2)
            : formatText(findings, { verbose: opts.verbose ?? false });
      process.stdout.write(`${out}\n`);
      if (opts.fixDir !== undefined) {
        // The texts as read (stdin and a live cluster's objects included): the fixes patch those objects.
        const { written, notes } = await writeFixDir(opts.fixDir, findings, sources);
        process.stderr.write(`--fix-dir: wrote ${written.length} object(s) to ${opts.fixDir}${notes.map((n) => `\n  ${n}`).join('')}\n`);
      }
      if (hasErrors(findings)) process.exitCode = 1;
    });
}
