// `berth check`: the HA analyzer. Loads workloads and the cluster they run on,
// runs every check (analyze/), prints the findings as text, JSON or SARIF, and
// exits 1 when one is an error (so CI fails), 0 otherwise, 2 on bad input.

import type { FeatureGates } from '../scheduler/feature-gates.js';
import { InvalidArgumentError, type Command } from 'commander';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { analyze, finishFindings, hasErrors } from '../analyze/analyze.js';
import { ALL_CHECKS } from '../analyze/checks/index.js';
import type { ReportedFinding } from '../analyze/finding.js';
import { defaultWorkers, describeTask, podsAndNodes, runChecks, workersPay, type RunTask } from '../analyze/parallel.js';
import type { CheckSettings, CheckWorkerData } from './check-worker.js';
import { affordableWorkers, workerHeapMb } from './memory.js';
import { availableCores } from './cores.js';
import { openPool, parseJobs, type Pool } from './pool.js';
import { poolTrace, retainedHeapMb } from './pool-trace.js';
import { sharedLogBuffer } from './shared-log.js';
import { formatText, toJson, toSarif } from '../analyze/report.js';
import { fromOrigin } from '../sim/time-origin.js';
import type { LoadedInput, ObjectLocations, SourceInput } from '../io/load.js';
import { collect, simulatedDescheduler, inputOptions, instanceTypesOf, loadCluster, nowOption, parseSeed, timeOriginOf, type InputFlags, parseFeatureGatesOption, FEATURE_GATES_HELP, type CatalogFlags, parseOnOff, PROVISIONER_HELP, catalogOptions, parseSimulatedDuration, CliError } from './common.js';
import { writeFixDir } from './fix-dir.js';
import { DEFAULT_HEADROOM_RECOVERY, formatHeadroom, runHeadroom, writeHeadroom } from './headroom.js';

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

export function registerCheck(program: Command): void {
  catalogOptions(nowOption(inputOptions(program.command('check'), true), 'the newest timestamp in the input')
    .description('prove rollout and failure properties of workloads on their cluster by simulation; exit 1 on an error-level finding')
    .option('-f, --filename <path>', 'workloads (Deployments, StatefulSets, DaemonSets, PDBs...), file, folder or - (repeatable)', collect, [])
    .option('--cluster <path>', 'the cluster: nodes, pods, NodePools, or a `kubectl get nodes,pods,deploy,sts,ds,pdb -A -o yaml` dump (repeatable)', collect, []))
    .option('--provisioner <on|off>', PROVISIONER_HELP, parseOnOff)
    .option('--seed <n>', 'seed for the decisions upstream makes at random', parseSeed, 0)
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--scale-up <factor>', 'also scale workloads without an autoscaler to FACTOR × replicas in the scale-up checks (default: only autoscaled ones, to maxReplicas)', parseFactor)
    .option('--descheduler-policy <file>', 'run the descheduler with this DeschedulerPolicy (descheduler/v1alpha2) in every simulation, every 5 minutes')
    .option('--predict-placement', "with --descheduler-policy: berth's option, evict only when the scheduler would place the pod somewhere better")
    .option('--headroom', 'instead of the checks: size the spare capacity per zone (placeholder pods, or spare nodes with the provisioner off) that keeps every node and zone loss\'s recovery within --headroom-recovery, verified by simulation')
    .option('--headroom-recovery <duration>', `with --headroom: the longest a workload may take from a loss to whole again (default ${DEFAULT_HEADROOM_RECOVERY})`, parseSimulatedDuration)
    .option('-o, --output <format>', 'table, json or sarif', parseCheckOutput, 'table')
    .option('--fix-dir <dir>', 'write the objects the first fix of each finding changes, patched, one file per object (new nodes included); with --headroom, the headroom manifests')
    .option('-v, --verbose', 'evidence and fixes under each finding')
    .option('-j, --jobs <n>', 'worker threads running the simulations in parallel (default: the available cores, when the input is large enough to gain from them); the output is the same for any number', parseJobs)
    .action(async (opts: CheckFlags) => {
      poolTrace('start');
      // Workers asked for (or likely by the input's size) start loading the engine while this thread reads the input.
      const { workers, objects } = await likelyWorkers(opts);
      const early = workers > 1 ? openPool<CheckWorkerData>(CHECK_WORKER, workers, objects) : undefined;
      try {
        await check(program, opts, early);
      } finally {
        await early?.close();
      }
    });
}

type CheckFlags = InputFlags & CatalogFlags & { filename: string[]; cluster: string[]; provisioner?: boolean; seed: number; scaleUp?: number; deschedulerPolicy?: string; predictPlacement?: boolean; featureGates?: FeatureGates; output: CheckOutput; verbose?: boolean; fixDir?: string; now?: string; jobs?: number; headroom?: boolean; headroomRecovery?: number };

/**
 * Input files at least this large (a few dozen nodes with their pods) are worth
 * workers unless they hold a single workload (defaultWorkers): their threads are
 * opened before the input is parsed, and closed unused in that rare case.
 */
const EARLY_POOL_BYTES = 256 * 1024;

/**
 * The fewest bytes a pod or node is written in, in the densest dumps (one flow
 * mapping a line: bench/check-200.ts's, 468 a pod or node at 5,000 nodes); a real
 * `kubectl get -o yaml` writes a pod in about 4,600. Before the input is parsed, its
 * files' bytes over this bound its pods and nodes, which choose the workers to open
 * early and size their heaps; once it is loaded, its own count decides.
 */
export const DENSEST_BYTES_PER_OBJECT = 450;

/**
 * The workers to open before the input is read: --jobs, or every core for input
 * files large enough to pay for them (workersPay); and the most pods and nodes those
 * files can hold (a folder, stdin or a missing file counts nothing), which size the
 * workers' heaps until the input is loaded.
 */
export async function likelyWorkers(opts: Pick<CheckFlags, 'headroom' | 'jobs' | 'filename' | 'cluster'>, cores = availableCores()): Promise<{ workers: number; objects: number }> {
  const sizes = await Promise.all([...opts.filename, ...opts.cluster].map((path) => stat(path).then((s) => (s.isFile() ? s.size : 0), () => 0)));
  const fileBytes = sizes.reduce((a, b) => a + b, 0);
  const objects = Math.ceil(fileBytes / DENSEST_BYTES_PER_OBJECT);
  if (opts.headroom) return { workers: 1, objects };
  if (opts.jobs !== undefined) return { workers: opts.jobs, objects };
  return { workers: fileBytes >= EARLY_POOL_BYTES && workersPay(cores, objects) ? cores : 1, objects };
}

/**
 * Whether the workers opened before the input was parsed serve it: as many as it
 * wants, with heaps no smaller than it needs (they would run out) and at most twice
 * that (V8 grows a heap toward its limit, so they would hold memory the work does
 * not need). Their heaps were guessed from the files' bytes, which a layout can make
 * ten times what the objects need (a kubectl dump's 482 MB at 5,000 nodes); reopening
 * costs each worker its start again (2-3 s of wall time at 1,000 nodes).
 */
export const earlyPoolServes = (pool: { readonly jobs: number; readonly heapMb: number }, jobs: number, sizedMb: number): boolean =>
  pool.jobs === jobs && pool.heapMb >= sizedMb && pool.heapMb <= 2 * sizedMb;

const CHECK_WORKER = new URL(`./check-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url);

/** What the checks run on once the input is loaded, and what the report needs of it. */
interface LoadedCheck {
  readonly settings: CheckSettings;
  readonly jobs: number;
  /** The input's pods and nodes, which size the workers' heaps. */
  readonly objects: number;
  /** With one job: the input, checked on this thread. */
  readonly input?: LoadedInput;
  /** With workers: what crosses to them. */
  readonly data?: CheckWorkerData;
  /** Positions, for -o sarif. */
  readonly locations?: ObjectLocations;
  /** The texts as read, for --fix-dir. */
  readonly fixSources?: readonly SourceInput[];
}

/** The command, on a pool opened already (`early`) or opened once the input says how many workers pay. */
async function check(program: Command, opts: CheckFlags, early?: Pool<CheckWorkerData>): Promise<void> {
  // Loaded in a call of its own: what a suspended async call held stays held until it returns (V8 keeps
  // its registers), and while workers run the checks nothing but what they and the report need is kept
  // here, not the loaded cluster or the texts (a real 5,000-node dump's 482 MB).
  const loaded = await loadCheck(opts);
  if (!loaded) return;
  const { settings, jobs, objects, input, data, locations, fixSources } = loaded;
  let findings: readonly ReportedFinding[];
  if (input) {
    // Opened for an input that turned out to be one workload: not kept idle through the check.
    await early?.close();
    findings = analyze({ input, ...settings }, ALL_CHECKS, (rule) => poolTrace('check', { rule, retainedHeapMb: retainedHeapMb() }));
  } else {
    let pool = early;
    if (!pool || !earlyPoolServes(pool, jobs, workerHeapMb(jobs, objects).sizedMb)) {
      await pool?.close();
      pool = openPool<CheckWorkerData>(CHECK_WORKER, jobs, objects);
    }
    // Twice as many parts as workers: a worker that draws short parts takes another.
    findings = finishFindings(await pool.run(data!, 'checking', (run: RunTask) => runChecks(ALL_CHECKS, 2 * jobs, run), (task) => describeTask(ALL_CHECKS, task)));
  }
  const out =
    opts.output === 'json'
      ? JSON.stringify(toJson(findings), null, 2)
      : opts.output === 'sarif'
        ? JSON.stringify(toSarif(findings, ALL_CHECKS, locations!, program.version() ?? ''), null, 2)
        : formatText(findings, { verbose: opts.verbose ?? false });
  process.stdout.write(`${out}\n`);
  if (opts.fixDir !== undefined) {
    // The texts as read (stdin and a live cluster's objects included): the fixes patch those objects.
    const { written, notes } = await writeFixDir(opts.fixDir, findings, fixSources!);
    process.stderr.write(`--fix-dir: wrote ${written.length} object(s) to ${opts.fixDir}${notes.map((n) => `\n  ${n}`).join('')}\n`);
  }
  if (hasErrors(findings)) process.exitCode = 1;
  poolTrace('end');
}

/** Reads and loads the input and chooses the workers; runs --headroom, which needs no more, and gives undefined then. */
async function loadCheck(opts: CheckFlags): Promise<LoadedCheck | undefined> {
  const descheduler = await simulatedDescheduler(opts);
  // The workloads under review come first: where the cluster dump has the same object, theirs is checked.
  const loaded = await loadCluster(opts, [...opts.filename, ...(opts.catalog ? [opts.catalog] : [])], opts.cluster, opts.jobs === undefined || opts.jobs > 1);
  const { sources } = loaded;
  // Simulated time 0 is when the state was read: a node created an hour before is an hour old.
  const timeOrigin = timeOriginOf(opts);
  const input = fromOrigin(loaded.input, timeOrigin);
  const instanceTypes = await instanceTypesOf(input, opts);
  const provisioner = opts.provisioner ?? input.nodePools.some((np) => np.replicas === null);
  const settings: CheckSettings = { instanceTypes, provisioner, seed: opts.seed, ...(opts.scaleUp !== undefined ? { scaleUp: opts.scaleUp } : {}), ...(descheduler ? { descheduler } : {}), ...(opts.featureGates ? { scheduler: { featureGates: opts.featureGates } } : {}) };
  if (opts.headroomRecovery !== undefined && !opts.headroom) throw new CliError('berth: --headroom-recovery needs --headroom');
  if (opts.headroom) {
    if (opts.output === 'sarif') throw new CliError('berth: --headroom writes -o table or json, not sarif');
    const recoveryMs = opts.headroomRecovery ?? parseSimulatedDuration(DEFAULT_HEADROOM_RECOVERY);
    const result = runHeadroom({ input, ...settings }, recoveryMs, sources, loaded.loadOptions, (reloaded) => fromOrigin(reloaded, timeOrigin));
    process.stdout.write(`${opts.output === 'json' ? JSON.stringify(result, null, 2) : formatHeadroom(result)}\n`);
    if (opts.fixDir !== undefined) {
      const written = await writeHeadroom(opts.fixDir, result);
      process.stderr.write(`--fix-dir: wrote ${written.length} file(s) to ${opts.fixDir}\n`);
    }
    if (!result.met) process.exitCode = 1;
    return undefined;
  }
  // The input as loaded (folders, stdin and a live cluster included) sizes the workers and their heaps.
  const objects = podsAndNodes(input);
  const jobs = opts.jobs ?? Math.min(defaultWorkers(input, availableCores()), affordableWorkers(objects));
  poolTrace('loaded', { jobs });
  const report = { ...(opts.output === 'sarif' ? { locations: input.locations } : {}), ...(opts.fixDir !== undefined ? { fixSources: sources } : {}) };
  if (jobs === 1) return { settings, jobs, objects, input, ...report };
  // The documents as plain data: a worker does not read or parse the texts again.
  const data: CheckWorkerData = { sources: loaded.detached!, loadOptions: loaded.loadOptions, ...(timeOrigin !== undefined ? { timeOrigin } : {}), settings, exchange: sharedLogBuffer() };
  return { settings, jobs, objects, data, ...report };
}
