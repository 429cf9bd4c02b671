// The verdict on one scenario: the real side's observation against the simulator
// replaying the real phase times.

import { compare, type Difference } from './observation.js';
import type { RealObservation } from './real-side.js';
import type { SvrScenario } from './scenario.js';
import { runSim } from './sim-side.js';

export interface Verdict {
  /** Whether the simulator reproduced every compared dimension. */
  readonly agrees: boolean;
  /** Upstream-random choices (score ties, scale-down victims) the simulator made the real cluster's way where its own order differed. */
  readonly choicesFollowed: number;
  readonly differences: Difference[];
}

/** The simulator at the real phase times, breaking upstream's random ties (score ties, scale-down victims) as the real cluster did; a real run stored without its choices, the simulator's own way. */
export function judge(s: SvrScenario, real: Pick<RealObservation, 'phases' | 'replicaSets' | 'timing' | 'bindings' | 'deletions'>): Verdict {
  const sim = runSim(s, 1, real.timing, real);
  const differences = compare(real, sim);
  return { agrees: differences.length === 0, choicesFollowed: sim.choicesFollowed, differences };
}
