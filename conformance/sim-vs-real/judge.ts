// The verdict on one scenario: the real side's observation against the simulator
// replaying the real phase times.

import { compare, type Difference } from './observation.js';
import type { RealObservation } from './real-side.js';
import type { SvrScenario } from './scenario.js';
import { runSim } from './sim-side.js';

/**
 * Upstream filters nodes in parallel, so equally scored nodes reach its heap in an
 * order that varies from run to run. The simulator's own order (the heap over nodes
 * in filter order, what upstream does when the goroutines finish in order) is tried
 * first, then this many seeds of a uniform draw among the best nodes.
 */
export const RANDOM_TIE_SEEDS = 4;

export interface Verdict {
  /** 'heap', or 'random seed N': the simulator run that reproduced the real one; undefined when none did. */
  readonly agreedWith: string | undefined;
  /** The differences of the heap run when none agreed. */
  readonly differences: Difference[];
}

export function judge(s: SvrScenario, real: Pick<RealObservation, 'phases' | 'replicaSets' | 'timing'>): Verdict {
  const first = compare(real, runSim(s, 1, real.timing, 'heap'));
  if (first.length === 0) return { agreedWith: 'heap', differences: [] };
  for (let seed = 1; seed <= RANDOM_TIE_SEEDS; seed++) {
    if (compare(real, runSim(s, seed, real.timing, 'random')).length === 0) return { agreedWith: `random seed ${seed}`, differences: [] };
  }
  return { agreedWith: undefined, differences: first };
}
