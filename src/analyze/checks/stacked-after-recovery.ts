// stacked-after-recovery (incident b): a workload whose replicas run on separate
// nodes loses one node; its lost replicas are evicted and rescheduled — onto a node
// that already runs one when nothing forbids it (preferred anti-affinity, a
// ScheduleAnyway spread, no constraint at all) — and when the node comes back
// nothing moves them back: kube-scheduler places new pods only, and without a
// descheduler (or a rollout) the replicas stay stacked. The next loss of that node
// then takes down more replicas than the first did.
//
// Simulated per workload: a node running one of its replicas fails, comes back
// after RECOVER_AFTER_MS (past the 300 s eviction and the rescheduling), and the
// placement is read WATCH_MS later. A node's loss evicts every pod on it whatever
// the workload, so one simulation answers for every workload with a replica
// there: the nodes are chosen to cover the workloads with as few simulations as
// possible (plan). Workloads whose replicas can never share a node are not
// simulated (keptApart). Fixes are re-simulated through the same cycle.

import { formatTime } from '../../sim/timeline.js';
import type { ScenarioRun } from '../../sim/scenario.js';
import { itemCheck, type AnalysisContext } from '../check.js';
import type { Finding, Remedy } from '../finding.js';
import { groupFinder, podGroups, type PodGroup } from '../pod-groups.js';
import { proveFixes } from '../prove.js';
import { LABEL_HOSTNAME } from '../../model/node.js';
import type { Pod } from '../../model/pod.js';
import { requireAntiAffinity, spreadAcross } from '../remedies.js';
import { settledGroups, type GroupPlacement } from '../settle.js';
import { memoized, simulateWhatIf } from '../what-if.js';

const RULE = 'stacked-after-recovery';
/** The node is back 10 minutes after it failed: its pods were evicted ≈6 minutes in and replaced. */
export const RECOVER_AFTER_MS = 10 * 60_000;
/** How long after the node's return the placement is read. */
export const WATCH_MS = 10 * 60_000;

interface Cycle {
  readonly node: string;
  readonly t0: number;
  readonly run: ScenarioRun;
  /** Replicas per node at the end, most first. */
  readonly after: readonly [string, number][];
}

/** One node to fail and return, and the groups whose cycle it is. */
interface CyclePlan {
  readonly node: string;
  readonly groups: readonly PodGroup[];
}

const candidatesFor = (ctx: AnalysisContext) => podGroups(ctx.input).filter((g) => g.workload && g.replicas >= 2);

/**
 * Whether no cycle can end with two of the group's replicas on one node, so none
 * needs simulating. Sound because each replica counted at the end either ran on
 * its node at t0 (one per node, plan's precondition) or was placed during the
 * cycle by kube-scheduler (the default profile: InterPodAffinity filters) as a pod
 * of some workload whose template the group counts, and every such template
 * carries a required anti-affinity term that:
 * - selects every replica running at t0 and the template's own pods (only In and
 *   Exists requirements, so the labels a controller adds cannot unselect them;
 *   no matchLabelKeys/mismatchLabelKeys, which take values from each new pod);
 * - has a topology key every node carries (kube-scheduler lets a pod onto a node
 *   without the key): the hostname, which launched nodes are given too, or any key
 *   all the input's nodes carry when no node can be launched;
 * so kube-scheduler puts a new replica on no node that runs one.
 * Not claimed: a template with spec.nodeName (bound without the scheduler), a
 * custom scheduler configuration (it may disable the filter), Jobs in the
 * namespace (their templates are not workloads here).
 */
export function keptApart(ctx: AnalysisContext, group: PodGroup, placement: GroupPlacement): boolean {
  const w = group.workload;
  if (!w || ctx.scheduler !== undefined) return false;
  if ((ctx.input.jobs ?? []).some((j) => j.namespace === group.namespace) || (ctx.input.cronJobs ?? []).some((j) => j.namespace === group.namespace)) return false;
  const running = placement.flatMap((p) => p.pods);
  const makers = ctx.input.workloads.filter((o) => o.namespace === group.namespace && w.selector.matches(o.templatePod.labels));
  return makers.length > 0 && makers.every((o) => o.templatePod.nodeName === '' && separates(ctx, o.template.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [], o.templatePod, running));
}

/** Whether every node a cycle may run carries the label `key` (nodes launched in a simulation are given a hostname, nothing else is sure). */
function everyNodeHas(ctx: AnalysisContext, key: string): boolean {
  const launches = (ctx.provisioner && ctx.input.nodePools.length > 0) || (ctx.input.nodeClaims ?? []).length > 0;
  if (launches && key !== LABEL_HOSTNAME) return false;
  return memoized(ctx, JSON.stringify(['every-node-has', key]), () => ctx.input.nodes.every((n) => n.labels[key] !== undefined));
}

/** Whether one of the template pod's required anti-affinity terms (as written: `written`) keeps it off every node running one of `running` or of its own kind. */
function separates(ctx: AnalysisContext, written: readonly { matchLabelKeys?: readonly string[] | null; mismatchLabelKeys?: readonly string[] | null }[], pod: Pod, running: readonly Pod[]): boolean {
  return pod.requiredAntiAffinity.some((t, i) => {
    const raw = written[i];
    if (!raw || (raw.matchLabelKeys?.length ?? 0) > 0 || (raw.mismatchLabelKeys?.length ?? 0) > 0) return false;
    if (t.selector.nothing || t.selector.requirements.some((r) => r.operator !== 'In' && r.operator !== 'Exists') || !everyNodeHas(ctx, t.topologyKey)) return false;
    const selects = (p: Pod) => t.namespaces.has(p.namespace) && t.selector.matches(p.labels);
    return selects(pod) && running.every(selects);
  });
}

/**
 * The cycles to simulate: of the groups whose replicas run one per node at t0
 * (stacked today is co-location's) and that could end stacked, each is given a
 * node running one of its replicas, greedily the node running replicas of the
 * most groups not yet given one (ties: node order), so one simulation serves them all.
 */
function plan(ctx: AnalysisContext): { readonly t0: number; readonly plans: readonly CyclePlan[]; readonly nodeOf: ReadonlyMap<string, string> } {
  return memoized(ctx, 'stacked-after-recovery:plan', () => {
    const { t0, placements } = settledGroups(ctx, candidatesFor(ctx));
    const open = [...placements].filter(([g, at]) => at.length >= 2 && at.every((p) => p.pods.length === 1) && !keptApart(ctx, g, at));
    return { t0, ...coverByNodes(open.map(([g, at]) => [g, at.map((p) => p.node.name)])) };
  });
}

/**
 * Greedy set cover: each item (with the nodes it may be tested on) goes to the
 * node that takes the most items still without one, the lowest node first on ties
 * (node order is the order of first appearance in the lists). Plans in that order.
 */
export function coverByNodes<T extends { readonly object: string }>(items: readonly (readonly [T, readonly string[]])[]): { plans: { node: string; groups: T[] }[]; nodeOf: Map<string, string> } {
  const order = new Map<string, number>();
  const holding = new Map<string, T[]>();
  for (const [item, nodes] of items) {
    for (const n of nodes) {
      if (!order.has(n)) order.set(n, order.size);
      const list = holding.get(n);
      if (list) list.push(item);
      else holding.set(n, [item]);
    }
  }
  const nodesOf = new Map(items);
  const left = new Map([...holding].map(([n, list]) => [n, list.length]));
  const nodeOf = new Map<string, string>();
  const plans: { node: string; groups: T[] }[] = [];
  while (nodeOf.size < items.length) {
    let best: string | undefined;
    for (const [n, k] of left) if (k > 0 && (best === undefined || k > left.get(best)! || (k === left.get(best)! && order.get(n)! < order.get(best)!))) best = n;
    const groups = holding.get(best!)!.filter((g) => !nodeOf.has(g.object));
    for (const g of groups) {
      nodeOf.set(g.object, best!);
      for (const n of nodesOf.get(g)!) left.set(n, left.get(n)! - 1);
    }
    plans.push({ node: best!, groups });
  }
  return { plans, nodeOf };
}

/** The node's loss and return at t0, and each group's replicas per node at the end (the stacked ones). */
export function runCycle(ctx: AnalysisContext, node: string, t0: number, groups: readonly PodGroup[]): { run: ScenarioRun; stacked: Map<PodGroup, Cycle> } {
  const run = simulateWhatIf(ctx, {
    name: RULE,
    steps: [
      { at: t0, action: { type: 'failNode', node } },
      { at: t0 + RECOVER_AFTER_MS, action: { type: 'recoverNode', node } },
    ],
    untilMs: t0 + RECOVER_AFTER_MS + WATCH_MS,
  });
  const per = new Map<PodGroup, Map<string, number>>(groups.map((g) => [g, new Map()]));
  const find = groupFinder(groups);
  for (const p of run.sim.world.cluster.pods()) {
    if (!p.nodeName || p.terminating) continue;
    for (const g of find(p)) {
      const counts = per.get(g)!;
      counts.set(p.nodeName, (counts.get(p.nodeName) ?? 0) + 1);
    }
  }
  const stacked = new Map<PodGroup, Cycle>();
  for (const [g, counts] of per) {
    const after = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (after[0] && after[0][1] > 1) stacked.set(g, { node, t0, run, after });
  }
  return { run, stacked };
}

/** Whether the group's cycle on this input ends stacked (for fix proofs: the input changed). */
function endsStacked(ctx: AnalysisContext, object: string): boolean {
  const { t0, plans, nodeOf } = plan(ctx);
  const node = nodeOf.get(object);
  if (node === undefined) return false;
  const group = plans.find((p) => p.node === node)!.groups.find((g) => g.object === object)!;
  return runCycle(ctx, node, t0, [group]).stacked.size > 0;
}

function evidence(group: PodGroup, c: Cycle): string[] {
  const lines = [`failure model "node loss and return": node ${c.node} stops answering at t=${formatTime(c.t0)} and is back at t=${formatTime(c.t0 + RECOVER_AFTER_MS)}; no descheduler runs`];
  for (const e of c.run.events) {
    if (e.t < c.t0) continue;
    const pod = typeof e['pod'] === 'string' ? (e['pod'] as string) : undefined;
    if (e.type === 'Step') lines.push(`t=${formatTime(e.t)} ${String(e['action'])} ${String(e['node'])}`);
    else if ((e.type === 'NodeNotReady' || e.type === 'NodeReady') && e['node'] === c.node) lines.push(`t=${formatTime(e.t)} node ${c.node} ${e.type === 'NodeReady' ? 'Ready' : 'NotReady'}`);
    else if (pod && (e.type === 'PodTerminating' || e.type === 'Scheduled') && pod.startsWith(`${group.namespace}/${group.name}-`)) {
      lines.push(`t=${formatTime(e.t)} ${e.type} ${pod}${e['node'] ? ` on ${String(e['node'])}` : ''}${e['reason'] ? ` (${String(e['reason'])})` : ''}`);
    }
  }
  lines.push(`t=${formatTime(c.run.final.timeMs)} still ${c.after.map(([n, k]) => `${k} on ${n}`).join(', ')}; node ${c.node} runs none of them`);
  return lines;
}

function finding(ctx: AnalysisContext, group: PodGroup, c: Cycle): Finding {
  const [top, count] = c.after[0]!;
  const all = count === group.replicas;
  const candidates: Remedy[] = [requireAntiAffinity(group, LABEL_HOSTNAME), spreadAcross(group, LABEL_HOSTNAME)];
  const remedies = proveFixes(candidates, ctx.input, (input) => !endsStacked({ ...ctx, input }, group.object));
  return {
    severity: 'warning',
    rule: RULE,
    object: group.object,
    message: `after node ${c.node} is lost and comes back, ${all ? `all ${count} replicas` : `${count} of ${group.replicas} replicas`} share node ${top} and stay there (nothing moves a running pod back): the next loss of ${top} takes ${all ? 'every replica' : `${count} at once`}; ${whyAllowed(group)}`,
    evidence: evidence(group, c),
    fix: [
      ...remedies.map((r) => `${r.description} (re-simulated through the same loss and return: the replicas end on separate nodes)`),
      'advice: or run the descheduler (RemoveDuplicates, or RemovePodsViolatingTopologySpreadConstraint over a ScheduleAnyway spread) so stacked replicas are moved back once the node returns',
    ],
    ...(remedies.length > 0 ? { remedies } : {}),
  };
}

function whyAllowed(group: PodGroup): string {
  const pod = group.templatePod;
  if (pod.preferredAntiAffinity.some((w) => w.term.topologyKey === LABEL_HOSTNAME)) return 'its pod anti-affinity on kubernetes.io/hostname is only preferred, and preferences are read at scheduling time only';
  if (pod.topologySpreadConstraints.some((t) => t.topologyKey === LABEL_HOSTNAME && t.whenUnsatisfiable === 'ScheduleAnyway')) return 'its hostname spread is ScheduleAnyway, read at scheduling time only';
  return 'nothing in its pod spec keeps replicas on separate nodes';
}

export const stackedAfterRecovery = itemCheck({
  rule: RULE,
  description: 'Fails and restores a node running a replica: do the replicas end up sharing a node and stay so (no descheduler or rebalancing)',
  items: (ctx) => plan(ctx).plans,
  findings(ctx, { node, groups }): Finding[] {
    const { stacked } = runCycle(ctx, node, plan(ctx).t0, groups);
    return groups.flatMap((g) => {
      const c = stacked.get(g);
      return c ? [finding(ctx, g, c)] : [];
    });
  },
});
