// What the compile stages of loading share: the reporter, and pod priority
// admission against the PriorityClasses of the input.

import type { FieldPath } from '../model/errors.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { tolerationComparisonError } from '../model/pod.js';
import type { PriorityResolver } from '../model/priority.js';
import type { RawObject } from './objects.js';
import { admitPriority, type AdmittedPriority } from './pod-priority.js';
import type { Reporter } from './reporter.js';

export class LoadContext {
  constructor(
    readonly reporter: Reporter,
    private readonly resolver: PriorityResolver,
    /** False when a PriorityClass of the input failed to load: pods naming it would only repeat its error. */
    private readonly classesComplete: boolean,
    /** LoadOptions.allowMissing. */
    private readonly allowMissing = false,
    /** LoadOptions.tolerationComparisonOperators. */
    private readonly tolerationComparisonOperators = false,
    /** LoadOptions.podLevelResources. */
    private readonly podLevelResources = true,
  ) {}

  /**
   * A pod spec as the API server stores it: spec.resources dropped with PodLevelResources off
   * (dropDisabledPodLevelResources), with a warning at `at` (where the pod spec's parent sits).
   */
  storedPodSpec(spec: PodSpecManifest, at?: { raw: RawObject; prefix: FieldPath }): PodSpecManifest {
    if (this.podLevelResources || spec.resources == null) return spec;
    if (at) this.reporter.warn(at.raw, [...at.prefix, 'spec', 'resources'], 'dropped: pod-level resources count only with the PodLevelResources feature gate on');
    const { resources: _, ...rest } = spec;
    return rest;
  }

  /**
   * Admits a pod spec: spec.resources as PodLevelResources allows, its priority, and its Lt/Gt tolerations only when the gate allows them;
   * problems are reported at `prefix` (where the pod spec's parent sits in the object) unless `quiet`.
   */
  admit(raw: RawObject, spec: PodSpecManifest, prefix: FieldPath, quiet = false): AdmittedPriority {
    const admitted = admitPriority(this.storedPodSpec(spec, quiet ? undefined : { raw, prefix }), this.resolver, this.allowMissing);
    if (quiet) return admitted;
    const comparison = this.tolerationComparisonOperators ? undefined : tolerationComparisonError(spec.tolerations, [...prefix, 'spec', 'tolerations']);
    if (comparison) this.reporter.error(raw, comparison.path, comparison.message);
    for (const problem of admitted.problems) {
      const path = [...prefix, ...problem.path];
      if (problem.severity === 'warning') this.reporter.warn(raw, path, problem.message);
      else if (this.classesComplete || !problem.path.includes('priorityClassName')) this.reporter.error(raw, path, problem.message);
    }
    return admitted;
  }

  /** metadata.name, or undefined after reporting it missing. */
  requireName(p: { readonly raw: RawObject; readonly manifest: { readonly metadata: { readonly name?: string } } }): string | undefined {
    const name = p.manifest.metadata.name;
    if (!name) this.reporter.error(p.raw, ['metadata', 'name'], 'Required value: name or generateName is required');
    return name || undefined;
  }
}
