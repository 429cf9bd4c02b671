// A pod's priority as the Priority admission plugin sets it when the pod is created:
// from its PriorityClass, or from the global default class when it names none.
//
// Two leniencies for input that was never admitted or comes from a dump:
// - a pod that names no class keeps the spec.priority / preemptionPolicy it was
//   written with (the API server would reject a value that differs from the default);
// - a pod that names a class missing from the input but already carries
//   spec.priority (as every pod read back from a cluster does) keeps that priority,
//   with a warning, instead of being rejected.
// A pod naming a missing class without spec.priority is rejected, as the API server
// rejects it, unless `allowMissing`: then it is admitted as if it named no class.

import type { FieldPath } from '../model/errors.js';
import type { PodSpecManifest } from '../model/manifest.js';
import type { PodContext } from '../model/pod.js';
import type { PriorityResolver } from '../model/priority.js';

export interface PriorityProblem {
  readonly severity: 'error' | 'warning';
  readonly path: FieldPath;
  readonly message: string;
}

export interface AdmittedPriority {
  /** The spec to compile: priorityClassName set to the global default when the pod named no class. */
  readonly spec: PodSpecManifest;
  readonly context: Pick<PodContext, 'resolvedPriority' | 'resolvedPreemptionPolicy'>;
  readonly problems: readonly PriorityProblem[];
}

export function admitPriority(spec: PodSpecManifest, resolver: PriorityResolver, allowMissing = false): AdmittedPriority {
  const className = spec.priorityClassName ?? '';
  const resolved = resolver.resolve(className);
  if (className !== '' && !resolved && spec.priority === undefined && allowMissing) {
    const fallback = resolver.resolve('');
    const message = `PriorityClass ${JSON.stringify(className)} is not in the input; the pod gets ${fallback ? `the global default ${fallback.name} (${fallback.value})` : 'priority 0'} as if it named none (--allow-missing)`;
    const { priorityClassName: _, ...rest } = spec;
    const admitted = admitPriority(rest, resolver);
    return { ...admitted, problems: [{ severity: 'warning', path: ['spec', 'priorityClassName'], message }] };
  }
  if (className === '') {
    if (!resolved) return { spec, context: {}, problems: [] };
    return {
      spec: { ...spec, priorityClassName: resolved.name },
      context: { resolvedPriority: resolved.value, resolvedPreemptionPolicy: resolved.preemptionPolicy },
      problems: [],
    };
  }
  if (!resolved) {
    if (spec.priority !== undefined) {
      const message = `PriorityClass ${JSON.stringify(className)} is not in the input; keeping spec.priority ${spec.priority}`;
      return { spec, context: {}, problems: [{ severity: 'warning', path: ['spec', 'priorityClassName'], message }] };
    }
    return { spec, context: {}, problems: [{ severity: 'error', path: ['spec', 'priorityClassName'], message: `Not found: no PriorityClass with name ${className} was found (add it to the input, or pass --allow-missing to give the pod the priority of one naming none)` }] };
  }
  const problems: PriorityProblem[] = [];
  if (spec.priority !== undefined && spec.priority !== resolved.value) {
    problems.push({
      severity: 'error',
      path: ['spec', 'priority'],
      message: `Forbidden: the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${resolved.value} from the given PriorityClass name`,
    });
  }
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== resolved.preemptionPolicy) {
    problems.push({
      severity: 'error',
      path: ['spec', 'preemptionPolicy'],
      message: `Forbidden: the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${resolved.preemptionPolicy} from the given PriorityClass name`,
    });
  }
  return { spec, context: { resolvedPriority: resolved.value, resolvedPreemptionPolicy: resolved.preemptionPolicy }, problems };
}
