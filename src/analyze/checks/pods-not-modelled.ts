// pods-not-modelled: one info finding per kind of object that creates pods berth
// does not simulate (unmodelled.ts), so a report is never silently blind to them.

import type { Check } from '../check.js';
import { byKind, unmodelledPodOwners } from '../unmodelled.js';

export const podsNotModelled: Check = {
  rule: 'pods-not-modelled',
  description: 'Objects that create pods berth does not simulate (operator custom resources): their pods are in no other check',
  run(ctx) {
    return [...byKind(unmodelledPodOwners(ctx.input))].map(([kind, names]) => ({
      severity: 'info' as const,
      rule: 'pods-not-modelled',
      object: kind,
      message: `pods created by ${kind} (${names.length}: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}) are not modelled: berth does not run its controller, so no check sees those pods (add them, e.g. from \`kubectl get pods -o yaml\`, to analyse them)`,
      evidence: names.map((n) => `${kind} ${n}: no pod of it in the input`),
      fix: [],
    }));
  },
};
