// PodLifeTime: pods older than maxPodLifeTimeSeconds (by creation time), and/or
// in one of `states` (the pod phase, status.reason, or a container's waiting or
// terminated reason), with `ownerKinds` and `exitCodes` narrowing further;
// oldest first across all nodes. Succeeded and Failed pods count too.

import type { Pod } from '../../model/pod.js';
import type { EvictionPlanner } from './planner.js';
import { ageSeconds, exitCodes, terminatedReasons, waitingReasons } from './pod-state.js';
import type { StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'PodLifeTime';

function selected(pod: Pod, args: StrategyArgs['PodLifeTime'], nowMs: number): boolean {
  const init = args.includingInitContainers;
  if (args.maxPodLifeTimeSeconds !== undefined) {
    const age = nowMs - pod.creation;
    if (age < 0 || ageSeconds(pod, nowMs) <= args.maxPodLifeTimeSeconds) return false;
  }
  if (args.states?.length) {
    const states = args.states;
    const reasons = [pod.phase, pod.status?.reason ?? '', ...waitingReasons(pod, init), ...terminatedReasons(pod, init)];
    if (!reasons.some((r) => r !== '' && states.includes(r))) return false;
  }
  const kinds = args.ownerKinds;
  if (kinds?.include?.length && !pod.ownerReferences.some((o) => kinds.include!.includes(o.kind))) return false;
  if (!kinds?.include?.length && kinds?.exclude?.length && pod.ownerReferences.some((o) => kinds.exclude!.includes(o.kind))) return false;
  if (args.exitCodes?.length && !exitCodes(pod, init).some((c) => args.exitCodes!.includes(c))) return false;
  return true;
}

export function podLifeTime(planner: EvictionPlanner, args: StrategyArgs['PodLifeTime']): void {
  const pods = planner
    .nodes()
    .flatMap((info) => planner.candidates(planner.allPodsOn(info), args.namespaces, args.labelSelector))
    .filter((p) => planner.preEvictable(p) && selected(p, args, planner.nowMs))
    .sort((a, b) => a.creation - b.creation);
  for (const pod of pods) planner.tryMove(pod, NAME, `pod is ${ageSeconds(pod, planner.nowMs)}s old${args.maxPodLifeTimeSeconds !== undefined ? `, more than maxPodLifeTimeSeconds ${args.maxPodLifeTimeSeconds}` : ''}`);
}
