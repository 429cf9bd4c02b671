// Wires one simulated cluster together: engine, world, kubelet-like pod
// lifecycle, the scheduler loop for one profile, and the ReplicaSet and
// Deployment controllers. Subscription order is fixed here, so every run hears
// each change in the same order.

import type { ClusterState } from '../cluster/state.js';
import { buildFramework, type SchedulerConfig } from '../scheduler/profile.js';
import { profileFor } from '../scheduler/run.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { DeploymentController } from './controllers/deployment.js';
import { ReplicaSetController } from './controllers/replicaset.js';
import { Engine } from './engine.js';
import { startPodLifecycle, type PodLifecycleOptions } from './pod-lifecycle.js';
import { SchedulerLoop, type QueueOptions } from './scheduler-loop.js';
import { World } from './world.js';

export interface SimulationOptions {
  readonly seed?: number;
  readonly schedulerConfig?: SchedulerConfig;
  /** The profile to run; the default scheduler's when unset. */
  readonly schedulerName?: string;
  readonly queue?: QueueOptions;
  readonly pods?: PodLifecycleOptions;
}

export interface Simulation {
  readonly engine: Engine;
  readonly world: World;
  readonly scheduler: Scheduler;
  readonly schedulerLoop: SchedulerLoop;
  readonly replicaSets: ReplicaSetController;
  readonly deployments: DeploymentController;
}

export function createSimulation(cluster: ClusterState, opts: SimulationOptions = {}): Simulation {
  const seed = opts.seed ?? 0;
  const config = opts.schedulerConfig ?? {};
  const schedulerName = opts.schedulerName ?? 'default-scheduler';
  const profile = profileFor(config, schedulerName);
  if (!profile) throw new Error(`no scheduler profile named ${JSON.stringify(schedulerName)}`);
  const engine = new Engine(seed);
  const world = new World(engine, cluster);
  startPodLifecycle(world, opts.pods);
  const scheduler = new Scheduler(cluster, (h) => buildFramework(config, profile, h), { seed });
  const schedulerLoop = new SchedulerLoop(world, scheduler, opts.queue);
  schedulerLoop.start();
  const replicaSets = new ReplicaSetController(world);
  replicaSets.start();
  const deployments = new DeploymentController(world, replicaSets);
  deployments.start();
  return { engine, world, scheduler, schedulerLoop, replicaSets, deployments };
}
