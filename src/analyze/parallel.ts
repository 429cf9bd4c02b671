// How `berth check` splits into tasks a worker pool runs in parallel, and how
// their results are put back together so the merged findings are exactly what
// one thread's analyze() returns: checks whose findings come item by item
// (PartedCheck) run as several interleaved parts, the others whole; the results
// are read back in check order, parts interleaved by item.

import type { LoadedInput } from '../io/load.js';
import { isParted, isTwoRound, mergeParts, type AnalysisContext, type Check, type Part } from './check.js';
import type { ReportedFinding } from './finding.js';
import { podGroups } from './pod-groups.js';

/**
 * Below this many nodes a whole check costs about what starting the workers does
 * (each loads the engine and the input again: 1.5-2 CPU s measured on the
 * examples, whose whole check is about 1 CPU s), so one thread is the default.
 */
export const POOL_MIN_NODES = 20;

/** The objects an input's size is counted in, for its workers and their heaps: its pods and nodes. */
export const podsAndNodes = (input: Pick<LoadedInput, 'pods' | 'nodes'>): number => input.pods.length + input.nodes.length;

/**
 * On two cores or fewer, below this many pods and nodes one thread is the default too.
 * Each worker compiles the engine again and loads its own copy of the input, and
 * V8's helper threads (collections, optimizing compiles), which have the second core
 * to themselves beside one thread, share the cores with two. Measured on
 * bench/check-200.ts's dumps with 2 cores (bench/README.md): two workers took 1.29×,
 * 1.17× and 1.04× one thread's wall time at 1,000, 2,000 and 3,000 nodes (6,229,
 * 12,229 and 18,229 pods and nodes), and 0.66–0.71× at 5,000 nodes (105,229). The
 * same 1,000-node cluster as a real `kubectl get -o yaml` writes it (30 MB instead of
 * 3.3) took 1.12× too: what decides is the objects, not the bytes.
 */
export const TWO_CORE_POOL_MIN_OBJECTS = 36_000;

/** Do workers pay for an input of `objects` pods and nodes on `cores` cores (TWO_CORE_POOL_MIN_OBJECTS)? */
export const workersPay = (cores: number, objects: number): boolean => cores > 1 && (cores > 2 || objects >= TWO_CORE_POOL_MIN_OBJECTS);

/**
 * How many workers to check `input` with when the user does not say: `cores`, when
 * workers pay for an input of its size on that many cores and there is more than one
 * simulation to share out (two pod groups or more, on an input large enough to pay
 * for the workers); else 1.
 */
export function defaultWorkers(input: LoadedInput, cores: number): number {
  if (!workersPay(cores, podsAndNodes(input)) || input.nodes.length < POOL_MIN_NODES) return 1;
  return podGroups(input).length >= 2 ? cores : 1;
}

export type CheckTask =
  /** A check, whole (no part) or one part of a parted one. */
  | { readonly check: number; readonly part?: Part }
  /** One part of a two-round check's round 1. */
  | { readonly check: number; readonly round: 1; readonly part: Part }
  /** Round-2 items of a two-round check (plain data, as its `between` made them). */
  | { readonly check: number; readonly round: 2; readonly items: readonly unknown[] };

/**
 * A task's result, per item: findings for a part or round-2 items, round-1 records
 * for a round-1 part, one list of findings for a whole check.
 */
export type TaskResult = readonly (readonly unknown[])[];

/** A task in a few words, for a trace: "zone-loss round 1 part 2/4", "node-loss round 2 (1 item)", "pdb". */
export function describeTask(checks: readonly Check[], task: CheckTask): string {
  const rule = checks[task.check]?.rule ?? `#${task.check}`;
  if ('round' in task && task.round === 2) return `${rule} round 2 (${task.items.length} item(s))`;
  const part = task.part ? ` part ${task.part.index + 1}/${task.part.count}` : '';
  return 'round' in task ? `${rule} round 1${part}` : `${rule}${part}`;
}

/** What runs a task somewhere (a worker of the pool) and gives its result. */
export type RunTask = (task: CheckTask) => Promise<TaskResult>;

/** The task a worker runs, on its own context: the same function for every kind of task. */
export function runTask(checks: readonly Check[], ctx: AnalysisContext, task: CheckTask): (readonly unknown[])[] {
  const check = checks[task.check];
  if (!check) throw new Error(`check task: no check #${task.check}`);
  if ('round' in task) {
    if (!isTwoRound(check)) throw new Error(`check task: ${check.rule} does not run in rounds`);
    return task.round === 1 ? check.firstRound(ctx, task.part) : task.items.map((item) => check.secondRound(ctx, item));
  }
  if (!task.part) return [check.run(ctx)];
  if (!isParted(check)) throw new Error(`check task: ${check.rule} does not run in parts`);
  return check.runPart(ctx, task.part);
}

/**
 * Every check's findings in check order, as analyze() gathers them (before
 * finishFindings), from tasks given to `run`: checks in parts (`parts` each) and
 * two-round checks' round 1 first, part 0 of every one, then part 1..., the long
 * ones so started first; whole checks after; each two-round check's round 2, an
 * item a task, as soon as its round 1 is in. Results are put back in item order,
 * whatever order the tasks finish in.
 */
export async function runChecks(checks: readonly Check[], parts: number, run: RunTask): Promise<ReportedFinding[]> {
  if (!Number.isInteger(parts) || parts < 1) throw new Error(`check tasks: parts must be a positive integer, not ${parts}`);
  const split = (check: number): CheckTask[] => Array.from({ length: parts }, (_, index) => ({ check, ...(isTwoRound(checks[check]!) ? { round: 1 as const } : {}), part: { index, count: parts } }));
  const inParts = checks.flatMap((c, i) => (isTwoRound(c) || (isParted(c) && parts > 1) ? [i] : []));
  const started = new Map<number, Promise<TaskResult>[]>();
  const start = (check: number, task: CheckTask) => started.set(check, [...(started.get(check) ?? []), run(task)]);
  for (let index = 0; index < parts; index++) for (const check of inParts) start(check, split(check)[index]!);
  checks.forEach((_, check) => inParts.includes(check) || start(check, { check }));
  const findingsOf = async (check: number): Promise<ReportedFinding[]> => {
    const c = checks[check]!;
    const results = await Promise.all(started.get(check)!);
    if (!inParts.includes(check)) return [...(results[0]![0] as ReportedFinding[])];
    const merged = mergeParts(results);
    if (!isTwoRound(c)) return merged as ReportedFinding[];
    const items = c.between(merged);
    const second = await Promise.all(items.map((item) => run({ check, round: 2, items: [item] })));
    return second.flatMap((r) => r[0] as ReportedFinding[]);
  };
  return (await Promise.all(checks.map((_, check) => findingsOf(check)))).flat();
}
