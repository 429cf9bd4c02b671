// How far the checks scale each workload: to the maxReplicas of the
// HorizontalPodAutoscaler that targets it; others only when `berth check
// --scale-up F` asks, to F times their replicas (rounded up). A workload with
// neither is not scaled: nothing says it will grow.

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
export function scaleTargets(groups: readonly PodGroup[], hpas: readonly HorizontalPodAutoscaler[], factor?: number): ScaleTarget[] {
  return groups.flatMap((g): ScaleTarget[] => {
    if (!g.workload || g.kind === 'Pod') return [];
    const hpa = hpas.find((h) => h.namespace === g.namespace && h.target.kind === g.kind && h.target.name === g.name);
    if (hpa) return hpa.maxReplicas > g.replicas ? [{ group: g, kind: g.kind, replicas: hpa.maxReplicas, why: `HorizontalPodAutoscaler ${hpa.name} maxReplicas`, hpa }] : [];
    const replicas = factor === undefined ? g.replicas : Math.ceil(g.replicas * factor);
    return g.replicas >= 1 && replicas > g.replicas ? [{ group: g, kind: g.kind, replicas, why: `--scale-up ${factor} of its ${g.replicas} replicas` }] : [];
  });
}
