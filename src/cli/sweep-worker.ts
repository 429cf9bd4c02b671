// A worker thread of `berth sweep --jobs N`: loads the input and the matrix once,
// as check's workers do (from the documents the main thread parsed), then runs the
// cells it is given, one result line each.

import type { AnalysisContext } from '../analyze/check.js';
import { sweepCells, sweepRunner, type SweepCell } from '../analyze/sweep.js';
import { loadSweep, type SweepSpec } from '../io/sweep-spec.js';
import { contextOf, type CheckWorkerData } from './check-worker.js';

export interface SweepWorkerData extends CheckWorkerData {
  /** The Sweep document as read (the main thread validated it). */
  readonly sweep: { readonly name: string; readonly text: string };
}

/** Runs cells by index, each to its result's JSON line: the same function in a worker and on the main thread. */
export function cellLines(ctx: AnalysisContext, spec: SweepSpec): { cells: readonly SweepCell[]; line: (index: number) => string } {
  const cells = sweepCells(spec);
  const run = sweepRunner(ctx, spec);
  return { cells, line: (index) => JSON.stringify(run(cells[index]!)) };
}

type Session = ReturnType<typeof cellLines>;

/** Once per worker (pool-worker.mjs): the input and the matrix loaded; the pool keeps this, not the documents. */
export function prepare(data: SweepWorkerData): Session {
  const ctx = contextOf(data);
  const sweep = loadSweep(data.sweep, ctx.input);
  if (!sweep.ok) throw new Error(`sweep worker: the matrix does not load (${sweep.errors.length} error(s))`);
  return cellLines(ctx, sweep.sweep);
}

export default function runSweepCell(index: number, session: Session): string {
  return session.line(index);
}
