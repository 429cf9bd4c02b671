// RemoveDuplicates: pods of one owner with the same images stacked on a node
// while other nodes could run them. As upstream: on each node, a pod whose
// owner references and images repeat an earlier pod's is a duplicate; the
// owner's pods (all of them, on every node) divided by the nodes its duplicates
// could land on (the union, over the duplicates' tolerations, node selectors and
// required node affinity, of the nodes admitting each, counted when more than
// one does) gives how many each node may keep, rounded up; the rest of the
// duplicates go. With predictPlacement berth accepts a move only when the
// destination ends up with no more of them than the source keeps.

import type { NodeInfo } from '../../cluster/node-info.js';
import { matchesRequiredNodeAffinity, type Pod } from '../../model/pod.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../../model/taints.js';
import type { EvictionPlanner } from './planner.js';
import type { StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'RemoveDuplicates';

/** One key per (owner, image set): namespace/Kind/name [images]. */
function ownerKeys(pod: Pod): string[] {
  const images = [...pod.images].sort().join(',');
  return pod.ownerReferences.map((o) => `${pod.namespace}/${o.kind}/${o.name} [${images}]`);
}

/** The sorted namespace/Kind/name/image list two pods on a node must share to be duplicates; undefined when the pod takes no part. */
function identity(pod: Pod, exclude: readonly string[]): string | undefined {
  if (pod.ownerReferences.length === 0 || pod.ownerReferences.some((o) => exclude.includes(o.kind))) return undefined;
  const keys = pod.ownerReferences.flatMap((o) => pod.images.map((img) => `${pod.namespace}/${o.kind}/${o.name}/${img}`));
  return keys.sort().join('\n');
}

function admits(pod: Pod, info: NodeInfo): boolean {
  return findUntoleratedTaint(info.node.taints, pod.tolerations, doNotScheduleTaints) === undefined && matchesRequiredNodeAffinity(pod, info.node);
}

export function removeDuplicates(planner: EvictionPlanner, args: StrategyArgs['RemoveDuplicates']): void {
  const exclude = args.excludeOwnerKinds ?? [];
  const nodes = planner.nodes();
  const occurrences = new Map<string, number>();
  /** owner key → node → duplicates there (the first pod of each identity, the reference, left out). */
  const duplicates = new Map<string, Map<string, Pod[]>>();
  for (const info of nodes) {
    const seen = new Set<string>();
    const pods = planner.podsOn(info).filter((p) => planner.candidates([p], args.namespaces).length === 1 && planner.preEvictable(p));
    for (const pod of pods) {
      const id = identity(pod, exclude);
      if (id === undefined) continue;
      const keys = ownerKeys(pod);
      for (const k of keys) occurrences.set(k, (occurrences.get(k) ?? 0) + 1);
      if (!seen.has(id)) {
        seen.add(id);
        continue;
      }
      for (const k of keys) {
        const byNode = duplicates.get(k) ?? new Map<string, Pod[]>();
        byNode.set(info.node.name, [...(byNode.get(info.node.name) ?? []), pod]);
        duplicates.set(k, byNode);
      }
    }
  }
  for (const key of [...duplicates.keys()].sort()) {
    const byNode = duplicates.get(key)!;
    const targets = new Set<string>();
    for (const pod of [...byNode.values()].flat()) {
      const admitting = nodes.filter((i) => admits(pod, i));
      if (admitting.length > 1) for (const i of admitting) targets.add(i.node.name);
    }
    if (targets.size < 2) continue;
    const upperAvg = Math.ceil(occurrences.get(key)! / targets.size);
    for (const [nodeName, dups] of byNode) {
      if (dups.length + 1 <= upperAvg) continue;
      const source = planner.cluster.nodeInfo(nodeName)!;
      const reason = `${dups.length + 1} pods of ${key} share node ${nodeName}; ${targets.size} nodes could host them, at most ${upperAvg} per node`;
      for (const pod of dups.slice(upperAvg - 1)) {
        if (!planner.stillOn(pod, nodeName)) continue;
        planner.tryMove(pod, NAME, reason, (dest) => {
          const there = countOn(dest, key);
          const left = countOn(source, key);
          return there + 1 <= left ? undefined : `it would hold ${there + 1} of them while ${nodeName} keeps ${left}`;
        });
      }
    }
  }
}

/** Pods of the owner key on the node, not terminating. */
function countOn(info: NodeInfo, key: string): number {
  return info.pods.filter((p) => !p.terminating && ownerKeys(p).includes(key)).length;
}
