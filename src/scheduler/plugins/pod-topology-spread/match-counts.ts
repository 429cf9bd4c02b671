// Memoized per-node matching-pod counts. Every scheduling cycle asks each node how
// many of its pods match the incoming pod's spread selector; replicas of one
// workload ask the same question, so the answer is kept per node and question and
// brought up to date from the node's log of pods added and removed since (a pod or
// two, usually), instead of matching every pod on the node again.

import type { NodeInfo } from '../../../cluster/node-info.js';
import { selectorKey, type Selector } from '../../../model/selector.js';
import { countMatchingPods, countsAsMatching } from './constraints.js';

/**
 * Past this many questions kept for one node, the counts the node's log no longer
 * reaches are dropped, and all of them if that is not enough (old workloads'
 * selectors would pile up). Well above the workloads one node usually serves.
 */
const MAX_QUERIES_PER_NODE = 512;

/**
 * One string per question, so that the per-node lookups compare keys by identity
 * rather than character by character (each cycle builds its selector anew).
 */
const interned = new Map<string, string>();
const MAX_INTERNED = 4096;

/** What names a (selector, namespace) question in the per-node memo; compute once per cycle and pass to nodeMatchCount. */
export function matchQueryKey(selector: Selector, namespace: string): string {
  const key = `${namespace}\x00${selectorKey(selector)}`;
  const known = interned.get(key);
  if (known !== undefined) return known;
  if (interned.size >= MAX_INTERNED) interned.clear();
  interned.set(key, key);
  return key;
}

/** countMatchingPods(info.pods, selector, namespace), kept up to date from the node's pod log. */
export function nodeMatchCount(info: NodeInfo, selector: Selector, namespace: string, query = matchQueryKey(selector, namespace)): number {
  const counts = info.matchCounts;
  const kept = counts.get(query);
  if (kept !== undefined && kept.position >= info.podLogStart) {
    if (kept.position !== info.podLogEnd) {
      kept.position = info.readPodChanges(kept.position, (pod, sign) => {
        if (countsAsMatching(pod, selector, namespace)) kept.count += sign;
      });
    }
    return kept.count;
  }
  if (counts.size >= MAX_QUERIES_PER_NODE) {
    for (const [q, k] of counts) if (k.position < info.podLogStart) counts.delete(q);
    if (counts.size >= MAX_QUERIES_PER_NODE / 2) counts.clear();
  }
  const count = countMatchingPods(info.pods, selector, namespace);
  counts.set(query, { count, position: info.readPodChanges(info.podLogEnd) });
  return count;
}
