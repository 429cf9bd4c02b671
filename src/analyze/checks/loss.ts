// node-loss, zone-loss, spot-interruption and capacity-loss: four named failure
// models, each simulated for every node (zone, spot pool, instance type) that runs
// replicas of a workload, watching each workload's ready replicas: does it lose
// all of them at once, does it fall below its PDB, and are all its replicas ready
// again (with and without the provisioner) — and how long it takes.
//
// - node loss: the node stops answering (failNode).
// - zone loss: every node of the zone stops answering and the zone takes no
//   launches until it returns (failZone: its offerings are insufficient-capacity).
// - spot interruption: a wave reclaims half (rounded up) of the spot nodes of one
//   instance type in one zone, the ones running most replicas first: the 2-minute
//   notice (the node cordoned and drained then, as Karpenter's interruption
//   handling does), the instance gone at 2 minutes, its Node deleted by the cloud
//   node controller once NotReady; spot capacity of that type and zone stays
//   unavailable for the rest of the run.
// - capacity loss: one instance type is insufficient-capacity in one zone (as an
//   AWS fault-injection ICE test does) while a node of that type there is lost:
//   reported only where the same node loss alone recovers, i.e. where recovery
//   depends on that one offering. Simulated only when the provisioner is on.
//
// A loss is modelled with failNode / failZone (the kubelet stops answering), not
// terminateNode: the input's nodes are not instances of the simulated cloud, so
// terminateNode would only stop their kubelets just the same; and a node that
// stops answering (crash, partition, a dead instance the cloud controller has not
// noticed) is the common and the slow case — the Node stays, its pods stay bound
// until the NoExecute eviction 300 s later — so a workload that survives it also
// survives a clean deletion, which frees its pods sooner.
//
// Cost: every simulation replays the cluster from the start, so nodes are not
// simulated one by one. Nodes that run no analysed pod are not simulated at all;
// the others are failed together in batches whose nodes share no workload (so each
// workload sees exactly one of its nodes fail), at most a tenth of the cluster and
// UNITS_PER_ZONE nodes of one zone at once; a workload that shows a problem in a batch is re-run with its node alone,
// so every finding's evidence is a single-node simulation.

import type { LoadedInput } from '../../io/load.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../../model/node.js';
import { capacityTypeOf, offeringPoolOf } from '../../model/offering-pool.js';
import { SPOT_INTERRUPTION_NOTICE_MS } from '../../sim/cloud.js';
import { NODE_EVICTION_QPS } from '../../sim/node-lifecycle.js';
import { zoneKey } from '../../cluster/state.js';
import type { Action } from '../../io/scenario-spec.js';
import type { ScenarioRun } from '../../sim/scenario.js';
import { formatTime } from '../../sim/timeline.js';
import { twoRoundCheck, type AnalysisContext, type Part } from '../check.js';
import type { Finding, Remedy, Severity } from '../finding.js';
import { budgetFloor, podGroups, type PodGroup } from '../pod-groups.js';
import { readyWindow, trackReady, type ReadyTracker, type ReadyWindow } from '../ready-replicas.js';
import { proveFixes } from '../prove.js';
import { addNodesLike, combine, isSharedInput, requireAntiAffinity, scaleTo, spreadAcross, templateNodeFor } from '../remedies.js';
import { settle, type Placement } from '../settle.js';
import { allowEveryZone, confiningClasses, describeVolumeBound, volumeBoundReplicas, type VolumeBoundReplica } from '../volume-bound.js';
import { exchanged, memoized, simulateWhatIf } from '../what-if.js';
import { provableShortfall, shortGroups } from '../held-replicas.js';
import type { Simulation } from '../../sim/simulation.js';
import type { LogRecord } from '../../sim/engine.js';

/**
 * How long after the loss a workload may take to be whole again. A node: its pods'
 * eviction (≈6 min) plus a node launch. A zone: the node controller evicts from a
 * fully disrupted zone at 0.1 node/s, so a zone of 100 nodes takes 17 min more.
 */
export const LOSS_HORIZON_MS: Record<Scope, number> = { node: 10 * 60_000, zone: 30 * 60_000, spot: 10 * 60_000, capacity: 10 * 60_000 };

export type Scope = 'node' | 'zone' | 'spot' | 'capacity';

const RULES: Record<Scope, string> = { node: 'node-loss', zone: 'zone-loss', spot: 'spot-interruption', capacity: 'capacity-loss' };

/** The share of a spot pool (one instance type in one zone) a wave reclaims. */
export const SPOT_WAVE_SHARE = 0.5;
/** After the instance is gone, the cloud node controller deletes its Node once the node lifecycle controller has seen it NotReady (grace 40-50 s). */
const NODE_DELETED_AFTER_MS = SPOT_INTERRUPTION_NOTICE_MS + 50_000;
/** The notice comes a second after the wave's start, so the ready count before it is read undisturbed (the drain acts at once). */
const NOTICE_AT_MS = 1_000;

export interface Unit {
  /** "node n1", "zone us-west-2a", "2 of 3 spot m5.large nodes in us-west-2a (n1, n2)"... */
  readonly label: string;
  /** The node or zone name (the first node's for spot waves and capacity losses). */
  readonly name: string;
  /** The steps of the failure, at offsets from the moment it begins. */
  readonly steps: readonly { readonly offsetMs: number; readonly action: Action }[];
  /** The nodes lost. */
  readonly nodes: readonly Node[];
  /** Groups with pods there, and how many. */
  readonly hosts: ReadonlyMap<PodGroup, number>;
}

interface Trial {
  readonly run: ScenarioRun;
  readonly tracker: ReadyTracker;
  readonly provisioner: boolean;
  readonly batchSize: number;
  /** When the loss happened, and how long the run went on after it. */
  readonly t0: number;
  readonly horizonMs: number;
}

/** What the verdicts read of an outcome. */
interface Verdict {
  readonly group: PodGroup;
  readonly window: ReadyWindow;
  readonly floor: number;
  /** Replicas whose volumes no surviving node can reach (they cannot come back elsewhere). */
  readonly volumeBound?: readonly VolumeBoundReplica[];
}

interface Outcome extends Verdict {
  readonly unit: Unit;
  readonly pdb?: string;
  readonly trial: Trial;
  /** Set when the provisioner made the difference: whole again with it, not without. */
  readonly needsProvisioner?: boolean;
  /** Set when the provisioner is off and turning it on would make the group whole again. */
  readonly provisionerWouldRecover?: boolean;
}

/**
 * An outcome that shows a problem (or needs the provisioner), as plain data that
 * crosses between worker threads: its unit by index in the plan's units, its group
 * by object, and what the finding reads of its simulation (evidence, the eviction
 * note) read out of it, so the simulation itself can be let go.
 */
export interface OutcomeRecord extends Omit<Outcome, 'unit' | 'group' | 'trial'> {
  readonly unit: number;
  readonly group: string;
  /** How long the run went on after the loss. */
  readonly horizonMs: number;
  /** The nodes that ran the group's pods before the failure. */
  readonly hostNodes: readonly string[];
  readonly evidence: readonly string[];
  /** Why no pod was evicted, when that is why the group is not whole (evictionNote). */
  readonly stalled?: string;
}

/** A record with its unit and group resolved again: what a finding is made of. */
interface Found extends Omit<OutcomeRecord, 'unit' | 'group'> {
  readonly unit: Unit;
  readonly group: PodGroup;
}

const lossGroups = new WeakMap<LoadedInput, readonly PodGroup[]>();

/** The groups the loss checks analyse, one list per input: trackers of its runs then match each pod once (trackReady). */
function groupsForLoss(input: LoadedInput): readonly PodGroup[] {
  let groups = lossGroups.get(input);
  if (!groups) lossGroups.set(input, (groups = podGroups(input).filter((g) => g.workload && g.replicas > 0)));
  return groups;
}


function units(scope: Scope, placement: Placement, ctx: AnalysisContext): Unit[] {
  const fail = (node: string): Action => ({ type: 'failNode', node });
  if (scope === 'node') {
    return placement
      .filter((p) => p.hosts.size > 0)
      .map((p) => ({ label: `node ${p.node.name}`, name: p.node.name, steps: [{ offsetMs: 0, action: fail(p.node.name) }], nodes: [p.node], hosts: p.hosts }));
  }
  if (scope === 'zone') {
    const zones = byKey(placement, (n) => n.labels[LABEL_ZONE]);
    // A cluster in one zone loses everything with it; co-location reports the zone sharing instead.
    if (zones.size < 2) return [];
    return [...zones]
      .filter(([, z]) => z.some((p) => p.hosts.size > 0))
      .map(([zone, z]) => ({ label: `zone ${zone}`, name: zone, steps: [{ offsetMs: 0, action: { type: 'failZone', zone } }], nodes: z.map((p) => p.node), hosts: sumHosts(z) }));
  }
  const typed = (n: Node) => offeringPoolOf(n.labels);
  if (scope === 'spot') {
    const pools = byKey(placement.filter((p) => capacityTypeOf(p.node.labels) === 'spot'), typed);
    return [...pools].flatMap(([key, pool]) => {
      const [type, zone] = key.split('/') as [string, string];
      const hosted = (p: Placement[number]) => [...p.hosts.values()].reduce((a, b) => a + b, 0);
      const chosen = [...pool].sort((a, b) => hosted(b) - hosted(a) || (a.node.name < b.node.name ? -1 : 1)).slice(0, Math.ceil(pool.length * SPOT_WAVE_SHARE));
      if (!chosen.some((p) => p.hosts.size > 0)) return [];
      const names = chosen.map((p) => p.node.name);
      return [
        {
          label: `${chosen.length} of ${pool.length} spot ${type} node(s) in ${zone} (${names.join(', ')})`,
          name: names[0]!,
          steps: [
            { offsetMs: 0, action: { type: 'insufficientCapacity', instanceType: type, zone, capacityType: 'spot', durationMs: LOSS_HORIZON_MS.spot } },
            ...names.flatMap((node) => [
              { offsetMs: NOTICE_AT_MS, action: { type: 'spotInterruption', node } as Action },
              { offsetMs: NOTICE_AT_MS, action: { type: 'drain', node } as Action },
              { offsetMs: NOTICE_AT_MS + NODE_DELETED_AFTER_MS, action: { type: 'removeNode', node } as Action },
            ]),
          ],
          nodes: chosen.map((p) => p.node),
          hosts: sumHosts(chosen),
        },
      ];
    });
  }
  if (!ctx.provisioner || ctx.input.nodePools.length === 0) return [];
  const pools = byKey(placement.filter((p) => p.hosts.size > 0), typed);
  return [...pools].map(([key, pool]) => {
    const [type, zone] = key.split('/') as [string, string];
    const p = pool[0]!;
    return {
      label: `node ${p.node.name} while ${type} is out of capacity in ${zone}`,
      name: p.node.name,
      steps: [
        { offsetMs: 0, action: { type: 'insufficientCapacity', instanceType: type, zone, durationMs: LOSS_HORIZON_MS.capacity } },
        { offsetMs: 0, action: fail(p.node.name) },
      ],
      nodes: [p.node],
      hosts: p.hosts,
    };
  });
}

function byKey(placement: Placement, key: (n: Node) => string | undefined): Map<string, Placement[number][]> {
  const out = new Map<string, Placement[number][]>();
  for (const p of placement) {
    const k = key(p.node);
    if (k === undefined) continue;
    out.set(k, [...(out.get(k) ?? []), p]);
  }
  return out;
}

function sumHosts(list: Placement): Map<PodGroup, number> {
  const hosts = new Map<PodGroup, number>();
  for (const p of list) for (const [g, n] of p.hosts) hosts.set(g, (hosts.get(g) ?? 0) + n);
  return hosts;
}

/**
 * Units of one zone a batch fails together. The node lifecycle controller taints a
 * zone's unreachable nodes one at a time (NODE_EVICTION_QPS), so the k-th node of a
 * zone in a batch loses its pods 10 (k - 1) s later than it would alone: with dozens
 * in one zone the last ones' replicas are evicted near the horizon, look not whole,
 * and are all simulated again alone for nothing (a 5,000-node batch of 71 nodes in
 * one zone re-ran most of them). Two minutes of queue leaves them time to recover.
 */
export const UNITS_PER_ZONE = 1 + Math.floor(2 * 60 * NODE_EVICTION_QPS);

/**
 * Units packed so that no two in a batch host the same group, at most `cap` per
 * batch and `perZone` of any one zone (a unit's zone: its first node's).
 */
export function batches(list: readonly Unit[], cap: number, perZone = Infinity): Unit[][] {
  const out: { units: Unit[]; groups: Set<PodGroup>; zones: Map<string, number> }[] = [];
  for (const u of list) {
    const zone = zoneKey(u.nodes[0]!.labels);
    const b = out.find((x) => x.units.length < cap && (x.zones.get(zone) ?? 0) < perZone && [...u.hosts.keys()].every((g) => !x.groups.has(g)));
    if (b) {
      b.units.push(u);
      for (const g of u.hosts.keys()) b.groups.add(g);
      b.zones.set(zone, (b.zones.get(zone) ?? 0) + 1);
    } else out.push({ units: [u], groups: new Set(u.hosts.keys()), zones: new Map([[zone, 1]]) });
  }
  return out.map((b) => b.units);
}

/**
 * `stopOnProblem`: end the run as soon as that group has lost every ready replica
 * or fallen below its budget — its verdict is then a problem whatever follows,
 * which is all a fix being re-checked asks. The outcome read from such a trial has
 * the same lostAll / belowBudget / hasProblem answers as the full run's.
 */
function simulate(ctx: AnalysisContext, scope: Scope, batch: readonly Unit[], groups: readonly PodGroup[], t0: number, provisioner: boolean, stopOnProblem?: PodGroup): Trial {
  const tracker = trackReady(groups);
  const run = simulateWhatIf(ctx, {
    name: RULES[scope],
    steps: batch.flatMap((u) => u.steps.map((st) => ({ at: t0 + st.offsetMs, action: st.action }))),
    untilMs: t0 + LOSS_HORIZON_MS[scope],
    provisioner,
    observe: (sim) => {
      tracker.observe(sim);
      if (stopOnProblem) stopOnceFailed(sim, ctx, tracker, stopOnProblem, t0);
    },
  });
  return { run, tracker, provisioner, batchSize: batch.length, t0, horizonMs: LOSS_HORIZON_MS[scope] };
}

/**
 * What simulating `unit` alone for each of `groups` on its own gives, from one
 * simulation: observers do not change a run, so each group is tracked as if alone
 * (a pod counts for every group that has it, as when it is the only one tracked).
 */
function simulateEach(ctx: AnalysisContext, scope: Scope, unit: Unit, groups: readonly PodGroup[], t0: number, provisioner: boolean): Map<PodGroup, Trial> {
  if (groups.length === 0) return new Map();
  const tracker = trackReady(groups, true);
  const run = simulateWhatIf(ctx, {
    name: RULES[scope],
    steps: unit.steps.map((st) => ({ at: t0 + st.offsetMs, action: st.action })),
    untilMs: t0 + LOSS_HORIZON_MS[scope],
    provisioner,
    observe: (sim) => tracker.observe(sim),
  });
  return new Map(groups.map((g) => [g, { run, tracker, provisioner, batchSize: 1, t0, horizonMs: LOSS_HORIZON_MS[scope] }]));
}

function stopOnceFailed(sim: Simulation, ctx: AnalysisContext, tracker: ReadyTracker, group: PodGroup, t0: number): void {
  const { floor } = budgetFloor(group, ctx.input.pdbs);
  let before: number | undefined;
  sim.engine.afterEach(() => {
    // Points at t0 itself still count as "before" (readyWindow), so the verdict starts after it.
    if (sim.engine.now <= t0) return;
    before ??= readyWindow(tracker.series(group), t0, t0, 0, 0).before;
    if (failedAlready(group, floor, before, tracker.ready(group))) sim.engine.stop();
  });
}

/**
 * Whether a group with `before` ready replicas at the loss and `ready` now has lost
 * them all or fallen below its budget (`floor`): its verdict is a problem whatever
 * follows, the lostAll / belowBudget of the whole run's window.
 */
const failedAlready = (group: PodGroup, floor: number, before: number, ready: number) => (before > 0 && ready === 0) || (floor > 0 && floor < group.replicas && before >= floor && ready < floor);

function outcome(ctx: AnalysisContext, unit: Unit, group: PodGroup, trial: Trial): Outcome {
  const { t0 } = trial;
  const { floor, pdb } = budgetFloor(group, ctx.input.pdbs);
  const series = trial.tracker.series(group);
  const before = readyWindow(series, t0, t0, 0, 0).before;
  const window = readyWindow(series, t0, t0 + trial.horizonMs, floor, before);
  return { unit, group, window, floor, ...(pdb ? { pdb: pdb.key } : {}), trial };
}

/** Finished runs whose cluster has no pod that mounts a claim. */
const claimless = new WeakMap<ScenarioRun, boolean>();

/** volumeBoundReplicas of a finished run, without walking its pods for each group where none mounts a claim (a zone loss asks for a thousand groups). */
function boundReplicas(run: ScenarioRun, group: PodGroup, lost: readonly Node[]): VolumeBoundReplica[] {
  let none = claimless.get(run);
  if (none === undefined) {
    none = true;
    for (const p of run.sim.world.cluster.pods()) {
      if (!p.volumes?.some((v) => v.kind === 'claim')) continue;
      none = false;
      break;
    }
    claimless.set(run, none);
  }
  return none ? [] : volumeBoundReplicas(run, group, lost);
}

const lostAll = (o: Verdict) => o.window.before > 0 && o.window.min === 0;
/** Below a PDB that leaves room for a disruption at all (one that never does is the pdb check's). */
const belowBudget = (o: Verdict) => o.floor > 0 && o.floor < o.group.replicas && o.window.before >= o.floor && o.window.min < o.floor;
const notWhole = (o: Verdict) => o.window.wholeAgainAt === undefined;
const hasProblem = (o: Verdict) => lostAll(o) || belowBudget(o) || notWhole(o);
const launchedAfter = (run: ScenarioRun, t0: number) => run.events.some((e) => e.type === 'NodeClaimLaunched' && e.t >= t0);

/** Not whole only because the replicas lost with their volumes cannot come back, the others all running. */
const onlyVolumeBound = (o: Verdict) => !lostAll(o) && !belowBudget(o) && o.volumeBound !== undefined && o.window.min + o.volumeBound.length >= o.window.before;

function severityOf(o: Verdict): Severity {
  if (lostAll(o)) return o.group.replicas >= 2 ? 'error' : 'warning';
  // Zonal volumes strand their replica in a lost zone whatever the spec says; the rest keep running.
  if (onlyVolumeBound(o)) return 'info';
  if (notWhole(o) || belowBudget(o)) return 'warning';
  return 'info';
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
const outageOf = (o: Verdict) => (o.window.wholeAgainAt === undefined ? Infinity : o.window.wholeAgainAt - o.window.minAt);

/** The failures a check simulates: settled once from the baseline, the same in every worker. */
interface LossPlan {
  readonly groups: readonly PodGroup[];
  readonly t0: number;
  readonly placement: Placement;
  readonly units: readonly Unit[];
  readonly batches: readonly (readonly Unit[])[];
}

function lossPlan(ctx: AnalysisContext, scope: Scope, only?: string): LossPlan | undefined {
  const all = groupsForLoss(ctx.input);
  const groups = only === undefined ? all : all.filter((g) => g.object === only);
  if (groups.length === 0) return undefined;
  const { t0, placement } = settle(ctx, groups);
  const list = units(scope, placement, ctx);
  const cap = scope === 'node' ? Math.max(1, Math.floor(placement.length / 10)) : 1;
  return { groups, t0, placement, units: list, batches: batches(list, cap, UNITS_PER_ZONE) };
}

const plans = new WeakMap<AnalysisContext, Map<Scope, LossPlan | undefined>>();

/** The plan of every group (both rounds of a check, in one worker, read it): once per context and scope. */
function fullPlan(ctx: AnalysisContext, scope: Scope): LossPlan | undefined {
  let byScope = plans.get(ctx);
  if (!byScope) plans.set(ctx, (byScope = new Map()));
  if (!byScope.has(scope)) byScope.set(scope, lossPlan(ctx, scope));
  return byScope.get(scope);
}

/**
 * Every group's outcome for every unit hosting it, problems confirmed on a
 * single-unit run. `only` restricts the analysis to one group (a fix being
 * re-checked); `compareProvisioner` adds the with/without-provisioner runs the
 * messages use.
 */
function* lossOutcomes(ctx: AnalysisContext, scope: Scope, only?: string, compareProvisioner = true, first?: string): Generator<Outcome> {
  const plan = lossPlan(ctx, scope, only);
  if (!plan) return;
  // A fix being re-checked (one group) needs only its verdict.
  const stopOnProblem = only !== undefined && plan.groups.length === 1 ? plan.groups[0] : undefined;
  for (const batch of firstNamed(plan.batches, (b) => b.some((u) => u.name === first))) yield* batchOutcomes(ctx, scope, plan, batch, compareProvisioner, stopOnProblem);
}

/** The list with its first item that `isFirst` picks moved to the front (the others in order). */
function firstNamed<T>(list: readonly T[], isFirst: (item: T) => boolean): readonly T[] {
  const at = list.findIndex(isFirst);
  return at <= 0 ? list : [list[at]!, ...list.slice(0, at), ...list.slice(at + 1)];
}

function* batchOutcomes(ctx: AnalysisContext, scope: Scope, plan: LossPlan, batch: readonly Unit[], compareProvisioner: boolean, stopOnProblem?: PodGroup): Generator<Outcome> {
  const { groups, t0 } = plan;
  const pools = compareProvisioner && ctx.input.nodePools.length > 0;
  const trial = simulate(ctx, scope, batch, groups, t0, ctx.provisioner, stopOnProblem);
  for (const unit of batch) {
    let alone: Trial | undefined;
    const first = [...unit.hosts.keys()].map((group) => {
      const o = outcome(ctx, unit, group, trial);
      return hasProblem(o) && trial.batchSize > 1 ? outcome(ctx, unit, group, (alone ??= simulate(ctx, scope, [unit], groups, t0, ctx.provisioner, stopOnProblem))) : o;
    });
    // The other provisioner setting, for the groups whose message compares with it: one run for all of them.
    const other = pools ? simulateEach(ctx, scope, unit, first.filter((o) => (ctx.provisioner ? !notWhole(o) && launchedAfter(o.trial.run, t0) : notWhole(o))).map((o) => o.group), t0, !ctx.provisioner) : new Map<PodGroup, Trial>();
    for (let o of first) {
      const group = o.group;
      const compared = other.get(group);
      if (compared && ctx.provisioner && notWhole(outcome(ctx, unit, group, compared))) o = { ...o, needsProvisioner: true };
      if (compared && !ctx.provisioner && !notWhole(outcome(ctx, unit, group, compared))) o = { ...o, provisionerWouldRecover: true };
      const bound = hasProblem(o) ? boundReplicas(o.trial.run, group, unit.nodes) : [];
      if (bound.length > 0) o = { ...o, volumeBound: bound };
      // Capacity loss is reported only where the node loss alone recovers: recovery hangs on the lost offering.
      if (scope === 'capacity' && !(hasProblem(o) && !nodeAloneFails(ctx, scope, o, t0))) continue;
      yield o;
    }
  }
}

/** Round 1, one part: each of the part's batches simulated, its outcomes that show a problem (or need the provisioner) as records. */
function recordsOf(ctx: AnalysisContext, scope: Scope, part: Part): OutcomeRecord[][] {
  const plan = fullPlan(ctx, scope);
  if (!plan) return [];
  const out: OutcomeRecord[][] = [];
  for (let i = part.index; i < plan.batches.length; i += part.count) {
    const records: OutcomeRecord[] = [];
    for (const o of batchOutcomes(ctx, scope, plan, plan.batches[i]!, true)) if (hasProblem(o) || o.needsProvisioner) records.push(record(o, scope, plan));
    out.push(records);
  }
  return out;
}

function record(o: Outcome, scope: Scope, plan: LossPlan): OutcomeRecord {
  const { unit, group, trial, ...rest } = o;
  const stalled = o.window.wholeAgainAt === undefined ? evictionNote(o)?.stalled : undefined;
  const hostNodes = plan.placement.filter((p) => p.hosts.has(group)).map((p) => p.node.name);
  return { ...rest, hostNodes, unit: plan.units.indexOf(unit), group: group.object, horizonMs: trial.horizonMs, evidence: evidence(o, scope), ...(stalled ? { stalled } : {}) };
}

/** Round 2's items: the records of each group with a problem, groups in the order their first record came. */
function byGroup(records: readonly OutcomeRecord[]): [string, OutcomeRecord[]][] {
  const out = new Map<string, OutcomeRecord[]>();
  for (const r of records) out.set(r.group, [...(out.get(r.group) ?? []), r]);
  return [...out];
}

/** Round 2, one group: its records resolved against this worker's plan, and its finding with fixes re-simulated. */
function findingOf(ctx: AnalysisContext, scope: Scope, object: string, records: readonly OutcomeRecord[]): Finding {
  const plan = fullPlan(ctx, scope);
  const group = plan?.groups.find((g) => g.object === object);
  if (!plan || !group) throw new Error(`${RULES[scope]}: no group ${object} in the plan round 1 recorded it from`);
  return groupFinding(ctx, scope, group, records.map((r) => ({ ...r, unit: plan.units[r.unit]!, group })));
}

function nodeAloneFails(ctx: AnalysisContext, scope: Scope, o: Outcome, t0: number): boolean {
  const nodeAlone: Unit = { ...o.unit, steps: o.unit.steps.filter((st) => st.action.type !== 'insufficientCapacity') };
  return hasProblem(outcome(ctx, o.unit, o.group, simulate(ctx, scope, [nodeAlone], [o.group], t0, ctx.provisioner)));
}

/**
 * Whether the group still has a problem under this failure model on (a changed)
 * input: what a fix must clear. Stops at the first failure that shows one, trying
 * the unit named `first` (the one that failed it on the checked input) before the
 * others: the answer is the same in any order, and a fix that does not clear the
 * finding is then usually seen after one simulation.
 */
function stillFails(ctx: AnalysisContext, scope: Scope, object: string, first?: string): boolean {
  let any = false;
  const verdicts = isSharedInput(ctx.input) && (scope === 'node' || scope === 'zone') ? sharedVerdicts(ctx, scope, object, first) : ownVerdicts(ctx, scope, object, first);
  for (const fails of verdicts) {
    if (fails) return true;
    any = true;
  }
  // No outcome proves nothing: the changed input left the group with no placed pod to fail.
  return !any;
}

const fails = (o: Outcome) => hasProblem(o) && !onlyVolumeBound(o);

/** Whether each failure the group's pods see shows it a problem, in order. */
function* ownVerdicts(ctx: AnalysisContext, scope: Scope, object: string, first?: string): Generator<boolean> {
  for (const o of lossOutcomes(ctx, scope, object, false, first)) yield fails(o);
}

/**
 * ownVerdicts on an input several groups' fixes propose (nodes added): each node or
 * zone loss (its steps are the node's or zone's alone) judged by sharedLossVerdict,
 * the verdicts kept with the input for the next group's proof.
 */
function* sharedVerdicts(ctx: AnalysisContext, scope: Scope, object: string, first?: string): Generator<boolean> {
  const plan = (scope === 'zone' ? sharedZonePlan(ctx, object) : undefined) ?? lossPlan(ctx, scope, object);
  if (!plan) return;
  for (const unit of firstNamed(plan.units, (u) => u.name === first)) yield exchanged(ctx, verdictKey(scope, unit, object), () => sharedLossVerdict(ctx, scope, unit, plan.t0, object));
}

/**
 * Whether no pod can belong to two of the groups, so that a placement counting each
 * pod for its first group (settle) places every group as settling it alone would:
 * controller-less groups are apart from the others (and from each other: their
 * label sets differ), and the workloads of each namespace all require one label
 * key, with values no two of them share.
 */
export function apart(groups: readonly PodGroup[]): boolean {
  const keys = new Map<string, { readonly key: string; readonly values: Set<string> }>();
  for (const g of groups) {
    if (g.kind === 'Pod') continue;
    const r = g.requiredLabel;
    if (!r) return false;
    const known = keys.get(g.namespace);
    if (!known) keys.set(g.namespace, { key: r.key, values: new Set(r.values) });
    else if (known.key !== r.key || r.values.some((v) => known.values.has(v))) return false;
    else for (const v of r.values) known.values.add(v);
  }
  return true;
}

/**
 * lossPlan(ctx, 'zone', object)'s units and start on a shared input, from one
 * placement of every group made once per input, when the groups are apart (the
 * zones a group's pods run in are then the same): each of a thousand groups'
 * proofs on one input would settle its pods again.
 */
function sharedZonePlan(ctx: AnalysisContext, object: string): Pick<LossPlan, 't0' | 'units'> | undefined {
  const byGroup = memoized(ctx, 'loss-zone-units', () => {
    const groups = groupsForLoss(ctx.input);
    if (!apart(groups)) return undefined;
    const { t0, placement } = settle(ctx, groups);
    const out = new Map<string, { t0: number; units: Unit[] }>();
    for (const u of units('zone', placement, ctx)) for (const g of u.hosts.keys()) out.set(g.object, { t0, units: [...(out.get(g.object)?.units ?? []), u] });
    return out;
  });
  return byGroup?.get(object);
}

/** Where a group's verdict under a loss of a shared input is kept (and given to the other workers: each worker's proofs of the same added nodes would simulate it again). */
const verdictKey = (scope: Scope, unit: Unit, object: string) => JSON.stringify(['loss-verdict', scope, unit.label, object]);

/**
 * The verdict of group `object` under `unit`'s loss on a shared input: the loss
 * simulated with every group watched by one tracker (each as if alone), stopped as
 * soon as this group's verdict is known — it lost every ready replica or fell below
 * its budget (as stopOnceFailed), or cannot be whole at the horizon (shortGroups)
 * — which keeps the verdict the run to the horizon gives. Every other group's
 * verdict known by then (all of them at the horizon) is kept for its own proof.
 */
function sharedLossVerdict(ctx: AnalysisContext, scope: Scope, unit: Unit, t0: number, object: string): boolean {
  const groups = groupsForLoss(ctx.input);
  const horizon = t0 + LOSS_HORIZON_MS[scope];
  const tracker = trackReady(groups, true);
  const failed = new Set<PodGroup>();
  const asker = groups.find((g) => g.object === object)!;
  const run = simulateWhatIf(ctx, {
    name: RULES[scope],
    steps: unit.steps.map((st) => ({ at: t0 + st.offsetMs, action: st.action })),
    untilMs: horizon,
    observe: (sim) => {
      tracker.observe(sim);
      watchFailures(sim, ctx, tracker, { groups, asker, t0, horizon, failed });
    },
  });
  const verdicts = failed.has(asker)
    ? [...failed].map((g) => [g, true] as const)
    : groups.map((group) => {
        const trial: Trial = { run, tracker, provisioner: ctx.provisioner, batchSize: 1, t0, horizonMs: LOSS_HORIZON_MS[scope] };
        const o = outcome(ctx, unit, group, trial);
        const bound = hasProblem(o) ? boundReplicas(run, group, unit.nodes) : [];
        return [group, fails(bound.length > 0 ? { ...o, volumeBound: bound } : o)] as const;
      });
  for (const [group, verdict] of verdicts) if (group !== asker) exchanged(ctx, verdictKey(scope, unit, group.object), () => verdict);
  return verdicts.find(([g]) => g === asker)![1];
}

/**
 * Adds to `failed` each group whose verdict is failure already, read at the end of
 * each instant (what the ready series keeps of it), and stops the run once the
 * asking group is among them. Only the asking group is checked against
 * shortGroups every 5 simulated seconds; once it has failed, every other group
 * is, in one pass over the pods.
 */
function watchFailures(sim: Simulation, ctx: AnalysisContext, tracker: ReadyTracker, w: { groups: readonly PodGroup[]; asker: PodGroup; t0: number; horizon: number; failed: Set<PodGroup> }): void {
  const floors = new Map(w.groups.map((g) => [g, budgetFloor(g, ctx.input.pdbs).floor]));
  let before: Map<PodGroup, number> | undefined;
  let shortCheckedAt = -Infinity;
  /** The groups of `list` shortGroups proves short (only those it may prove: provableShortfall). */
  const short = (list: readonly PodGroup[]) => shortGroups(sim, new Map(list.filter((g) => provableShortfall(ctx.input, g)).map((g) => [g, before!.get(g)!])), w.horizon);
  sim.engine.afterEach(() => {
    const { now } = sim.engine;
    if (now <= w.t0 || sim.engine.busyNow) return;
    before ??= new Map(w.groups.map((g) => [g, readyWindow(tracker.series(g), w.t0, w.t0, 0, 0).before]));
    for (const g of w.groups) if (!w.failed.has(g) && failedAlready(g, floors.get(g)!, before.get(g)!, tracker.ready(g))) w.failed.add(g);
    if (!w.failed.has(w.asker) && now - shortCheckedAt >= SHORT_CHECK_MS) {
      shortCheckedAt = now;
      for (const g of short([w.asker])) w.failed.add(g);
    }
    if (!w.failed.has(w.asker)) return;
    for (const g of short(w.groups.filter((g) => !w.failed.has(g)))) w.failed.add(g);
    sim.engine.stop();
  });
}

const SHORT_CHECK_MS = 5_000;

const dur = (ms: number) => formatTime(ms);
const on = (u: Unit) => (u.label.startsWith('zone ') ? `in ${u.label}` : `on ${u.label}`);

function message(o: Found): string {
  const text = lossMessage(o);
  return o.volumeBound ? `${text}; ${describeVolumeBound(o.volumeBound, o.group.replicas, o.unit.label)}` : text;
}

function lossMessage(o: Found): string {
  const { window: w, group, unit } = o;
  const hosted = unit.hosts.get(group) ?? 0;
  const back = w.wholeAgainAt === undefined ? `${w.before} ready replicas are not back ${dur(o.horizonMs)} later${o.stalled ? ` (${o.stalled})` : ''}` : `${w.before} ready again ${dur(w.wholeAgainAt - w.minAt)} after the outage began`;
  if (lostAll(o)) {
    if (group.replicas === 1) return `its only replica runs ${on(unit)}: losing it leaves ${group.object} with no ready pod; ${back}`;
    const pending = group.replicas > w.before ? ` (the other ${group.replicas - w.before} of ${group.replicas} never got a place)` : '';
    return `${w.before === 1 ? 'the only ready replica runs' : `all ${w.before} ready replicas run`} ${on(unit)}${pending}: losing it takes ${group.object} down (0 ready from ${formatTime(w.minAt)}); ${back}`;
  }
  if (belowBudget(o)) return `losing ${unit.label} (${hosted} of ${w.before} replicas there) leaves ${w.min}/${w.before} ready for ${dur(w.belowMs)}, below the ${o.floor} PodDisruptionBudget ${o.pdb} asks for; ${back}`;
  if (notWhole(o)) return `after losing ${unit.label} (${hosted} of ${w.before} replicas there) ${back}${o.provisionerWouldRecover ? ', though the provisioner (off) would launch capacity for them' : ''}`;
  return `after losing ${unit.label}, ${w.before - w.min} of ${w.before} replicas are down for ${dur(outageOf(o))}${o.needsProvisioner ? '; they come back only on capacity the provisioner launches (with it off they stay pending)' : ''}`;
}

/** What the simulated failure is, in the words of the evidence's first line. */
export const FAILURE_MODEL: Record<Scope, string> = {
  node: 'failure model "node loss": the node stops answering (crash, kernel hang, network partition); its Node and pods stay until the node lifecycle controller taints it and taint-based eviction removes the pods',
  zone: 'failure model "zone loss": every node of the zone stops answering and the zone takes no launches (every offering there insufficient-capacity) until it returns',
  spot: `failure model "spot interruption": a wave reclaims ${SPOT_WAVE_SHARE * 100}% (rounded up) of the spot nodes of one instance type in one zone, those running most replicas first; at the 2-minute notice each is cordoned and drained (Karpenter's interruption handling), at 2 minutes the instance is gone, its Node deleted once NotReady, and spot capacity of that type and zone stays unavailable`,
  capacity: 'failure model "capacity loss": a node stops answering while its instance type is insufficient-capacity in its zone (an ICE fault-injection test), so its replacement must be another offering',
};

/**
 * Why the lost replicas were (or were not) evicted when they were: the
 * unreachable NoExecute taint, the 300 s default toleration, and the node
 * lifecycle controller's rule that a cluster whose every zone is fully disrupted
 * (all nodes NotReady) is a control-plane problem, not a node one, so nothing is
 * evicted; a partially disrupted zone of a small cluster (≤ 50 nodes) is not
 * evicted from either.
 */
function evictionNote(o: Outcome): { line: string; stalled?: string } | undefined {
  const { run } = o.trial;
  const tainted = firstTainted(o.trial, o.unit);
  if (tainted) {
    const seconds = o.group.templatePod.tolerations.find((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute')?.tolerationSeconds;
    const tol = seconds === undefined ? 'the 300 s the DefaultTolerationSeconds admission plugin gives every pod' : `their own tolerationSeconds ${seconds}`;
    return { line: `t=${formatTime(tainted.t)} ${String(tainted['node'])} gets the node.kubernetes.io/unreachable:NoExecute taint (NotReady, then queued by the node lifecycle controller at 0.1 node/s per zone); its pods tolerate it for ${tol}, then taint-based eviction deletes them` };
  }
  const nodes = run.sim.world.cluster.nodeInfos();
  const notReady = nodes.filter((i) => run.sim.nodeLifecycle.isNotReady(i.node.name)).length;
  if (notReady === 0) return undefined;
  if (notReady === nodes.length) {
    const stalled = 'no pod is evicted: every node is NotReady, which kube-controller-manager treats as a control-plane outage (all zones fully disrupted) and stops all evictions';
    return { line: `${stalled}; the lost replicas stay bound, NotReady, until their nodes return`, stalled };
  }
  const stalled = "no pod is evicted from the lost node(s): their zone is partially disrupted (more than 2 and at least 55% of its nodes NotReady), where kube-controller-manager's node lifecycle controller evicts at 0.01 node/s in clusters over 50 nodes and not at all in smaller ones";
  return { line: stalled, stalled };
}

/** Per event log and unit: the first of the unit's nodes to get the unreachable taint after the loss (and the log's length then). */
const taintedFirst = new WeakMap<readonly LogRecord[], Map<Unit, { readonly length: number; readonly event: LogRecord | undefined }>>();

/** The event of the first of the unit's nodes tainted unreachable after the loss, read once per run and unit (a zone loss's thousand groups share it). */
function firstTainted(trial: Trial, unit: Unit): LogRecord | undefined {
  const { run, t0 } = trial;
  let byUnit = taintedFirst.get(run.events);
  if (!byUnit) taintedFirst.set(run.events, (byUnit = new Map()));
  let known = byUnit.get(unit);
  if (known?.length !== run.events.length) {
    const lost = new Set(unit.nodes.map((n) => n.name));
    known = { length: run.events.length, event: run.events.find((e) => e.t >= t0 && e.type === 'NodeUpdated' && e['reason'] === 'NodeUnreachable' && lost.has(String(e['node']))) };
    byUnit.set(unit, known);
  }
  return known.event;
}

/** The event types evidence reads whatever pod they name; the others it reads only for the group's pods. */
const UNIT_EVENTS = new Set(['Step', 'InsufficientCapacity', 'NodeNotReady', 'NodeClaimLaunched']);

/** Per event log: the positions of the events evidence reads for any group, and of each pod's. */
const eventIndexes = new WeakMap<readonly LogRecord[], { length: number; unit: number[]; byPod: Map<string, number[]> }>();

/**
 * The events of `events` evidence can read for a group whose pods are `pods`, in
 * order: the unit's and the pods' own, without walking the whole log again for each
 * of a zone loss's thousand groups.
 */
function eventsFor(events: readonly LogRecord[], pods: Iterable<string>): LogRecord[] {
  let index = eventIndexes.get(events);
  if (index?.length !== events.length) {
    index = { length: events.length, unit: [], byPod: new Map() };
    events.forEach((e, i) => {
      if (UNIT_EVENTS.has(e.type)) return index!.unit.push(i);
      const pod = e['pod'];
      if (typeof pod !== 'string') return;
      const list = index!.byPod.get(pod);
      if (list) list.push(i);
      else index!.byPod.set(pod, [i]);
    });
    eventIndexes.set(events, index);
  }
  const at = [...index.unit];
  for (const pod of pods) at.push(...(index.byPod.get(pod) ?? []));
  return at.sort((a, b) => a - b).map((i) => events[i]!);
}

/** The simulated steps that show an outcome: the loss, the group's pods and the ready count over time. */
function evidence(o: Outcome, scope: Scope): string[] {
  const { run, tracker, provisioner, batchSize, t0 } = o.trial;
  const lines: string[] = [
    FAILURE_MODEL[scope],
    `simulated with the provisioner ${provisioner ? 'on' : 'off'}${batchSize > 1 ? `, ${batchSize - 1} other node(s) that run none of its pods failing at the same time` : ''}`,
  ];
  const note = evictionNote(o);
  const at = (t: number) => `t=${formatTime(t)}`;
  const seenMessages = new Set<string>();
  let zoneNotReady = 0;
  const failed = o.unit.nodes.length === 1 && !o.unit.label.startsWith('zone ') ? o.unit.name : undefined;
  const lostNodes = new Set(o.unit.nodes.map((n) => n.name));
  const refused = new Set<string>();
  let steps = 0;
  for (const e of eventsFor(run.events, tracker.memberKeys(o.group))) {
    if (e.t < t0) continue;
    const pod = typeof e['pod'] === 'string' ? (e['pod'] as string) : undefined;
    const mine = pod !== undefined && tracker.isMember(o.group, pod);
    if (e.type === 'Step' && (batchSize === 1 || lostNodes.has(String(e['node'])))) {
      const target = e['action'] === 'insufficientCapacity' ? `${String(e['instanceType'] ?? 'any type')} in ${String(e['zone'] ?? 'any zone')}${e['capacityType'] ? ` (${String(e['capacityType'])})` : ''}` : String(e['node'] ?? e['zone']);
      lines.push(`${at(e.t)} ${String(e['action'])} ${target}${steps++ === 0 ? ` (${o.unit.hosts.get(o.group)} of ${o.window.before} ready replicas ${on(o.unit)})` : ''}`);
    } else if (e.type === 'InsufficientCapacity' && !refused.has(String(e['zone']))) {
      refused.add(String(e['zone']));
      lines.push(`${at(e.t)} launch of ${String(e['instanceType'])} in ${String(e['zone'])} refused: insufficient capacity`);
    }
    else if (e.type === 'NodeNotReady' && e['node'] === failed) lines.push(`${at(e.t)} node ${String(e['node'])} NotReady`);
    else if (e.type === 'NodeNotReady' && failed === undefined && typeof e['node'] === 'string' && lostNodes.has(e['node'])) {
      if (zoneNotReady++ === 0) lines.push(`${at(e.t)} the ${o.unit.nodes.length} node(s) of ${o.unit.label} NotReady`);
    }
    else if (mine && (e.type === 'PodTerminating' || e.type === 'Scheduled' || e.type === 'PodCreated')) lines.push(`${at(e.t)} ${e.type} ${pod}${e['node'] ? ` on ${String(e['node'])}` : ''}${e['reason'] ? ` (${String(e['reason'])})` : ''}`);
    else if (mine && e.type === 'FailedScheduling' && !seenMessages.has(String(e['message']))) {
      seenMessages.add(String(e['message']));
      lines.push(`${at(e.t)} FailedScheduling ${pod}: ${String(e['message'])}`);
    } else if (e.type === 'NodeClaimLaunched') lines.push(`${at(e.t)} NodeClaimLaunched ${String(e['instanceType'])} in ${String(e['zone'])}`);
  }
  for (const b of o.volumeBound ?? []) lines.push(`${b.pod} mounts claim ${b.claim}, bound to PersistentVolume ${b.volume} in ${b.where}: no surviving node matches its node affinity`);
  if (note) lines.push(note.line);
  const series = tracker.series(o.group).filter((p) => p.t >= t0);
  lines.push(`ready replicas: ${series.map((p) => `${p.ready} at ${formatTime(p.t)}`).join(', ') || `${o.window.before} throughout`}`);
  return lines;
}

const hasRequiredAnti = (g: PodGroup, key: string) => g.templatePod.requiredAntiAffinity.some((t) => t.topologyKey === key && t.selector.matches(g.templatePod.labels));
const hasSpread = (g: PodGroup, key: string, minDomains: number) =>
  g.templatePod.topologySpreadConstraints.some((c) => c.topologyKey === key && c.whenUnsatisfiable === 'DoNotSchedule' && c.minDomains >= minDomains && c.selector.matches(g.templatePod.labels));

/**
 * Fixes worth trying, best first, each as generous as it may need to be (more
 * replicas, the nodes keeping replicas apart needs): replicas stacked in the lost
 * domain are kept apart (required anti-affinity, or spread with minDomains so they
 * spread before they stack); replicas already kept apart, or that do not come
 * back, get capacity. Every one is then re-simulated and reduced (prove.ts).
 */
function candidates(o: Found, scope: Scope, ctx: AnalysisContext): Remedy[] {
  const { group, unit } = o;
  const key = scope === 'zone' ? LABEL_ZONE : LABEL_HOSTNAME;
  const replicas = Math.max(group.replicas, o.floor + 1, 2);
  const provisioning = ctx.provisioner && ctx.input.nodePools.length > 0;
  // Only a node the pods can use is copied (never a cordoned, tainted or control-plane one).
  const template = templateNodeFor(group.templatePod, [...unit.nodes, ...ctx.input.nodes], group.kind === 'Pod');
  const otherZone = ctx.input.nodes.map((n) => n.labels[LABEL_ZONE]).find((z) => z !== undefined && !unit.nodes.some((n) => n.labels[LABEL_ZONE] === z));
  const capacity = (): Remedy | undefined => {
    if (provisioning || !template) return undefined;
    if (scope === 'zone') return otherZone !== undefined ? addNodesLike(template, Math.max(1, unit.hosts.get(group) ?? 1), otherZone) : undefined;
    return addNodesLike(template, replicas + 1);
  };
  const withCapacity = (...parts: Remedy[]): Remedy => {
    const more = capacity();
    return combine(...(replicas > group.replicas ? [scaleTo(group, replicas)] : []), ...parts, ...(more ? [more] : []));
  };
  const out: Remedy[] = [];
  const stacked = lostAll(o) || belowBudget(o);
  const keptApart = hasRequiredAnti(group, key) || hasSpread(group, key, replicas);
  if (stacked && !keptApart) {
    if (scope !== 'zone') out.push(withCapacity(requireAntiAffinity(group, key)));
    // Zones: no minDomains (with a zone lost, fewer domains than it would block the survivors),
    // and Honor taints so the lost zone's unreachable nodes stop counting as a domain.
    const spread = scope === 'zone' ? spreadAcross(group, key, { honorTaints: true }) : spreadAcross(group, key, { minDomains: replicas });
    // Volumes a class confines to the lost zone would hold every replica there, spread or not.
    const confining = scope === 'zone' && o.volumeBound ? confiningClasses(ctx.input, o.volumeBound, unit.name) : [];
    out.push(withCapacity(confining.length > 0 ? combine(spread, allowEveryZone(confining)) : spread));
  }
  const more = capacity();
  if (more) out.push(more);
  return out;
}

/** Changes berth cannot simulate from the input but that address the finding, stated as advice. */
function advice(o: Found, scope: Scope): string[] {
  const out: string[] = [];
  if (notWhole(o) && o.volumeBound) {
    // No capacity and no Node deletion brings these back: their data is where the loss is.
    const elsewhere = `use storage reachable from the surviving ${scope === 'zone' ? 'zones (a regional or replicated class)' : 'nodes (network storage instead of a node-local volume)'}`;
    out.push(
      onlyVolumeBound(o)
        ? `the ${o.volumeBound.length} replica(s) whose volumes are in ${o.unit.label} return only when it does, and ${o.window.min} of ${o.window.before} keep running meanwhile; for them to come back elsewhere, ${elsewhere}`
        : `the ${o.volumeBound.length} replica(s) whose volumes are in ${o.unit.label} return only when it does: keep one replica per ${scope === 'zone' ? 'zone (zone topology spread with a WaitForFirstConsumer class)' : 'node'} so a loss strands one, or ${elsewhere}`,
    );
  } else if (notWhole(o) && o.group.kind === 'StatefulSet') {
    // Not capacity: the StatefulSet controller never runs two pods of one identity, so the
    // lost pod stays Terminating on the unreachable node until its Node object goes.
    out.push('a StatefulSet pod on an unreachable node is replaced only once its Node object is deleted (or the pod force-deleted): have the failed node removed — the cloud node controller does so for a terminated instance — or use non-graceful node shutdown (the out-of-service taint)');
  } else if (o.provisionerWouldRecover) out.push('run with the provisioner on: its NodePools launch nodes these replicas fit');
  else if (scope === 'capacity') out.push('let the pods and their NodePool use more than one instance type (a wider instance-type requirement, no nodeSelector on node.kubernetes.io/instance-type), so a shortage of one does not block recovery');
  else if (notWhole(o)) out.push(`capacity the lost replicas fit outside the lost ${scope === 'zone' ? 'zone' : 'node(s)'}: spare room on other nodes, or a NodePool whose requirements and limits admit them${scope === 'zone' ? ' in more than one zone' : ''}`);
  if (o.needsProvisioner) out.push('keep spare capacity (or more replicas) if recovery must not wait for new nodes');
  return out;
}

/** A group's finding: its worst outcome, with fixes re-simulated. */
function groupFinding(ctx: AnalysisContext, scope: Scope, group: PodGroup, list: readonly Found[]): Finding {
  const rule = RULES[scope];
  const sorted = [...list].sort((a, b) => RANK[severityOf(a)] - RANK[severityOf(b)] || outageOf(b) - outageOf(a));
  const worst = sorted[0]!;
  const alike = sorted.slice(1).filter((o) => severityOf(o) === severityOf(worst)).map((o) => o.unit.name);
  const remedies = hasProblem(worst) && !onlyVolumeBound(worst) ? proveFixes(candidates(worst, scope, ctx), ctx.input, (input) => !stillFails({ ...ctx, input }, scope, group.object, worst.unit.name)) : [];
  // Advice only where no re-simulated fix was found, or for what no fix of the input changes.
  const notes = advice(worst, scope).filter((n, i) => remedies.length === 0 || (i === 0 && worst.group.kind === 'StatefulSet' && notWhole(worst)));
  return {
    severity: severityOf(worst),
    rule,
    object: group.object,
    message: message(worst) + (alike.length > 0 ? ` (likewise for ${scope === 'zone' ? 'zone' : 'node'} ${alike.join(', ')})` : ''),
    evidence: worst.evidence,
    fix: [...remedies.map((r) => `${r.description} (re-simulated: clears the finding)`), ...notes.map((n) => `advice: ${n}`)],
    ...(remedies.length > 0 ? { remedies } : {}),
    // Every replica on one node: the same problem whichever failure takes that node (node, zone, spot wave).
    ...(lostAll(worst) && worst.hostNodes.length === 1 ? { stacking: `node ${worst.hostNodes[0]}` } : {}),
  };
}

/**
 * Round 1 simulates the plan's batches (every failure, once), round 2 proves each
 * group's fixes: a worker pool shares out both without any worker repeating the other's.
 */
const checkFor = (scope: Scope, description: string) =>
  twoRoundCheck({
    rule: RULES[scope],
    description,
    firstRound: (ctx, part) => recordsOf(ctx, scope, part),
    between: byGroup,
    secondRound: (ctx, [object, records]) => [findingOf(ctx, scope, object, records)],
  });

export const nodeLossCheck = checkFor('node', 'Fails each node that runs replicas and simulates: do all replicas come back, how fast, do PDBs hold, does a workload lose every replica at once');
export const zoneLossCheck = checkFor('zone', 'Fails each zone that runs replicas (the zone takes no launches until it returns) and simulates the same');
export const spotInterruptionCheck = checkFor('spot', 'Reclaims half the spot nodes of each instance type and zone with the 2-minute notice and simulates the same');
export const capacityLossCheck = checkFor('capacity', 'Loses a node while its instance type has no capacity in its zone (provisioner on): does recovery hang on that one offering');

/** A workload's verdict under one loss, as the loss checks judge it (without their fix proofs). */
export interface LossVerdict {
  readonly workload: string;
  readonly replicas: number;
  readonly readyBefore: number;
  readonly readyMin: number;
  /** Seconds from the loss until every replica was ready again for good; null when not within the check's horizon. */
  readonly recoveredAfterS: number | null;
  /** Seconds below the PDB's floor. */
  readonly belowBudgetS: number;
  readonly pdb?: string;
  readonly severity: Severity | 'ok';
}

/** A workload's verdict read from a trial of `unit`, as the loss checks judge it. */
function verdictOf(ctx: AnalysisContext, unit: Unit, group: PodGroup, trial: Trial): LossVerdict {
  let o = outcome(ctx, unit, group, trial);
  const bound = hasProblem(o) ? boundReplicas(trial.run, group, unit.nodes) : [];
  if (bound.length > 0) o = { ...o, volumeBound: bound };
  const { before, min, wholeAgainAt, belowMs } = o.window;
  return {
    workload: group.object,
    replicas: group.replicas,
    readyBefore: before,
    readyMin: min,
    recoveredAfterS: wholeAgainAt === undefined ? null : (wholeAgainAt - trial.t0) / 1000,
    belowBudgetS: belowMs / 1000,
    ...(o.pdb ? { pdb: o.pdb } : {}),
    severity: hasProblem(o) ? severityOf(o) : 'ok',
  };
}

/**
 * One loss simulated alone, as its check simulates it (the same settled start,
 * failure steps and horizon, every analysed workload tracked): the verdict of each
 * workload with replicas there, and the run. The target is a node or zone name, or
 * for a spot wave or a capacity loss the offering pool ("m5.large/us-west-2a").
 * A capacity loss's verdicts are those of the run as it went, including where the
 * node loss alone would have fared as badly (the check reports only the others).
 * Undefined when the loss takes nothing the checks analyse.
 */
export function simulateLoss(ctx: AnalysisContext, scope: Scope, target: string): { run: ScenarioRun; verdicts: LossVerdict[] } | undefined {
  const plan = fullPlan(ctx, scope);
  const unit = plan?.units.find((u) => (scope === 'node' || scope === 'zone' ? u.name : offeringPoolOf(u.nodes[0]!.labels)) === target);
  if (!plan || !unit) return undefined;
  const trial = simulate(ctx, scope, [unit], plan.groups, plan.t0, ctx.provisioner);
  return { run: trial.run, verdicts: [...unit.hosts.keys()].map((group) => verdictOf(ctx, unit, group, trial)) };
}

/** Every node's or zone's loss and the verdicts of the workloads with replicas there (LossVerdict). */
export interface LossRecovery {
  readonly scope: 'node' | 'zone';
  /** The node or zone lost. */
  readonly target: string;
  readonly verdicts: readonly LossVerdict[];
}

/**
 * simulateLoss for every node or zone that runs analysed replicas, at the cost of
 * the check's batches: a batch fails several nodes at once, which can only slow
 * recovery (they compete for room and for the node lifecycle controller's
 * eviction rate), so a unit whose workloads are all whole again within `withinS`
 * in its batch is within it alone too; any other unit is simulated alone.
 */
export function lossRecoveries(ctx: AnalysisContext, scope: 'node' | 'zone', withinS: number): LossRecovery[] {
  const plan = fullPlan(ctx, scope);
  if (!plan) return [];
  const slow = (v: LossVerdict) => v.readyMin < v.readyBefore && (v.recoveredAfterS === null || v.recoveredAfterS > withinS);
  const out: LossRecovery[] = [];
  for (const batch of plan.batches) {
    const trial = simulate(ctx, scope, batch, plan.groups, plan.t0, ctx.provisioner);
    for (const unit of batch) {
      const read = (t: Trial) => [...unit.hosts.keys()].map((group) => verdictOf(ctx, unit, group, t));
      let verdicts = read(trial);
      if (batch.length > 1 && verdicts.some(slow)) verdicts = read(simulate(ctx, scope, [unit], plan.groups, plan.t0, ctx.provisioner));
      out.push({ scope, target: unit.name, verdicts });
    }
  }
  const order = new Map(plan.units.map((u, i) => [u.name, i]));
  return out.sort((a, b) => order.get(a.target)! - order.get(b.target)!);
}
