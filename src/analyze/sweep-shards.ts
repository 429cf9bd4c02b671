// A sweep's shard output and how shards are merged. A shard file is JSON lines: a
// header naming the sweep, the fingerprint of its input, the number of cells and
// which shard it is, then one result per cell. Merging checks that every shard of
// one sweep is there once and every cell once, and puts the cells back in order; a
// run on one machine is shard 0 of 1 merged the same way, so both give the same
// bytes.

import type { CellResult } from './sweep.js';

export const SHARD_FORMAT = 1;

export interface ShardHeader {
  readonly berthSweep: typeof SHARD_FORMAT;
  readonly name: string;
  /** sha256 of the matrix, the input and the settings: shards of other inputs are refused. */
  readonly input: string;
  readonly cells: number;
  readonly shard: number;
  readonly shards: number;
}

/** A shard's file: the header, then one line per result. */
export function formatShard(header: ShardHeader, lines: readonly string[]): string {
  return [JSON.stringify(header), ...lines].map((l) => `${l}\n`).join('');
}

/** The file name shard `i` of `n` is written as; sorts in shard order. */
export const shardFileName = (i: number, n: number): string => `shard-${String(i).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.jsonl`;

export const isShardFileName = (name: string): boolean => /^shard-\d+-of-\d+\.jsonl$/.test(name);

export interface Merged {
  readonly name: string;
  readonly input: string;
  /** The result lines, in cell order, as the shards wrote them. */
  readonly lines: readonly string[];
  readonly results: readonly CellResult[];
}

export type MergeResult = { readonly ok: true; readonly merged: Merged } | { readonly ok: false; readonly error: string };

const fail = (error: string): MergeResult => ({ ok: false, error });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isHeader(v: unknown): v is ShardHeader {
  const h = v as Partial<ShardHeader> | undefined;
  return typeof h === 'object' && h !== null && h.berthSweep === SHARD_FORMAT && typeof h.name === 'string' && typeof h.input === 'string' && [h.cells, h.shard, h.shards].every((n) => Number.isInteger(n) && (n as number) >= 0) && h.shard! < h.shards!;
}

const ranges = (list: readonly number[]): string => (list.length > 10 ? `${list.slice(0, 10).join(', ')} and ${list.length - 10} more` : list.join(', '));

/** Every shard of one sweep (any order) merged into its results in cell order; the first problem, naming its file and line, otherwise. */
export function mergeShards(files: readonly { readonly name: string; readonly text: string }[]): MergeResult {
  if (files.length === 0) return fail('no shard files');
  let first: { file: string; header: ShardHeader } | undefined;
  const byShard = new Map<number, string>();
  const cells: (string | undefined)[] = [];
  for (const f of files) {
    const lines = f.text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const header = parseJson(lines[0] ?? '');
    if (!isHeader(header)) return fail(`${f.name}:1: not a berth sweep shard (its first line is not a shard header)`);
    if (!first) {
      first = { file: f.name, header };
      cells.length = header.cells;
    }
    const h = first.header;
    if (header.name !== h.name || header.input !== h.input || header.cells !== h.cells || header.shards !== h.shards)
      return fail(`${f.name}:1: shard of another sweep or input: ${header.name} ${header.input} (${header.shards} shards), while ${first.file} is ${h.name} ${h.input} (${h.shards} shards)`);
    const other = byShard.get(header.shard);
    if (other !== undefined) return fail(`${f.name}:1: shard ${header.shard} of ${header.shards} twice (${other} too)`);
    byShard.set(header.shard, f.name);
    for (let i = 1; i < lines.length; i++) {
      const cell = (parseJson(lines[i]!) as { cell?: unknown } | undefined)?.cell;
      if (typeof cell !== 'number' || !Number.isInteger(cell) || cell < 0 || cell >= h.cells) return fail(`${f.name}:${i + 1}: not a result line of this sweep (no "cell" from 0 to ${h.cells - 1})`);
      if (cell % h.shards !== header.shard) return fail(`${f.name}:${i + 1}: cell ${cell} does not belong to shard ${header.shard} of ${h.shards}`);
      if (cells[cell] !== undefined) return fail(`${f.name}:${i + 1}: cell ${cell} twice`);
      cells[cell] = lines[i]!;
    }
  }
  const h = first!.header;
  const missingShards = Array.from({ length: h.shards }, (_, i) => i).filter((i) => !byShard.has(i));
  if (missingShards.length > 0) return fail(`missing shard(s) ${ranges(missingShards)} of ${h.shards} (have ${byShard.size})`);
  // Not cells.flatMap: it skips the holes a cut-short shard leaves.
  const missing = Array.from({ length: h.cells }, (_, i) => i).filter((i) => cells[i] === undefined);
  if (missing.length > 0) return fail(`missing cell(s) ${ranges(missing)} of ${h.cells}: shard ${missing[0]! % h.shards} (${byShard.get(missing[0]! % h.shards)}) ends early`);
  const lines = cells as string[];
  return { ok: true, merged: { name: h.name, input: h.input, lines, results: lines.map((l) => JSON.parse(l) as CellResult) } };
}
