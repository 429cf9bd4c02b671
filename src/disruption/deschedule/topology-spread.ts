// RemovePodsViolatingTopologySpreadConstraint: a pod in a topology domain that
// holds more than maxSkew matching pods above the emptiest domain. Hard
// (DoNotSchedule) constraints by default; soft (ScheduleAnyway) ones when the
// `constraints` argument lists them. Domains are counted as PodTopologySpread
// counts them (node inclusion policies, minDomains). berth moves a pod only into
// a domain that then holds no more than the one it left, so every move shrinks
// the imbalance and none is undone by the next.

import type { ClusterState } from '../../cluster/state.js';
import type { Pod } from '../../model/pod.js';
import { constraintsFor, countMatchingPods, nodeIncluded, type SpreadConstraint } from '../../scheduler/plugins/pod-topology-spread/constraints.js';
import type { EvictionPlanner } from './planner.js';
import type { StrategyArgs } from './policy.js';

/** Matching pods per domain of the constraint's topology key, over the nodes the constraint counts for `pod`. */
export function domainCounts(cluster: ClusterState, pod: Pod, c: SpreadConstraint): Map<string, number> {
  const counts = new Map<string, number>();
  for (const info of cluster.nodeInfos()) {
    const value = info.node.labels[c.topologyKey];
    if (value === undefined || !nodeIncluded(c, pod, info.node)) continue;
    counts.set(value, (counts.get(value) ?? 0) + countMatchingPods(info.pods, c.selector, pod.namespace));
  }
  return counts;
}

/** The global minimum the skew is measured against: 0 while fewer domains than minDomains exist. */
function globalMin(counts: ReadonlyMap<string, number>, minDomains: number): number {
  return counts.size < minDomains ? 0 : Math.min(...counts.values());
}

export function removePodsViolatingTopologySpreadConstraint(planner: EvictionPlanner, args: StrategyArgs['RemovePodsViolatingTopologySpreadConstraint']): void {
  const { cluster } = planner;
  for (const info of cluster.nodeInfos()) {
    const node = info.node;
    for (const pod of planner.candidates(info.pods, args.namespaces)) {
      for (const kind of args.constraints) {
        const violated = constraintsFor(pod, kind, [], cluster).find((c) => {
          const counts = domainCounts(cluster, pod, c);
          const own = node.labels[c.topologyKey];
          return own !== undefined && (counts.get(own) ?? 0) - globalMin(counts, c.minDomains) > c.maxSkew;
        });
        if (!violated || !planner.stillOn(pod, node.name)) continue;
        const key = violated.topologyKey;
        const own = node.labels[key]!;
        const before = domainCounts(cluster, pod, violated);
        const reason = `${kind} topology spread on ${key}: ${own} holds ${before.get(own) ?? 0} matching pods, the minimum is ${globalMin(before, violated.minDomains)}, maxSkew ${violated.maxSkew}`;
        planner.tryMove(pod, 'RemovePodsViolatingTopologySpreadConstraint', reason, (dest) => {
          const target = dest.node.labels[key];
          if (target === undefined) return `it has no ${key} label`;
          const counts = domainCounts(cluster, pod, violated);
          const there = counts.get(target) ?? 0;
          const left = counts.get(own) ?? 0;
          return there + 1 <= left ? undefined : `domain ${target} would hold ${there + 1} while ${own} keeps ${left}`;
        });
        break;
      }
    }
  }
}
