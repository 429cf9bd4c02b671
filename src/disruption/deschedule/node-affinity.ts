// RemovePodsViolatingNodeAffinity: for requiredDuringSchedulingIgnoredDuringExecution,
// a pod with required node affinity whose node no longer matches it (or its
// nodeSelector) while some node it fits would; for preferredDuring…, a pod with
// preferred terms that some node it fits scores higher than its own. As upstream,
// a pod with a nodeSelector but no node affinity is left alone.

import type { Node } from '../../model/node.js';
import { matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import { fitsAnyNode } from './node-fit.js';
import type { EvictionPlanner } from './planner.js';
import type { StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'RemovePodsViolatingNodeAffinity';

/** Sum of the weights of the pod's preferred node-affinity terms the node matches. */
export function preferredScore(pod: Pod, node: Node): number {
  return pod.preferredNodeAffinity.reduce((sum, t) => (t.matches(node) ? sum + t.weight : sum), 0);
}

export function removePodsViolatingNodeAffinity(planner: EvictionPlanner, args: StrategyArgs['RemovePodsViolatingNodeAffinity']): void {
  const { cluster } = planner;
  const nodes = planner.nodes();
  for (const type of args.nodeAffinityType) {
    for (const info of nodes) {
      const node = info.node;
      const pods = planner.candidates(planner.podsOn(info), args.namespaces, args.labelSelector).filter((p) => planner.preEvictable(p));
      for (const pod of pods) {
        if (!planner.stillOn(pod, node.name)) continue;
        if (type === 'requiredDuringSchedulingIgnoredDuringExecution') {
          // predictPlacement also moves a pod that only has a nodeSelector, and lets the scheduler judge the fit.
          if (matchesRequiredNodeAffinity(pod, node) || (!planner.predict && (!pod.requiredNodeAffinity || !fitsAnyNode(cluster, pod, nodes, false)))) continue;
          planner.tryMove(pod, NAME, `node ${node.name} no longer matches the pod's required node affinity/selector`, (dest) => (matchesRequiredNodeAffinity(pod, dest.node) ? undefined : 'it does not match either'));
          continue;
        }
        if (pod.preferredNodeAffinity.length === 0 || (!planner.predict && !fitsAnyNode(cluster, pod, nodes, false))) continue;
        const here = preferredScore(pod, node);
        const best = Math.max(...nodes.map((o) => preferredScore(pod, o.node)));
        if (best <= here) continue;
        planner.tryMove(pod, NAME, `preferred node affinity scores ${here} on ${node.name}, another node scores ${best}`, (dest) => {
          const there = preferredScore(pod, dest.node);
          return there > here ? undefined : `preferred node affinity scores ${there}, no better than ${here}`;
        });
      }
    }
  }
}
