// How far the checks scale each workload: to its HorizontalPodAutoscaler's
// maxReplicas when one targets it, otherwise to twice its replicas.

import type { ScalableKind } from '../sim/scenario-spec.js';
import type { PodGroup } from './pod-groups.js';

export interface ScaleTarget {
  readonly group: PodGroup;
  readonly kind: ScalableKind;
  readonly replicas: number;
  /** Where the number comes from, for messages. */
  readonly why: string;
}

/** The scale-up target of each workload group that has a controller to scale (and at least one replica). */
export function scaleTargets(groups: readonly PodGroup[]): ScaleTarget[] {
  return groups.flatMap((g) => {
    if (!g.workload || g.kind === 'Pod' || g.replicas < 1) return [];
    return [{ group: g, kind: g.kind, replicas: g.replicas * 2, why: `twice its ${g.replicas} replicas` }];
  });
}
