// What the kubelet does, as far as scheduling cares: a bound pod starts Running
// after a start delay and turns Ready after a further readiness delay; a
// terminating pod disappears after terminationGracePeriodSeconds. A node whose
// kubelet is down does none of this: its terminating pods stay until the kubelet
// returns or the pod garbage collector removes them, and pods bound to it wait.
// A Job's pod runs for its berth.dev/run-duration and exits with its
// berth.dev/exit-code (model/job-run.ts): with restartPolicy Never it then ends
// Succeeded or Failed; with OnFailure a failed run restarts in place after the
// kubelet's crash back-off (10 s, doubling, at most 5 min).

import { podRun } from '../model/job-run.js';
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

/** The kubelet's container restart back-off: 10 s, doubling, capped at 5 minutes. */
const CRASH_BACKOFF_MS = 10_000;
const CRASH_BACKOFF_MAX_MS = 300_000;

const isJobPod = (pod: Pod) => pod.ownerReferences.some((r) => r.controller && r.kind === 'Job');

export function startPodLifecycle(world: World, opts: PodLifecycleOptions = {}): void {
  const defaults = opts.defaults ?? DEFAULT_POD_TIMING;
  const { engine, cluster } = world;
  const timing = (pod: Pod): PodTiming => ({ ...defaults, ...opts.timingFor?.(pod) });
  /** True while this very pod (same uid) still exists and its node's kubelet runs. */
  const live = (pod: Pod) => cluster.getPod(pod.key)?.uid === pod.uid && world.kubeletRunning(pod.nodeName);

  const becomeReady = (pod: Pod) =>
    engine.after(timing(pod).readyDelayMs, 'pod-ready', () => {
      if (live(pod)) world.markReady(pod.key);
    });
  const runToExit = (pod: Pod, restarts: number) => {
    const run = podRun(pod.annotations);
    engine.after(run.durationMs, 'pod-exit', () => {
      if (!live(pod)) return;
      if (run.exitCode === 0 || pod.restartPolicy !== 'OnFailure') {
        world.finishPod(pod.key, run.exitCode);
        return;
      }
      world.markNotReady(pod.key, 'ContainerExited');
      world.restartContainers(pod.key, run.exitCode);
      engine.after(Math.min(CRASH_BACKOFF_MAX_MS, CRASH_BACKOFF_MS * 2 ** Math.min(restarts, 10)), 'pod-restart', () => {
        if (!live(pod)) return;
        becomeReady(pod);
        runToExit(pod, restarts + 1);
      });
    });
  };
  const start = (pod: Pod) =>
    engine.after(timing(pod).startDelayMs, 'pod-start', () => {
      if (!live(pod)) return;
      world.markRunning(pod.key);
      becomeReady(pod);
      if (isJobPod(pod)) runToExit(pod, 0);
    });
  const terminate = (pod: Pod) =>
    engine.after(pod.terminationGracePeriodSeconds * 1000, 'pod-gone', () => {
      if (!live(pod)) return;
      engine.record('PodDeleted', { pod: pod.key, reason: 'GracePeriodElapsed' });
      world.removePod(pod.key);
    });

  world.onChange((change) => {
    if (change.kind === 'kubelet') {
      if (!change.running) return;
      // A returning kubelet reports its pods: it finishes deletions and (re)starts the rest.
      const info = cluster.nodeInfo(change.node);
      for (const pod of [...(info?.pods ?? [])]) {
        if (pod.terminating) {
          engine.record('PodDeleted', { pod: pod.key, reason: 'KubeletReturned' });
          world.removePod(pod.key);
        } else if (pod.phase !== 'Running') start(pod);
        else if (!world.isReady(pod.key)) {
          becomeReady(pod);
          // The run was cut off with the kubelet: the containers run again from the start.
          if (isJobPod(pod)) runToExit(pod, 0);
        }
      }
      return;
    }
    if (change.kind !== 'podUpdated') return;
    const { old, pod } = change;
    if (!old.nodeName && pod.nodeName) start(pod);
    if (!old.terminating && pod.terminating) terminate(pod);
  });
}
