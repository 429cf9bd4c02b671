// The taint eviction controller: a pod on a node with NoExecute taints is deleted
// at once when some taint is not tolerated, otherwise after the smallest
// tolerationSeconds among the tolerations that matched (a toleration without
// seconds tolerates forever). The timer starts when the controller sees the taint
// on the pod's node, and is cancelled when the taints go away.

import type { Node } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import { toleratesTaint, type Toleration } from '../model/taints.js';
import type { World } from './world.js';

/** ms until eviction: 0 = now, -1 = never (upstream's getMinTolerationTime over GetMatchingTolerations). */
export function evictionDelayMs(pod: Pod, node: Node): number {
  const taints = node.taints.filter((t) => t.effect === 'NoExecute');
  if (taints.length === 0) return -1;
  const used: Toleration[] = [];
  for (const taint of taints) {
    const match = pod.tolerations.find((t) => toleratesTaint(t, taint));
    if (!match) return 0;
    used.push(match);
  }
  let min = Infinity;
  for (const t of used) {
    if (t.tolerationSeconds === undefined) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Infinity ? -1 : min * 1000;
}

export class TaintEviction {
  /** pod key → the pending eviction (uid guards against a recreated pod of the same name). */
  private readonly scheduled = new Map<string, { uid: string; at: number }>();

  constructor(private readonly world: World) {}

  start(): void {
    this.world.onChange((c) => {
      if (c.kind === 'nodeUpdated') {
        for (const pod of this.world.deletionOrder([...(this.world.cluster.nodeInfo(c.node.name)?.pods ?? [])])) this.process(pod, c.node);
      } else if (c.kind === 'podUpdated' && c.pod.nodeName && !c.old.nodeName) {
        const node = this.world.cluster.nodeInfo(c.pod.nodeName)?.node;
        if (node) this.process(c.pod, node);
      } else if (c.kind === 'podDeleted') this.scheduled.delete(c.pod.key);
    });
  }

  private process(pod: Pod, node: Node): void {
    if (pod.terminating) return;
    const delay = evictionDelayMs(pod, node);
    if (delay < 0) {
      this.scheduled.delete(pod.key);
      return;
    }
    const { engine } = this.world;
    const existing = this.scheduled.get(pod.key);
    // An eviction already timed keeps its trigger on later taint updates, unless a taint is now not tolerated.
    if (existing && existing.uid === pod.uid && delay > 0) return;
    const entry = { uid: pod.uid, at: engine.now + delay };
    this.scheduled.set(pod.key, entry);
    engine.at(entry.at, 'taint-eviction', () => {
      if (this.scheduled.get(pod.key) !== entry) return;
      this.scheduled.delete(pod.key);
      const current = this.world.cluster.getPod(pod.key);
      if (!current || current.uid !== pod.uid || current.nodeName !== node.name) return;
      const now = this.world.cluster.nodeInfo(node.name)?.node;
      if (!now || evictionDelayMs(current, now) < 0) return;
      this.world.deletePod(pod.key, 'TaintManagerEviction');
    });
  }
}
