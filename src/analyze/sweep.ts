// `berth sweep`: the cells of a Sweep matrix, which of them a shard runs, and one
// cell's result. A cell is a parameter combination, a seed and one target of one
// scenario; it is simulated with the checks' own simulations (the baseline, and
// the failure models and verdicts of node-loss, zone-loss, spot-interruption and
// capacity-loss), so a sweep's answer for a node loss is the node-loss check's. Cells and shards are pure functions of the
// input and the matrix: any machine computes the same list, and shard i of n is
// every cell whose index is i modulo n (interleaved, so each shard gets a share of
// every scenario and parameter value).

import type { LoadedInput } from '../io/load.js';
import { axisSize, axisValue, type SweepAxis, type SweepSpec } from '../io/sweep-spec.js';
import { orderNodePools } from '../model/nodepool.js';
import type { ScenarioRun } from '../sim/scenario.js';
import type { AnalysisContext } from './check.js';
import { simulateLoss, type LossVerdict, type Scope } from './checks/loss.js';
import { baseline } from './what-if.js';

export interface SweepCell {
  readonly index: number;
  readonly scenario: 'baseline' | 'node-loss' | 'zone-loss' | 'spot-interruption' | 'capacity-loss';
  readonly target?: string;
  readonly seed: number;
  /** The value of each axis, by index. */
  readonly values: readonly number[];
}

export type CellVerdict = LossVerdict['severity'];

/** One line of the results (JSON): what the cell ran and what came of it. */
export interface CellResult {
  readonly cell: number;
  readonly scenario: SweepCell['scenario'];
  readonly target?: string;
  readonly seed: number;
  readonly parameters: Readonly<Record<string, number | string>>;
  /** The worst workload's verdict ("ok" when none has a problem; "warning" for a baseline with pods left pending). */
  readonly verdict: CellVerdict;
  /** False when the target runs no analysed replica, so there was nothing to simulate. */
  readonly simulated: boolean;
  readonly pendingAtEnd?: number;
  /** $/h of the capacity the simulated cloud launched, at the end. */
  readonly costPerHour?: number;
  readonly workloads?: readonly LossVerdict[];
}

/** Every cell in order: parameter combinations (first axis outermost), then seeds, scenarios and their targets. */
export function sweepCells(spec: SweepSpec): SweepCell[] {
  const combos = spec.axes.reduce<number[][]>((acc, axis) => acc.flatMap((c) => Array.from({ length: axisSize(axis) }, (_, i) => [...c, i])), [[]]);
  const out: SweepCell[] = [];
  for (const values of combos)
    for (const seed of spec.seeds)
      for (const s of spec.scenarios) {
        if (s.type === 'baseline') out.push({ index: out.length, scenario: s.type, seed, values });
        else for (const target of s.targets) out.push({ index: out.length, scenario: s.type, target, seed, values });
      }
  return out;
}

/** The cells shard `index` of `count` runs: those whose index is `index` modulo `count`. */
export function shardCells<C extends { readonly index: number }>(cells: readonly C[], index: number, count: number): C[] {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) throw new Error(`sweep shard: ${index}/${count} is not a shard (0 <= index < count)`);
  return cells.filter((c) => c.index % count === index);
}

/** The input with one axis value applied: a workload's replicas, or NodePools replaced (or added) by name. */
function applyAxis(input: LoadedInput, axis: SweepAxis, i: number): LoadedInput {
  if (axis.type === 'replicas') {
    // What `kubectl scale` changes: the simulated controllers then add or remove pods (loadSweep checked the workload exists).
    const replicas = axis.values[i]!;
    return { ...input, workloads: input.workloads.map((w) => (w.kind === axis.kind && w.key === axis.key ? { ...w, replicas } : w)) };
  }
  const pools = axis.variants[i]!.pools;
  const names = new Set(pools.map((p) => p.name));
  return { ...input, nodePools: orderNodePools([...input.nodePools.filter((p) => !names.has(p.name)), ...pools]) };
}

/**
 * Runs cells on `base` (its input is the matrix's input, its seed ignored). The
 * context of the last parameter combination and seed is kept, so cells that share
 * them (in order, most do) reuse its settled baseline and loss plan.
 */
export function sweepRunner(base: AnalysisContext, spec: SweepSpec): (cell: SweepCell) => CellResult {
  let last: { key: string; ctx: AnalysisContext } | undefined;
  const contextOf = (cell: SweepCell): AnalysisContext => {
    const key = JSON.stringify([cell.values, cell.seed]);
    if (last?.key !== key) {
      const input = spec.axes.reduce((acc, axis, a) => applyAxis(acc, axis, cell.values[a]!), base.input);
      last = { key, ctx: { ...base, input, seed: cell.seed } };
    }
    return last.ctx;
  };
  return (cell) => {
    const ctx = contextOf(cell);
    const head = {
      cell: cell.index,
      scenario: cell.scenario,
      ...(cell.target !== undefined ? { target: cell.target } : {}),
      seed: cell.seed,
      parameters: Object.fromEntries(spec.axes.map((a, i) => [a.label, axisValue(a, cell.values[i]!)])),
    };
    if (cell.scenario === 'baseline') {
      const run = baseline(ctx);
      return { ...head, verdict: run.final.pending.length > 0 ? 'warning' : 'ok', simulated: true, ...ending(run) };
    }
    const loss = simulateLoss(ctx, SCOPES[cell.scenario], cell.target!);
    if (!loss) return { ...head, verdict: 'ok', simulated: false };
    return { ...head, verdict: worst(loss.verdicts.map((v) => v.severity)), simulated: true, ...ending(loss.run), workloads: loss.verdicts };
  };
}

const SCOPES: Record<Exclude<SweepCell['scenario'], 'baseline'>, Scope> = { 'node-loss': 'node', 'zone-loss': 'zone', 'spot-interruption': 'spot', 'capacity-loss': 'capacity' };

const ending = (run: ScenarioRun) => ({ pendingAtEnd: run.final.pending.length, costPerHour: Math.round(run.final.costPerHour * 10_000) / 10_000 });

const RANK: readonly CellVerdict[] = ['ok', 'info', 'warning', 'error'];
const worst = (list: readonly CellVerdict[]): CellVerdict => list.reduce<CellVerdict>((w, v) => (RANK.indexOf(v) > RANK.indexOf(w) ? v : w), 'ok');

/** A row of the summary: the cells of one scenario under one parameter combination, over targets and seeds. */
export interface SummaryRow {
  readonly scenario: string;
  readonly parameters: string;
  readonly cells: number;
  readonly counts: Readonly<Record<CellVerdict, number>>;
  /** The first cell with the worst verdict: "target seed N". */
  readonly worst: string;
  /** The longest time a workload took to be whole again; null when one was not (within the horizon); undefined when nothing was lost. */
  readonly slowestRecoveryS: number | null | undefined;
  readonly maxCostPerHour: number | undefined;
}

/** Results (in cell order) summed up by scenario and parameter combination, rows in order of their first cell. */
export function summarize(results: readonly CellResult[]): SummaryRow[] {
  const rows = new Map<string, { scenario: string; parameters: string; list: CellResult[] }>();
  for (const r of results) {
    const parameters = Object.entries(r.parameters).map(([k, v]) => `${k}=${v}`).join(' ');
    const key = `${r.scenario}\u0000${parameters}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { scenario: r.scenario, parameters, list: [] }));
    row.list.push(r);
  }
  return [...rows.values()].map(({ scenario, parameters, list }) => {
    const counts = { ok: 0, info: 0, warning: 0, error: 0 };
    for (const r of list) counts[r.verdict]++;
    const verdict = worst(list.map((r) => r.verdict));
    const w = list.find((r) => r.verdict === verdict)!;
    const recoveries = list.flatMap((r) => (r.workloads ?? []).filter((v) => v.readyMin < v.readyBefore).map((v) => v.recoveredAfterS));
    const costs = list.flatMap((r) => (r.costPerHour !== undefined ? [r.costPerHour] : []));
    return {
      scenario,
      parameters,
      cells: list.length,
      counts,
      worst: `${verdict}${w.target !== undefined ? ` ${w.target}` : ''} seed ${w.seed}`,
      slowestRecoveryS: recoveries.length === 0 ? undefined : recoveries.includes(null) ? null : Math.max(...(recoveries as number[])),
      maxCostPerHour: costs.length === 0 ? undefined : Math.max(...costs),
    };
  });
}
