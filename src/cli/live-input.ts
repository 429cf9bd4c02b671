// `--kubeconfig`: the running cluster read from its API server, read-only
// (live/snapshot.ts), as the input a kubectl dump would be. Flags as kubectl has
// them: --context, -n/--namespace, -A/--all-namespaces, -l/--selector; and
// --save-snapshot F writes exactly what was read, so the run can be repeated
// offline with --cluster F.

import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { Command } from 'commander';
import { dataInput } from '../io/json-source.js';
import type { SourceInput } from '../io/yaml-source.js';
import type { ValidationMode } from '../io/strict-fields.js';
import { Kube } from '../live/kube.js';
import { readSnapshot, SnapshotError, type Snapshot } from '../live/snapshot.js';

export interface LiveFlags {
  /** The kubeconfig file, or true for the default one ($KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeconfig?: string | true;
  readonly context?: string;
  readonly namespace?: string;
  readonly allNamespaces?: boolean;
  readonly selector?: string;
  readonly saveSnapshot?: string;
}

/** Adds the live-read flags (LiveFlags) to a command. */
export function liveOptions(command: Command): Command {
  return command
    .option('--kubeconfig [file]', 'read the running cluster from its API server, read-only (default file: $KUBECONFIG, ~/.kube/config, or in-cluster)')
    .option('--context <name>', 'with --kubeconfig: the kubeconfig context to use')
    .option('-n, --namespace <ns>', 'with --kubeconfig: read the workloads, PDBs and HPAs of this namespace only (nodes, pods, DaemonSets and volumes are always read whole)')
    .option('-A, --all-namespaces', 'with --kubeconfig: every namespace (the default)')
    .option('-l, --selector <selector>', 'with --kubeconfig: read only the workloads, PDBs and HPAs this label selector matches')
    .option('--save-snapshot <file>', 'with --kubeconfig: write what was read (a v1 List; YAML for .yaml/.yml, else JSON) to replay offline with --cluster');
}

/** Why the flags cannot be used together, if they cannot. */
export function liveFlagsProblem(flags: LiveFlags): string | undefined {
  const needsKubeconfig = (['context', 'namespace', 'allNamespaces', 'selector', 'saveSnapshot'] as const).find((f) => flags[f] !== undefined);
  if (flags.kubeconfig === undefined && needsKubeconfig) return `--${needsKubeconfig.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --kubeconfig`;
  if (flags.namespace !== undefined && flags.allNamespaces) return '--namespace and --all-namespaces cannot be used together';
  return undefined;
}

function connect(flags: LiveFlags): Kube {
  const kube = Kube.fromFile(flags.kubeconfig === true ? undefined : flags.kubeconfig);
  if (flags.context !== undefined) {
    if (!kube.config.getContextObject(flags.context)) throw new Error(`context ${JSON.stringify(flags.context)} is not in the kubeconfig`);
    kube.config.setCurrentContext(flags.context);
  }
  return kube;
}

function header(where: string, snap: Snapshot): string {
  const kinds = snap.kinds.map((k) => `${k.kind} ${k.count} at resourceVersion ${k.resourceVersion}`);
  return [`berth snapshot of ${where}`, ...kinds.map((k) => `  ${k}`), ...(snap.notServed.length ? [`  not served: ${snap.notServed.join(', ')}`] : [])].map((l) => `# ${l}`).join('\n');
}

/**
 * The live cluster as one input, named after the saved snapshot when there is one
 * (so diagnostics point into that file) and after the context otherwise.
 */
export async function readLiveInput(flags: LiveFlags, validate: ValidationMode, progress: (line: string) => void): Promise<SourceInput> {
  const kube = connect(flags);
  const where = `${kube.config.getCurrentCluster()?.server ?? '?'} (context ${kube.config.getCurrentContext()})`;
  let snap: Snapshot;
  try {
    snap = await readSnapshot(kube, {
      ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
      ...(flags.selector !== undefined ? { labelSelector: flags.selector } : {}),
      onPage: (kind, count) => progress(`reading ${where}: ${kind} ${count}`),
    });
  } catch (e) {
    if (e instanceof SnapshotError) throw e;
    throw new SnapshotError(`cannot read ${where}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const format = flags.saveSnapshot !== undefined && /\.ya?ml$/i.test(flags.saveSnapshot) ? 'yaml' : 'json';
  const name = flags.saveSnapshot ?? `<${kube.config.getCurrentContext()}>`;
  const source = snapshotSource(snap, name, format, where, validate);
  if (flags.saveSnapshot !== undefined) await writeFile(flags.saveSnapshot, source.text);
  const counted = snap.kinds.filter((k) => k.count > 0).map((k) => `${k.count} ${k.kind}`);
  progress(`read ${where}: ${counted.join(', ') || 'nothing'}${flags.saveSnapshot !== undefined ? `; saved to ${flags.saveSnapshot}` : ''}\n`);
  return source;
}

/**
 * A snapshot as an input, loaded from the objects as read: its text (what
 * --save-snapshot writes, a JSON or YAML List) is made only when asked for, by
 * --save-snapshot or by a diagnostic that needs a position in it. The API server
 * validated these objects already: a field berth's v1.37 tables lack means a
 * newer server, so strict validation is lowered to warnings for them.
 */
export function snapshotSource(snap: Snapshot, name: string, format: 'json' | 'yaml', where: string, validate: ValidationMode): SourceInput {
  const render = () => (format === 'yaml' ? `${header(where, snap)}\n${stringify(snap.list)}` : `${JSON.stringify(snap.list, null, 1)}\n`);
  return dataInput(name, snap.list, format, render, validate === 'strict' ? 'warn' : validate);
}
