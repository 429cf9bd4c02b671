// Memoized per-node matching-pod counts. Every scheduling cycle asks each node how
// many of its pods match the incoming pod's spread selector; replicas of one
// workload ask the same question, so the answer is kept per node and question and
// brought up to date from the node's log of pods added and removed since (a pod or
// two, usually), instead of matching every pod on the node again. Over a cluster's
// own nodes, questions asked there are kept up to date by the cluster's
// MatchIndex (match-index.ts), which reads each pod change once for all of them.

import type { MatchCounts, NodeInfo } from '../../../cluster/node-info.js';
import { selectorKey, type Selector } from '../../../model/selector.js';
import { countMatchingPods, countsAsMatching } from './constraints.js';

/**
 * Each question (a selector in a namespace) gets a small number, the index of its
 * count in every node's arrays: an array read per scored node instead of a map
 * lookup. Numbers are handed out afresh (a new epoch, every node's counts dropped
 * when next read) once this many are in use, so old workloads' selectors cannot
 * pile up.
 */
const MAX_QUESTIONS = 1024;
const numbers = new Map<string, number>();
let epoch = 0;

/** The numbering in use: question numbers from another epoch mean nothing. */
export function questionEpoch(): number {
  return epoch;
}

/** A question as nodeMatchCount reads it: build once per cycle (each cycle builds its selector anew). */
export interface MatchQuery {
  readonly selector: Selector;
  readonly namespace: string;
  readonly key: string;
  /** Its number, valid in `epoch`. */
  index: number;
  epoch: number;
}

function numberOf(key: string): number {
  let n = numbers.get(key);
  if (n === undefined) {
    if (numbers.size >= MAX_QUESTIONS) {
      numbers.clear();
      epoch++;
    }
    numbers.set(key, (n = numbers.size));
  }
  return n;
}

export function matchQuery(selector: Selector, namespace: string): MatchQuery {
  const key = `${namespace}\x00${selectorKey(selector)}`;
  return { selector, namespace, key, index: numberOf(key), epoch };
}

/** The query's number in the current epoch (numbering it again when the epoch moved). */
export function questionNumber(q: MatchQuery): number {
  if (q.epoch !== epoch) {
    q.index = numberOf(q.key);
    q.epoch = epoch;
  }
  return q.index;
}

/** The node's count arrays, emptied when the numbering moved and long enough for question `i`. */
export function countSlots(kept: MatchCounts, i: number): MatchCounts {
  if (kept.epoch !== epoch) {
    kept.epoch = epoch;
    kept.counts.length = kept.positions.length = 0;
  }
  while (kept.positions.length <= i) {
    kept.positions.push(-1);
    kept.counts.push(0);
  }
  return kept;
}

/** countMatchingPods(info.pods, selector, namespace), kept up to date from the node's pod log. */
export function nodeMatchCount(info: NodeInfo, q: MatchQuery): number {
  const keeper = info.matchCounts.keeper;
  if (keeper !== null) {
    const n = keeper.keptCount(info, q.key);
    if (n !== undefined) return n;
  }
  const i = questionNumber(q);
  const kept = countSlots(info.matchCounts, i);
  const { selector, namespace } = q;
  const position = kept.positions[i]!;
  if (position >= info.podLogStart) {
    if (position !== info.podLogEnd) {
      let count = kept.counts[i]!;
      kept.positions[i] = info.readPodChanges(position, (pod, sign) => {
        if (countsAsMatching(pod, selector, namespace)) count += sign;
      });
      kept.counts[i] = count;
    }
    return kept.counts[i]!;
  }
  const count = countMatchingPods(info.pods, selector, namespace);
  kept.counts[i] = count;
  kept.positions[i] = info.readPodChanges(info.podLogEnd);
  return count;
}
