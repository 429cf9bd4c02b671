// Pod garbage collection for orphans: a pod bound to a node that no longer exists
// is force-deleted (no grace period: no kubelet is left to stop it). The collector
// runs every 20 s and waits a 40 s quarantine after it first sees the orphan, in
// case the node comes back. It deletes the orphans one API call after another
// (World.inTurn): the controllers replace each before the next goes.

import type { Pod } from '../model/pod.js';
import type { World } from './world.js';

export const POD_GC_PERIOD_MS = 20_000;
export const POD_GC_QUARANTINE_MS = 40_000;

export function startPodGc(world: World): void {
  const { engine, cluster } = world;
  world.onChange((c) => {
    if (c.kind !== 'nodeDeleted') return;
    const orphans: Pod[] = [...cluster.pods()].filter((p) => p.nodeName === c.node.name);
    if (orphans.length === 0) return;
    const firstSeen = (Math.floor(engine.now / POD_GC_PERIOD_MS) + 1) * POD_GC_PERIOD_MS;
    engine.at(firstSeen + POD_GC_QUARANTINE_MS, 'pod-gc', () => {
      if (cluster.nodeInfo(c.node.name)) return;
      world.inTurn(orphans, 'pod-gc-delete', (pod) => {
        if (cluster.getPod(pod.key)?.uid !== pod.uid) return;
        engine.record('PodDeleted', { pod: pod.key, reason: 'PodGCOrphaned', node: c.node.name });
        world.removePod(pod.key, 'PodGCOrphaned');
      });
    });
  });
}
