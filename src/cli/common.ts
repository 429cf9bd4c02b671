// Shared CLI plumbing: reading inputs, printing diagnostics, parsing options.

import type { DeschedulerPolicy } from '../model/descheduler-policy.js';
import { loadDeschedulerPolicy } from '../io/descheduler-policy.js';
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { readSource } from '../io/json-text.js';
import { detachSource } from '../io/detached-source.js';
import { packSources } from './packed-sources.js';
import { buildClusterState, loadSources, type LoadedInput, type LoadOptions, type SourceInput } from '../io/load.js';
import { readSources, type ReadOptions } from '../io/read-files.js';
import { formatDiagnostic, type Diagnostic } from '../io/diagnostics.js';
import { loadSchedulerConfig } from '../io/scheduler-config.js';
import { VALIDATION_MODES, type ValidationMode } from '../io/strict-fields.js';
import type { ClusterState } from '../cluster/state.js';
import { BUNDLED_CATALOGS, BUNDLED_REGION, catalogOrBundled } from '../provisioner/catalog/catalog.js';
import { applyPriceOverrides } from '../provisioner/catalog/prices.js';
import { loadPriceOverrides } from '../io/price-overrides.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { featureEnabled, FeatureGateError, parseFeatureGates, type FeatureGates } from '../scheduler/feature-gates.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { DEFAULT_DESCHEDULING_INTERVAL_MS, MAX_SIMULATED_MS, MAX_SIMULATED_TEXT, type ScenarioDescheduler } from '../io/scenario-spec.js';
import { DurationError, parseGoDuration } from '../model/go-duration.js';
import { liveFlagsProblem, liveOptions, readLiveInput, type LiveFlags } from './live-input.js';

/** `--optimize <objective>`: berth's own objectives, off by default; cost is the one there is. */
export function parseOptimize(value: string): 'cost' {
  if (value !== 'cost') throw new InvalidArgumentError('must be cost');
  return value;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The help line of --feature-gates, the same on every command that schedules. */
export const FEATURE_GATES_HELP = "kube-scheduler's feature gates, e.g. TaintTolerationComparisonOperators=true (v1.37.2 defaults otherwise)";

/** kube-scheduler's --feature-gates "Gate=true,Other=false", refused in its words. */
export function parseFeatureGatesOption(value: string, previous: FeatureGates | undefined): FeatureGates {
  try {
    return { ...previous, ...parseFeatureGates(value) };
  } catch (e) {
    if (e instanceof FeatureGateError) throw new InvalidArgumentError(e.message);
    throw e;
  }
}

export function parseSeed(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new InvalidArgumentError('must be an integer from 0 to 4294967295');
  return n;
}

export function printDiagnostics(ds: readonly Diagnostic[]): void {
  for (const d of ds) process.stderr.write(`${d.severity === 'warning' ? 'warning: ' : 'error: '}${formatDiagnostic(d)}\n`);
}

/** How the input files are read: the flags every command that takes -f shares (and the running cluster, with --kubeconfig). */
export interface InputFlags extends LiveFlags {
  readonly validate: ValidationMode;
  readonly recursive?: boolean;
  readonly allowMissing?: boolean;
  readonly kubeletDefaults: boolean;
  /** --feature-gates, on the commands that take it: TaintTolerationComparisonOperators decides whether Lt/Gt tolerations load. */
  readonly featureGates?: FeatureGates;
}

function parseBool(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('must be true or false');
}

function parseValidate(value: string): ValidationMode {
  if (!(VALIDATION_MODES as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${VALIDATION_MODES.join(', ')}`);
  return value as ValidationMode;
}

/** Adds the input flags (InputFlags) to a command; `live`: also --kubeconfig and its companions. */
export function inputOptions(command: Command, live = false): Command {
  return (live ? liveOptions(command) : command)
    .option('-R, --recursive', 'read the sub-folders of folders given with -f too (as kubectl)')
    .option(
      '--validate <mode>',
      'strict: fields the kind does not declare, and fields written twice, are errors (as kubectl); warn: warnings; ignore: dropped',
      parseValidate,
      'strict',
    )
    .option('--allow-missing', 'a pod naming a PriorityClass that is not in the input gets the priority of a pod naming none (a warning, not an error)')
    .option('--kubelet-defaults <bool>', 'false: take Nodes as written (no kubernetes.io/hostname label, pod capacity or allocatable added where they lack them)', parseBool, true);
}

/** How -f arguments are read: -R, and a warning for each sub-folder left out without it. */
export function readOptions(flags: InputFlags): ReadOptions {
  return {
    recursive: flags.recursive ?? false,
    onSkippedFolder: (folder) => process.stderr.write(`warning: ${folder}: folder not read (pass -R to read sub-folders)\n`),
  };
}

/** The LoadOptions the input flags (and --feature-gates) decide. */
export function inputLoadOptions(flags: InputFlags): Omit<LoadOptions, 'clusterFrom'> {
  return {
    validate: flags.validate,
    allowMissing: flags.allowMissing ?? false,
    kubeletDefaults: flags.kubeletDefaults,
    tolerationComparisonOperators: featureEnabled(flags.featureGates, 'TaintTolerationComparisonOperators'),
    podLevelResources: featureEnabled(flags.featureGates, 'PodLevelResources'),
  };
}

/**
 * Reads and loads `files`, then `clusterFiles` (the running cluster: objects the
 * files define too are taken from the files, see LoadOptions.clusterFrom).
 */
export async function loadCluster(
  flags: InputFlags,
  files: readonly string[],
  clusterFiles: readonly string[] = [],
  /** Also return each source's documents as plain data, packed in shared memory (`detached`), for worker threads to load without parsing the texts again. */
  detach = false,
): Promise<{ input: LoadedInput; cluster: ClusterState; sources: readonly SourceInput[]; loadOptions: LoadOptions; detached?: SharedArrayBuffer }> {
  const problem = liveFlagsProblem(flags);
  if (problem) throw new CliError(`berth: ${problem}`);
  if (files.length + clusterFiles.length === 0 && flags.kubeconfig === undefined) throw new CliError('berth: no input: pass manifests with -f FILE (a file, a folder, or - for stdin)');
  let sources;
  let clusterSources;
  try {
    sources = await readSources(files, readOptions(flags));
    clusterSources = await readSources(clusterFiles, readOptions(flags));
    if (flags.kubeconfig !== undefined) clusterSources.push(await readLiveInput(flags, flags.validate, progressLine));
  } catch (e) {
    throw new CliError(`berth: ${e instanceof Error ? e.message : String(e)}`);
  }
  const loadOptions: LoadOptions = { clusterFrom: sources.length, ...inputLoadOptions(flags) };
  const all = [...sources, ...clusterSources];
  // To detach the documents they are parsed here, once, and loaded from that parse.
  const parsed = detach ? all.map((s) => (s.parsed ? s : { ...s, parsed: readSource(s, s.validate ?? flags.validate) })) : all;
  const result = loadSources(parsed, loadOptions);
  if (!result.ok) {
    printDiagnostics(result.errors);
    throw new CliError(`berth: ${result.errors.length} error(s) in the input`);
  }
  printDiagnostics(result.warnings);
  // Not from a closure over `parsed`: the one that builds the cluster below would keep it, every document as read, for as long as the cluster.
  const detached = detach ? packSources(parsed.map((s) => detachSource(s, s.parsed!))) : undefined;
  // Built when first read: check and sweep never read it (0.7 CPU s at 100,000 pods).
  let cluster: ClusterState | undefined;
  return {
    input: result.input,
    get cluster() {
      return (cluster ??= buildClusterState(result.input));
    },
    sources: all,
    loadOptions,
    ...(detached ? { detached } : {}),
  };
}

/** A progress line on stderr: rewritten in place on a terminal; elsewhere only lines that end with a newline (the final ones) are shown. */
export function progressLine(line: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${line}`);
  else if (line.endsWith('\n')) process.stderr.write(line);
}

export async function loadConfig(path: string | undefined, featureGates?: FeatureGates): Promise<SchedulerConfig> {
  const config = await loadConfigFile(path);
  return featureGates && Object.keys(featureGates).length > 0 ? { ...config, featureGates } : config;
}

async function loadConfigFile(path: string | undefined): Promise<SchedulerConfig> {
  if (path === undefined) return {};
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`berth: cannot read --config ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const result = loadSchedulerConfig({ name: path, text });
  if (!result.ok) {
    printDiagnostics(result.errors);
    throw new CliError(`berth: invalid scheduler configuration ${path}`);
  }
  return result.config;
}

/** The DeschedulerPolicy in `path` (descheduler/v1alpha2), validated; errors are printed with their positions. */
export async function loadDeschedulerPolicyFile(path: string, predictPlacement: boolean): Promise<DeschedulerPolicy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`berth: cannot read --policy ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const result = loadDeschedulerPolicy({ name: path, text }, predictPlacement);
  if (!result.ok) {
    printDiagnostics(result.errors);
    throw new CliError(`berth: invalid descheduler policy ${path}`);
  }
  return result.policy;
}

/** Flags that choose the instance types and what they cost. */
export interface CatalogFlags {
  readonly catalog?: string;
  readonly region?: string;
  readonly prices?: string;
}

export { BUNDLED_REGION };
const REGION_HELP = `the bundled catalog's region (${[...BUNDLED_CATALOGS.keys()].join(', ')})`;
const PRICES_HELP = 'what you pay (berth.dev/v1alpha1 PriceOverrides): prices per instance type, zone and capacity type, and discounts such as a savings plan';

/** Adds the CatalogFlags: --catalog (unless the command's input names its catalog another way), --region and --prices. */
export function catalogOptions(command: Command, catalogFile = true): Command {
  if (catalogFile) command.option('--catalog <file>', 'instance types (berth.dev/v1alpha1 InstanceTypeCatalog) instead of the bundled AWS catalog of --region');
  return command.option('--region <name>', REGION_HELP, parseRegion, BUNDLED_REGION).option('--prices <file>', PRICES_HELP);
}

export function parseRegion(value: string): string {
  if (!BUNDLED_CATALOGS.has(value)) throw new InvalidArgumentError(`no bundled catalog for it; bundled regions: ${[...BUNDLED_CATALOGS.keys()].join(', ')}`);
  return value;
}

/**
 * The catalog the provisioner plans from: the input's InstanceTypeCatalogs (required when
 * --catalog names a file), else the bundled one of --region; repriced by --prices.
 */
export async function instanceTypesOf(input: LoadedInput, flags: CatalogFlags): Promise<InstanceType[]> {
  if (flags.catalog && input.catalogs.length === 0) throw new CliError(`berth: --catalog ${flags.catalog}: no InstanceTypeCatalog document in it`);
  const types = catalogOrBundled(input.catalogs, flags.region);
  if (flags.prices === undefined) return types;
  let text: string;
  try {
    text = await readFile(flags.prices, 'utf8');
  } catch (e) {
    throw new CliError(`berth: cannot read --prices ${flags.prices}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const result = loadPriceOverrides({ name: flags.prices, text }, types);
  if (!result.ok) {
    printDiagnostics(result.errors);
    throw new CliError(`berth: invalid price overrides ${flags.prices}`);
  }
  return applyPriceOverrides(types, result.overrides);
}

/** A simulated duration flag (Go syntax: 30m, 2h): positive, at most a simulated year. */
export function parseSimulatedDuration(v: string): number {
  try {
    const ns = parseGoDuration(v);
    if (ns <= 0n) throw new InvalidArgumentError('must be a positive duration such as 30m or 2h');
    if (ns > BigInt(MAX_SIMULATED_MS) * 1_000_000n) throw new InvalidArgumentError(`must be at most ${MAX_SIMULATED_TEXT}`);
    return Number(ns / 1_000_000n);
  } catch (e) {
    if (e instanceof DurationError) throw new InvalidArgumentError(e.message);
    throw e;
  }
}

/** An RFC 3339 time flag (--now), kept as written. */
export function parseTime(v: string): string {
  if (Number.isNaN(Date.parse(v))) throw new InvalidArgumentError('must be an RFC 3339 time');
  return v;
}

/** Adds --now: the wall-clock time the cluster state stands for (simulated time 0). */
export function nowOption(command: Command, otherwise: string): Command {
  return command.option('--now <time>', `RFC 3339 time the cluster state stands for, from which node and pod ages count (default: now with --kubeconfig, else ${otherwise})`, parseTime);
}

/** The time origin --now or --kubeconfig give (a live read happens now); undefined: the input's own (sim/time-origin.ts). */
export function timeOriginOf(flags: { readonly now?: string; readonly kubeconfig?: string | true }): number | undefined {
  return flags.now !== undefined ? Date.parse(flags.now) : flags.kubeconfig !== undefined ? Date.now() : undefined;
}

/** The descheduler --descheduler-policy [--predict-placement] adds to every simulation (every 5 minutes); undefined without a policy. */
export async function simulatedDescheduler(flags: { readonly deschedulerPolicy?: string; readonly predictPlacement?: boolean }): Promise<ScenarioDescheduler | undefined> {
  if (flags.predictPlacement && !flags.deschedulerPolicy) throw new CliError('berth: --predict-placement needs --descheduler-policy');
  if (!flags.deschedulerPolicy) return undefined;
  return { enabled: true, intervalMs: DEFAULT_DESCHEDULING_INTERVAL_MS, policy: await loadDeschedulerPolicyFile(flags.deschedulerPolicy, flags.predictPlacement === true) };
}

/** An on|off flag (--provisioner). */
export function parseOnOff(value: string): boolean {
  if (value !== 'on' && value !== 'off') throw new InvalidArgumentError('must be "on" or "off"');
  return value === 'on';
}

export const PROVISIONER_HELP = 'let NodePools launch nodes in the simulations (default: on when the input has a dynamic NodePool)';

export function parseOutput(value: string): 'table' | 'json' {
  if (value !== 'table' && value !== 'json') throw new InvalidArgumentError('must be "table" or "json"');
  return value;
}
