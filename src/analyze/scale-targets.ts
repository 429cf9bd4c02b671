// How far the checks scale each workload: to the maxReplicas of the
// HorizontalPodAutoscaler that targets it, otherwise to twice its replicas.

import type { HorizontalPodAutoscaler } from '../model/hpa.js';
import type { ScalableKind } from '../io/scenario-spec.js';
import type { PodGroup } from './pod-groups.js';

export interface ScaleTarget {
  readonly group: PodGroup;
  readonly kind: ScalableKind;
  readonly replicas: number;
  /** Where the number comes from, for messages. */
  readonly why: string;
  readonly hpa?: HorizontalPodAutoscaler;
}

/** The scale-up target of each workload group that has a controller to scale and would grow. */
export function scaleTargets(groups: readonly PodGroup[], hpas: readonly HorizontalPodAutoscaler[]): ScaleTarget[] {
  return groups.flatMap((g): ScaleTarget[] => {
    if (!g.workload || g.kind === 'Pod') return [];
    const hpa = hpas.find((h) => h.namespace === g.namespace && h.target.kind === g.kind && h.target.name === g.name);
    if (hpa) return hpa.maxReplicas > g.replicas ? [{ group: g, kind: g.kind, replicas: hpa.maxReplicas, why: `HorizontalPodAutoscaler ${hpa.name} maxReplicas`, hpa }] : [];
    return g.replicas >= 1 ? [{ group: g, kind: g.kind, replicas: g.replicas * 2, why: `twice its ${g.replicas} replicas` }] : [];
  });
}
