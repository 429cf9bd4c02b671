// The DefaultEvictor: its Filter (which pods a plugin may evict at all), its
// PreEvictionFilter (nodeFit, namespaceLabelSelector) and the order plugins try
// pods in (lowest priority first, then BestEffort, then pods without the
// prefer-no-eviction annotation).

import type { ClusterState } from '../../cluster/state.js';
import type { Pod } from '../../model/pod.js';
import { isDaemonSetPod } from '../candidates.js';
import { nodeFitError } from './node-fit.js';
import { DEFAULT_POD_PROTECTIONS, type EvictorArgs, type PodProtection } from '../../model/descheduler-policy.js';

/** system-cluster-critical: pods at or above it are critical. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
/** Lets a pod through every Filter check (the eviction API's PDB check still applies). */
export const EVICT_ANNOTATION = 'descheduler.alpha.kubernetes.io/evict';
export const NO_EVICTION_ANNOTATION = 'descheduler.alpha.kubernetes.io/prefer-no-eviction';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const SOURCE_ANNOTATION = 'kubernetes.io/config.source';

/** The protections in force: podProtections when it lists anything, the deprecated booleans otherwise. */
export function effectiveProtections(args: EvictorArgs): Set<PodProtection> {
  const p = args.podProtections;
  if ((p?.defaultDisabled?.length ?? 0) > 0 || (p?.extraEnabled?.length ?? 0) > 0) {
    return new Set([...DEFAULT_POD_PROTECTIONS.filter((x) => !p!.defaultDisabled?.includes(x)), ...(p!.extraEnabled ?? [])]);
  }
  const on = new Set<PodProtection>();
  if (!args.evictLocalStoragePods) on.add('PodsWithLocalStorage');
  if (!args.evictDaemonSetPods) on.add('DaemonSetPods');
  if (!args.evictSystemCriticalPods) on.add('SystemCriticalPods');
  if (!args.evictFailedBarePods) on.add('FailedBarePods');
  if (args.ignorePvcPods) on.add('PodsWithPVC');
  if (args.ignorePodsWithoutPDB) on.add('PodsWithoutPDB');
  return on;
}

/** Why the DefaultEvictor's Filter refuses `pod`, or undefined when it may be evicted. */
export function notEvictable(pod: Pod, args: EvictorArgs = {}, cluster?: ClusterState, nowMs?: number): string | undefined {
  if (pod.annotations[EVICT_ANNOTATION] !== undefined) return undefined;
  if (args.noEvictionPolicy === 'Mandatory' && pod.annotations[NO_EVICTION_ANNOTATION] !== undefined) return 'pod has the prefer-no-eviction annotation and noEvictionPolicy is Mandatory';
  if (pod.annotations[MIRROR_ANNOTATION] !== undefined) return 'pod is a mirror pod';
  const source = pod.annotations[SOURCE_ANNOTATION];
  if (source !== undefined && source !== 'api') return 'pod is a static pod';
  if (pod.terminating) return 'pod is terminating';
  const on = effectiveProtections(args);
  if (on.has('SystemCriticalPods')) {
    if (pod.priority >= SYSTEM_CRITICAL_PRIORITY) return 'pod has system critical priority and is protected against eviction';
    if (args.priorityThreshold !== undefined && pod.priority >= args.priorityThreshold) return `pod priority ${pod.priority} is at or above the priority threshold ${args.priorityThreshold}`;
  }
  if (pod.ownerReferences.length === 0) {
    if (on.has('FailedBarePods')) return 'pod has no owner, nothing would recreate it';
    if (pod.phase !== 'Failed') return 'pod has no owner and is not Failed';
  }
  if (on.has('PodsWithLocalStorage') && pod.localStorage) return 'pod has local storage (emptyDir or hostPath)';
  if (on.has('DaemonSetPods') && isDaemonSetPod(pod)) return 'pod belongs to a DaemonSet';
  if (on.has('PodsWithPVC') && pod.persistentVolumeClaims) return 'pod uses a PersistentVolumeClaim';
  if (on.has('PodsWithoutPDB') && cluster && !cluster.pdbs.some((p) => p.namespace === pod.namespace && p.selector.matches(pod.labels))) return 'pod has no PodDisruptionBudget';
  if (args.labelSelector && !args.labelSelector.matches(pod.labels)) return 'pod labels do not match the evictor labelSelector';
  if (cluster && (args.minReplicas ?? 0) > 1 && pod.ownerReferences.length === 1) {
    const uid = pod.ownerReferences[0]!.uid;
    const replicas = [...cluster.pods()].filter((p) => p.ownerReferences.some((o) => o.uid === uid)).length;
    if (replicas < args.minReplicas!) return `owner has ${replicas} replicas, fewer than minReplicas ${args.minReplicas}`;
  }
  if (args.minPodAgeMs !== undefined) {
    const start = pod.startTime;
    if (start === undefined || nowMs === undefined || nowMs - start < args.minPodAgeMs) return `pod started less than minPodAge (${args.minPodAgeMs / 1000}s) ago`;
  }
  return undefined;
}

/** Why the DefaultEvictor's PreEvictionFilter refuses `pod` (nodeFit, namespaceLabelSelector), or undefined. */
export function preEvictionRefusal(pod: Pod, args: EvictorArgs, cluster: ClusterState): string | undefined {
  if (args.nodeFit) {
    const others = cluster.nodeInfos().filter((i) => i.node.name !== pod.nodeName && (!args.nodeSelector || args.nodeSelector.matches(i.node.labels)));
    if (!others.some((i) => nodeFitError(cluster, pod, i) === undefined)) return 'pod does not fit on any other node (nodeFit)';
  }
  if (args.namespaceLabelSelector && !args.namespaceLabelSelector.matches(cluster.namespaceLabels(pod.namespace) ?? {})) return 'pod namespace does not match the namespaceLabelSelector';
  return undefined;
}

/** BestEffort (no requests) first; berth's pod model does not keep limits, so Burstable and Guaranteed rank together. */
function qosRank(pod: Pod): number {
  return Object.keys(pod.resources.requests).length === 0 ? 0 : 1;
}

/** Eviction order: lower priority first, then BestEffort before pods with requests, then pods without the prefer-no-eviction annotation, then key. */
export function byEvictionOrder(a: Pod, b: Pod): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  const q = qosRank(a) - qosRank(b);
  if (q !== 0) return q;
  const na = Number(a.annotations[NO_EVICTION_ANNOTATION] !== undefined) - Number(b.annotations[NO_EVICTION_ANNOTATION] !== undefined);
  if (na !== 0) return na;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
