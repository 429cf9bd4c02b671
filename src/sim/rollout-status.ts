// How far a workload's rollout has got, read from its simulated controller the
// way `kubectl rollout status` reads the object's status: Deployments,
// StatefulSets and DaemonSets alike, with the pods that belong to it.

import type { Pod } from '../model/pod.js';
import type { RolloutKind } from '../io/scenario-spec.js';
import type { Simulation } from './simulation.js';

export interface RolloutProgress {
  /** Replicas wanted (for a DaemonSet, the nodes it should run on). */
  readonly desired: number;
  /** Of the current template. */
  readonly updated: number;
  readonly available: number;
  /** Pods still of an older template, terminating ones excluded. */
  readonly outdated: number;
  readonly complete: boolean;
  /** Every pod of the workload in the store, terminating ones included. */
  readonly pods: readonly Pod[];
}

/** A Deployment's rollout is complete, from its status alone: every replica updated and available, none left over. */
export function deploymentComplete(d: { readonly replicas: number; readonly status: { readonly updatedReplicas: number; readonly replicas: number; readonly availableReplicas: number } }): boolean {
  const s = d.status;
  return s.updatedReplicas === d.replicas && s.replicas === d.replicas && s.availableReplicas === d.replicas;
}

/** A StatefulSet's rollout is complete, from its status alone (currentRevision reaches updateRevision only in a sync that found the update complete). */
export function statefulSetComplete(s: { readonly replicas: number; readonly currentRevision: string; readonly updateRevision: string; readonly status: { readonly updatedReplicas: number; readonly readyReplicas: number; readonly replicas: number } }): boolean {
  const st = s.status;
  return st.updatedReplicas === s.replicas && st.readyReplicas === s.replicas && st.replicas === s.replicas && s.currentRevision === s.updateRevision;
}

export function rolloutProgress(sim: Simulation, kind: RolloutKind, key: string): RolloutProgress | undefined {
  if (kind === 'Deployment') {
    const d = sim.deployments.objects.get(key);
    if (!d) return undefined;
    const s = d.status;
    const pods = sim.deployments.replicaSetsOf(d).flatMap((rs) => sim.replicaSets.podsOf(rs));
    return { desired: d.replicas, updated: s.updatedReplicas, available: s.availableReplicas, outdated: Math.max(0, s.replicas - s.updatedReplicas), complete: deploymentComplete(d), pods };
  }
  if (kind === 'StatefulSet') {
    const s = sim.statefulSets.objects.get(key);
    if (!s) return undefined;
    const st = s.status;
    const pods = sim.statefulSets.podsOf(s);
    return { desired: s.replicas, updated: st.updatedReplicas, available: st.availableReplicas, outdated: pods.filter((p) => !p.terminating).length - st.updatedReplicas, complete: statefulSetComplete(s), pods };
  }
  const ds = sim.daemonSets.objects.get(key);
  if (!ds) return undefined;
  const st = sim.daemonSets.status(ds);
  const d = st.desiredNumberScheduled;
  const complete = st.updatedNumberScheduled === d && st.numberAvailable === d && st.currentNumberScheduled === d;
  return { desired: d, updated: st.updatedNumberScheduled, available: st.numberAvailable, outdated: st.currentNumberScheduled - st.updatedNumberScheduled, complete, pods: sim.world.podsControlledBy(ds.uid) };
}
