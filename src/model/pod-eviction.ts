// Which pods Karpenter moves when a node goes away (pkg/utils/pod, pkg/utils/pdb): shared
// by the provisioner (pods of nodes marked for deletion are planned again) and disruption.

import { DurationError, parseGoDuration } from './go-duration.js';
import type { PodDisruptionBudget } from './pdb.js';
import type { Pod } from './pod.js';
import { toleratesTaint, type Taint } from './taints.js';

export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
/** The taint Karpenter puts on a node it is disrupting, before it drains it. */
export const DISRUPTED_TAINT = { key: 'karpenter.sh/disrupted', value: '', effect: 'NoSchedule' } as const;

export function isDaemonSetPod(pod: Pod): boolean {
  return pod.ownerReferences.some((o) => o.controller && o.kind === 'DaemonSet');
}

/** A mirror pod: the API server's copy of a kubelet's static pod, owned by its Node; it lives and dies with the node. */
export function isNodeOwnedPod(pod: Pod): boolean {
  return pod.ownerReferences.some((o) => o.controller && o.kind === 'Node');
}

export function isTerminal(pod: Pod): boolean {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed';
}

export const isActive = (pod: Pod): boolean => !isTerminal(pod) && !pod.terminating;
const isStatefulSetPod = (pod: Pod): boolean => pod.ownerReferences.some((o) => o.controller && o.kind === 'StatefulSet');

/**
 * Pods that would have to be rescheduled if the node went away: active pods, and
 * terminating StatefulSet pods (their replacement waits for them to go, so Karpenter
 * makes room for it now); never DaemonSet or mirror pods.
 */
export function reschedulablePods(pods: Iterable<Pod>): Pod[] {
  return [...pods].filter((p) => (isActive(p) || (isStatefulSetPod(p) && p.terminating)) && !isDaemonSetPod(p) && !isNodeOwnedPod(p));
}

/**
 * Whether karpenter.sh/do-not-disrupt still protects the pod: "true" always; a positive
 * Go duration ("2m", "1h") until the pod has run that long since status.startTime (an
 * unknown start time protects it); any other value is ignored, as Karpenter does.
 */
export function isDoNotDisruptActive(pod: Pod, nowMs: number): boolean {
  const value = pod.annotations[DO_NOT_DISRUPT];
  if (value === undefined) return false;
  if (value === 'true') return true;
  let nanos: bigint;
  try {
    nanos = parseGoDuration(value);
  } catch (e) {
    if (e instanceof DurationError) return false;
    throw e;
  }
  if (nanos <= 0n) return false;
  return pod.startTime === undefined || nowMs - pod.startTime < Number(nanos / 1_000_000n);
}

/** A pod tolerating the disrupted taint is never evicted by Karpenter. */
const DISRUPTED_NO_SCHEDULE: Taint = DISRUPTED_TAINT;

/** Karpenter's IsEvictable: active, not a mirror pod, not tolerating the disrupted taint, not protected by do-not-disrupt. */
export function isEvictable(pod: Pod, nowMs: number): boolean {
  return isActive(pod) && !isNodeOwnedPod(pod) && !pod.tolerations.some((t) => toleratesTaint(t, DISRUPTED_NO_SCHEDULE)) && !isDoNotDisruptActive(pod, nowMs);
}

/** Whether a PDB blocks every eviction whatever the pods' health (maxUnavailable 0 or 0%, minAvailable 100%). */
function fullyBlocks(pdb: PodDisruptionBudget): boolean {
  return pdb.maxUnavailable === 0 || pdb.maxUnavailable === '0%' || pdb.minAvailable === '100%';
}

/**
 * Karpenter's IsCurrentlyReschedulable: a pod it makes room for when its node goes away —
 * reschedulable, not protected by do-not-disrupt, and not held by a PDB that blocks
 * every eviction (no capacity is launched for pods that stay).
 */
export function isCurrentlyReschedulable(pod: Pod, pdbs: readonly PodDisruptionBudget[], nowMs: number): boolean {
  return (
    reschedulablePods([pod]).length === 1 &&
    !isDoNotDisruptActive(pod, nowMs) &&
    !pdbs.some((pdb) => pdb.namespace === pod.namespace && pdb.selector.matches(pod.labels) && isEvictable(pod, nowMs) && fullyBlocks(pdb))
  );
}
