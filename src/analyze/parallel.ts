// How `berth check` splits into tasks a worker pool runs in parallel, and how
// their results are put back together so the merged findings are exactly what
// one thread's analyze() returns: checks whose findings come item by item
// (PartedCheck) run as several interleaved parts, the others whole; the results
// are read back in check order, parts interleaved by item.

import { isParted, mergeParts, type Check, type Part } from './check.js';
import type { ReportedFinding } from './finding.js';

export interface CheckTask {
  /** The check's index in the list of checks. */
  readonly check: number;
  /** Absent: the whole check (run). */
  readonly part?: Part;
}

/** A task's findings: per item for a part, one list for a whole check. */
export type TaskResult = readonly (readonly ReportedFinding[])[];

/**
 * The tasks of a run, parted checks first (they are the long ones, and a pool
 * that starts the long tasks first finishes sooner), `parts` parts each.
 */
export function checkTasks(checks: readonly Check[], parts: number): CheckTask[] {
  if (!Number.isInteger(parts) || parts < 1) throw new Error(`check tasks: parts must be a positive integer, not ${parts}`);
  const parted: CheckTask[] = [];
  const whole: CheckTask[] = [];
  checks.forEach((c, check) => {
    if (isParted(c) && parts > 1) for (let index = 0; index < parts; index++) parted.push({ check, part: { index, count: parts } });
    else whole.push({ check });
  });
  // Part 0 of every parted check, then part 1...: no check waits for all of another's parts.
  parted.sort((a, b) => a.part!.index - b.part!.index || a.check - b.check);
  return [...parted, ...whole];
}

/** Every check's findings in check order, from the results of `tasks` (results[i] is tasks[i]'s). */
export function mergeTasks(checks: readonly Check[], tasks: readonly CheckTask[], results: readonly TaskResult[]): ReportedFinding[] {
  if (results.length !== tasks.length) throw new Error(`check tasks: ${tasks.length} tasks, ${results.length} results`);
  return checks.flatMap((_, check) => {
    const mine = tasks.flatMap((t, i) => (t.check === check ? [{ t, r: results[i]! }] : []));
    if (mine.length === 1 && !mine[0]!.t.part) return [...mine[0]!.r[0]!];
    return mergeParts([...mine].sort((a, b) => a.t.part!.index - b.t.part!.index).map((x) => x.r));
  });
}
