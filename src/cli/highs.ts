// The LP solver behind `--optimize cost`'s lower bound: HiGHS (University of Edinburgh's
// linear/MIP solver) compiled to WebAssembly by the `highs` package. Loaded only when
// asked for; the engine receives it as an LpSolver.

import type { LpSolver } from '../provisioner/cost-bound.js';

export async function loadHighsSolver(): Promise<LpSolver> {
  const mod = await import('highs');
  // The package's types are CommonJS-shaped (module.exports as default); its ESM build exports the loader as default.
  const loadHighs = mod.default as unknown as (typeof mod.default)['default'];
  const highs = await loadHighs();
  return {
    name: 'HiGHS 1.15 (highs-js)',
    solve(lp) {
      const r = highs.solve(lp, { output_flag: false });
      return { status: r.Status, objective: r.ObjectiveValue };
    },
  };
}
