// Shared CLI plumbing: reading inputs, printing diagnostics, parsing options.

import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import { buildClusterState, loadSources, type LoadedInput } from '../io/load.js';
import { readSources } from '../io/read-files.js';
import { formatDiagnostic, type Diagnostic } from '../io/diagnostics.js';
import { loadSchedulerConfig } from '../io/scheduler-config.js';
import type { ClusterState } from '../cluster/state.js';
import { catalogOrBundled } from '../provisioner/catalog/catalog.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { SchedulerConfig } from '../scheduler/profile.js';

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

export function parseSeed(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new InvalidArgumentError('must be an integer from 0 to 4294967295');
  return n;
}

export function printDiagnostics(ds: readonly Diagnostic[]): void {
  for (const d of ds) process.stderr.write(`${d.severity === 'warning' ? 'warning: ' : 'error: '}${formatDiagnostic(d)}\n`);
}

const SKIPPED_KIND = /^skipping kind (\S+) /;

/** The warnings with the "skipping kind" ones folded into one line that counts them by kind (a cluster dump has hundreds). */
export function summarizeSkipped(ds: readonly Diagnostic[]): { diagnostics: Diagnostic[]; summary?: string } {
  const counts = new Map<string, number>();
  const diagnostics = ds.filter((d) => {
    const kind = SKIPPED_KIND.exec(d.message)?.[1];
    if (kind === undefined) return true;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    return false;
  });
  if (counts.size === 0) return { diagnostics };
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const kinds = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, n]) => (n > 1 ? `${k} ×${n}` : k));
  return { diagnostics, summary: `skipped ${total} object(s) of ${counts.size} kind(s) berth does not read: ${kinds.join(', ')} (-v lists them)` };
}

/**
 * Reads and loads `files`, then `clusterFiles` (the running cluster: objects the
 * files define too are taken from the files, see LoadOptions.clusterFrom).
 */
export async function loadCluster(files: readonly string[], clusterFiles: readonly string[] = [], opts: { summarizeSkipped?: boolean } = {}): Promise<{ input: LoadedInput; cluster: ClusterState }> {
  if (files.length + clusterFiles.length === 0) throw new CliError('berth: no input: pass manifests with -f FILE (a file, a folder, or - for stdin)');
  let sources;
  let clusterSources;
  try {
    sources = await readSources(files);
    clusterSources = await readSources(clusterFiles);
  } catch (e) {
    throw new CliError(`berth: ${e instanceof Error ? e.message : String(e)}`);
  }
  const result = loadSources([...sources, ...clusterSources], { clusterFrom: sources.length });
  if (!result.ok) {
    printDiagnostics(result.errors);
    throw new CliError(`berth: ${result.errors.length} error(s) in the input`);
  }
  if (opts.summarizeSkipped) {
    const { diagnostics, summary } = summarizeSkipped(result.warnings);
    printDiagnostics(diagnostics);
    if (summary) process.stderr.write(`warning: ${summary}\n`);
  } else printDiagnostics(result.warnings);
  return { input: result.input, cluster: buildClusterState(result.input) };
}

export async function loadConfig(path: string | undefined): Promise<SchedulerConfig> {
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

/** The catalog the provisioner plans from: the input's InstanceTypeCatalogs (required when --catalog names a file), else the bundled one. */
export function instanceTypesOf(input: LoadedInput, catalogFlag: string | undefined): InstanceType[] {
  if (catalogFlag && input.catalogs.length === 0) throw new CliError(`berth: --catalog ${catalogFlag}: no InstanceTypeCatalog document in it`);
  return catalogOrBundled(input.catalogs);
}

export function parseOutput(value: string): 'table' | 'json' {
  if (value !== 'table' && value !== 'json') throw new InvalidArgumentError('must be "table" or "json"');
  return value;
}
