// stacked-after-recovery (incident b): a workload whose replicas run on separate
// nodes loses one node; its lost replicas are evicted and rescheduled — onto a node
// that already runs one when nothing forbids it (preferred anti-affinity, a
// ScheduleAnyway spread, no constraint at all) — and when the node comes back
// nothing moves them back: kube-scheduler places new pods only, and without a
// descheduler (or a rollout) the replicas stay stacked. The next loss of that node
// then takes down more replicas than the first did.
//
// Simulated per workload: the node running its first replica fails, comes back
// after RECOVER_AFTER_MS (past the 300 s eviction and the rescheduling), and the
// placement is read WATCH_MS later. Fixes are re-simulated through the same cycle.

import { formatTime } from '../../sim/timeline.js';
import type { ScenarioRun } from '../../sim/scenario.js';
import { itemCheck, type AnalysisContext } from '../check.js';
import type { Finding, Remedy } from '../finding.js';
import { podGroups, type PodGroup } from '../pod-groups.js';
import { proveFixes } from '../prove.js';
import { LABEL_HOSTNAME } from '../../model/node.js';
import { requireAntiAffinity, spreadAcross } from '../remedies.js';
import { settle } from '../settle.js';
import { simulateWhatIf } from '../what-if.js';

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

const candidatesFor = (ctx: AnalysisContext) => podGroups(ctx.input).filter((g) => g.workload && g.replicas >= 2);

/** Runs the loss-and-recovery cycle on the group's first node (if its replicas are spread today); the stacked end state, if any. */
function cycle(ctx: AnalysisContext, object: string): Cycle | undefined {
  const group = candidatesFor(ctx).find((g) => g.object === object);
  if (!group) return undefined;
  const { t0, placement } = settle(ctx, [group]);
  const hosting = placement.filter((p) => (p.hosts.get(group) ?? 0) > 0);
  // Only replicas one per node today can end up stacked by the cycle (stacked today is co-location's).
  if (hosting.length < 2 || hosting.some((p) => p.hosts.get(group)! > 1)) return undefined;
  const node = hosting[0]!.node.name;
  const run = simulateWhatIf(ctx, {
    name: RULE,
    steps: [
      { at: t0, action: { type: 'failNode', node } },
      { at: t0 + RECOVER_AFTER_MS, action: { type: 'recoverNode', node } },
    ],
    untilMs: t0 + RECOVER_AFTER_MS + WATCH_MS,
  });
  const per = new Map<string, number>();
  for (const p of run.sim.world.cluster.pods()) if (p.nodeName && !p.terminating && group.has(p)) per.set(p.nodeName, (per.get(p.nodeName) ?? 0) + 1);
  const after = [...per].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return after[0] && after[0][1] > 1 ? { node, t0, run, after } : undefined;
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
  const remedies = proveFixes(candidates, ctx.input, (input) => cycle({ ...ctx, input }, group.object) === undefined);
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
  items: candidatesFor,
  findings(ctx, group): Finding[] {
    const c = cycle(ctx, group.object);
    return c ? [finding(ctx, group, c)] : [];
  },
});
