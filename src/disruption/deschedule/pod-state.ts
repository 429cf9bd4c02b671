// What the restart, lifetime and failed-pod plugins read of a pod's status.

import type { ContainerStatusInfo, Pod } from '../../model/pod.js';

function statuses(pod: Pod, withInit: boolean | undefined): readonly ContainerStatusInfo[] {
  const s = pod.status;
  if (!s) return [];
  return withInit ? [...s.containers, ...s.initContainers] : s.containers;
}

export function totalRestarts(pod: Pod, withInit: boolean | undefined): number {
  return statuses(pod, withInit).reduce((n, c) => n + c.restartCount, 0);
}

/** Waiting-state reasons of the containers (and init containers when asked). */
export function waitingReasons(pod: Pod, withInit: boolean | undefined): string[] {
  return statuses(pod, withInit).flatMap((c) => (c.waitingReason !== undefined ? [c.waitingReason] : []));
}

export function terminatedReasons(pod: Pod, withInit: boolean | undefined): string[] {
  return statuses(pod, withInit).flatMap((c) => (c.terminatedReason !== undefined ? [c.terminatedReason] : []));
}

export function exitCodes(pod: Pod, withInit: boolean | undefined): number[] {
  return statuses(pod, withInit).flatMap((c) => (c.exitCode !== undefined ? [c.exitCode] : []));
}

/** Whole seconds since the pod was created (upstream truncates to an unsigned count). */
export function ageSeconds(pod: Pod, nowMs: number): number {
  return Math.floor((nowMs - pod.creation) / 1000);
}
