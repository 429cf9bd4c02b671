// What `berth check` reports: one finding per problem, with the simulated steps
// that show it and the changes that would fix it. The JSON output is exactly
// these fields; `remedies` stay internal so the analyzer can re-check a fix.

import type { LoadedInput } from '../io/load.js';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  readonly severity: Severity;
  /** The check that found it, e.g. "rollout-deadlock". */
  readonly rule: string;
  /** Kind/namespace/name of the object at fault, e.g. "Deployment/kube-system/coredns". */
  readonly object: string;
  readonly message: string;
  /** Simulated steps (or observations) that demonstrate the problem, in order. */
  readonly evidence: readonly string[];
  /** Suggested changes, best first; each matches the remedy at the same index when there is one. */
  readonly fix: readonly string[];
  /** Machine-applicable forms of `fix`, so a suggested fix can be re-checked. */
  readonly remedies?: readonly Remedy[];
  /** Set when the finding is "every replica in one place" ("node n1"): findings of one workload that say the same are merged. */
  readonly stacking?: string;
}

/**
 * A finding as the reports read it: its fixes' descriptions and patches, without
 * what re-checks them (functions, which cannot leave the worker that proved them).
 */
export type ReportedFinding = Omit<Finding, 'remedies'> & { readonly remedies?: readonly Pick<Remedy, 'description' | 'patches'>[] };

/** The finding without its remedies' functions: what a worker thread sends back. */
export function reported(f: Finding): ReportedFinding {
  return f.remedies ? { ...f, remedies: f.remedies.map((r) => ({ description: r.description, ...(r.patches ? { patches: r.patches } : {}) })) } : f;
}

/**
 * A fix as the user applies it, to one object: a JSON merge patch (RFC 7386,
 * `kubectl patch --type merge -p`: objects merge, lists are replaced whole, null
 * removes a field), a new object to create, or an object to delete.
 */
export interface ObjectPatch {
  /** Kind/namespace/name, or Kind/name for cluster-scoped kinds. */
  readonly object: string;
  readonly type: 'merge' | 'create' | 'delete';
  /** The merge patch, or the whole object to create. */
  readonly patch?: unknown;
}

/** A change to the inputs that a fix describes; applying it and re-running the check must clear the finding. */
export interface Remedy {
  readonly description: string;
  apply(input: LoadedInput): LoadedInput;
  /** The change as patches to the written objects (absent when it cannot be written as one, e.g. a bare pod's spec). */
  readonly patches?: readonly ObjectPatch[];
  /** The remedies it combines (combine()), so a proven fix can be reduced part by part. */
  readonly parts?: readonly Remedy[];
  /** The same change made smaller (one node fewer...), when there is a smaller one. */
  shrink?(): Remedy | undefined;
}
