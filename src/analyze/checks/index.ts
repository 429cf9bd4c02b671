// Every check `berth check` runs, in the order their rules are documented (docs/check.md).

import type { Check } from '../check.js';
import { coLocationCheck } from './co-location.js';
import { capacityLossCheck, nodeLossCheck, spotInterruptionCheck, zoneLossCheck } from './loss.js';
import { jobCompletion } from './jobs.js';
import { pdbCheck } from './pdb.js';
import { podsNotModelled } from './pods-not-modelled.js';
import { requiredVsPreferred } from './required-vs-preferred.js';
import { rolloutDeadlock } from './rollout-deadlock.js';
import { scaleUpCheck } from './scale-up.js';
import { stackedAfterRecovery } from './stacked-after-recovery.js';
import { unsatisfiableCheck } from './unsatisfiable.js';

export const ALL_CHECKS: readonly Check[] = [rolloutDeadlock, requiredVsPreferred, nodeLossCheck, zoneLossCheck, spotInterruptionCheck, capacityLossCheck, stackedAfterRecovery, coLocationCheck, scaleUpCheck, unsatisfiableCheck, pdbCheck, jobCompletion, podsNotModelled];
