// `berth sweep MATRIX`: runs a berth.dev/v1alpha1 Sweep (scenarios × seeds ×
// parameter values) over an input, one result per cell (JSON lines) and a summary
// table; `--shard i/n` runs one shard's cells, `berth sweep reduce` merges the
// shards into what one run writes, byte for byte; `--emit indexed-job|reduce-job`
// writes the Kubernetes Jobs that run the shards on a cluster.

import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { stringify } from 'yaml';
import { podsAndNodes, POOL_MIN_NODES } from '../analyze/parallel.js';
import { shardCells, summarize } from '../analyze/sweep.js';
import { formatShard, isShardFileName, mergeShards, shardFileName, SHARD_FORMAT, type Merged } from '../analyze/sweep-shards.js';
import { loadSweep } from '../io/sweep-spec.js';
import type { FeatureGates } from '../scheduler/feature-gates.js';
import { fromOrigin } from '../sim/time-origin.js';
import { formatTime } from '../sim/timeline.js';
import type { CheckSettings } from './check-worker.js';
import {
  BUNDLED_REGION,
  catalogOptions,
  CliError,
  collect,
  FEATURE_GATES_HELP,
  inputOptions,
  instanceTypesOf,
  loadCluster,
  nowOption,
  parseFeatureGatesOption,
  parseOnOff,
  printDiagnostics,
  progressLine,
  PROVISIONER_HELP,
  timeOriginOf,
  type CatalogFlags,
  type InputFlags,
} from './common.js';
import { CONFIGMAP_MAX_BYTES, indexedJobManifests, inputKey, jobNameProblem, reduceJobManifest, type JobInput, type ResultsClaim, type SweepJobOptions } from './indexed-job.js';
import { getText, isHttpUrl, parseUrlOption, putText, readUrlFile, redactUrl, SHARD_PLACEHOLDER, shardUrl, shardUrls } from './object-url.js';
import { availableCores } from './cores.js';
import { parseJobs, withPool } from './pool.js';
import { cellLines, type SweepWorkerData } from './sweep-worker.js';
import { renderTable } from './table.js';

type SweepOutput = 'table' | 'jsonl';
type Emit = 'indexed-job' | 'reduce-job';

interface SweepFlags extends InputFlags, CatalogFlags {
  readonly filename: string[];
  readonly cluster: string[];
  readonly provisioner?: boolean;
  readonly featureGates?: FeatureGates;
  readonly now?: string;
  readonly shard?: { index: number; count: number };
  readonly out?: string;
  readonly resultsUrl?: string;
  readonly output: SweepOutput;
  readonly jobs?: number;
  readonly emit?: Emit;
  readonly shards?: number;
  readonly image?: string;
  readonly name?: string;
  readonly jobNamespace: string;
  readonly parallelism?: number;
  readonly inputUrl?: string;
  readonly fetchImage: string;
  readonly resultsClaim?: string;
  readonly resultsSize: string;
  readonly storageClass?: string;
  readonly cpu: string;
  readonly memory: string;
}

/** --shard i/n: shard i (from 0) of n. */
export function parseShard(value: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || count > 100_000 || index >= count) throw new InvalidArgumentError('must be INDEX/COUNT with 0 <= INDEX < COUNT <= 100000, e.g. 3/10');
  return { index, count };
}

function parseOutputFormat(value: string): SweepOutput {
  if (value !== 'table' && value !== 'jsonl') throw new InvalidArgumentError('must be "table" or "jsonl"');
  return value;
}

function parseEmit(value: string): Emit {
  if (value !== 'indexed-job' && value !== 'reduce-job') throw new InvalidArgumentError('must be "indexed-job" or "reduce-job"');
  return value;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new InvalidArgumentError('must be a whole number from 1 to 100000');
  return n;
}

async function readText(what: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`berth: cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function writeOut(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (e) {
    throw new CliError(`berth: cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function makeDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new CliError(`berth: cannot create --out ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

const seconds = (s: number | null | undefined) => (s === undefined ? '-' : s === null ? 'not whole' : formatTime(s * 1000));

/** The summary: one line on the sweep, then a row per scenario and parameter combination. */
export function formatSummary(m: Merged): string {
  const rows = summarize(m.results);
  const simulated = m.results.filter((r) => r.simulated).length;
  const table = renderTable(
    ['SCENARIO', 'PARAMETERS', 'CELLS', 'OK', 'INFO', 'WARNING', 'ERROR', 'WORST', 'SLOWEST RECOVERY', 'MAX $/H'],
    rows.map((r) => [r.scenario, r.parameters || '-', String(r.cells), String(r.counts.ok), String(r.counts.info), String(r.counts.warning), String(r.counts.error), r.worst, seconds(r.slowestRecoveryS), r.maxCostPerHour === undefined ? '-' : r.maxCostPerHour.toFixed(4)]),
  );
  return `sweep ${m.name}: ${m.results.length} cell(s), ${simulated} simulated; input ${m.input}\n${table}\n`;
}

/** Writes a whole sweep's results (a run, or merged shards): results.jsonl and summary.txt under --out; the summary (or the lines) on stdout. */
async function finish(m: Merged, opts: { out?: string; output: SweepOutput }): Promise<void> {
  const jsonl = m.lines.map((l) => `${l}\n`).join('');
  const summary = formatSummary(m);
  if (opts.out !== undefined) {
    await makeDir(opts.out);
    await writeOut(join(opts.out, 'results.jsonl'), jsonl);
    await writeOut(join(opts.out, 'summary.txt'), summary);
  }
  process.stdout.write(opts.output === 'jsonl' ? jsonl : summary);
}

/** The shard files a path names: the file itself, or a folder's shard-*.jsonl files. */
async function shardFiles(path: string): Promise<string[]> {
  try {
    if (!(await stat(path)).isDirectory()) return [path];
    return (await readdir(path)).filter(isShardFileName).sort().map((f) => join(path, f));
  } catch (e) {
    throw new CliError(`berth: sweep reduce: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Where a shard run PUTs its file: its URL of shardUrls (a template's {shard} filled in, or its line of an @FILE). */
async function shardResultsUrl(value: string, shard: { index: number; count: number }): Promise<string> {
  return (await shardUrls(value, shard.count, (i) => shardFileName(i, shard.count)))[shard.index]!;
}

type ShardSource = { readonly file: string; readonly url?: undefined } | { readonly url: string };

/** The shards a `sweep reduce` argument names: files (a folder's shard-*.jsonl), a URL (every shard's when it has {shard}), or @FILE's URLs. */
async function shardSources(arg: string, shards: number | undefined): Promise<ShardSource[]> {
  const urls = arg.startsWith('@') ? await readUrlFile(arg.slice(1)) : isHttpUrl(arg) ? [arg] : undefined;
  if (urls === undefined) return (await shardFiles(arg)).map((file) => ({ file }));
  return urls.flatMap((url) => {
    if (!url.includes(SHARD_PLACEHOLDER)) return [{ url }];
    if (shards === undefined) throw new CliError(`berth: sweep reduce: ${redactUrl(url)} has ${SHARD_PLACEHOLDER} in it: pass --shards N`);
    return Array.from({ length: shards }, (_, i) => ({ url: shardUrl(url, shardFileName(i, shards)) }));
  });
}

/** The flags a shard pod passes so that it loads the input exactly as this run did. */
function settingFlags(opts: SweepFlags, provisioner: boolean): string[] {
  const gates = Object.entries(opts.featureGates ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  return [
    ...(opts.catalog === undefined ? ['--region', opts.region ?? BUNDLED_REGION] : []),
    '--provisioner',
    provisioner ? 'on' : 'off',
    ...(gates.length > 0 ? ['--feature-gates', gates.join(',')] : []),
    ...(opts.validate !== 'strict' ? ['--validate', opts.validate] : []),
    ...(opts.allowMissing ? ['--allow-missing'] : []),
    ...(opts.kubeletDefaults ? [] : ['--kubelet-defaults', 'false']),
    ...(opts.now !== undefined ? ['--now', opts.now] : []),
  ];
}

export function registerSweep(program: Command): void {
  // Its options come before `reduce`, which has an --out and -o of its own.
  const sweep = catalogOptions(nowOption(inputOptions(program.command('sweep').enablePositionalOptions()), 'the newest timestamp in the input')
    .argument('<matrix>', 'a berth.dev/v1alpha1 Sweep: scenarios (baseline, nodeLoss, zoneLoss, spotInterruption, capacityLoss) × seeds × parameters (replicas, nodePools)')
    .description('simulate every cell of a what-if matrix over an input: one JSON line per cell and a summary table; shards for many machines')
    .option('-f, --filename <path>', 'workloads, file, folder or - (repeatable)', collect, [])
    .option('--cluster <path>', 'the cluster: nodes, pods, NodePools, or a kubectl dump (repeatable)', collect, []))
    .option('--provisioner <on|off>', PROVISIONER_HELP, parseOnOff)
    .option('--feature-gates <gates>', FEATURE_GATES_HELP, parseFeatureGatesOption)
    .option('--shard <i/n>', 'run only shard i of n (the cells whose index is i modulo n) and write its shard file', parseShard)
    .option('--out <dir>', 'write results.jsonl and summary.txt (with --shard: shard-I-of-N.jsonl) to this folder')
    .option('--results-url <url>', `with --shard: PUT the shard file to this HTTP(S) URL (an S3 presigned, GCS signed or Azure SAS URL; ${SHARD_PLACEHOLDER} becomes the file's name); @FILE: the URLs in FILE, line i for shard i. With --emit indexed-job: where the shards write, instead of a claim`, parseUrlOption)
    .option('-o, --output <format>', 'stdout: table (the summary) or jsonl (the results)', parseOutputFormat, 'table')
    .option('-j, --jobs <n>', 'worker threads (default: the available cores, when the input is large enough to gain from them); the output is the same for any number', parseJobs)
    .option('--emit <what>', 'instead of running: write the Kubernetes objects that run the shards (indexed-job: input ConfigMap, results claim, Indexed Job) or merge them (reduce-job)', parseEmit)
    .option('--shards <n>', 'with --emit: how many shards (the Indexed Job\'s completions)', parseCount)
    .option('--image <ref>', 'with --emit: the berth image (built from the Dockerfile)')
    .option('--name <name>', "with --emit: the Job's name (default: the Sweep's metadata.name)")
    .option('--job-namespace <ns>', 'with --emit: the namespace of the objects', 'default')
    .option('--parallelism <n>', 'with --emit indexed-job: pods at once (default: every shard)', parseCount)
    .option('--input-url <url>', 'with --emit indexed-job: fetch the inputs from URL/KEY (init containers) instead of a ConfigMap; --out writes the files to upload')
    .option('--fetch-image <ref>', 'with --input-url: the image whose wget fetches the inputs', 'busybox:1.37')
    .option('--results-claim <name>', 'with --emit: an existing ReadWriteMany claim for the results (default: emit NAME-results)')
    .option('--results-size <quantity>', 'with --emit indexed-job: the size of the emitted results claim', '1Gi')
    .option('--storage-class <name>', "with --emit indexed-job: the emitted results claim's StorageClass")
    .option('--cpu <quantity>', 'with --emit: CPU request of a shard pod', '1')
    .option('--memory <quantity>', 'with --emit: memory request and limit of a shard pod', '2Gi')
    .action(async (matrix: string, opts: SweepFlags) => {
      const matrixText = await readText('the sweep', matrix);
      const loaded = await loadCluster(opts, [...opts.filename, ...(opts.catalog ? [opts.catalog] : [])], opts.cluster, opts.jobs !== 1 && opts.emit === undefined);
      const timeOrigin = timeOriginOf(opts);
      const input = fromOrigin(loaded.input, timeOrigin);
      const result = loadSweep({ name: matrix, text: matrixText }, input);
      if (!result.ok) {
        printDiagnostics(result.errors);
        throw new CliError(`berth: invalid sweep ${matrix}`);
      }
      const spec = result.sweep;
      const instanceTypes = await instanceTypesOf(input, opts);
      const provisioner = opts.provisioner ?? input.nodePools.some((np) => np.replicas === null);
      // Each cell sets its own seed.
      const settings: CheckSettings = { instanceTypes, provisioner, seed: 0, ...(opts.featureGates ? { scheduler: { featureGates: opts.featureGates } } : {}) };
      if (opts.emit) {
        const pricesText = opts.prices === undefined ? undefined : await readText('--prices', opts.prices);
        const inputs: JobInput[] = [
          { key: 'sweep.yaml', text: matrixText },
          ...loaded.sources.map((s, i): JobInput => ({ key: inputKey(i, s.name), text: s.text, flag: i < (loaded.loadOptions.clusterFrom ?? 0) ? '-f' : '--cluster' })),
          ...(pricesText !== undefined ? [{ key: 'prices.yaml', text: pricesText, flag: '--prices' as const }] : []),
        ];
        await emitJobs(opts, spec.name, inputs, settingFlags(opts, provisioner));
        return;
      }
      if (opts.resultsUrl !== undefined && !opts.shard) throw new CliError('berth: --results-url is where a shard file goes: pass --shard i/n (or --emit indexed-job)');
      if (opts.resultsUrl !== undefined && opts.out !== undefined) throw new CliError('berth: --results-url and --out are two places for the shard file: give one');
      // Before any cell runs: a URL two shards would share is refused (the second would overwrite the first).
      const resultsUrl = opts.resultsUrl !== undefined && opts.shard ? await shardResultsUrl(opts.resultsUrl, opts.shard) : undefined;
      const fingerprint = `sha256:${createHash('sha256').update(JSON.stringify([SHARD_FORMAT, matrixText, loaded.sources.map((s) => s.text), settings, timeOrigin ?? null])).digest('hex')}`;
      const shard = opts.shard ?? { index: 0, count: 1 };
      const ctx = { input, ...settings };
      const { cells, line } = cellLines(ctx, spec);
      const mine = shardCells(cells, shard.index, shard.count);
      const jobs = opts.jobs ?? (mine.length >= 2 && input.nodes.length >= POOL_MIN_NODES ? availableCores() : 1);
      let lines: string[];
      if (jobs === 1) {
        lines = mine.map((c, i) => {
          progressLine(`sweeping: ${i}/${mine.length} cells`);
          return line(c.index);
        });
        progressLine('');
      } else {
        const data: SweepWorkerData = { sources: loaded.detached!, loadOptions: loaded.loadOptions, ...(timeOrigin !== undefined ? { timeOrigin } : {}), settings, sweep: { name: matrix, text: matrixText } };
        const worker = new URL(`./sweep-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url);
        lines = await withPool<number, string, SweepWorkerData, string[]>(worker, data, jobs, 'sweeping', (run) => Promise.all(mine.map((c) => run(c.index))), podsAndNodes(input));
      }
      const text = formatShard({ berthSweep: SHARD_FORMAT, name: spec.name, input: fingerprint, cells: cells.length, shard: shard.index, shards: shard.count }, lines);
      if (opts.shard) {
        if (resultsUrl !== undefined) {
          await putText(resultsUrl, text);
          process.stderr.write(`sweep ${spec.name}: shard ${shard.index}/${shard.count}, ${mine.length} of ${cells.length} cell(s), written to ${redactUrl(resultsUrl)}\n`);
        } else if (opts.out === undefined) process.stdout.write(text);
        else {
          await makeDir(opts.out);
          const file = join(opts.out, shardFileName(shard.index, shard.count));
          await writeOut(file, text);
          process.stderr.write(`sweep ${spec.name}: shard ${shard.index}/${shard.count}, ${mine.length} of ${cells.length} cell(s), written to ${file}\n`);
        }
        return;
      }
      // One run is shard 0 of 1, merged as shards are: the same bytes either way.
      const merged = mergeShards([{ name: matrix, text }]);
      if (!merged.ok) throw new Error(`sweep: ${merged.error}`);
      await finish(merged.merged, opts);
    });
  sweep
    .command('reduce')
    .argument('<paths...>', `shard files, folders of shard-*.jsonl files, HTTP(S) URLs to GET (with ${SHARD_PLACEHOLDER} and --shards N: every shard's), or @FILE: the URLs in FILE, one per line`)
    .description('merge the shards of a sweep into the results and summary one run writes')
    .option('--out <dir>', 'write results.jsonl and summary.txt to this folder')
    .option('-o, --output <format>', 'stdout: table (the summary) or jsonl (the results)', parseOutputFormat, 'table')
    .option('--shards <n>', `how many shards a URL with ${SHARD_PLACEHOLDER} names`, parseCount)
    .action(async (paths: string[], opts: { out?: string; output: SweepOutput; shards?: number }) => {
      const sources = (await Promise.all(paths.map((p) => shardSources(p, opts.shards)))).flat();
      const texts = await Promise.all(sources.map(async (s) => (s.url !== undefined ? { name: redactUrl(s.url), text: await getText(s.url) } : { name: s.file, text: await readText('shard', s.file) })));
      const merged = mergeShards(texts);
      if (!merged.ok) throw new CliError(`berth: sweep reduce: ${merged.error}`);
      await finish(merged.merged, opts);
    });
}

async function emitJobs(opts: SweepFlags, sweepName: string, inputs: readonly JobInput[], flags: readonly string[]): Promise<void> {
  if (opts.shard) throw new CliError('berth: --emit writes the Jobs of every shard: leave out --shard');
  if (opts.image === undefined) throw new CliError('berth: --emit needs --image: the berth image the pods run (built from the Dockerfile and pushed where the cluster pulls from)');
  if (opts.emit === 'indexed-job' && opts.shards === undefined) throw new CliError('berth: --emit indexed-job needs --shards N');
  const name = opts.name ?? sweepName;
  const problem = jobNameProblem(name);
  if (problem) throw new CliError(`berth: --emit: the Job's name ${problem}${opts.name === undefined ? ': pass --name' : ''}`);
  if (opts.resultsUrl !== undefined && opts.emit === 'reduce-job')
    throw new CliError(`berth: --emit reduce-job merges shards on a claim; with --results-url, reduce where the shards can be read: berth sweep reduce --shards N 'URL-with-${SHARD_PLACEHOLDER}' (or @FILE of GET URLs)`);
  if (opts.resultsUrl !== undefined && opts.resultsClaim !== undefined) throw new CliError('berth: --emit: --results-url and --results-claim are two places for the results: give one');
  const bytes = inputs.reduce((n, i) => n + Buffer.byteLength(i.key) + Buffer.byteLength(i.text), 0);
  if (opts.emit === 'indexed-job' && opts.inputUrl === undefined && bytes > CONFIGMAP_MAX_BYTES)
    throw new CliError(`berth: --emit indexed-job: the input is ${bytes} bytes, more than a ConfigMap holds (1 MiB): serve the files over HTTP, pass --input-url, and --out DIR to write them`);
  const shards = opts.shards ?? 1;
  const claim: ResultsClaim = opts.resultsClaim !== undefined ? { claim: opts.resultsClaim } : { claim: `${name}-results`, size: opts.resultsSize, ...(opts.storageClass ? { storageClass: opts.storageClass } : {}) };
  const o: SweepJobOptions = {
    name,
    namespace: opts.jobNamespace,
    image: opts.image,
    shards,
    ...(opts.parallelism !== undefined ? { parallelism: opts.parallelism } : {}),
    inputs,
    ...(opts.inputUrl !== undefined ? { inputUrl: opts.inputUrl } : {}),
    fetchImage: opts.fetchImage,
    flags,
    results: opts.resultsUrl !== undefined ? { urls: await shardUrls(opts.resultsUrl, shards, (i) => shardFileName(i, shards)) } : claim,
    cpu: opts.cpu,
    memory: opts.memory,
  };
  if (opts.emit === 'indexed-job' && opts.out !== undefined) {
    // The files under their keys: what --input-url serves (or the ConfigMap holds).
    await makeDir(opts.out);
    for (const i of inputs) await writeOut(join(opts.out, i.key), i.text);
  }
  const docs = opts.emit === 'indexed-job' ? indexedJobManifests(o) : [reduceJobManifest({ ...o, results: claim })];
  // YAML 1.1 as Kubernetes reads it: a string such as "on" is quoted, not read back as a boolean.
  process.stdout.write(docs.map((d) => stringify(d, { lineWidth: 0, version: '1.1' })).join('---\n'));
}
