// RemoveFailedPods: Failed pods at least minPodLifetimeSeconds old (3600 by
// default in a policy), whose owner kinds are not excluded, and, when given, with one of
// `reasons` (a container's waiting or terminated reason, or the pod's
// status.reason) and one of `exitCodes` (of terminated containers).

import type { Pod } from '../../model/pod.js';
import type { EvictionPlanner } from './planner.js';
import { ageSeconds, exitCodes, terminatedReasons, waitingReasons } from './pod-state.js';
import type { StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'RemoveFailedPods';

function selected(pod: Pod, args: StrategyArgs['RemoveFailedPods'], nowMs: number): boolean {
  const init = args.includingInitContainers;
  if (pod.phase !== 'Failed') return false;
  if (args.minPodLifetimeSeconds !== undefined && ageSeconds(pod, nowMs) < args.minPodLifetimeSeconds) return false;
  if (args.excludeOwnerKinds?.length && pod.ownerReferences.some((o) => args.excludeOwnerKinds!.includes(o.kind))) return false;
  if (args.reasons?.length) {
    const reasons = [...waitingReasons(pod, init), ...terminatedReasons(pod, init), ...(pod.status?.reason ? [pod.status.reason] : [])];
    if (!reasons.some((r) => args.reasons!.includes(r))) return false;
  }
  if (args.exitCodes?.length && !exitCodes(pod, init).some((c) => args.exitCodes!.includes(c))) return false;
  return true;
}

export function removeFailedPods(planner: EvictionPlanner, args: StrategyArgs['RemoveFailedPods']): void {
  for (const info of planner.nodes()) {
    const pods = planner.candidates(planner.allPodsOn(info), args.namespaces, args.labelSelector).filter((p) => planner.preEvictable(p) && selected(p, args, planner.nowMs));
    for (const pod of pods) planner.tryMove(pod, NAME, `pod Failed${pod.status?.reason ? ` (${pod.status.reason})` : ''} ${ageSeconds(pod, planner.nowMs)}s after creation`);
  }
}
