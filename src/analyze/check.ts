// The contract every check under analyze/checks/ implements: a pure function from
// the loaded workloads and cluster to findings. Checks simulate through sim/
// (never a wall clock or Math.random), so the same input and seed give the same
// findings.

import type { SchedulerConfig } from '../scheduler/profile.js';
import type { LoadedInput } from '../io/load.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import type { ScenarioDescheduler } from '../io/scenario-spec.js';
import type { Finding } from './finding.js';

export interface AnalysisContext {
  /** Workloads, nodes, pods, PDBs and NodePools, as `berth simulate` loads them. */
  readonly input: LoadedInput;
  /** The catalog the provisioner launches from (the bundled one unless --catalog). */
  readonly instanceTypes: readonly InstanceType[];
  /** Whether NodePools may launch capacity in the simulations (--provisioner on|off). */
  readonly provisioner: boolean;
  readonly seed: number;
  /** `--scale-up F`: scale workloads without an autoscaler to F × replicas in the scale-up checks (absent: only autoscaled ones). */
  readonly scaleUp?: number;
  /** The descheduler running in every simulation (check --descheduler-policy), as the cluster runs it. */
  readonly descheduler?: ScenarioDescheduler;
  /** kube-scheduler's feature gates and configuration in every simulation and plan (check --feature-gates). */
  readonly scheduler?: SchedulerConfig;
  /** In a worker of a pool: what the workers simulated that the others would simulate again. */
  readonly exchange?: ResultExchange;
}

/**
 * Results the workers of one pool give each other, by keys that name an input
 * relative to the one every worker checks (what-if.ts's `exchanged`): plain data
 * only. A key one worker set, another may not see yet; it then computes the value
 * itself, which is the same.
 */
export interface ResultExchange {
  /** The input and catalog every worker of the pool loaded from the same documents. */
  readonly input: LoadedInput;
  readonly instanceTypes: readonly InstanceType[];
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export interface Check {
  /** The rule name findings carry, e.g. "node-loss". */
  readonly rule: string;
  readonly description: string;
  run(ctx: AnalysisContext): Finding[];
}

/** One of `count` interleaved parts of a check's items: items index, index + count, ... */
export interface Part {
  readonly index: number;
  readonly count: number;
}

export const WHOLE: Part = { index: 0, count: 1 };

/**
 * A check whose findings come item by item (a workload, a group), each item's
 * independent of the others': `runPart` gives the findings of one part's items,
 * one list per item in order, so a worker pool can run the parts in parallel and
 * interleave them back (mergeParts) into exactly what `run` returns.
 */
export interface PartedCheck extends Check {
  runPart(ctx: AnalysisContext, part: Part): Finding[][];
}

/**
 * A PartedCheck from the list of its items and each item's findings. The items are
 * computed once per context (a worker running several parts of one check reuses
 * them): they may carry a shared simulation, e.g. every node loss at once.
 */
export function itemCheck<T>(def: { rule: string; description: string; items(ctx: AnalysisContext): readonly T[]; findings(ctx: AnalysisContext, item: T): Finding[] }): PartedCheck {
  const memo = new WeakMap<AnalysisContext, readonly T[]>();
  const itemsOf = (ctx: AnalysisContext, part: Part) => {
    // The whole check needs them once: not kept (loss checks' items hold simulations).
    if (part.count === 1) return def.items(ctx);
    let items = memo.get(ctx);
    if (!items) memo.set(ctx, (items = def.items(ctx)));
    return items;
  };
  const runPart = (ctx: AnalysisContext, part: Part): Finding[][] => {
    const items = itemsOf(ctx, part);
    const out: Finding[][] = [];
    for (let i = part.index; i < items.length; i += part.count) out.push(def.findings(ctx, items[i]!));
    return out;
  };
  return { rule: def.rule, description: def.description, runPart, run: (ctx) => runPart(ctx, WHOLE).flat() };
}

/** The findings of a check's `count` parts (each as runPart returned it), back in item order. */
export function mergeParts<F>(parts: readonly (readonly (readonly F[])[])[]): F[] {
  const out: F[] = [];
  for (let i = 0; ; i++) {
    const item = parts[i % parts.length]?.[Math.floor(i / parts.length)];
    if (!item) return out;
    out.push(...item);
  }
}

export const isParted = (c: Check): c is PartedCheck => 'runPart' in c;

/**
 * A check in two rounds, for a pool that must not repeat round 1 in every worker:
 * round 1's items (e.g. every loss simulation) each give a list of plain-data
 * records; every record, in item order, makes round 2's items (e.g. each group with
 * a problem, with its records), plain data too, whose findings come item by item
 * (e.g. re-simulating its fixes). Both rounds run in interleaved parts on any
 * worker; `run` is both rounds on one thread, with the same result.
 */
export interface TwoRoundCheck<R = unknown, I = unknown> extends Check {
  /** Round 1's records of one part's items: one list per item, in order. */
  firstRound(ctx: AnalysisContext, part: Part): R[][];
  /** Round 2's items from every record of round 1, in item order. */
  between(records: readonly R[]): I[];
  /** One round-2 item's findings. */
  secondRound(ctx: AnalysisContext, item: I): Finding[];
}

export function twoRoundCheck<R, I>(def: Omit<TwoRoundCheck<R, I>, 'run'>): TwoRoundCheck<R, I> {
  return { ...def, run: (ctx) => def.between(def.firstRound(ctx, WHOLE).flat()).flatMap((item) => def.secondRound(ctx, item)) };
}

export const isTwoRound = (c: Check): c is TwoRoundCheck => 'firstRound' in c;
