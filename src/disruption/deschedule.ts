// One descheduling pass: the enabled strategies in upstream's order (the
// Deschedule plugins, then the Balance plugins), sharing one prediction of the
// cluster, each eviction validated by the scheduler (deschedule/planner.ts).
// Pure: the caller evicts the returned pods through the eviction API.

import type { ClusterState } from '../cluster/state.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { pdbAllowances } from './candidates.js';
import { removePodsViolatingInterPodAntiAffinity } from './deschedule/anti-affinity.js';
import { removeDuplicates } from './deschedule/duplicates.js';
import { removePodsViolatingNodeAffinity } from './deschedule/node-affinity.js';
import { EvictionPlanner, type Eviction, type Skip } from './deschedule/planner.js';
import { STRATEGY_NAMES, type DeschedulerPolicy, type StrategyArgs, type StrategyName } from './deschedule/policy.js';
import { removePodsViolatingTopologySpreadConstraint } from './deschedule/topology-spread.js';
import { highNodeUtilization, lowNodeUtilization } from './deschedule/utilization.js';

export type { Eviction, Skip } from './deschedule/planner.js';
export type { DeschedulerPolicy, StrategyName } from './deschedule/policy.js';

export interface DeschedulingInput {
  readonly cluster: ClusterState;
  readonly policy: DeschedulerPolicy;
  readonly scheduler?: SchedulerConfig;
  /** PDB key → evictions it allows now; computed from the cluster's pods when absent. */
  readonly pdbAllowances?: ReadonlyMap<string, number>;
  readonly seed?: number;
}

export interface DeschedulingResult {
  readonly evictions: readonly Eviction[];
  readonly skipped: readonly Skip[];
}

const STRATEGIES: { readonly [K in StrategyName]: (planner: EvictionPlanner, args: StrategyArgs[K]) => void } = {
  RemovePodsViolatingNodeAffinity: removePodsViolatingNodeAffinity,
  RemovePodsViolatingInterPodAntiAffinity: removePodsViolatingInterPodAntiAffinity,
  RemoveDuplicates: removeDuplicates,
  RemovePodsViolatingTopologySpreadConstraint: removePodsViolatingTopologySpreadConstraint,
  LowNodeUtilization: lowNodeUtilization,
  HighNodeUtilization: highNodeUtilization,
};

function run<K extends StrategyName>(name: K, planner: EvictionPlanner, args: StrategyArgs[K]): void {
  STRATEGIES[name](planner, args);
}

export function deschedule(input: DeschedulingInput): DeschedulingResult {
  const allowances = new Map(input.pdbAllowances ?? pdbAllowances(input.cluster));
  const planner = new EvictionPlanner(input.cluster, input.policy, input.scheduler ?? {}, allowances, input.seed ?? 0);
  for (const name of STRATEGY_NAMES) {
    const args = input.policy.strategies[name];
    if (args) run(name, planner, args);
  }
  return { evictions: planner.evictions, skipped: planner.skipped };
}
