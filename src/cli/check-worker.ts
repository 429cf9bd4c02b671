// A worker thread of `berth check --jobs N`: loads the input once from the texts
// the main thread read (so stdin and a live cluster are read once), then runs the
// tasks it is given (a check, or one part of one) and returns their findings
// without the remedies' functions.

import { ALL_CHECKS } from '../analyze/checks/index.js';
import { isParted, type AnalysisContext } from '../analyze/check.js';
import { reported } from '../analyze/finding.js';
import type { CheckTask, TaskResult } from '../analyze/parallel.js';
import { loadSources, type LoadOptions } from '../io/load.js';
import { attachSources, instanceTypesOf, simulatedDescheduler, type DetachedSource } from './common.js';

/** What every worker starts with: the input as read and the check's settings. */
export interface CheckWorkerData {
  readonly sources: readonly DetachedSource[];
  readonly loadOptions: LoadOptions;
  readonly catalog?: string;
  readonly provisioner: boolean;
  readonly seed: number;
  readonly scaleUp?: number;
  readonly deschedulerPolicy?: string;
  readonly predictPlacement?: boolean;
}

async function contextOf(d: CheckWorkerData): Promise<AnalysisContext> {
  const result = loadSources(attachSources(d.sources), d.loadOptions);
  // The main thread loaded the same texts and reported their problems already.
  if (!result.ok) throw new Error(`check worker: the input does not load (${result.errors.length} error(s))`);
  const descheduler = await simulatedDescheduler(d);
  const input = result.input;
  return { input, instanceTypes: instanceTypesOf(input, d.catalog), provisioner: d.provisioner, seed: d.seed, ...(d.scaleUp !== undefined ? { scaleUp: d.scaleUp } : {}), ...(descheduler ? { descheduler } : {}) };
}

let context: Promise<AnalysisContext> | undefined;

export default async function runCheckTask(task: CheckTask, data: CheckWorkerData): Promise<TaskResult> {
  const ctx = await (context ??= contextOf(data));
  const check = ALL_CHECKS[task.check];
  if (!check) throw new Error(`check worker: no check #${task.check}`);
  if (!task.part) return [check.run(ctx).map(reported)];
  if (!isParted(check)) throw new Error(`check worker: ${check.rule} does not run in parts`);
  return check.runPart(ctx, task.part).map((item) => item.map(reported));
}
