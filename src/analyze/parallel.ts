// How `berth check` splits into tasks a worker pool runs in parallel, and how
// their results are put back together so the merged findings are exactly what
// one thread's analyze() returns: checks whose findings come item by item
// (PartedCheck) run as several interleaved parts, the others whole; the results
// are read back in check order, parts interleaved by item.

import type { LoadedInput } from '../io/load.js';
import { isParted, mergeParts, type Check, type Part } from './check.js';
import type { ReportedFinding } from './finding.js';
import { podGroups } from './pod-groups.js';

/**
 * Below this many nodes a whole check costs about what starting the workers does
 * (each loads the engine and the input again: 1.5-2 CPU s measured on the
 * examples, whose whole check is about 1 CPU s), so one thread is the default.
 */
export const POOL_MIN_NODES = 20;

/**
 * How many workers to check `input` with when the user does not say: `cores`, when
 * there is more than one core and more than one simulation to share out (two pod
 * groups or more, on an input large enough to pay for the workers); else 1.
 */
export function defaultWorkers(input: LoadedInput, cores: number): number {
  if (cores < 2 || input.nodes.length < POOL_MIN_NODES) return 1;
  return podGroups(input).length >= 2 ? cores : 1;
}

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
