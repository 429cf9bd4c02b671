// co-location: replicas of a workload that end up sharing one node (or one zone
// when the cluster has more), as the cluster places them today and after every
// workload scales up. The classic case is incident 1a: topology spread with
// maxSkew 1 counts only the domains that exist, so on a one-node cluster stacking
// every replica keeps the skew at 0 — nothing is pending, and the provisioner is
// never asked for a node. The finding names the constraint that let it happen and
// the one that would prevent it.

import { LABEL_HOSTNAME, LABEL_ZONE } from '../../model/node.js';
import type { ScenarioRun } from '../../sim/scenario.js';
import { formatTime } from '../../sim/timeline.js';
import type { AnalysisContext, Check } from '../check.js';
import { availableZones } from '../domains.js';
import type { Finding, Remedy } from '../finding.js';
import { podGroups, podsOf, type PodGroup } from '../pod-groups.js';
import { proveFixes } from '../prove.js';
import { addNodesLike, combine, requireAntiAffinity, setMinDomains, spreadAcross, templateNodeFor } from '../remedies.js';
import { scaleTargets } from '../scale-targets.js';
import { baseline, simulateWhatIf } from '../what-if.js';

/** Placement after the scale-up is read this long after it: time to launch nodes for pending pods. */
const SETTLE_MS = 5 * 60_000;
const SCALE_AT_MS = 10_000;

type Scope = 'node' | 'zone';

interface Stack {
  readonly group: PodGroup;
  readonly scope: Scope;
  /** The node or zone every placed replica is in. */
  readonly where: string;
  readonly placed: number;
  readonly pending: number;
  readonly when: 'today' | 'after scale-up';
  readonly run: ScenarioRun;
}

function placement(run: ScenarioRun, group: PodGroup) {
  const pods = [...run.sim.world.cluster.pods()].filter((p) => !p.terminating && group.has(p));
  const bound = pods.filter((p) => p.nodeName);
  const nodes = new Set(bound.map((p) => p.nodeName));
  const zones = new Set(bound.map((p) => run.sim.world.cluster.nodeInfo(p.nodeName)?.node.labels[LABEL_ZONE] ?? ''));
  return { bound: bound.length, pending: pods.length - bound.length, nodes, zones };
}

function stacks(run: ScenarioRun, groups: readonly PodGroup[], when: Stack['when'], zoneCount: number): Stack[] {
  const out: Stack[] = [];
  for (const group of groups) {
    const p = placement(run, group);
    if (p.bound < 2) continue;
    const base = { group, placed: p.bound, pending: p.pending, when, run };
    if (p.nodes.size === 1) out.push({ ...base, scope: 'node', where: [...p.nodes][0]! });
    else if (p.zones.size === 1 && zoneCount > 1 && [...p.zones][0] !== '') out.push({ ...base, scope: 'zone', where: [...p.zones][0]! });
  }
  return out;
}

const keyOf = (scope: Scope) => (scope === 'node' ? LABEL_HOSTNAME : LABEL_ZONE);

/** Why the scheduler was free to stack the replicas: the group's own constraints on the domain's key. */
function whyAllowed(s: Stack, domains: number): string {
  const key = keyOf(s.scope);
  const pod = s.group.templatePod;
  const spread = pod.topologySpreadConstraints.find((c) => c.topologyKey === key && c.whenUnsatisfiable === 'DoNotSchedule');
  if (spread && spread.minDomains <= domains) {
    return `its topology spread constraint on ${key} (maxSkew ${spread.maxSkew}) counts only the ${domains} ${s.scope}(s) that exist, so stacking keeps the skew within bounds: no replica is pending and the provisioner is never asked for another ${s.scope}`;
  }
  if (pod.preferredAntiAffinity.some((w) => w.term.topologyKey === key)) return `its pod anti-affinity on ${key} is only preferred: a score, which stacking wins when there is nowhere else to go`;
  if (pod.topologySpreadConstraints.some((c) => c.topologyKey === key)) return `its topology spread constraint on ${key} is ScheduleAnyway: a score, not a rule`;
  return `nothing in its pod spec keeps replicas apart on ${key}`;
}

/** Still stacked (or a replica left pending) on a changed input: what a fix must clear. */
function stillStacked(ctx: AnalysisContext, s: Stack, zoneCount: number): boolean {
  const group = podGroups(ctx.input).find((g) => g.object === s.group.object);
  if (!group) return true;
  const run =
    s.when === 'today'
      ? baseline(ctx)
      : simulateWhatIf(ctx, {
          name: 'co-location-scale-up',
          steps: [{ at: SCALE_AT_MS, action: { type: 'scale' as const, kind: group.kind as 'Deployment', name: `${group.namespace}/${group.name}`, replicas: s.placed + s.pending } }],
          untilMs: SCALE_AT_MS + SETTLE_MS,
        });
  const p = placement(run, group);
  return p.pending > 0 || stacks(run, [group], s.when, zoneCount).length > 0;
}

/** Fixes tried (a constraint that keeps replicas apart, with the nodes it needs when nothing provisions them), then re-simulated and reduced. */
function fixes(ctx: AnalysisContext, s: Stack, zoneCount: number): { fix: string[]; remedies: Remedy[] } {
  const key = keyOf(s.scope);
  const want = s.scope === 'node' ? s.placed + s.pending : Math.min(s.placed + s.pending, zoneCount);
  const keepApart = `required pod anti-affinity on ${key}, or a DoNotSchedule spread constraint with minDomains ${want}`;
  // Pods without a controller that are all bound stay where they are whatever their spec
  // says (affinity is immutable on a running pod): re-simulating a changed spec cannot
  // move them, so nothing is tried — on a dump with thousands of such pods each try
  // was a whole-cluster simulation.
  if (s.group.kind === 'Pod' && podsOf(s.group, ctx.input.pods).every((p) => p.nodeName)) {
    return { fix: [`advice: these pods have no controller and are all bound, so no change to their spec moves them: recreate them (or run them under a Deployment) with ${keepApart}, and give them ${s.scope === 'node' ? 'nodes' : 'zones'} to go to`], remedies: [] };
  }
  const hasSpread = s.group.templatePod.topologySpreadConstraints.some((c) => c.topologyKey === key && c.whenUnsatisfiable === 'DoNotSchedule');
  const provisioning = ctx.provisioner && ctx.input.nodePools.length > 0;
  const template = templateNodeFor(s.group.templatePod, ctx.input.nodes.filter((n) => n.name === s.where).concat(ctx.input.nodes), s.group.kind === 'Pod');
  const nodes = !provisioning && template && s.scope === 'node' ? [addNodesLike(template, want)] : [];
  const candidates: Remedy[] = [];
  if (s.scope === 'node') candidates.push(combine(requireAntiAffinity(s.group, key), ...nodes));
  candidates.push(combine(hasSpread ? setMinDomains(s.group, key, want) : spreadAcross(s.group, key, { minDomains: want }), ...nodes));
  const remedies = proveFixes(candidates, ctx.input, (input) => !stillStacked({ ...ctx, input }, s, zoneCount));
  const fix = remedies.map((r) => `${r.description} (re-simulated: the replicas no longer share a ${s.scope} and none is pending)`);
  if (remedies.length === 0) fix.push(`advice: keep replicas apart on ${key} (${keepApart}) and give them ${s.scope === 'node' ? 'nodes' : 'zones'} to go to: berth found no change to the input that does both`);
  return { fix, remedies };
}

function evidence(s: Stack): string[] {
  const lines: string[] = [];
  for (const e of s.run.events) {
    if (e.type === 'Step' && e['name'] === `${s.group.namespace}/${s.group.name}`) lines.push(`t=${formatTime(e.t)} scale ${s.group.object} to ${String(e['replicas'])}`);
    else if (e.type === 'Scheduled' && s.group.has(podRef(s.run, e['pod'] as string))) lines.push(`t=${formatTime(e.t)} Scheduled ${String(e['pod'])} on ${String(e['node'])}`);
    else if (e.type === 'NodeClaimLaunched') lines.push(`t=${formatTime(e.t)} NodeClaimLaunched ${String(e['instanceType'])} in ${String(e['zone'])}`);
  }
  const launched = s.run.events.some((e) => e.type === 'NodeClaimLaunched');
  lines.push(`${s.when}: ${s.placed} replica(s) in ${s.scope} ${s.where}${s.pending > 0 ? `, ${s.pending} pending` : ''}${launched ? '' : '; no node was launched'}`);
  return lines;
}

/** The pod of a Scheduled event, from the final cluster (membership is decided on namespace and labels). */
function podRef(run: ScenarioRun, key: string) {
  return run.sim.world.cluster.getPod(key) ?? { namespace: '', labels: {}, ownerReferences: [] };
}

function finding(ctx: AnalysisContext, s: Stack, zoneCount: number, domains: number): Finding {
  const { fix, remedies } = fixes(ctx, s, zoneCount);
  const all = s.pending === 0 ? `all ${s.placed} replicas` : `all ${s.placed} placed replicas (${s.pending} more pending)`;
  return {
    severity: s.scope === 'node' ? 'error' : 'warning',
    rule: 'co-location',
    object: s.group.object,
    message: `${s.when === 'today' ? '' : 'after scale-up, '}${all} share ${s.scope} ${s.where}: losing it takes every one down; ${whyAllowed(s, domains)}`,
    evidence: evidence(s),
    fix,
    remedies,
    stacking: `${s.scope} ${s.where}`,
  };
}

export const coLocationCheck: Check = {
  rule: 'co-location',
  description: 'Replicas of a workload sharing one node (or one zone of several) today or after scale-up, and the constraint that would keep them apart',
  run(ctx: AnalysisContext): Finding[] {
    const groups = podGroups(ctx.input).filter((g) => g.replicas > 0);
    if (groups.length === 0) return [];
    const zoneCount = availableZones(ctx).length;
    const nodeCount = ctx.input.nodes.length;
    const today = baseline(ctx);
    const found = stacks(today, groups, 'today', zoneCount);
    const targets = scaleTargets(groups.filter((g) => !found.some((s) => s.group === g)), ctx.input.hpas, ctx.scaleUp);
    if (targets.length > 0) {
      const scaled = simulateWhatIf(ctx, {
        name: 'co-location-scale-up',
        steps: targets.map((t) => ({ at: SCALE_AT_MS, action: { type: 'scale' as const, kind: t.kind, name: `${t.group.namespace}/${t.group.name}`, replicas: t.replicas } })),
        untilMs: SCALE_AT_MS + SETTLE_MS,
      });
      found.push(...stacks(scaled, targets.map((t) => t.group), 'after scale-up', zoneCount));
    }
    return found.map((s) => finding(ctx, s, zoneCount, s.scope === 'node' ? Math.max(1, nodeCount) : zoneCount));
  },
};
