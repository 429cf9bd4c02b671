// A worker thread of `berth check --jobs N`: loads the input once from the documents
// the main thread read and parsed (so stdin and a live cluster are read once, and no
// text is parsed twice), then runs the tasks it is given (a check, or one part of
// one, a round of a two-round check) and returns their results, findings without
// the remedies' functions.

import { ALL_CHECKS } from '../analyze/checks/index.js';
import type { AnalysisContext } from '../analyze/check.js';
import { reported, type Finding } from '../analyze/finding.js';
import { runTask, type CheckTask, type TaskResult } from '../analyze/parallel.js';
import { attachSource } from '../io/detached-source.js';
import { loadSources, type LoadOptions } from '../io/load.js';
import { fromOrigin } from '../sim/time-origin.js';
import { unpackSources } from './packed-sources.js';
import { poolTrace } from './pool-trace.js';
import { SharedLog } from './shared-log.js';

/** The check's settings: everything of its context but the input and the workers' exchange (plain data). */
export type CheckSettings = Omit<AnalysisContext, 'input' | 'exchange'>;

/** What every worker starts with: the input as read, and how the main thread loaded it. */
export interface CheckWorkerData {
  /** The documents, packed (packed-sources.ts). */
  readonly sources: SharedArrayBuffer;
  readonly loadOptions: LoadOptions;
  /** The time origin the main thread chose (--now, a live read's time), or the input's own when absent. */
  readonly timeOrigin?: number;
  readonly settings: CheckSettings;
  /** The log (shared-log.ts) through which the workers give each other what they simulated. */
  readonly exchange?: SharedArrayBuffer;
}

/** The check's context from what a worker starts with (the sweep's workers too). */
export function contextOf(d: CheckWorkerData): AnalysisContext {
  const result = loadSources(unpackSources(d.sources).map(attachSource), d.loadOptions);
  // The main thread loaded the same documents and reported their problems already.
  if (!result.ok) throw new Error(`check worker: the input does not load (${result.errors.length} error(s))`);
  const ctx: AnalysisContext = { input: fromOrigin(result.input, d.timeOrigin), ...d.settings };
  return d.exchange ? { ...ctx, exchange: new SharedLog(d.exchange, ctx.input, ctx.instanceTypes) } : ctx;
}

/** Once per worker (pool-worker.mjs): the context its tasks run in. The pool keeps this, not the documents it was loaded from. */
export function prepare(data: CheckWorkerData): AnalysisContext {
  const ctx = contextOf(data);
  poolTrace('context');
  return ctx;
}

export default function runCheckTask(task: CheckTask, context: AnalysisContext): TaskResult {
  const result = runTask(ALL_CHECKS, context, task);
  // Round 1 gives plain records; every other task, findings, whose remedies' functions stay here.
  return 'round' in task && task.round === 1 ? result : result.map((item) => (item as Finding[]).map(reported));
}
