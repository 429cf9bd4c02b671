// The simulator's side: the scenario's manifests as a `berth simulate` Scenario
// (loaded by the same readers), run with the aligned control-plane settings;
// phase i starts at i × SIM_PHASE_MS and is observed just before the next one.
// Steps are applied by the harness rather than written as scenario steps because
// a pod to delete is chosen by workload and node when the step runs.

import { stringify } from 'yaml';
import { loadSources } from '../../src/io/load.js';
import { loadScenario } from '../../src/io/scenario.js';
import type { Action } from '../../src/io/scenario-spec.js';
import { catalogOrBundled } from '../../src/provisioner/catalog/catalog.js';
import { applyAction } from '../../src/sim/faults.js';
import { runScenario } from '../../src/sim/scenario.js';
import type { Simulation } from '../../src/sim/simulation.js';
import type { Pod } from '../../src/model/pod.js';
import { replicaSequence, type Observation, type PhaseObservation } from './observation.js';
import type { PodEvents, RealObservation } from './real-side.js';
import { describePhase, imageOf, manifests, phases, type Phase, type SvrScenario } from './scenario.js';
import { SIM_PHASE_MS, simControlPlane } from './settings.js';

const NS = 'svr';

export function scenarioYaml(s: SvrScenario, seed: number, until: number): string {
  return stringify({
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Scenario',
    metadata: { name: s.name },
    spec: { seed, until: `${Math.ceil(until / 1000) + 1}s`, timing: { podStart: '0s', podReady: '0s' }, objects: manifests(s, NS) },
  });
}

/** Phase start and observation times: the real side's when given (so pod ages, backoffs and the
 * scheduler's 5-minute flush line up), each phase at least as long as the simulator needs for
 * what the step starts, all shifted by the real start's milliseconds within its second (so the
 * whole seconds the controllers compare, as ActivePodsWithRanks' ready-time buckets, fall as
 * on the real side); SIM_PHASE_MS per phase otherwise. */
export function simTimes(s: SvrScenario, real?: PhaseTiming): { start: number[]; end: number[] } {
  const start: number[] = [];
  const end: number[] = [];
  let shift = 0;
  phases(s).forEach((p, i) => {
    if (!real) {
      start.push(i * SIM_PHASE_MS);
      end.push((i + 1) * SIM_PHASE_MS - 1);
      return;
    }
    const t = real.startMs[i]! + shift;
    const length = Math.max(real.endMs[i]! - real.startMs[i]!, minPhaseMs(p));
    start.push(t);
    end.push(t + length);
    shift = t + length - real.endMs[i]!;
  });
  const origin = real?.originMs ?? 0;
  return { start: start.map((t) => t + origin), end: end.map((t) => t + origin) };
}

/** What the simulator needs after a step: a lost node noticed (lease grace, monitor pass) and its pods' tolerations run out; a deleted node's pods garbage-collected (40 s quarantine, 20 s passes). */
function minPhaseMs(p: Phase): number {
  if ('failNode' in p) return simControlPlane.nodes.gracePeriodMs + simControlPlane.nodes.monitorPeriodMs + simControlPlane.defaultTolerationSeconds * 1000 + 2_000;
  if ('removeNode' in p) return 61_000;
  return 0;
}

export interface PhaseTiming {
  readonly startMs: readonly number[];
  readonly endMs: readonly number[];
  /** The real first phase's start, ms within its wall-clock second (RealObservation.timing). */
  readonly originMs?: number;
}

/** What the simulator observed, and how many upstream-random choices it made the real cluster's way where its own order differed. */
export interface SimObservation extends Observation {
  readonly choicesFollowed: number;
}

/**
 * `real` (the real run's bindings and deletions per phase, in order) makes upstream's
 * random choices the real cluster's way (README: tolerances). A tie among equally
 * scored nodes goes to the tied node of the earliest real binding of the phase not
 * matched yet (the same pod's for a StatefulSet pod, whose name is the same on both
 * sides; the workload's otherwise); a scale-down's victims among pods upstream orders
 * by random UID or list order, and a batch of pods deleted at one instant (drain, pod
 * GC, taint eviction), go in the order of the phase's real deletions. Without it, or
 * where nothing matches, the simulator's own order.
 */
export function runSim(s: SvrScenario, seed: number, timing?: PhaseTiming, real?: RealChoices): SimObservation {
  const name = `${s.name}.yaml`;
  const times = simTimes(s, timing);
  const text = scenarioYaml(s, seed, times.end[times.end.length - 1] ?? 0);
  const scenario = loadScenario({ name, text });
  if (!scenario.ok) throw new Error(`${name}: ${scenario.errors.map((e) => `${e.line}:${e.column}: ${e.message}`).join('; ')}`);
  const loaded = loadSources([{ name, text, parsed: scenario.source }]);
  if (!loaded.ok) throw new Error(`${name}: ${loaded.errors.map((e) => `${e.line}:${e.column}: ${e.message}`).join('; ')}`);
  const observed: PhaseObservation[] = [];
  const all = phases(s);
  let guide: RealChoiceGuide | undefined;
  const guided = real?.bindings
    ? {
        tieBreak: (pod: Pod, tied: readonly string[]) => guide!.pickNode(pod, tied),
        victimGuide: (tied: readonly Pod[], n: number) => guide!.pickVictims(tied, n),
        rankingRace: (unbound: readonly Pod[], own: readonly Pod[], victimsWith: (nodes: readonly string[]) => Pod[]) => guide!.raceRanking(unbound, own, victimsWith),
        deletionOrder: (pods: readonly Pod[]) => guide!.orderDeletions(pods),
        statusRace: (deployment: string, rs: string, from: number, tos: readonly number[], canWait: boolean) => guide!.raceStatus(deployment, rs, from, tos, canWait),
        queue: {
          ...simControlPlane.queue,
          removalRace: (pod: Pod, own: string, others: readonly string[]) => guide!.pickRaceView(pod, own, others),
          arrivalTie: (tied: readonly Pod[]) => guide!.pickArrival(tied),
          pendingMessage: (pod: Pod, message: string) => guide!.endsPendingWith(pod, message),
        },
      }
    : {};
  const run = runScenario(loaded.input, scenario.scenario.spec, {
    instanceTypes: catalogOrBundled([]),
    controlPlane: { ...simControlPlane, ...guided },
    observe: (sim) => {
      if (real?.bindings) guide = new RealChoiceGuide(sim, real.bindings, real.deletions ?? [], real.replicaSets, real.phases);
      const revisions = new Map<string, number>();
      const drains = new Set<string>();
      all.forEach((p, i) => {
        sim.engine.at(times.start[i]!, 'svr-step', () => {
          guide?.startPhase(i);
          apply(sim, s, p, revisions, drains);
        });
        sim.engine.at(times.end[i]!, 'svr-observe', () => observed.push(observe(sim, describePhase(p), s, drains)));
      });
    },
  });
  return { phases: observed, replicaSets: replicaSetHistory(s, run.sim.engine.log), choicesFollowed: guide?.followed ?? 0 };
}

export type RealChoices = Pick<RealObservation, 'bindings' | 'deletions' | 'replicaSets' | 'phases'>;
type Event = PodEvents[number];

/** The real cluster's bindings and deletions of the current phase not yet matched by the simulator's own (same pod name, else same workload and node). */
class RealChoiceGuide {
  /** Choices made the real cluster's way where the simulator's own order differed. */
  followed = 0;
  private phase = -1;
  private scanned = 0;
  private bindingsLeft: Event[] = [];
  private deletionsLeft: Event[] = [];

  constructor(
    private readonly sim: Simulation,
    private readonly bindings: readonly PodEvents[],
    private readonly deletions: readonly PodEvents[],
    private readonly replicaSets: Observation['replicaSets'],
    private readonly phases: Observation['phases'],
  ) {}

  startPhase(i: number): void {
    this.catchUp();
    this.phase = i;
    this.bindingsLeft = [...(this.bindings[i] ?? [])];
    this.deletionsLeft = [...(this.deletions[i] ?? [])];
  }

  pickNode(pod: Pod, tied: readonly string[]): string | undefined {
    const chosen = this.realNodeAmong(pod, tied);
    if (chosen !== undefined && chosen !== tied[0]) this.followed++;
    return chosen;
  }

  /** The removal race (RemovalRaceGuide): the view whose node the real binding has. */
  pickRaceView(pod: Pod, own: string, others: readonly string[]): string | undefined {
    const chosen = this.realNodeAmong(pod, [own, ...others]);
    if (chosen !== undefined && chosen !== own) this.followed++;
    return chosen;
  }

  /** Among pods queued at the same instant (ArrivalTieGuide), the one of the earliest real binding not yet matched: the same pod, else the workload's. */
  pickArrival(tied: readonly Pod[]): Pod | undefined {
    this.catchUp();
    for (const e of this.bindingsLeft) {
      const p = tied.find((x) => x.name === e.pod) ?? tied.find((x) => x.labels['app'] === e.app);
      if (!p) continue;
      if (p !== tied[0]) this.followed++;
      return p;
    }
    return undefined;
  }

  /** Whether the real phase ended with a Pending pod of the pod's workload failing with this message (PendingMessageGuide). */
  endsPendingWith(pod: Pod, message: string): boolean {
    return this.phases[this.phase]?.pending[pod.labels['app'] ?? '']?.reasons.includes(message) ?? false;
  }

  /** The node of the earliest real binding not yet matched, among `nodes`: the same pod's (a StatefulSet pod's name is the same on both sides), else the workload's. */
  private realNodeAmong(pod: Pod, nodes: readonly string[]): string | undefined {
    this.catchUp();
    const same = this.bindingsLeft.filter((e) => e.pod === pod.name);
    const left = same.length > 0 ? same : this.bindingsLeft.filter((e) => e.app === pod.labels['app']);
    return left.find((e) => nodes.includes(e.node))?.node;
  }

  /**
   * The ReplicaSet status race (StatusRaceGuide): the size the real old ReplicaSet went to
   * next, when the race can give it; else, when the real one went lower, the sync waits
   * for the events queued at this instant.
   */
  raceStatus(deployment: string, rs: string, from: number, tos: readonly number[], canWait: boolean): number | 'wait' | undefined {
    const name = deployment.slice(NS.length + 1);
    const revisions = replicaSetValues(this.sim.engine.log, deployment);
    const index = [...revisions.keys()].indexOf(rs);
    const real = this.replicaSets[name]?.[index];
    const own = replicaSequence(revisions.get(rs) ?? []);
    if (!real || own[own.length - 1] !== from || own.some((v, i) => real[i] !== v)) return undefined;
    const next = real[own.length];
    if (next === undefined || next === tos[0]) return undefined;
    if (tos.includes(next)) {
      this.followed++;
      return next;
    }
    if (next < tos[0]! && canWait) {
      this.followed++;
      return 'wait';
    }
    return undefined;
  }

  /**
   * The ranking race (RankingRaceGuide): when the simulator's own victims are not on the nodes
   * of the workload's next real deletions, the fewest of the unbound related pods counted on
   * the nodes the real cluster bound them to (in creation order) whose victims are.
   */
  raceRanking(unbound: readonly Pod[], own: readonly Pod[], victimsWith: (nodes: readonly string[]) => Pod[]): readonly Pod[] | undefined {
    this.catchUp();
    const nodesOf = (pods: readonly Pod[]) => pods.map((p) => p.nodeName).sort().join();
    const app = own[0]?.labels['app'];
    const real = this.deletionsLeft.filter((e) => e.app === app).slice(0, own.length);
    if (real.length < own.length || nodesOf(own) === real.map((e) => e.node).sort().join()) return undefined;
    const left = [...this.bindingsLeft];
    const nodes: string[] = [];
    for (const p of unbound) {
      const i = left.findIndex((e) => e.app === p.labels['app']);
      if (i < 0) break;
      nodes.push(left.splice(i, 1)[0]!.node);
    }
    for (let k = 1; k <= nodes.length; k++) {
      const victims = victimsWith(nodes.slice(0, k));
      if (nodesOf(victims) === real.map((e) => e.node).sort().join()) {
        this.followed++;
        return victims;
      }
    }
    return undefined;
  }

  /** `tied` in the simulator's order: the first `count` are its own victims. */
  pickVictims(tied: readonly Pod[], count: number): readonly Pod[] {
    this.catchUp();
    const chosen = this.ordered(tied).slice(0, count);
    if (chosen.some((p) => !tied.slice(0, count).includes(p))) this.followed++;
    return chosen;
  }

  orderDeletions(pods: readonly Pod[]): readonly Pod[] {
    this.catchUp();
    const out = this.ordered(pods);
    if (out.some((p, i) => p !== pods[i])) this.followed++;
    return out;
  }

  /** The pods in the order of the real deletions they match; the unmatched after them, in their own order. */
  private ordered(pods: readonly Pod[]): Pod[] {
    const left = [...this.deletionsLeft];
    const out: Pod[] = [];
    for (const e of left) {
      const p = pods.find((x) => !out.includes(x) && x.name === e.pod) ?? pods.find((x) => !out.includes(x) && x.labels['app'] === e.app && x.nodeName === e.node);
      if (p) out.push(p);
    }
    return [...out, ...pods.filter((p) => !out.includes(p))];
  }

  /** Uses up the real bindings and deletions matching the simulator's since the last call (all in the current phase). */
  private catchUp(): void {
    const log = this.sim.engine.log;
    for (; this.scanned < log.length; this.scanned++) {
      const r = log[this.scanned]!;
      if (this.phase < 0) continue;
      const left = r.type === 'Scheduled' ? this.bindingsLeft : r.type === 'PodTerminating' || r.type === 'PodDeleted' ? this.deletionsLeft : undefined;
      if (!left || typeof r['node'] !== 'string') continue;
      const key = r['pod'] as string;
      const name = key.slice(NS.length + 1);
      let i = left.findIndex((e) => e.pod === name);
      if (i < 0) i = left.findIndex((e) => e.app === workloadOf(key) && e.node === r['node']);
      if (i >= 0) left.splice(i, 1);
    }
  }
}

/** A pod key's workload: svr/w1-7d4b9c-x2x4k and svr/w3-0 belong to w1 and w3 (workload names have no dash). */
const workloadOf = (podKey: string) => podKey.slice(NS.length + 1).split('-')[0]!;

function apply(sim: Simulation, s: SvrScenario, p: Phase, revisions: Map<string, number>, drains: Set<string>): void {
  const kindOf = (w: string) => s.workloads.find((x) => x.name === w)!.kind;
  let action: Action | undefined;
  if ('create' in p) {
    const w = s.workloads.find((x) => x.name === p.create)!;
    action = { type: 'scale', kind: w.kind, name: `${NS}/${w.name}`, replicas: w.replicas };
  } else if ('scale' in p) action = { type: 'scale', kind: kindOf(p.scale.workload), name: `${NS}/${p.scale.workload}`, replicas: p.scale.replicas };
  else if ('rollout' in p) {
    const revision = (revisions.get(p.rollout.workload) ?? 1) + 1;
    revisions.set(p.rollout.workload, revision);
    action = { type: 'rollout', kind: kindOf(p.rollout.workload), name: `${NS}/${p.rollout.workload}`, image: imageOf(revision) };
  } else if ('cordon' in p) action = { type: 'cordon', node: p.cordon };
  else if ('drain' in p) action = { type: 'drain', node: p.drain };
  else if ('failNode' in p) action = { type: 'failNode', node: p.failNode };
  else if ('removeNode' in p) action = { type: 'removeNode', node: p.removeNode };
  else {
    const { workload, node } = p.deletePod;
    const candidates = [...sim.world.cluster.pods()].filter((x) => x.labels['app'] === workload && x.nodeName === node && !x.terminating);
    const newest = candidates.sort((a, b) => b.creation - a.creation || (a.name < b.name ? 1 : -1))[0];
    if (newest) action = { type: 'deletePod', pod: newest.key };
  }
  if (!action) return;
  // A node already gone (removed earlier) makes the step a no-op, as on the real side.
  if ('node' in action && typeof action.node === 'string' && !sim.world.cluster.nodeInfo(action.node)) return;
  // The real side follows a drain only of a node that exists (s1-98: a drain after removeNode).
  if (action.type === 'drain') drains.add(action.node);
  applyAction(sim, action);
}

function observe(sim: Simulation, phase: string, s: SvrScenario, drains: Set<string>): PhaseObservation {
  const placement: Record<string, Record<string, number>> = {};
  const pending: Record<string, { count: number; reasons: string[] }> = {};
  const lastFailure = new Map<string, string>();
  for (const r of sim.engine.log) if (r.type === 'FailedScheduling') lastFailure.set(r['pod'] as string, r['message'] as string);
  for (const pod of sim.world.cluster.pods()) {
    const w = pod.labels['app'];
    if (!w || pod.terminating) continue;
    if (pod.nodeName) {
      const m = (placement[w] ??= {});
      m[pod.nodeName] = (m[pod.nodeName] ?? 0) + 1;
    } else {
      const e = (pending[w] ??= { count: 0, reasons: [] });
      e.count++;
      const why = lastFailure.get(pod.key);
      if (why !== undefined) e.reasons.push(why);
    }
  }
  const rolloutComplete: Record<string, boolean> = {};
  for (const w of s.workloads) {
    if (w.kind === 'Deployment') {
      const d = sim.deployments.objects.get(`${NS}/${w.name}`)!;
      const st = d.status;
      rolloutComplete[w.name] = st.updatedReplicas === d.replicas && st.replicas === d.replicas && st.availableReplicas === d.replicas;
    } else {
      const ss = sim.statefulSets.objects.get(`${NS}/${w.name}`)!;
      rolloutComplete[w.name] = ss.status.updatedReplicas === ss.replicas && ss.status.readyReplicas === ss.replicas && ss.status.replicas === ss.replicas;
    }
  }
  const drainComplete: Record<string, boolean> = {};
  const done = new Set(sim.engine.log.filter((r) => r.type === 'DrainComplete').map((r) => r['node'] as string));
  for (const n of drains) drainComplete[n] = done.has(n);
  return { phase, placement, pending, rolloutComplete, drainComplete };
}

/** A Deployment's ReplicaSets (keys, in the order first scaled = revision order) with each one's replica counts so far (the first scale's `from`, then every `to`). */
function replicaSetValues(log: Simulation['engine']['log'], deployment: string): Map<string, number[]> {
  const values = new Map<string, number[]>();
  for (const r of log) {
    if (r.type !== 'ScalingReplicaSet' || r['deployment'] !== deployment) continue;
    const rs = r['replicaSet'] as string;
    const v = values.get(rs) ?? [r['from'] as number];
    v.push(r['to'] as number);
    values.set(rs, v);
  }
  return values;
}

/** Each Deployment's ReplicaSets in creation order (= revision) with their replica counts. */
function replicaSetHistory(s: SvrScenario, log: Simulation['engine']['log']): Observation['replicaSets'] {
  const out: Record<string, number[][]> = {};
  for (const w of s.workloads) if (w.kind === 'Deployment') out[w.name] = [...replicaSetValues(log, `${NS}/${w.name}`).values()].map(replicaSequence).filter((v) => v.length > 0);
  return out;
}
