// RemoveDuplicates: pods of one owner (same controller, same images) stacked on
// a node while other nodes could run them. As upstream, each node may keep
// ceil(pods / nodes that could host them); the rest are evicted, lowest
// priority first. berth accepts a move only when the destination ends up with
// no more of them than the source keeps, so the spread strictly improves and a
// pod never bounces back and forth.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { Pod } from '../../model/pod.js';
import { nodeCouldHost, type EvictionPlanner } from './planner.js';
import type { StrategyArgs } from './policy.js';

/** namespace/Kind/name of the pod's controller plus its sorted images; undefined without an owner or for an excluded kind. */
export function duplicateKey(pod: Pod, excludeOwnerKinds: readonly string[] = []): string | undefined {
  const owner = pod.ownerReferences.find((o) => o.controller) ?? pod.ownerReferences[0];
  if (!owner || pod.ownerReferences.some((o) => excludeOwnerKinds.includes(o.kind))) return undefined;
  return `${pod.namespace}/${owner.kind}/${owner.name} [${[...pod.images].sort().join(',')}]`;
}

function countOn(info: NodeInfo, key: string, exclude: readonly string[]): number {
  return info.pods.filter((p) => !p.terminating && duplicateKey(p, exclude) === key).length;
}

export function removeDuplicates(planner: EvictionPlanner, args: StrategyArgs['RemoveDuplicates']): void {
  const { cluster } = planner;
  const exclude = args.excludeOwnerKinds ?? [];
  const groups = new Map<string, Pod[]>();
  for (const info of cluster.nodeInfos()) {
    for (const pod of planner.candidates(info.pods, args.namespaces)) {
      const key = duplicateKey(pod, exclude);
      if (key === undefined) continue;
      const list = groups.get(key) ?? [];
      list.push(pod);
      groups.set(key, list);
    }
  }
  for (const key of [...groups.keys()].sort()) {
    const pods = groups.get(key)!;
    const targets = cluster.nodeInfos().filter((i) => nodeCouldHost(pods[0]!, i.node)).length;
    if (pods.length < 2 || targets < 2) continue;
    const upperAvg = Math.ceil(pods.length / targets);
    for (const info of cluster.nodeInfos()) {
      // In eviction order: the highest-priority pods are the ones kept.
      const here = pods.filter((p) => p.nodeName === info.node.name);
      if (here.length <= upperAvg) continue;
      const reason = `${here.length} pods of ${key} share node ${info.node.name}; ${targets} nodes could host them, at most ${upperAvg} per node`;
      for (const pod of here.slice(0, here.length - upperAvg)) {
        if (!planner.stillOn(pod, info.node.name)) continue;
        planner.tryMove(pod, 'RemoveDuplicates', reason, (dest) => {
          const there = countOn(dest, key, exclude);
          const left = countOn(info, key, exclude);
          return there + 1 <= left ? undefined : `it would hold ${there + 1} of them while ${info.node.name} keeps ${left}`;
        });
      }
    }
  }
}

