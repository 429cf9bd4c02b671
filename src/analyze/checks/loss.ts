// node-loss and zone-loss: for every node (and every zone) that runs replicas of
// a workload, lose it in a simulation and watch each workload's ready replicas:
// does it lose all of them at once, does it fall below its PDB, and are all its
// replicas ready again (with and without the provisioner) — and how long it takes.
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
// workload sees exactly one of its nodes fail), at most a tenth of the cluster at
// once; a workload that shows a problem in a batch is re-run with its node alone,
// so every finding's evidence is a single-node simulation.

import type { LoadedInput } from '../../io/load.js';
import { LABEL_HOSTNAME, LABEL_ZONE, type Node } from '../../model/node.js';
import type { Action } from '../../io/scenario-spec.js';
import type { ScenarioRun } from '../../sim/scenario.js';
import { formatTime } from '../../sim/timeline.js';
import type { AnalysisContext, Check } from '../check.js';
import type { Finding, Remedy, Severity } from '../finding.js';
import { budgetFloor, podGroups, type PodGroup } from '../pod-groups.js';
import { readyWindow, trackReady, type ReadyTracker, type ReadyWindow } from '../ready-replicas.js';
import { addNodesLike, combine, requireAntiAffinity, scaleTo, spreadAcross } from '../remedies.js';
import { baseline, simulateWhatIf } from '../what-if.js';

/**
 * How long after the loss a workload may take to be whole again. A node: its pods'
 * eviction (≈6 min) plus a node launch. A zone: the node controller evicts from a
 * fully disrupted zone at 0.1 node/s, so a zone of 100 nodes takes 17 min more.
 */
export const LOSS_HORIZON_MS: Record<'node' | 'zone', number> = { node: 10 * 60_000, zone: 30 * 60_000 };

type Scope = 'node' | 'zone';

interface Unit {
  /** "node n1" or "zone us-west-2a". */
  readonly label: string;
  readonly name: string;
  readonly action: Action;
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

interface Outcome {
  readonly unit: Unit;
  readonly group: PodGroup;
  readonly window: ReadyWindow;
  readonly floor: number;
  readonly pdb?: string;
  readonly trial: Trial;
  /** Set when the provisioner made the difference: whole again with it, not without. */
  readonly needsProvisioner?: boolean;
  /** Set when the provisioner is off and turning it on would make the group whole again. */
  readonly provisionerWouldRecover?: boolean;
}

const groupsForLoss = (input: LoadedInput) => podGroups(input).filter((g) => g.workload && g.replicas > 0);

/** The time the unchanged cluster has settled (its last pod turned ready), and the placement then. */
function settle(ctx: AnalysisContext, groups: readonly PodGroup[]) {
  const run = baseline(ctx);
  const lastReady = Math.max(0, ...run.events.filter((e) => e.type === 'PodReady' || e.type === 'NodeReady').map((e) => e.t));
  const t0 = (Math.floor(lastReady / 10_000) + 1) * 10_000;
  const placement = run.sim.world.cluster.nodeInfos().map((info) => {
    const hosts = new Map<PodGroup, number>();
    for (const p of info.pods) {
      if (p.terminating) continue;
      const g = groups.find((x) => x.has(p));
      if (g) hosts.set(g, (hosts.get(g) ?? 0) + 1);
    }
    return { node: info.node, hosts };
  });
  return { t0, placement };
}

function units(scope: Scope, placement: ReturnType<typeof settle>['placement']): Unit[] {
  if (scope === 'node') {
    return placement
      .filter((p) => p.hosts.size > 0)
      .map((p) => ({ label: `node ${p.node.name}`, name: p.node.name, action: { type: 'failNode', node: p.node.name }, nodes: [p.node], hosts: p.hosts }));
  }
  const zones = new Map<string, { nodes: Node[]; hosts: Map<PodGroup, number> }>();
  for (const p of placement) {
    const zone = p.node.labels[LABEL_ZONE];
    if (zone === undefined) continue;
    const z = zones.get(zone) ?? { nodes: [], hosts: new Map<PodGroup, number>() };
    zones.set(zone, z);
    z.nodes.push(p.node);
    for (const [g, n] of p.hosts) z.hosts.set(g, (z.hosts.get(g) ?? 0) + n);
  }
  // A cluster in one zone loses everything with it; co-location reports the zone sharing instead.
  if (zones.size < 2) return [];
  return [...zones]
    .filter(([, z]) => z.hosts.size > 0)
    .map(([zone, z]) => ({ label: `zone ${zone}`, name: zone, action: { type: 'failZone', zone }, nodes: z.nodes, hosts: z.hosts }));
}

/** Units packed so that no two in a batch host the same group, at most `cap` per batch. */
function batches(list: readonly Unit[], cap: number): Unit[][] {
  const out: { units: Unit[]; groups: Set<PodGroup> }[] = [];
  for (const u of list) {
    const b = out.find((x) => x.units.length < cap && [...u.hosts.keys()].every((g) => !x.groups.has(g)));
    if (b) {
      b.units.push(u);
      for (const g of u.hosts.keys()) b.groups.add(g);
    } else out.push({ units: [u], groups: new Set(u.hosts.keys()) });
  }
  return out.map((b) => b.units);
}

function simulate(ctx: AnalysisContext, scope: Scope, batch: readonly Unit[], groups: readonly PodGroup[], t0: number, provisioner: boolean): Trial {
  const tracker = trackReady(groups);
  const run = simulateWhatIf(ctx, {
    name: `${scope}-loss`,
    steps: batch.map((u) => ({ at: t0, action: u.action })),
    untilMs: t0 + LOSS_HORIZON_MS[scope],
    provisioner,
    observe: tracker.observe,
  });
  return { run, tracker, provisioner, batchSize: batch.length, t0, horizonMs: LOSS_HORIZON_MS[scope] };
}

function outcome(ctx: AnalysisContext, unit: Unit, group: PodGroup, trial: Trial): Outcome {
  const { t0 } = trial;
  const { floor, pdb } = budgetFloor(group, ctx.input.pdbs);
  const series = trial.tracker.series(group);
  const before = readyWindow(series, t0, t0, 0, 0).before;
  const window = readyWindow(series, t0, t0 + trial.horizonMs, floor, before);
  return { unit, group, window, floor, ...(pdb ? { pdb: pdb.key } : {}), trial };
}

const lostAll = (o: Outcome) => o.window.before > 0 && o.window.min === 0;
/** Below a PDB that leaves room for a disruption at all (one that never does is the pdb check's). */
const belowBudget = (o: Outcome) => o.floor > 0 && o.floor < o.group.replicas && o.window.before >= o.floor && o.window.min < o.floor;
const notWhole = (o: Outcome) => o.window.wholeAgainAt === undefined;
const hasProblem = (o: Outcome) => lostAll(o) || belowBudget(o) || notWhole(o);
const launchedAfter = (run: ScenarioRun, t0: number) => run.events.some((e) => e.type === 'NodeClaimLaunched' && e.t >= t0);

function severityOf(o: Outcome): Severity {
  if (lostAll(o)) return o.group.replicas >= 2 ? 'error' : 'warning';
  if (notWhole(o) || belowBudget(o)) return 'warning';
  return 'info';
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
const outageOf = (o: Outcome) => (o.window.wholeAgainAt === undefined ? Infinity : o.window.wholeAgainAt - o.window.minAt);

/** Every group's outcome for every unit hosting it, problems confirmed on a single-unit run. */
function lossOutcomes(ctx: AnalysisContext, scope: Scope): Outcome[] {
  const groups = groupsForLoss(ctx.input);
  if (groups.length === 0) return [];
  const { t0, placement } = settle(ctx, groups);
  const list = units(scope, placement);
  const cap = scope === 'node' ? Math.max(1, Math.floor(placement.length / 10)) : 1;
  const pools = ctx.input.nodePools.length > 0;
  const out: Outcome[] = [];
  for (const batch of batches(list, cap)) {
    const trial = simulate(ctx, scope, batch, groups, t0, ctx.provisioner);
    for (const unit of batch) {
      let alone: Trial | undefined;
      for (const group of unit.hosts.keys()) {
        let o = outcome(ctx, unit, group, trial);
        if (hasProblem(o) && trial.batchSize > 1) o = outcome(ctx, unit, group, (alone ??= simulate(ctx, scope, [unit], groups, t0, ctx.provisioner)));
        if (pools && ctx.provisioner && !notWhole(o) && launchedAfter(o.trial.run, t0)) {
          const without = outcome(ctx, unit, group, simulate(ctx, scope, [unit], [group], t0, false));
          if (notWhole(without)) o = { ...o, needsProvisioner: true };
        }
        if (pools && !ctx.provisioner && notWhole(o)) {
          const withIt = outcome(ctx, unit, group, simulate(ctx, scope, [unit], [group], t0, true));
          if (!notWhole(withIt)) o = { ...o, provisionerWouldRecover: true };
        }
        out.push(o);
      }
    }
  }
  return out;
}

const dur = (ms: number) => formatTime(ms);
const on = (u: Unit) => (u.action.type === 'failNode' ? `on ${u.label}` : `in ${u.label}`);

function message(o: Outcome): string {
  const { window: w, group, unit } = o;
  const hosted = unit.hosts.get(group) ?? 0;
  const back = w.wholeAgainAt === undefined ? `${w.before} ready replicas are not back ${dur(o.trial.horizonMs)} later` : `${w.before} ready again ${dur(w.wholeAgainAt - w.minAt)} after the outage began`;
  if (lostAll(o)) {
    if (group.replicas === 1) return `its only replica runs ${on(unit)}: losing it leaves ${group.object} with no ready pod; ${back}`;
    const pending = group.replicas > w.before ? ` (the other ${group.replicas - w.before} of ${group.replicas} never got a place)` : '';
    return `${w.before === 1 ? 'the only ready replica runs' : `all ${w.before} ready replicas run`} ${on(unit)}${pending}: losing it takes ${group.object} down (0 ready from ${formatTime(w.minAt)}); ${back}`;
  }
  if (belowBudget(o)) return `losing ${unit.label} (${hosted} of ${w.before} replicas there) leaves ${w.min}/${w.before} ready for ${dur(w.belowMs)}, below the ${o.floor} PodDisruptionBudget ${o.pdb} asks for; ${back}`;
  if (notWhole(o)) return `after losing ${unit.label} (${hosted} of ${w.before} replicas there) ${back}${o.provisionerWouldRecover ? ', though the provisioner (off) would launch capacity for them' : ''}`;
  return `after losing ${unit.label}, ${w.before - w.min} of ${w.before} replicas are down for ${dur(outageOf(o))}${o.needsProvisioner ? '; they come back only on capacity the provisioner launches (with it off they stay pending)' : ''}`;
}

/** The simulated steps that show an outcome: the loss, the group's pods and the ready count over time. */
function evidence(o: Outcome): string[] {
  const { run, tracker, provisioner, batchSize, t0 } = o.trial;
  const lines: string[] = [`simulated with the provisioner ${provisioner ? 'on' : 'off'}${batchSize > 1 ? `, ${batchSize - 1} other node(s) that run none of its pods failing at the same time` : ''}`];
  const at = (t: number) => `t=${formatTime(t)}`;
  const seenMessages = new Set<string>();
  let zoneNotReady = 0;
  const failed = o.unit.action.type === 'failNode' ? o.unit.name : undefined;
  for (const e of run.events) {
    if (e.t < t0) continue;
    const pod = typeof e['pod'] === 'string' ? (e['pod'] as string) : undefined;
    const mine = pod !== undefined && tracker.isMember(o.group, pod);
    if (e.type === 'Step' && (e['node'] === o.unit.name || e['zone'] === o.unit.name)) lines.push(`${at(e.t)} ${String(e['action'])} ${o.unit.name} (${o.unit.hosts.get(o.group)} of ${o.window.before} ready replicas there)`);
    else if (e.type === 'NodeNotReady' && e['node'] === failed) lines.push(`${at(e.t)} node ${String(e['node'])} NotReady`);
    else if (e.type === 'NodeNotReady' && failed === undefined && o.unit.nodes.some((n) => n.name === e['node'])) {
      if (zoneNotReady++ === 0) lines.push(`${at(e.t)} the ${o.unit.nodes.length} node(s) of ${o.unit.label} NotReady`);
    }
    else if (mine && (e.type === 'PodTerminating' || e.type === 'Scheduled' || e.type === 'PodCreated')) lines.push(`${at(e.t)} ${e.type} ${pod}${e['node'] ? ` on ${String(e['node'])}` : ''}${e['reason'] ? ` (${String(e['reason'])})` : ''}`);
    else if (mine && e.type === 'FailedScheduling' && !seenMessages.has(String(e['message']))) {
      seenMessages.add(String(e['message']));
      lines.push(`${at(e.t)} FailedScheduling ${pod}: ${String(e['message'])}`);
    } else if (e.type === 'NodeClaimLaunched') lines.push(`${at(e.t)} NodeClaimLaunched ${String(e['instanceType'])} in ${String(e['zone'])}`);
  }
  const series = tracker.series(o.group).filter((p) => p.t >= t0);
  lines.push(`ready replicas: ${series.map((p) => `${p.ready} at ${formatTime(p.t)}`).join(', ') || `${o.window.before} throughout`}`);
  return lines;
}

const hasRequiredAnti = (g: PodGroup, key: string) => g.templatePod.requiredAntiAffinity.some((t) => t.topologyKey === key && t.selector.matches(g.templatePod.labels));
const hasSpread = (g: PodGroup, key: string, minDomains: number) =>
  g.templatePod.topologySpreadConstraints.some((c) => c.topologyKey === key && c.whenUnsatisfiable === 'DoNotSchedule' && c.minDomains >= minDomains && c.selector.matches(g.templatePod.labels));

/**
 * Fixes, best first. Replicas stacked in the lost domain: keep them apart (required
 * anti-affinity, or spread with minDomains so they spread before they stack), with
 * more replicas when one is too few or the PDB needs one to spare, and — without a
 * provisioner — the nodes that keeping them apart needs (one per replica plus one
 * to reschedule into). Replicas already kept apart, or that do not come back: capacity.
 */
function fixes(o: Outcome, scope: Scope, ctx: AnalysisContext): { fix: string[]; remedies: Remedy[] } {
  const { group, unit } = o;
  const key = scope === 'node' ? LABEL_HOSTNAME : LABEL_ZONE;
  const fix: string[] = [];
  const remedies: Remedy[] = [];
  const add = (remedy: Remedy, why: string) => {
    fix.push(`${remedy.description}: ${why}`);
    remedies.push(remedy);
  };
  const replicas = Math.max(group.replicas, o.floor + 1, 2);
  const provisioning = ctx.provisioner && ctx.input.nodePools.length > 0;
  const model = unit.nodes[0]!;
  const otherZone = ctx.input.nodes.map((n) => n.labels[LABEL_ZONE]).find((z) => z !== undefined && z !== unit.name);
  const capacity = (): Remedy | undefined => {
    if (provisioning) return undefined;
    if (scope === 'node') {
      const missing = replicas + 1 - ctx.input.nodes.length;
      return missing > 0 ? addNodesLike(model, missing) : undefined;
    }
    return otherZone !== undefined ? addNodesLike(model, unit.hosts.get(group) ?? 1, otherZone) : undefined;
  };
  const apart = (r: Remedy): Remedy => {
    const parts = [...(replicas > group.replicas ? [scaleTo(group, replicas)] : []), r];
    const more = capacity();
    return combine(...parts, ...(more ? [more] : []));
  };
  const stacked = lostAll(o) || belowBudget(o);
  const keptApart = hasRequiredAnti(group, key) || hasSpread(group, key, replicas);
  if (stacked && !keptApart) {
    if (scope === 'node') add(apart(requireAntiAffinity(group, key)), 'no two replicas share a node (a new one waits for, or makes the provisioner launch, a node of its own)');
    // Zones: no minDomains (with a zone lost, fewer domains than it would block the survivors),
    // and Honor taints so the lost zone's unreachable nodes stop counting as a domain.
    const spread = scope === 'node' ? spreadAcross(group, key, { minDomains: replicas }) : spreadAcross(group, key, { honorTaints: true });
    add(apart(spread), scope === 'node' ? `replicas spread over ${replicas} nodes before any node gets two` : 'replicas spread over the zones, and a lost zone stops counting so its replicas come back in the others');
  }
  if (notWhole(o) && group.kind === 'StatefulSet') {
    // Not capacity: the StatefulSet controller never runs two pods of one identity, so the
    // lost pod stays Terminating on the unreachable node until its Node object goes.
    fix.push('a StatefulSet pod on an unreachable node is replaced only once its Node object is deleted (or the pod force-deleted): have the failed node removed — the cloud node controller does so for a terminated instance — or use non-graceful node shutdown (the out-of-service taint)');
  } else if (notWhole(o) || (stacked && keptApart)) {
    const more = capacity();
    if (o.provisionerWouldRecover) fix.push('run with the provisioner on: its NodePools launch nodes these replicas fit');
    else if (more) add(more, `room for the lost replicas ${scope === 'node' ? 'on a node' : 'in a zone'} that survives`);
    else fix.push(`capacity the lost replicas fit outside the lost ${scope}: spare room on other nodes, or a NodePool whose requirements and limits admit them${scope === 'zone' ? ' in more than one zone' : ''}`);
  }
  if (o.needsProvisioner) fix.push('keep spare capacity (or more replicas) if recovery must not wait for new nodes');
  return { fix, remedies };
}

function findings(ctx: AnalysisContext, scope: Scope): Finding[] {
  const rule = `${scope}-loss`;
  const byGroup = new Map<PodGroup, Outcome[]>();
  for (const o of lossOutcomes(ctx, scope)) {
    if (!hasProblem(o) && !o.needsProvisioner) continue;
    byGroup.set(o.group, [...(byGroup.get(o.group) ?? []), o]);
  }
  const out: Finding[] = [];
  for (const [group, list] of byGroup) {
    const sorted = [...list].sort((a, b) => RANK[severityOf(a)] - RANK[severityOf(b)] || outageOf(b) - outageOf(a));
    const worst = sorted[0]!;
    const alike = sorted.slice(1).filter((o) => severityOf(o) === severityOf(worst)).map((o) => o.unit.name);
    const { fix, remedies } = fixes(worst, scope, ctx);
    out.push({
      severity: severityOf(worst),
      rule,
      object: group.object,
      message: message(worst) + (alike.length > 0 ? ` (likewise for ${scope} ${alike.join(', ')})` : ''),
      evidence: evidence(worst),
      fix,
      ...(remedies.length > 0 ? { remedies } : {}),
    });
  }
  return out;
}

export const nodeLossCheck: Check = {
  rule: 'node-loss',
  description: 'Fails each node that runs replicas and simulates: do all replicas come back, how fast, do PDBs hold, does a workload lose every replica at once',
  run: (ctx) => findings(ctx, 'node'),
};

export const zoneLossCheck: Check = {
  rule: 'zone-loss',
  description: 'Fails each zone that runs replicas and simulates: do all replicas come back, how fast, do PDBs hold, does a workload lose every replica at once',
  run: (ctx) => findings(ctx, 'zone'),
};
