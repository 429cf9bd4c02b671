// RemovePodsViolatingNodeAffinity: a pod whose node no longer matches its
// required node affinity or nodeSelector (labels changed after it was placed),
// and, as an option, a pod whose preferred node affinity another node it could
// run on satisfies better.

import type { Node } from '../../model/node.js';
import { matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import { nodeCouldHost, type EvictionPlanner } from './planner.js';
import type { StrategyArgs } from './policy.js';

const NAME = 'RemovePodsViolatingNodeAffinity';

/** Sum of the weights of the pod's preferred node-affinity terms the node matches. */
export function preferredScore(pod: Pod, node: Node): number {
  return pod.preferredNodeAffinity.reduce((sum, t) => (t.matches(node) ? sum + t.weight : sum), 0);
}

export function removePodsViolatingNodeAffinity(planner: EvictionPlanner, args: StrategyArgs['RemovePodsViolatingNodeAffinity']): void {
  const { cluster } = planner;
  const required = args.nodeAffinityType.includes('requiredDuringSchedulingIgnoredDuringExecution');
  const preferred = args.nodeAffinityType.includes('preferredDuringSchedulingIgnoredDuringExecution');
  for (const info of cluster.nodeInfos()) {
    const node = info.node;
    for (const pod of planner.candidates(info.pods, args.namespaces)) {
      if (!planner.stillOn(pod, node.name)) continue;
      if (required && !matchesRequiredNodeAffinity(pod, node)) {
        planner.tryMove(pod, NAME, `node ${node.name} no longer matches the pod's required node affinity/selector`, (dest) =>
          matchesRequiredNodeAffinity(pod, dest.node) ? undefined : 'it does not match either',
        );
        continue;
      }
      if (!preferred || pod.preferredNodeAffinity.length === 0) continue;
      const here = preferredScore(pod, node);
      const best = Math.max(here, ...cluster.nodeInfos().filter((o) => o.node.name !== node.name && nodeCouldHost(pod, o.node)).map((o) => preferredScore(pod, o.node)));
      if (best <= here) continue;
      planner.tryMove(pod, NAME, `preferred node affinity scores ${here} on ${node.name}, another node scores ${best}`, (dest) => {
        const there = preferredScore(pod, dest.node);
        return there > here ? undefined : `preferred node affinity scores ${there}, no better than ${here}`;
      });
    }
  }
}
