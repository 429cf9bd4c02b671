// The ReplicaSet scale-down victim order (controller.ActivePodsWithRanks), over
// what berth's pod model carries. Container restart counts are not modelled, so
// that criterion never separates two pods. The sort is Go's pdqsort, as
// upstream's sort.Sort, so equal pods keep upstream's order too.

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

export function lessActivePod(a: RankedPod, b: RankedPod, now: number): boolean {
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
  if (a.readySince !== undefined && b.readySince !== undefined && a.readySince !== b.readySince) {
    const diff = logarithmicRankDiff(a.readySince, b.readySince, now);
    if (diff === 0) return pa.uid < pb.uid;
    return diff < 0;
  }
  if (pa.creation !== pb.creation) {
    const diff = logarithmicRankDiff(pa.creation, pb.creation, now);
    if (diff === 0) return pa.uid < pb.uid;
    return diff < 0;
  }
  return false;
}

/** getPodsRankedByRelatedPodsOnSameNode + sort: the first `count` are the ones to delete. */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, readySince: (key: string) => number | undefined, now: number): Pod[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const p of related) if (!p.terminating) onNode.set(p.nodeName, (onNode.get(p.nodeName) ?? 0) + 1);
  const ranked: RankedPod[] = pods.map((pod) => ({ pod, rank: onNode.get(pod.nodeName) ?? 0, readySince: readySince(pod.key) }));
  goSortSlice(ranked, (a, b) => lessActivePod(a, b, now));
  return ranked.slice(0, count).map((r) => r.pod);
}
