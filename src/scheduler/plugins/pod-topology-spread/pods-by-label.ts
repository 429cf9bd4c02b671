// The pods on a cluster's nodes by label pair, kept from the pod changes the
// MatchIndex reads, so that a question asked for the first time counts only the
// pods carrying one of the values it requires (a new ReplicaSet's pod-template-hash:
// none yet) instead of every pod of the cluster.

import type { Pod } from '../../../model/pod.js';

const NONE: ReadonlyMap<string, Pod> = new Map();

export class PodsByLabel {
  /** Label key → value → pod key → the pod (the latest object seen under that key). */
  private readonly byPair = new Map<string, Map<string, Map<string, Pod>>>();

  add(pod: Pod): void {
    const labels = pod.labels;
    for (const key in labels) {
      let byValue = this.byPair.get(key);
      if (byValue === undefined) this.byPair.set(key, (byValue = new Map()));
      const value = labels[key]!;
      let pods = byValue.get(value);
      if (pods === undefined) byValue.set(value, (pods = new Map()));
      pods.set(pod.key, pod);
    }
  }

  /** Takes the pod off node `nodeName` (a pod under the same key on another node stays). */
  remove(pod: Pod, nodeName: string): void {
    const labels = pod.labels;
    for (const key in labels) {
      const pods = this.byPair.get(key)?.get(labels[key]!);
      if (pods !== undefined && pods.get(pod.key)?.nodeName === nodeName) pods.delete(pod.key);
    }
  }

  /** Takes off every pod of node `nodeName`. */
  removeNode(nodeName: string): void {
    for (const byValue of this.byPair.values()) for (const pods of byValue.values()) for (const [key, pod] of pods) if (pod.nodeName === nodeName) pods.delete(key);
  }

  /** The pods whose label `key` has `value`. */
  withLabel(key: string, value: string): ReadonlyMap<string, Pod> {
    return this.byPair.get(key)?.get(value) ?? NONE;
  }
}
