// The cluster as it was at each instant of a run, for scrubbing a simulation:
// one frame per simulated time at which a node, a placement, a pod's readiness
// or a kubelet changed (several changes at one instant make one frame, the
// state after the last). Also the per-workload ready-replica series behind a
// replicas-available plot. Built on the World's change stream, so recording
// never alters the run.

import { LABEL_ZONE } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import type { Simulation } from './simulation.js';

export interface FrameNode {
  readonly name: string;
  readonly zone: string;
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  /** Requests of the pods bound to it (NodeResourcesFit's view). */
  readonly cpuRequested: number;
  readonly memoryRequested: number;
  /** False once the kubelet stopped (failed node, lost instance). */
  readonly up: boolean;
}

export interface FramePod {
  readonly key: string;
  /** Deployment, StatefulSet, DaemonSet or ReplicaSet name, or the pod's own key when it has no controller. */
  readonly workload: string;
  /** '' while pending. */
  readonly node: string;
  readonly ready: boolean;
  readonly terminating: boolean;
}

export interface Frame {
  readonly t: number;
  readonly nodes: readonly FrameNode[];
  readonly pods: readonly FramePod[];
  /** $/h of the simulated cloud's instances not terminated at this instant (0 without NodePools). */
  readonly costPerHour: number;
}

export interface History {
  readonly frames: readonly Frame[];
  /** True when the run changed more often than `maxFrames`; later changes were not recorded. */
  readonly truncated: boolean;
}

/** The last frame at or before `t` (the first frame when `t` precedes it). */
export function frameAt(history: History, t: number): Frame | undefined {
  const { frames } = history;
  let lo = 0;
  let hi = frames.length - 1;
  if (hi < 0) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (frames[mid]!.t <= t) lo = mid;
    else hi = mid - 1;
  }
  return frames[lo];
}

/** Ready, non-terminating pods of each workload, as a step series over the frames' times. */
export function readySeries(history: History): Map<string, { t: number; ready: number }[]> {
  const series = new Map<string, { t: number; ready: number }[]>();
  for (const f of history.frames) {
    const counts = new Map<string, number>();
    for (const p of f.pods) counts.set(p.workload, (counts.get(p.workload) ?? 0) + (p.ready && !p.terminating ? 1 : 0));
    for (const [w, ready] of counts) {
      let s = series.get(w);
      if (!s) series.set(w, (s = []));
      if (s.at(-1)?.ready !== ready) s.push({ t: f.t, ready });
    }
    // A workload with no pod left in this frame has none ready.
    for (const [w, s] of series) if (!counts.has(w) && s.at(-1)?.ready !== 0) s.push({ t: f.t, ready: 0 });
  }
  return series;
}

/** The Deployment, StatefulSet, DaemonSet or ReplicaSet name a pod belongs to, or its own key when it has no controller. */
export function podWorkload(sim: Simulation, pod: Pod): string {
  const ref = pod.ownerReferences.find((r) => r.controller);
  if (!ref) return pod.key;
  if (ref.kind !== 'ReplicaSet') return ref.name;
  // A Deployment's ReplicaSets change with every rollout; the Deployment is what the user wrote.
  const rs = sim.replicaSets.objects.get(`${pod.namespace}/${ref.name}`);
  const deployment = rs?.owner ? [...sim.deployments.objects.values()].find((d) => d.uid === rs.owner) : undefined;
  return deployment?.name ?? ref.name;
}

/** Starts recording; call before the run, read `history()` after it. */
export function recordHistory(sim: Simulation, maxFrames = 5000): () => History {
  const frames: Frame[] = [];
  let dirty = true;
  let truncated = false;
  sim.world.onChange(() => {
    dirty = true;
  });

  const workloadOf = (pod: Pod): string => podWorkload(sim, pod);

  const snapshot = (): Frame => {
    const { cluster } = sim.world;
    return {
      t: sim.engine.now,
      nodes: cluster.nodeInfos().map((i) => ({
        name: i.node.name,
        zone: i.node.labels[LABEL_ZONE] ?? '',
        cpuMilli: i.node.allocatable['cpu'] ?? 0,
        memoryBytes: i.node.allocatable['memory'] ?? 0,
        cpuRequested: i.requested['cpu'] ?? 0,
        memoryRequested: i.requested['memory'] ?? 0,
        up: sim.world.kubeletRunning(i.node.name),
      })),
      pods: [...cluster.pods()].map((p) => ({ key: p.key, workload: workloadOf(p), node: p.nodeName, ready: sim.world.isReady(p.key), terminating: p.terminating })),
      costPerHour: sim.cloud.costPerHour(),
    };
  };

  const capture = (): void => {
    if (!dirty || truncated) return;
    dirty = false;
    const frame = snapshot();
    if (frames.at(-1)?.t === frame.t) frames[frames.length - 1] = frame;
    else if (frames.length >= maxFrames) truncated = true;
    else frames.push(frame);
  };
  capture();
  sim.engine.afterEach(capture);
  return () => ({ frames, truncated });
}
