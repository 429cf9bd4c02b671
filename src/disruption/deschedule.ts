// One descheduling pass as upstream runs it: the Deschedule plugins of every
// profile, then the Balance plugins of every profile, each in the order its
// profile lists them, all through one evictor that keeps the policy's limits
// (deschedule/planner.ts). Pure: the caller evicts the returned pods through
// the eviction API.

import type { ClusterState } from '../cluster/state.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { pdbAllowances } from './candidates.js';
import { removePodsViolatingInterPodAntiAffinity } from './deschedule/anti-affinity.js';
import { removeDuplicates } from './deschedule/duplicates.js';
import { removePodsViolatingNodeAffinity } from './deschedule/node-affinity.js';
import { removeFailedPods } from './deschedule/failed-pods.js';
import { removePodsViolatingNodeTaints } from './deschedule/node-taints.js';
import { podLifeTime } from './deschedule/pod-lifetime.js';
import { EvictionPlanner, type Eviction, type Skip } from './deschedule/planner.js';
import type { DeschedulerPolicy, PluginEntry, StrategyArgs, StrategyName } from '../model/descheduler-policy.js';
import { removePodsHavingTooManyRestarts } from './deschedule/too-many-restarts.js';
import { removePodsViolatingTopologySpreadConstraint } from './deschedule/topology-spread.js';
import { highNodeUtilization, lowNodeUtilization } from './deschedule/utilization.js';

export type { Eviction, Skip } from './deschedule/planner.js';
export type { DeschedulerPolicy, StrategyName } from '../model/descheduler-policy.js';

export interface DeschedulingInput {
  readonly cluster: ClusterState;
  readonly policy: DeschedulerPolicy;
  readonly scheduler?: SchedulerConfig;
  /** PDB key → evictions it allows now; computed from the cluster's pods when absent. */
  readonly pdbAllowances?: ReadonlyMap<string, number>;
  readonly seed?: number;
  /** When the pass runs (ms; the simulator's clock or the wall clock): pod ages for PodLifeTime, RemoveFailedPods and minPodAge. 0 when absent. */
  readonly nowMs?: number;
}

export interface DeschedulingResult {
  readonly evictions: readonly Eviction[];
  readonly skipped: readonly Skip[];
}

const PLUGINS: { readonly [K in StrategyName]: (planner: EvictionPlanner, args: StrategyArgs[K]) => void } = {
  RemovePodsViolatingNodeAffinity: removePodsViolatingNodeAffinity,
  RemovePodsViolatingInterPodAntiAffinity: removePodsViolatingInterPodAntiAffinity,
  RemovePodsViolatingNodeTaints: removePodsViolatingNodeTaints,
  RemovePodsHavingTooManyRestarts: removePodsHavingTooManyRestarts,
  PodLifeTime: podLifeTime,
  RemoveFailedPods: removeFailedPods,
  RemoveDuplicates: removeDuplicates,
  RemovePodsViolatingTopologySpreadConstraint: removePodsViolatingTopologySpreadConstraint,
  LowNodeUtilization: lowNodeUtilization,
  HighNodeUtilization: highNodeUtilization,
};

function run(planner: EvictionPlanner, entry: PluginEntry): void {
  (PLUGINS[entry.name] as (p: EvictionPlanner, a: typeof entry.args) => void)(planner, entry.args);
}

export function deschedule(input: DeschedulingInput): DeschedulingResult {
  const allowances = new Map(input.pdbAllowances ?? pdbAllowances(input.cluster));
  const planner = new EvictionPlanner(input.cluster, input.policy, input.scheduler ?? {}, allowances, input.seed ?? 0, input.nowMs ?? 0);
  for (const point of ['deschedule', 'balance'] as const) {
    for (const profile of input.policy.profiles) {
      planner.useProfile(profile);
      for (const entry of profile[point]) run(planner, entry);
    }
  }
  planner.finish();
  return { evictions: planner.evictions, skipped: planner.skipped };
}
