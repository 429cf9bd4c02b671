// The ReplicaSet scale-down victim order (controller.ActivePodsWithRanks), over
// what berth's pod model carries. Container restart counts are not modelled, so
// that criterion never separates two pods. Times are compared at whole seconds, as
// upstream's metav1.Time carries them (the simulation starts on a whole second).
// The sort is Go's pdqsort, as upstream's sort.Sort, so equal pods keep upstream's
// order too; upstream's order of equal pods is its informer's map order, and pods
// whose times fall in the same log2 bucket are ordered by their random UIDs, so
// either is a random pick there: a VictimGuide may choose instead.

import type { Pod } from '../../model/pod.js';
import { goSortSlice } from '../../scheduler/go-sort.js';

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

export interface RankedPod {
  readonly pod: Pod;
  /** Active related pods on the same node (more co-located goes first). */
  readonly rank: number;
  /** When the pod became ready; undefined when not ready. */
  readonly readySince: number | undefined;
}

/** GetDeletionCostFromPodAnnotations; an unparsable value counts as 0 here (upstream logs and uses 0 too). */
function deletionCost(pod: Pod): number {
  const v = pod.annotations[POD_DELETION_COST_ANNOTATION];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return 0;
  const n = Number(v);
  return n >= -2147483648 && n <= 2147483647 ? n : 0;
}

/** Base-2 log buckets of the ages in nanoseconds; -1 for an age that is not positive. */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const bucket = (t: number) => {
    const d = (now - t) * 1e6;
    return d > 0 ? Math.trunc(Math.log2(d)) : -1;
  };
  return bucket(t1) - bucket(t2);
}

/** metav1.Time as stored: whole seconds. */
const wholeSecond = (t: number) => Math.floor(t / 1000) * 1000;

/** `byUid` false: pods upstream orders by UID (random) are equal, as are pods it keeps in list order. */
export function lessActivePod(a: RankedPod, b: RankedPod, now: number, byUid = true): boolean {
  const pa = a.pod;
  const pb = b.pod;
  if (pa.nodeName !== pb.nodeName && (pa.nodeName === '' || pb.nodeName === '')) return pa.nodeName === '';
  const oa = PHASE_ORDINAL[pa.phase] ?? 0;
  const ob = PHASE_ORDINAL[pb.phase] ?? 0;
  if (oa !== ob) return oa < ob;
  const ra = a.readySince !== undefined;
  const rb = b.readySince !== undefined;
  if (ra !== rb) return !ra;
  const ca = deletionCost(pa);
  const cb = deletionCost(pb);
  if (ca !== cb) return ca < cb;
  if (a.rank !== b.rank) return a.rank > b.rank;
  if (a.readySince !== undefined && b.readySince !== undefined && wholeSecond(a.readySince) !== wholeSecond(b.readySince)) {
    const diff = logarithmicRankDiff(wholeSecond(a.readySince), wholeSecond(b.readySince), now);
    if (diff === 0) return byUid && pa.uid < pb.uid;
    return diff < 0;
  }
  if (wholeSecond(pa.creation) !== wholeSecond(pb.creation)) {
    const diff = logarithmicRankDiff(wholeSecond(pa.creation), wholeSecond(pb.creation), now);
    if (diff === 0) return byUid && pa.uid < pb.uid;
    return diff < 0;
  }
  return false;
}

/**
 * Picks `count` of `tied`: pods upstream may delete in any order (see above), the
 * ones the sorted order would delete first. Returns undefined to keep those.
 */
export type VictimGuide = (tied: readonly Pod[], count: number) => readonly Pod[] | undefined;

/** getPodsRankedByRelatedPodsOnSameNode + sort: the first `count` are the ones to delete. */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, readySince: (key: string) => number | undefined, now: number, guide?: VictimGuide): Pod[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const p of related) if (!p.terminating) onNode.set(p.nodeName, (onNode.get(p.nodeName) ?? 0) + 1);
  const ranked: RankedPod[] = pods.map((pod) => ({ pod, rank: onNode.get(pod.nodeName) ?? 0, readySince: readySince(pod.key) }));
  goSortSlice(ranked, (a, b) => lessActivePod(a, b, now));
  const victims = ranked.slice(0, count);
  if (!guide || count === 0) return victims.map((r) => r.pod);
  // The pods upstream could delete instead of the last victim, and how many of them go.
  const last = victims[count - 1]!;
  const tied = ranked.filter((r) => !lessActivePod(r, last, now, false) && !lessActivePod(last, r, now, false));
  const k = victims.filter((r) => tied.includes(r)).length;
  if (k === tied.length) return victims.map((r) => r.pod);
  const chosen = guide(tied.map((r) => r.pod), k);
  if (!chosen || chosen.length !== k || !chosen.every((p) => tied.some((r) => r.pod === p))) return victims.map((r) => r.pod);
  return [...victims.filter((r) => !tied.includes(r)).map((r) => r.pod), ...chosen];
}
