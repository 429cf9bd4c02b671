// --real-runs: a scenario the simulator disagrees with is run on the real cluster
// again. Where upstream races (a binding against a controller's scale-down, say),
// one real run shows only one of the outcomes the control plane can produce; a later
// run that agrees shows the simulator's outcome is one of them.

import type { Verdict } from './judge.js';

/** The number (2…runs) of the first further real run that agrees, or undefined when none of them does. `again` runs the real side once more and judges it. */
export async function laterAgreement(runs: number, again: () => Promise<Verdict>, onDisagreement?: (v: Verdict, run: number) => void): Promise<number | undefined> {
  for (let run = 2; run <= runs; run++) {
    const v = await again();
    if (v.agrees) return run;
    onDisagreement?.(v, run);
  }
  return undefined;
}
