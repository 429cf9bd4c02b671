// `berth check --headroom`: the spare capacity per zone that keeps every node and
// zone loss's recovery within --headroom-recovery (analyze/headroom.ts), as a
// table or JSON, verified by simulating every loss again on the input files with
// the emitted manifests added (loaded through strict validation, as a user's
// file); --fix-dir writes those manifests.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { AnalysisContext } from '../analyze/check.js';
import { sizeHeadroom, type HeadroomEvidence, type HeadroomResult } from '../analyze/headroom.js';
import { formatDiagnostic, loadSources, type LoadedInput, type LoadOptions, type SourceInput } from '../io/load.js';
import { formatResource } from '../model/quantity.js';
import { formatTime } from '../sim/timeline.js';
import { CliError } from './common.js';
import { renderTable } from './table.js';

export const HEADROOM_FILE = 'headroom.yaml';
export const CAPACITY_BUFFER_FILE = 'headroom-capacitybuffer.yaml';
/** Just above the ≈5m40s before the node lifecycle controller evicts a lost node's pods (default tolerations): recovery must not wait for a launch. */
export const DEFAULT_HEADROOM_RECOVERY = '6m';

const yamlOf = (objects: readonly Record<string, unknown>[]) => objects.map((o) => stringify(o)).join('---\n');

/**
 * The sized headroom. `reload` loads the sources with the emitted manifests first
 * (they win over a cluster dump's older copy) and strict validation for them.
 */
export function runHeadroom(ctx: AnalysisContext, recoveryMs: number, sources: readonly SourceInput[], loadOptions: LoadOptions, prepare: (input: LoadedInput) => LoadedInput): HeadroomResult {
  const verifyInput = (manifests: readonly Record<string, unknown>[]): LoadedInput => {
    const emitted: SourceInput = { name: HEADROOM_FILE, text: yamlOf(manifests), validate: 'strict' };
    const r = loadSources([emitted, ...sources], { ...loadOptions, clusterFrom: (loadOptions.clusterFrom ?? sources.length) + 1 });
    if (!r.ok) throw new CliError(`berth: the headroom manifests do not load with the input (an object of the same name in -f?): ${r.errors.map(formatDiagnostic).join('; ')}`);
    return prepare(r.input);
  };
  return sizeHeadroom(ctx, { recoveryS: recoveryMs / 1000, verifyInput });
}

const seconds = (s: number | null | undefined) => (s === undefined ? 'not lost' : s === null ? 'not whole' : formatTime(s * 1000));

function evidenceRows(list: readonly HeadroomEvidence[]): string[][] {
  return list.map((e) => [`${e.scope} ${e.target}`, e.workload, String(e.lost), seconds(e.withoutS), seconds(e.withS)]);
}

export function formatHeadroom(r: HeadroomResult): string {
  const what = r.mode === 'placeholders' ? `placeholder pods of ${formatResource('cpu', r.unit.cpu)} cpu / ${formatResource('memory', r.unit.memory)}` : `spare nodes like ${r.likeNode ?? 'the zone\'s'}`;
  const lines = [
    `headroom for recovery within ${formatTime(r.recoveryS * 1000)} of any single node loss and any zone loss: ${what}`,
    '',
    renderTable(
      ['ZONE', r.mode === 'placeholders' ? 'PLACEHOLDERS' : 'SPARE NODES', 'CPU', 'MEMORY'],
      r.zones.map((z) => [z.zone || '(no zone label)', String(z.count), formatResource('cpu', z.cpu), formatResource('memory', z.memory)]),
    ),
    '',
  ];
  if (r.evidence.length === 0) lines.push('every loss already recovers within the target: no headroom needed');
  else lines.push('losses over the target without headroom, and with it:', '', renderTable(['LOSS', 'WORKLOAD', 'LOST', 'WITHOUT', 'WITH'], evidenceRows(r.evidence)));
  lines.push('', `verified: ${r.verified.node} node loss(es) and ${r.verified.zone} zone loss(es) simulated again with the manifests added to the input (${r.probes} size(s) tried)`);
  if (r.met) lines.push('every workload recovers within the target');
  else lines.push('NOT MET: these losses stay over the target; capacity did not bring them within it at the largest size tried, so the sizes above are for the others (a target below the eviction delay, or recovery capacity does not fix: docs/check.md):', '', renderTable(['LOSS', 'WORKLOAD', 'LOST', 'WITHOUT', 'WITH'], evidenceRows(r.stillSlow)));
  if (r.mode === 'nodes') lines.push('', 'the provisioner is off (or no NodePool): the headroom is nodes added to each zone; placeholder pods hold room only where an autoscaler launches nodes for them');
  return lines.join('\n');
}

/** Writes the manifests (and the CapacityBuffer form) to `dir`; returns the files written. */
export async function writeHeadroom(dir: string, r: HeadroomResult): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, objects] of [[HEADROOM_FILE, r.manifests], [CAPACITY_BUFFER_FILE, r.capacityBuffers]] as const) {
    if (objects.length === 0) continue;
    const path = join(dir, file);
    await writeFile(path, yamlOf(objects));
    written.push(path);
  }
  return written;
}
