// Every check `berth check` runs, in the order their rules are documented (docs/check.md).

import type { Check } from '../check.js';
import { requiredVsPreferred } from './required-vs-preferred.js';
import { rolloutDeadlock } from './rollout-deadlock.js';

export const ALL_CHECKS: readonly Check[] = [rolloutDeadlock, requiredVsPreferred];
