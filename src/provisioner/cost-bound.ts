// A lower bound on what new nodes for a set of pending pods can cost: the optimum of
// the linear-programming relaxation of the packing, which any plan, faithful or
// optimized, costs at least. Variables: y_o nodes of offer o (a NodePool's instance
// type in a zone at its cheapest capacity type), x_go pods of group g on offer o, both
// fractional. Rows: every group placed (Σ_o x_go = n_g); per offer and resource the
// pods' requests within y_o nodes' allocatable (after the pool's DaemonSets); for a group
// whose required hostname anti-affinity selects itself, at most one pod per node
// (x_go ≤ y_o). Dropped, so the bound stays a bound: zones, spread, limits, minValues.
// Offers another beats in price, size and the groups it takes are left out: a
// solution using one is matched at no more cost by its better. The engine builds the
// model; the caller passes the solver (the CLI loads HiGHS), so the engine stays pure.

import type { Pod } from '../model/pod.js';
import type { PoolTemplate } from './nodeclaim.js';
import { offerChecker, offersOf, selfConflicting, undominated } from './optimize-cost.js';
import { podRequirements } from './pod-requirements.js';

/** Solves a model in CPLEX LP format: the status and the objective's optimum. */
export interface LpSolver {
  readonly name: string;
  solve(lp: string): { status: string; objective: number };
}

export interface CostLowerBound {
  /** $/h; undefined when the solver found no optimum (then `status` says why). */
  readonly costPerHour?: number;
  readonly method: string;
  readonly status: string;
  readonly variables: number;
  readonly rows: number;
}

export function costLowerBound(pods: readonly Pod[], pools: readonly PoolTemplate[], solver: LpSolver): CostLowerBound {
  const model = lowerBoundModel(pods, pools);
  const method = `LP relaxation (${solver.name})`;
  if (model.lp === undefined) return { costPerHour: 0, method, status: 'Optimal', variables: 0, rows: 0 };
  const r = solver.solve(model.lp);
  // Rounded down to a tenth of a cent, so rounding never lifts it above the optimum.
  return { ...(r.status === 'Optimal' ? { costPerHour: Math.floor(r.objective * 1e4) / 1e4 } : {}), method, status: r.status, variables: model.variables, rows: model.rows };
}

/** The relaxation as CPLEX LP text (undefined with no pods). Resources are scaled to the largest allocatable, for the solver's numerics. */
export function lowerBoundModel(pods: readonly Pod[], pools: readonly PoolTemplate[]): { lp?: string; variables: number; rows: number } {
  if (pods.length === 0) return { variables: 0, rows: 0 };
  const dims = [...new Set(['cpu', 'memory', ...pods.flatMap((p) => Object.keys(p.resources.requests))])].filter((d) => d !== 'pods').concat('pods');
  const allOffers = offersOf(pools, dims);
  const allowed = offerChecker(allOffers);
  const groups = new Map<string, { n: number; req: number[]; offers: Set<number>; single: boolean }>();
  for (const pod of pods) {
    const reqs = podRequirements(pod);
    const req = dims.map((d) => (d === 'pods' ? 1 : (pod.resources.requests[d] ?? 0)));
    const single = selfConflicting(pod);
    const key = JSON.stringify([req, reqs.toString(), pod.tolerations, single ? [pod.namespace, pod.labels] : '']);
    const g = groups.get(key);
    if (g) g.n++;
    else groups.set(key, { n: 1, req, offers: new Set([...allowed(pod, reqs)].filter((o) => req.every((r, i) => r <= allOffers[o]!.alloc[i]!))), single });
  }
  const list = [...groups.values()];
  const kept = undominated(allOffers, list.map((g) => g.offers));
  const scale = dims.map((_, i) => Math.max(1, ...kept.map((o) => allOffers[o]!.alloc[i]!)));
  const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toPrecision(12));
  const objective = kept.map((o, j) => `${num(allOffers[o]!.price)} y${j}`);
  const rows: string[] = [];
  list.forEach((g, gi) => {
    const cols = kept.flatMap((o, j) => (g.offers.has(o) ? [`x${gi}_${j}`] : []));
    // A group no offer takes makes the model infeasible, which the solver reports.
    rows.push(`d${gi}: ${cols.length > 0 ? cols.join(' + ') : `0 y0`} = ${g.n}`);
  });
  kept.forEach((o, j) => {
    dims.forEach((_, r) => {
      const terms = list.flatMap((g, gi) => (g.offers.has(o) && g.req[r]! > 0 ? [`${num(g.req[r]! / scale[r]!)} x${gi}_${j}`] : []));
      if (terms.length > 0) rows.push(`c${j}_${r}: ${terms.join(' + ')} - ${num(allOffers[o]!.alloc[r]! / scale[r]!)} y${j} <= 0`);
    });
    list.forEach((g, gi) => {
      if (g.single && g.offers.has(o)) rows.push(`s${gi}_${j}: x${gi}_${j} - y${j} <= 0`);
    });
  });
  const variables = kept.length + list.reduce((s, g) => s + kept.filter((o) => g.offers.has(o)).length, 0);
  const lp = `Minimize\n obj: ${objective.join(' + ')}\nSubject To\n${rows.map((r) => ` ${r}`).join('\n')}\nEnd\n`;
  return { lp, variables, rows: rows.length };
}
