// What the kubelet does, as far as scheduling cares: a bound pod starts Running
// after a start delay and turns Ready after a further readiness delay; a
// terminating pod disappears after terminationGracePeriodSeconds.

import type { Pod } from '../model/pod.js';
import type { World } from './world.js';

export interface PodTiming {
  /** From binding to phase Running (image pull + container start). */
  readonly startDelayMs: number;
  /** From Running to Ready (readiness probe). */
  readonly readyDelayMs: number;
}

/** Defaults: 1 s to start, ready 1 s later (a pod with a quick readiness probe). */
export const DEFAULT_POD_TIMING: PodTiming = { startDelayMs: 1000, readyDelayMs: 1000 };

export interface PodLifecycleOptions {
  readonly defaults?: PodTiming;
  /** Per-workload overrides, e.g. keyed on the pod's owner or labels. */
  readonly timingFor?: (pod: Pod) => Partial<PodTiming> | undefined;
}

export function startPodLifecycle(world: World, opts: PodLifecycleOptions = {}): void {
  const defaults = opts.defaults ?? DEFAULT_POD_TIMING;
  const { engine } = world;
  world.onChange((change) => {
    if (change.kind !== 'podUpdated') return;
    const { old, pod } = change;
    if (!old.nodeName && pod.nodeName) {
      const timing = { ...defaults, ...opts.timingFor?.(pod) };
      const uid = pod.uid;
      const alive = () => world.cluster.getPod(pod.key)?.uid === uid;
      engine.after(timing.startDelayMs, 'pod-start', () => {
        if (!alive()) return;
        world.markRunning(pod.key);
        engine.after(timing.readyDelayMs, 'pod-ready', () => {
          if (alive()) world.markReady(pod.key);
        });
      });
    }
    if (!old.terminating && pod.terminating) {
      const uid = pod.uid;
      engine.after(pod.terminationGracePeriodSeconds * 1000, 'pod-gone', () => {
        if (world.cluster.getPod(pod.key)?.uid !== uid) return;
        engine.record('PodDeleted', { pod: pod.key, reason: 'GracePeriodElapsed' });
        world.removePod(pod.key);
      });
    }
  });
}
