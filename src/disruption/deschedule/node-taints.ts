// RemovePodsViolatingNodeTaints: a pod that does not tolerate a NoSchedule
// taint of its node (added after it was placed); PreferNoSchedule too with
// includePreferNoSchedule. excludedTaints and includedTaints name taints by key
// or key=value. NoExecute taints are the taint manager's job, not this plugin's.

import { tolerationsTolerateTaint, type Taint } from '../../model/taints.js';
import { nodeCouldHost, type EvictionPlanner } from './planner.js';
import type { StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'RemovePodsViolatingNodeTaints';

function named(list: readonly string[], t: Taint): boolean {
  return list.includes(t.key) || (t.value !== '' && list.includes(`${t.key}=${t.value}`));
}

export function removePodsViolatingNodeTaints(planner: EvictionPlanner, args: StrategyArgs['RemovePodsViolatingNodeTaints']): void {
  const inScope = (t: Taint) =>
    (t.effect === 'NoSchedule' || (args.includePreferNoSchedule === true && t.effect === 'PreferNoSchedule')) &&
    !named(args.excludedTaints ?? [], t) &&
    (args.includedTaints === undefined || named(args.includedTaints, t));
  for (const info of planner.nodes()) {
    const pods = planner.candidates(planner.podsOn(info), args.namespaces, args.labelSelector).filter((p) => planner.preEvictable(p));
    for (const pod of pods) {
      const taint = info.node.taints.find((t) => inScope(t) && !tolerationsTolerateTaint(pod.tolerations, t));
      if (!taint || !planner.stillOn(pod, info.node.name)) continue;
      const reason = `node ${info.node.name} has taint ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}, which the pod does not tolerate`;
      planner.tryMove(pod, NAME, reason, (dest) => (nodeCouldHost(pod, dest.node) && !dest.node.taints.some((t) => inScope(t) && !tolerationsTolerateTaint(pod.tolerations, t)) ? undefined : 'it has a taint the pod does not tolerate'));
    }
  }
}
