// Karpenter's treatment of soft constraints: a pod is first planned as if its
// preferences were required (preferred pod affinity/anti-affinity terms and
// ScheduleAnyway spread constraints), then relaxed one step at a time, in
// Karpenter's order, while it still fits nowhere. When some NodePool taints its
// nodes PreferNoSchedule, the last step tolerates those taints (Karpenter treats
// every taint of a new node as binding until then).

import { changedPod, type Pod, type WeightedPodAffinityTerm } from '../model/pod.js';
import type { Toleration } from '../model/taints.js';
import type { NodeSelectorTermSpec } from '../model/selector.js';

/** A pod as the planner tries it: the constraints to enforce, and how the node requirements are derived. */
export interface PodAttempt {
  /** The pod with preferences promoted to requirements (what the scheduling plugins check). */
  readonly pod: Pod;
  /** Required node affinity terms still considered (Karpenter tries the first, dropping terms while more remain). */
  readonly requiredTerms: readonly NodeSelectorTermSpec[];
  /** Preferred node affinity terms still considered, heaviest first (the heaviest is treated as required). */
  readonly preferredTerms: readonly { readonly weight: number; readonly preference: NodeSelectorTermSpec }[];
  /** What the last relaxation removed, for messages; '' for the first attempt. */
  readonly relaxed: string;
}

interface SoftState {
  readonly original: Pod;
  readonly requiredTerms: readonly NodeSelectorTermSpec[];
  readonly preferredTerms: readonly { readonly weight: number; readonly preference: NodeSelectorTermSpec }[];
  readonly preferredAffinity: readonly WeightedPodAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedPodAffinityTerm[];
  /** The pod's spread constraints as Karpenter's relaxation leaves them (it swaps the last into a removed slot). */
  readonly spread: readonly Pod['topologySpreadConstraints'][number][];
  /** Whether the last step, tolerating PreferNoSchedule taints, is still to come. */
  readonly preferNoSchedule: boolean;
  readonly tolerations: readonly Toleration[];
}

/**
 * Karpenter's preferencePolicy: Respect treats preferences as requirements first and
 * relaxes them; Ignore leaves them out from the start (only the required node affinity
 * terms and the PreferNoSchedule step remain to relax).
 */
export type PreferencePolicy = 'Respect' | 'Ignore';

/** The toleration Karpenter's last relaxation step adds (toleratePreferNoScheduleTaints). */
const TOLERATE_PREFER_NO_SCHEDULE: Toleration = { key: '', operator: 'Exists', value: '', effect: 'PreferNoSchedule' };

/** The tolerations with Karpenter's PreferNoSchedule toleration, or undefined when they already hold it. */
export function withPreferNoScheduleToleration(tolerations: readonly Toleration[]): readonly Toleration[] | undefined {
  if (tolerations.some((t) => t.key === '' && t.operator === 'Exists' && t.effect === 'PreferNoSchedule')) return undefined;
  return [...tolerations, TOLERATE_PREFER_NO_SCHEDULE];
}

const byWeightDesc = <T extends { weight: number }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => b.weight - a.weight);

function attemptOf(s: SoftState, relaxed: string): PodAttempt {
  const p = s.original;
  const spread = s.spread.map((c) => (c.whenUnsatisfiable === 'DoNotSchedule' ? c : { ...c, whenUnsatisfiable: 'DoNotSchedule' as const }));
  const pod = changedPod(p, {
    requiredAffinity: [...p.requiredAffinity, ...s.preferredAffinity.map((w) => w.term)],
    preferredAffinity: [],
    requiredAntiAffinity: [...p.requiredAntiAffinity, ...s.preferredAntiAffinity.map((w) => w.term)],
    preferredAntiAffinity: [],
    topologySpreadConstraints: spread,
    tolerations: s.tolerations,
  });
  return { pod, requiredTerms: s.requiredTerms, preferredTerms: s.preferredTerms, relaxed };
}

/** Removes one soft constraint in Karpenter's order; undefined when nothing is left to relax. */
function relaxOnce(s: SoftState): { state: SoftState; relaxed: string } | undefined {
  if (s.requiredTerms.length > 1) {
    return { state: { ...s, requiredTerms: s.requiredTerms.slice(1) }, relaxed: 'removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]' };
  }
  if (s.preferredAffinity.length > 0) {
    return { state: { ...s, preferredAffinity: s.preferredAffinity.slice(1) }, relaxed: 'removing: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]' };
  }
  if (s.preferredAntiAffinity.length > 0) {
    return { state: { ...s, preferredAntiAffinity: s.preferredAntiAffinity.slice(1) }, relaxed: 'removing: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]' };
  }
  if (s.preferredTerms.length > 0) {
    return { state: { ...s, preferredTerms: s.preferredTerms.slice(1) }, relaxed: 'removing: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]' };
  }
  const idx = s.spread.findIndex((c) => c.whenUnsatisfiable === 'ScheduleAnyway');
  if (idx >= 0) {
    const spread = [...s.spread];
    spread[idx] = spread[spread.length - 1]!;
    spread.pop();
    return { state: { ...s, spread }, relaxed: `removing: spec.topologySpreadConstraints[${idx}] (ScheduleAnyway)` };
  }
  if (s.preferNoSchedule) {
    // A pod that already tolerates every PreferNoSchedule taint this way has nothing left to relax.
    const tolerations = withPreferNoScheduleToleration(s.tolerations);
    if (!tolerations) return undefined;
    return { state: { ...s, preferNoSchedule: false, tolerations }, relaxed: 'adding: toleration for PreferNoSchedule taints' };
  }
  return undefined;
}

/**
 * Every attempt for a pod, strictest first, ending with only its hard constraints
 * (and, with `toleratePreferNoSchedule`, as Karpenter sets it when a NodePool has a
 * PreferNoSchedule taint, with those taints tolerated).
 */
export function podAttempts(pod: Pod, toleratePreferNoSchedule = false, policy: PreferencePolicy = 'Respect'): PodAttempt[] {
  const respect = policy === 'Respect';
  let state: SoftState = {
    original: pod,
    requiredTerms: pod.requiredNodeAffinity?.terms ?? [],
    preferredTerms: respect ? byWeightDesc(pod.preferredNodeAffinityTerms) : [],
    preferredAffinity: respect ? byWeightDesc(pod.preferredAffinity) : [],
    preferredAntiAffinity: respect ? byWeightDesc(pod.preferredAntiAffinity) : [],
    spread: respect ? pod.topologySpreadConstraints : pod.topologySpreadConstraints.filter((c) => c.whenUnsatisfiable === 'DoNotSchedule'),
    preferNoSchedule: toleratePreferNoSchedule,
    tolerations: pod.tolerations,
  };
  const out = [attemptOf(state, '')];
  for (let next = relaxOnce(state); next; next = relaxOnce(state)) {
    state = next.state;
    out.push(attemptOf(state, next.relaxed));
  }
  return out;
}
