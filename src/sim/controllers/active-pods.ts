// The ReplicaSet scale-down victim order (controller.ActivePodsWithRanks), over
// what berth's pod model carries. Container restart counts are not modelled, so
// that criterion never separates two pods. Times are compared at whole seconds, as
// upstream's metav1.Time carries them (the simulation starts on a whole second).
// The sort is Go's pdqsort, as upstream's sort.Sort, so equal pods keep upstream's
// order too; upstream's order of equal pods is its informer's map order, and pods
// whose times fall in the same log2 bucket are ordered by their random UIDs, so
// either is a random pick there: a VictimGuide may choose instead.

import { changedPod, type Pod } from '../../model/pod.js';
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

/** The base-2 log bucket of an age in nanoseconds; -1 for an age that is not positive. */
function ageBucket(t: number, now: number): number {
  const d = (now - t) * 1e6;
  return d > 0 ? Math.trunc(Math.log2(d)) : -1;
}

function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  return ageBucket(t1, now) - ageBucket(t2, now);
}

/**
 * Whether the two times share an age bucket at some moment from `now` to `now + slackMs`.
 * It is enough to look at `now` and at each moment the younger one's bucket grows: the
 * older one's bucket is never smaller.
 */
function bucketsMeet(t1: number, t2: number, now: number, slackMs: number): boolean {
  const younger = Math.max(t1, t2);
  const older = Math.min(t1, t2);
  for (let at = now; at <= now + slackMs; ) {
    if (ageBucket(older, at) === ageBucket(younger, at)) return true;
    const next = younger + 2 ** (ageBucket(younger, at) + 1) / 1e6;
    at = Math.max(Math.ceil(next), at + 1);
  }
  return false;
}

/**
 * How much later than the simulator's instant upstream's ReplicaSet controller may rank a
 * scale-down (its sync follows the Deployment's update and a watch event): two times whose
 * age buckets meet within it are ordered by UID there, as far as a VictimGuide is concerned.
 */
export const RANKING_LAG_MS = 1000;

/** metav1.Time as stored: whole seconds. */
const wholeSecond = (t: number) => Math.floor(t / 1000) * 1000;

/**
 * `byUid` false: pods upstream orders by UID (random) are equal, as are pods it keeps in list
 * order; with `slackMs`, also times whose age buckets meet within it after `now`.
 */
export function lessActivePod(a: RankedPod, b: RankedPod, now: number, byUid = true, slackMs = 0): boolean {
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
  const byAge = (t1: number, t2: number) => {
    const diff = logarithmicRankDiff(t1, t2, now);
    if (diff === 0 || (!byUid && slackMs > 0 && bucketsMeet(t1, t2, now, slackMs))) return byUid && pa.uid < pb.uid;
    return diff < 0;
  };
  if (a.readySince !== undefined && b.readySince !== undefined && wholeSecond(a.readySince) !== wholeSecond(b.readySince)) return byAge(wholeSecond(a.readySince), wholeSecond(b.readySince));
  if (wholeSecond(pa.creation) !== wholeSecond(pb.creation)) return byAge(wholeSecond(pa.creation), wholeSecond(pb.creation));
  return false;
}

/**
 * Picks `count` of `tied`: pods upstream may delete in any order (see above), the
 * ones the sorted order would delete first. Returns undefined to keep those.
 */
export type VictimGuide = (tied: readonly Pod[], count: number) => readonly Pod[] | undefined;

/**
 * The ranking race: the ReplicaSet controller ranks by related pods on the same node as its
 * informer has them, and kube-scheduler may have bound some of the related pods created just
 * before (a rollout's new pods, created by the same worker's previous sync) or not yet. The
 * guide is offered the related pods not bound yet (in creation order) and `victimsWith`, the
 * victims with the first of them counted on the given nodes; it returns the victims to take,
 * or undefined for the simulator's own (none of them bound).
 */
export type RankingRaceGuide = (unbound: readonly Pod[], own: readonly Pod[], victimsWith: (nodes: readonly string[]) => Pod[]) => readonly Pod[] | undefined;

/** getPodsRankedByRelatedPodsOnSameNode + sort: the first `count` are the ones to delete. */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, readySince: (key: string) => number | undefined, now: number, guide?: VictimGuide, rankingRace?: RankingRaceGuide): Pod[] {
  if (count >= pods.length) return [...pods];
  const unbound = rankingRace ? related.filter((p) => !p.nodeName && !p.terminating) : [];
  if (unbound.length > 0) {
    const own = podsToDelete(pods, related, count, readySince, now, guide);
    const victimsWith = (nodes: readonly string[]) => podsToDelete(pods, related.map((p) => { const i = unbound.indexOf(p); return i >= 0 && i < nodes.length ? changedPod(p, { nodeName: nodes[i]! }) : p; }), count, readySince, now, guide);
    const chosen = rankingRace!(unbound, own, victimsWith);
    return chosen && chosen.length === count && chosen.every((p) => pods.includes(p)) ? [...chosen] : own;
  }
  const onNode = new Map<string, number>();
  for (const p of related) if (!p.terminating) onNode.set(p.nodeName, (onNode.get(p.nodeName) ?? 0) + 1);
  const ranked: RankedPod[] = pods.map((pod) => ({ pod, rank: onNode.get(pod.nodeName) ?? 0, readySince: readySince(pod.key) }));
  goSortSlice(ranked, (a, b) => lessActivePod(a, b, now));
  const victims = ranked.slice(0, count);
  if (!guide || count === 0) return victims.map((r) => r.pod);
  // The pods upstream could delete instead of the last victim, and how many of them go.
  const last = victims[count - 1]!;
  const tied = ranked.filter((r) => !lessActivePod(r, last, now, false, RANKING_LAG_MS) && !lessActivePod(last, r, now, false, RANKING_LAG_MS));
  const k = victims.filter((r) => tied.includes(r)).length;
  if (k === tied.length) return victims.map((r) => r.pod);
  const chosen = guide(tied.map((r) => r.pod), k);
  if (!chosen || chosen.length !== k || !chosen.every((p) => tied.some((r) => r.pod === p))) return victims.map((r) => r.pod);
  return [...victims.filter((r) => !tied.includes(r)).map((r) => r.pod), ...chosen];
}
