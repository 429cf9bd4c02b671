// Runs a scenario: builds the simulated cluster from the loaded objects (the
// pods generated for workloads are left to their controllers, which create them
// at time 0; pods of the input are adopted by their workload's controller),
// applies each step at its time, evaluates the expectations and returns the
// event log, the results and the final placement.

import type { SchedulerConfig } from '../scheduler/profile.js';
import { buildClusterState, type ClusterInput, type ClusterState } from '../cluster/state.js';
import type { LoadedInput } from '../io/load.js';
import { LABEL_ZONE } from '../model/node.js';
import type { Pod } from '../model/pod.js';
import type { InstanceType } from '../provisioner/catalog/types.js';
import { LABEL_NODEPOOL } from '../provisioner/labels.js';
import { adoptInputPods, type Adoption } from './adopt.js';
import { DEFAULT_LAUNCH_TIMING } from './cloud.js';
import type { LogRecord } from './engine.js';
import { armExpectations, type ExpectationResult, type RolloutTracker } from './expect.js';
import { ActionError, applyAction } from './faults.js';
import { DEFAULT_POD_TIMING } from './pod-lifecycle.js';
import type { ScenarioSpec } from '../io/scenario-spec.js';
import { DEFAULT_TOLERATION_SECONDS } from './admission.js';
import { admitExistingPods, createSimulation, type Simulation, type SimulationOptions } from './simulation.js';
import { addJobs, addWorkloads } from './workloads.js';
import { World, type PodIndex } from './world.js';

export interface ScenarioRun {
  readonly events: readonly LogRecord[];
  readonly expectations: readonly ExpectationResult[];
  readonly final: {
    readonly timeMs: number;
    readonly costPerHour: number;
    readonly nodes: { name: string; zone: string; nodePool: string; pods: string[] }[];
    readonly pending: { pod: string }[];
  };
  readonly sim: Simulation;
}

export interface RunOptions {
  readonly untilMs?: number;
  readonly seed?: number;
  readonly instanceTypes: readonly InstanceType[];
  /** Told the simulated time now and at the end, every few thousand events (a progress bar's feed). */
  readonly onProgress?: (nowMs: number, untilMs: number) => void;
  /** Called with the simulation once it is built, before its workloads are added and anything runs: where observers (invariant checkers, history recorders, readiness trackers) attach. */
  readonly observe?: (sim: Simulation) => void;
  /** Control-plane settings a scenario file does not carry (the sim-vs-real harness aligns them with its cluster's flags). */
  readonly controlPlane?: Pick<SimulationOptions, 'queue' | 'nodes' | 'defaultTolerationSeconds' | 'tieBreak' | 'victimGuide' | 'rankingRace' | 'deletionOrder' | 'statusRace'>;
  /** kube-scheduler's configuration and feature gates (--config, --feature-gates); v1.37.2's defaults when absent. */
  readonly schedulerConfig?: SchedulerConfig;
  /** Whether the disruption loop records its why-not events (DisruptionLoopOptions.whyNotEvents); on by default. */
  readonly whyNotEvents?: boolean;
}

const SETTLE_MS = 10 * 60_000;

const adoptions = new WeakMap<LoadedInput['workloads'], WeakMap<LoadedInput['pods'], Adoption>>();

/**
 * The adoption of an input's own pods, once per workloads and pods (what-if analyses
 * run one input many times, and inputs with only nodes added keep both lists).
 */
function adoptionOf(input: LoadedInput): Adoption {
  let byPods = adoptions.get(input.workloads);
  if (!byPods) adoptions.set(input.workloads, (byPods = new WeakMap()));
  let a = byPods.get(input.pods);
  if (!a) byPods.set(input.pods, (a = adoptInputPods(input.workloads, inputOwnPods(input))));
  return a;
}

/** By the input's pods: the last list of its own pods (all but the ones generated for workloads) and which were left out. */
const ownPods = new WeakMap<LoadedInput['pods'], { readonly generated: string; readonly pods: readonly Pod[] }>();

/**
 * The input's own pods, the same list for inputs with the same pods and generated
 * ones (adoption works out its claims once per list: inputs a check changed in a
 * template or strategy only).
 */
export function inputOwnPods(input: LoadedInput): readonly Pod[] {
  const generatedPods = input.workloads.flatMap((w) => w.generatedPods);
  if (generatedPods.length === 0) return input.pods;
  const generated = JSON.stringify(generatedPods);
  const known = ownPods.get(input.pods);
  if (known?.generated === generated) return known.pods;
  const keys = new Set(generatedPods);
  const pods = input.pods.filter((p) => !keys.has(p.key));
  ownPods.set(input.pods, { generated, pods });
  return pods;
}

/** What buildClusterState reads of an input besides its pods: a built cluster is shared between inputs that have the same ones. */
const CLUSTER_FIELDS = ['nodes', 'namespaces', 'pdbs', 'services', 'replicationControllers', 'replicaSets', 'statefulSets', 'storage'] as const satisfies readonly (keyof ClusterInput)[];
// Every field of ClusterInput is compared (a field added there must be added above).
const everyFieldCompared: Exclude<keyof ClusterInput, 'pods' | (typeof CLUSTER_FIELDS)[number]> extends never ? true : never = true;
void everyFieldCompared;

interface BuiltCluster {
  readonly from: ClusterInput;
  readonly tolerationSeconds: number;
  readonly cluster: ClusterState;
  /** How a World files the cluster's pods (the same for every copy). */
  podIndex?: PodIndex;
  /** Made from another built cluster (withNodesAdded), not built from the input. */
  readonly derived?: true;
}

/** By the input's own pods (inputs a check changes keep them): the clusters built last, most recent first. */
const builtClusters = new WeakMap<readonly Pod[], BuiltCluster[]>();
/**
 * How many built clusters are kept per input pods (each is a whole cluster's indexes,
 * ~110 MB at 5,000 nodes): as many built from the input as derived from them, so that
 * the clusters of inputs with nodes added (each fix proof adds other ones) do not push
 * out the one they are all derived from. Two of each: the checked input's and the one
 * a check changed last (a fix's proof runs its what-ifs on one changed input in a row).
 */
const BUILT_KEPT = 2;

const samePods = (a: ClusterInput, b: ClusterInput) => a.pods.length === b.pods.length && a.pods.every((p, i) => p === b.pods[i]);
const sameClusterInput = (a: ClusterInput, b: ClusterInput) => CLUSTER_FIELDS.every((k) => a[k] === b[k]) && samePods(a, b);

/**
 * `from` built from a built cluster whose input lacks only nodes at the end of the
 * list (a fix proof's "one more node"): a copy of it with those nodes added, the same
 * state building and admitting `from` gives (no pod is bound to an added node, so
 * admission has nothing more to do on it), for a copy instead of 100,000 pods added and
 * admitted again. Undefined when no built cluster is such.
 */
function withNodesAdded(list: readonly BuiltCluster[], from: ClusterInput, tolerationSeconds: number): BuiltCluster | undefined {
  const base = list.find(
    (b) =>
      b.tolerationSeconds === tolerationSeconds &&
      b.from.nodes.length < from.nodes.length &&
      b.from.nodes.every((n, i) => n === from.nodes[i]) &&
      CLUSTER_FIELDS.every((k) => k === 'nodes' || b.from[k] === from[k]) &&
      samePods(b.from, from),
  );
  if (!base) return undefined;
  const added = from.nodes.slice(base.from.nodes.length);
  const names = new Set(added.map((n) => n.name));
  if (names.size < added.length || added.some((n) => base.cluster.nodeInfo(n.name)) || from.pods.some((p) => names.has(p.nodeName))) return undefined;
  const cluster = base.cluster.clone();
  for (const n of added) cluster.addNode(n);
  return { from, tolerationSeconds, cluster, derived: true, ...(base.podIndex ? { podIndex: base.podIndex } : {}) };
}

/**
 * A fresh copy of the input's cluster with its pods admitted: built once and cloned
 * for each run (exactly the state building and admitting it again gives, for a
 * fraction of the cost). Inputs that differ only in what the cluster is not built
 * from (a workload's template or replicas, NodePools) share one.
 */
function admittedCluster(input: LoadedInput, adoption: Adoption, tolerationSeconds: number): { cluster: ClusterState; podIndex: PodIndex } {
  const from: ClusterInput = { nodes: input.nodes, namespaces: input.namespaces, pdbs: input.pdbs, services: input.services, replicationControllers: input.replicationControllers, replicaSets: input.replicaSets, statefulSets: input.statefulSets, storage: input.storage, pods: adoption.pods };
  let list = builtClusters.get(input.pods);
  if (!list) builtClusters.set(input.pods, (list = []));
  const at = list.findIndex((b) => b.tolerationSeconds === tolerationSeconds && sameClusterInput(b.from, from));
  let built = at >= 0 ? list.splice(at, 1)[0]! : withNodesAdded(list, from, tolerationSeconds);
  if (!built) {
    built = { from, tolerationSeconds, cluster: buildClusterState(from) };
    admitExistingPods(built.cluster, tolerationSeconds);
  }
  list.unshift(built);
  for (const derived of [false, true]) {
    const kept = list.filter((b) => (b.derived === true) === derived);
    for (const b of kept.slice(BUILT_KEPT)) list.splice(list.indexOf(b), 1);
  }
  return { cluster: built.cluster.clone(), podIndex: (built.podIndex ??= World.indexPods(built.cluster)) };
}

export function runScenario(input: LoadedInput, spec: ScenarioSpec, opts: RunOptions): ScenarioRun {
  return startScenario(input, spec, opts).runTo(opts.untilMs);
}

/** A scenario built and started, run in legs: each `runTo` goes on from where the last one ended. */
export interface ScenarioSession {
  /**
   * Runs to `untilMs` (the scenario's own end when absent) and reads the run there:
   * the same as one run to that time. A later leg is allowed only without
   * expectations (they are evaluated once, at the end); every ScenarioRun a leg
   * returned shares the simulation and its event log, which later legs go on writing.
   */
  runTo(untilMs?: number): ScenarioRun;
}

export function startScenario(input: LoadedInput, spec: ScenarioSpec, opts: Omit<RunOptions, 'untilMs'>): ScenarioSession {
  const adoption = adoptionOf(input);
  const tolerationSeconds = opts.controlPlane?.defaultTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS;
  const { cluster, podIndex } = admittedCluster(input, adoption, tolerationSeconds);
  const pools = input.nodePools.filter((np) => np.replicas === null);
  const t = spec.timing;
  const sim = createSimulation(cluster, {
    seed: opts.seed ?? spec.seed,
    ...(spec.startTimeMs !== undefined ? { startTimeMs: spec.startTimeMs } : {}),
    ...opts.controlPlane,
    admitted: true,
    podIndex,
    ...(opts.schedulerConfig ? { schedulerConfig: opts.schedulerConfig } : {}),
    pods: { defaults: { startDelayMs: t.podStartMs ?? DEFAULT_POD_TIMING.startDelayMs, readyDelayMs: t.podReadyMs ?? DEFAULT_POD_TIMING.readyDelayMs } },
    ...(pools.length > 0
      ? {
          provisioner: {
            pools,
            instanceTypes: opts.instanceTypes,
            daemonSetPods: () => input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod),
            enabled: spec.provisioner.enabled,
            ...(spec.provisioner.batchIdleMs !== undefined ? { batchIdleMs: spec.provisioner.batchIdleMs } : {}),
            ...(spec.provisioner.batchMaxMs !== undefined ? { batchMaxMs: spec.provisioner.batchMaxMs } : {}),
          },
        }
      : {}),
    ...(pools.length > 0 && spec.disruption?.enabled ? { nodeDisruption: { ...disruptionOptions(spec.disruption), driftedClaims: driftedClaims(input), ...(opts.whyNotEvents === false ? { whyNotEvents: false } : {}) } } : {}),
    ...(spec.descheduler?.enabled ? { descheduler: { policy: spec.descheduler.policy, intervalMs: spec.descheduler.intervalMs } } : {}),
    ...(t.volumeProvisionMs !== undefined ? { volumes: { provisionDelayMs: t.volumeProvisionMs } } : {}),
    launchTiming: () => ({
      launchMs: t.nodeLaunchMs ?? DEFAULT_LAUNCH_TIMING.launchMs,
      registerMs: t.nodeRegisterMs ?? DEFAULT_LAUNCH_TIMING.registerMs,
      readyMs: t.nodeReadyMs ?? DEFAULT_LAUNCH_TIMING.readyMs,
      startupTaintMs: t.startupTaintMs ?? DEFAULT_LAUNCH_TIMING.startupTaintMs,
    }),
  });
  opts.observe?.(sim);
  addWorkloads(sim, input.workloads, adoption);
  addJobs(sim, input.jobs ?? [], input.cronJobs ?? []);

  const rollouts = trackRollouts(sim);
  for (const step of spec.steps) {
    sim.engine.at(step.at, 'step', () => {
      try {
        applyAction(sim, step.action);
      } catch (e) {
        if (!(e instanceof ActionError)) throw e;
        sim.engine.record('StepFailed', { source: step.source, message: e.message });
      }
    });
  }
  const lastTime = Math.max(0, ...spec.steps.map((s) => s.at), ...spec.expect.map((e) => e.at ?? 0));
  const armed = armExpectations(sim, spec.expect, rollouts);
  const progress = opts.onProgress;
  let until = 0;
  if (progress) {
    let events = 0;
    sim.engine.afterEach(() => {
      if (++events % 2000 === 0) progress(sim.engine.now, until);
    });
  }
  let legs = 0;
  let last: ScenarioRun | undefined;
  return {
    runTo(untilMs) {
      if (legs++ > 0 && spec.expect.length > 0) throw new Error('scenario: a run with expectations ends once; it cannot go on');
      // The last leg's placement is read before the simulation moves on.
      void last?.final.nodes;
      until = untilMs ?? spec.untilMs ?? lastTime + SETTLE_MS;
      sim.engine.run(until);
      progress?.(until, until);
      return (last = finalRun(sim, armed.finish()));
    },
  };
}

/**
 * The run as it stands. Its placement (every node's pods, the pending pods) is read
 * only when asked for — most what-ifs never ask — and must be asked for before the
 * simulation goes on (ScenarioSession does so before a later leg).
 */
function finalRun(sim: Simulation, expectations: readonly ExpectationResult[]): ScenarioRun {
  let placement: Pick<ScenarioRun['final'], 'nodes' | 'pending'> | undefined;
  const read = () =>
    (placement ??= {
      nodes: sim.world.cluster.nodeInfos().map((i) => ({
        name: i.node.name,
        zone: i.node.labels[LABEL_ZONE] ?? '',
        nodePool: i.node.labels[LABEL_NODEPOOL] ?? '',
        pods: i.pods.map((p) => p.key).sort(),
      })),
      pending: [...sim.world.cluster.pods()].filter((p) => !p.nodeName && !p.terminating).map((p) => ({ pod: p.key })),
    });
  return {
    events: sim.engine.log,
    expectations,
    final: {
      timeMs: sim.engine.now,
      costPerHour: sim.cloud.costPerHour(),
      get nodes() {
        return read().nodes;
      },
      get pending() {
        return read().pending;
      },
    },
    sim,
  };
}

/** Nodes whose NodeClaim in the input has a Drifted condition. */
function driftedClaims(input: LoadedInput): ReadonlySet<string> {
  return new Set((input.nodeClaims ?? []).flatMap((c) => (c.drifted && c.nodeName ? [c.nodeName] : [])));
}

function disruptionOptions(d: NonNullable<ScenarioSpec['disruption']>): NonNullable<SimulationOptions['nodeDisruption']> {
  return {
    spotToSpot: d.spotToSpotConsolidation,
    ...(d.optimize ? { optimize: d.optimize } : {}),
    ...(d.pollIntervalMs !== undefined ? { pollMs: d.pollIntervalMs } : {}),
    ...(d.validationDelayMs !== undefined ? { validationMs: d.validationDelayMs } : {}),
  };
}

/** When each Deployment's latest template change happened and when it finished rolling out. */
function trackRollouts(sim: Simulation): RolloutTracker {
  const started = new Map<string, number>();
  const completed = new Map<string, number>();
  /** Started and not yet completed: all this observer checks after each event. */
  const inProgress = new Map<string, number>();
  let seen = 0;
  sim.engine.afterEach(() => {
    const log = sim.engine.log;
    for (; seen < log.length; seen++) {
      const r = log[seen]!;
      if (r.type === 'DeploymentTemplateChanged') {
        started.set(r['deployment'] as string, r.t);
        inProgress.set(r['deployment'] as string, r.t);
        completed.delete(r['deployment'] as string);
      }
    }
    for (const [key, at] of inProgress) {
      const d = sim.deployments.objects.get(key);
      if (!d) continue;
      const s = d.status;
      if (sim.engine.now > at && s.updatedReplicas === d.replicas && s.replicas === d.replicas && s.availableReplicas === d.replicas) {
        completed.set(key, sim.engine.now);
        inProgress.delete(key);
      }
    }
  });
  return { startedAt: (k) => started.get(k), completedAt: (k) => completed.get(k) };
}
