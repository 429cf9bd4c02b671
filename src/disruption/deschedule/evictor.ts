// The DefaultEvictor's filter (which pods a strategy may evict at all) and the
// order strategies try them in: lowest priority first, BestEffort before pods
// with requests, then by key so the order is stable.

import type { Pod } from '../../model/pod.js';
import { isDaemonSetPod } from '../candidates.js';
import type { EvictorArgs } from './policy.js';

/** system-cluster-critical: the default priority threshold, and what counts as a critical pod. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
/** Lets a pod through every evictor check (the eviction API's PDB check still applies). */
export const EVICT_ANNOTATION = 'descheduler.alpha.kubernetes.io/evict';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const SOURCE_ANNOTATION = 'kubernetes.io/config.source';

/** Why the evictor refuses `pod`, or undefined when it may be evicted. */
export function notEvictable(pod: Pod, args: EvictorArgs = {}): string | undefined {
  // A pod already going, or not yet running, is left to finish what it is doing.
  if (pod.terminating) return 'pod is terminating';
  if (pod.phase !== 'Running') return `pod is ${pod.phase || 'not running'}`;
  if (pod.annotations[EVICT_ANNOTATION] !== undefined) return undefined;
  if (pod.annotations[MIRROR_ANNOTATION] !== undefined) return 'pod is a mirror pod';
  const source = pod.annotations[SOURCE_ANNOTATION];
  if (source !== undefined && source !== 'api') return 'pod is a static pod';
  if (pod.ownerReferences.length === 0) return 'pod has no owner, nothing would recreate it';
  if (!args.evictDaemonSetPods && isDaemonSetPod(pod)) return 'pod belongs to a DaemonSet';
  if (!args.evictSystemCriticalPods) {
    const threshold = args.priorityThreshold ?? SYSTEM_CRITICAL_PRIORITY;
    if (pod.priority >= Math.min(threshold, SYSTEM_CRITICAL_PRIORITY)) return `pod priority ${pod.priority} is at or above the threshold ${Math.min(threshold, SYSTEM_CRITICAL_PRIORITY)}`;
  }
  if (!args.evictLocalStoragePods && pod.localStorage) return 'pod has local storage (emptyDir or hostPath)';
  if (args.ignorePvcPods && pod.persistentVolumeClaims) return 'pod uses a PersistentVolumeClaim';
  return undefined;
}

function isBestEffort(pod: Pod): boolean {
  return Object.keys(pod.resources.requests).length === 0;
}

/** Eviction order: lower priority first, then BestEffort, then key. */
export function byEvictionOrder(a: Pod, b: Pod): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  const be = Number(isBestEffort(b)) - Number(isBestEffort(a));
  if (be !== 0) return be;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
