// Wires one simulated cluster together: engine, world, kubelet-like pod
// lifecycle, node lifecycle with taint eviction and pod garbage collection, the
// scheduler loop for one profile, the workload controllers, the descheduler when
// given a policy, and — when NodePools are given — the simulated cloud and
// Karpenter's provisioning loop.
// Subscription order is fixed here, so every run hears each change in the same
// order.

import type { ClusterState } from '../cluster/state.js';
import { buildFramework, type SchedulerConfig } from '../scheduler/profile.js';
import { profileFor } from '../scheduler/run.js';
import { Scheduler, type SchedulerOptions } from '../scheduler/scheduler.js';
import { admittedInputPod, DEFAULT_TOLERATION_SECONDS } from './admission.js';
import { DEFAULT_LAUNCH_TIMING, SimCloud, type LaunchTiming } from './cloud.js';
import { CronJobController } from './controllers/cronjob.js';
import { DaemonSetController } from './controllers/daemonset.js';
import { JobController } from './controllers/job.js';
import { DeploymentController, type StatusRaceGuide } from './controllers/deployment.js';
import { DisruptionController } from './controllers/disruption.js';
import { PersistentVolumeController, type VolumeControllerOptions } from './controllers/persistent-volume.js';
import { DeschedulerLoop, type DeschedulerOptions } from './descheduler-loop.js';
import { DisruptionLoop, type DisruptionLoopOptions } from './disruption-loop.js';
import type { RankingRaceGuide, VictimGuide } from './controllers/active-pods.js';
import { ReplicaSetController } from './controllers/replicaset.js';
import { StatefulSetController } from './controllers/statefulset.js';
import { Engine } from './engine.js';
import { NodeLifecycle, type NodeLifecycleOptions } from './node-lifecycle.js';
import { startPodGc } from './pod-gc.js';
import { startPodLifecycle, type PodLifecycleOptions } from './pod-lifecycle.js';
import { ProvisionerLoop, type ProvisionerOptions } from './provisioner-loop.js';
import { SchedulerLoop, type QueueOptions } from './scheduler-loop.js';
import { TaintEviction } from './taint-eviction.js';
import { World, type PodIndex } from './world.js';

export interface SimulationOptions {
  readonly seed?: number;
  readonly schedulerConfig?: SchedulerConfig;
  /** The profile to run; the default scheduler's when unset. */
  readonly schedulerName?: string;
  readonly queue?: QueueOptions;
  /** How the scheduler picks among equally scored nodes (SchedulerOptions.tieBreak). */
  readonly tieBreak?: SchedulerOptions['tieBreak'];
  /** How the ReplicaSet controller picks among scale-down victims upstream orders at random; the sorted order's by default. */
  readonly victimGuide?: VictimGuide;
  /** Which related pods the ReplicaSet controller's ranking counts as bound already (RankingRaceGuide); none that are not by default. */
  readonly rankingRace?: RankingRaceGuide;
  /** The order of a batch of pods deleted at one instant where upstream's is random (World.deletionOrder). */
  readonly deletionOrder?: World['deletionOrder'];
  /** Whether a rolling update's scale-down waits for the events queued at this instant (StatusRaceGuide); never by default. */
  readonly statusRace?: StatusRaceGuide;
  /** What DefaultTolerationSeconds admission gives pods for the not-ready and unreachable taints (300 s). */
  readonly defaultTolerationSeconds?: number;
  /** The cluster's pods went through admitExistingPods with defaultTolerationSeconds already (a copy of an admitted cluster). */
  readonly admitted?: boolean;
  /** World.indexPods of the cluster this one is a copy of, when known (it is then not worked out again). */
  readonly podIndex?: PodIndex;
  readonly pods?: PodLifecycleOptions;
  readonly nodes?: NodeLifecycleOptions;
  /** NodePools, catalog and batching; no provisioning without it. */
  readonly provisioner?: Omit<ProvisionerOptions, 'config'>;
  readonly launchTiming?: (instanceType: string) => LaunchTiming;
  /** Karpenter's disruption loop (consolidation, drift, expiry) over the provisioner's NodePools; needs `provisioner`. */
  readonly nodeDisruption?: Pick<DisruptionLoopOptions, 'spotToSpot' | 'pollMs' | 'validationMs' | 'driftedClaims' | 'optimize' | 'whyNotEvents'>;
  /** The descheduler's policy and interval; no descheduling without it. */
  readonly descheduler?: DeschedulerOptions;
  /** The PV controller and CSI provisioner: how long provisioning takes. */
  readonly volumes?: VolumeControllerOptions;
  /** The wall-clock time (ms since the Unix epoch) at simulated time 0, which CronJob schedules read; 0 (1970-01-01T00:00:00Z) by default. */
  readonly startTimeMs?: number;
}

export interface Simulation {
  readonly engine: Engine;
  readonly world: World;
  readonly scheduler: Scheduler;
  readonly schedulerLoop: SchedulerLoop;
  readonly nodeLifecycle: NodeLifecycle;
  readonly cloud: SimCloud;
  readonly provisioner: ProvisionerLoop | undefined;
  readonly replicaSets: ReplicaSetController;
  readonly deployments: DeploymentController;
  readonly statefulSets: StatefulSetController;
  readonly daemonSets: DaemonSetController;
  readonly jobs: JobController;
  readonly cronJobs: CronJobController;
  readonly disruption: DisruptionController;
  readonly persistentVolumes: PersistentVolumeController;
  readonly nodeDisruption: DisruptionLoop | undefined;
  readonly descheduler: DeschedulerLoop | undefined;
}

/**
 * The pods already in the cluster went through admission when they were created.
 * Each is replaced in store order, which reorders every node's pod list as
 * kube-scheduler's cache does on updates (the last pod takes a removed one's place).
 */
export function admitExistingPods(cluster: ClusterState, tolerationSeconds = DEFAULT_TOLERATION_SECONDS): void {
  for (const pod of [...cluster.pods()]) cluster.updatePod(admittedInputPod(pod, tolerationSeconds));
}

export function createSimulation(cluster: ClusterState, opts: SimulationOptions = {}): Simulation {
  const seed = opts.seed ?? 0;
  const config = opts.schedulerConfig ?? {};
  const schedulerName = opts.schedulerName ?? 'default-scheduler';
  const profile = profileFor(config, schedulerName);
  if (!profile) throw new Error(`no scheduler profile named ${JSON.stringify(schedulerName)}`);
  const tolerationSeconds = opts.defaultTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS;
  if (!opts.admitted) admitExistingPods(cluster, tolerationSeconds);
  const engine = new Engine(seed);
  const world = new World(engine, cluster, tolerationSeconds, opts.deletionOrder, opts.podIndex);
  startPodLifecycle(world, opts.pods);
  const nodeLifecycle = new NodeLifecycle(world, opts.nodes);
  nodeLifecycle.start();
  new TaintEviction(world).start();
  startPodGc(world);
  const cloud = new SimCloud(world, nodeLifecycle, opts.launchTiming ?? (() => DEFAULT_LAUNCH_TIMING));
  const scheduler = new Scheduler(cluster, (h) => buildFramework(config, profile, h), { seed, ...(opts.tieBreak ? { tieBreak: opts.tieBreak } : {}) });
  const schedulerLoop = new SchedulerLoop(world, scheduler, opts.queue);
  const provisioner = opts.provisioner ? new ProvisionerLoop(world, cloud, schedulerLoop, { ...opts.provisioner, config }) : undefined;
  schedulerLoop.start();
  const replicaSets = new ReplicaSetController(world, opts.victimGuide, opts.rankingRace);
  replicaSets.start();
  const deployments = new DeploymentController(world, replicaSets, opts.statusRace);
  deployments.start();
  const statefulSets = new StatefulSetController(world);
  statefulSets.start();
  const daemonSets = new DaemonSetController(world);
  daemonSets.start();
  const jobs = new JobController(world);
  jobs.start();
  const cronJobs = new CronJobController(world, jobs, opts.startTimeMs ?? 0);
  cronJobs.start();
  const disruption = new DisruptionController(world, replicaSets, deployments, statefulSets);
  disruption.start();
  const persistentVolumes = new PersistentVolumeController(world, opts.volumes);
  persistentVolumes.start();
  const p = opts.provisioner;
  const nodeDisruption = provisioner && p && opts.nodeDisruption ? new DisruptionLoop(world, cloud, nodeLifecycle, provisioner, disruption, { ...opts.nodeDisruption, pools: p.pools, instanceTypes: p.instanceTypes, config, ...(p.daemonSetPods ? { daemonSetPods: p.daemonSetPods } : {}) }) : undefined;
  nodeDisruption?.start();
  const descheduler = opts.descheduler ? new DeschedulerLoop(world, disruption, config, opts.descheduler) : undefined;
  descheduler?.start();
  return { engine, world, scheduler, schedulerLoop, nodeLifecycle, cloud, provisioner, replicaSets, deployments, statefulSets, daemonSets, jobs, cronJobs, disruption, persistentVolumes, nodeDisruption, descheduler };
}
