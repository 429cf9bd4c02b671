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

/** A real run's result: its observation, or an infrastructure failure (it could not finish: a phase that never settled, an API error), with nothing to judge. */
export type RealRun<T> = { readonly observation: T } | { readonly infrastructureFailure: string };

/**
 * Runs the real side up to `attempts` times while it fails, calling `recover` (a cluster
 * restart) between tries. Only a run that finished is ever judged, so an overloaded
 * machine's stalled controllers show as infrastructure failures, never as disagreements.
 */
export async function realRunWithRetries<T>(attempts: number, run: () => Promise<T>, recover: (error: string, attempt: number) => Promise<void>): Promise<RealRun<T>> {
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return { observation: await run() };
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
      if (attempt < attempts) await recover(last, attempt);
    }
  }
  return { infrastructureFailure: last };
}
