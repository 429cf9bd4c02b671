// RemovePodsHavingTooManyRestarts: pods whose containers (and, with
// includingInitContainers, init containers) restarted at least
// podRestartThreshold times, optionally only those in one of `states` (the pod
// phase or a container's waiting reason, e.g. CrashLoopBackOff); per node, the
// pods with the most restarts first. Succeeded and Failed pods count too.

import type { EvictionPlanner } from './planner.js';
import { totalRestarts, waitingReasons } from './pod-state.js';
import type { StrategyArgs } from '../../model/descheduler-policy.js';

const NAME = 'RemovePodsHavingTooManyRestarts';

export function removePodsHavingTooManyRestarts(planner: EvictionPlanner, args: StrategyArgs['RemovePodsHavingTooManyRestarts']): void {
  const init = args.includingInitContainers;
  const inState = (p: Parameters<typeof totalRestarts>[0]) => !args.states?.length || args.states.includes(p.phase) || waitingReasons(p, init).some((r) => args.states!.includes(r));
  for (const info of planner.nodes()) {
    const pods = planner
      .candidates(planner.allPodsOn(info), args.namespaces, args.labelSelector)
      .filter((p) => planner.preEvictable(p) && totalRestarts(p, init) >= args.podRestartThreshold && inState(p))
      .sort((a, b) => totalRestarts(b, init) - totalRestarts(a, init));
    for (const pod of pods) {
      planner.tryMove(pod, NAME, `containers restarted ${totalRestarts(pod, init)} times, the threshold is ${args.podRestartThreshold}`);
    }
  }
}
