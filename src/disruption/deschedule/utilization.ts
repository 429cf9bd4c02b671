// LowNodeUtilization and HighNodeUtilization on requested resources, as upstream:
// usage is the pods' requests as a percentage of allocatable (pods: the pod count
// against the pod capacity). A node is underutilized when every resource named
// in `thresholds` is at or below it, overutilized (Low) when any resource named
// in `targetThresholds` is above it. Low takes pods, lowest priority first, from
// the overutilized nodes (most used first; cordoned ones too) while the source is
// above its targets and the underutilized nodes (never cordoned ones) still have
// room below their targets; High empties the underutilized nodes (least used
// first; cordoned ones too) while the nodes that are not (nor cordoned) have room.
// With predictPlacement berth evicts only when the scheduler would place the pod
// on a destination the plugin counts on.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { Pod } from '../../model/pod.js';
import { tolerationsTolerateTaint } from '../../model/taints.js';
import type { EvictionPlanner } from './planner.js';
import { inNamespaces, type StrategyArgs, type Thresholds } from '../../model/descheduler-policy.js';

const BASIC = ['cpu', 'memory', 'pods'];

type Usage = Record<string, number>;

interface NodeUsage {
  readonly info: NodeInfo;
  /** Raw usage (cpu in millicores, memory in bytes, pods as a count). */
  readonly usage: Usage;
  /** Percent of allocatable per resource. */
  readonly percent: Usage;
}

function measure(planner: EvictionPlanner, info: NodeInfo, resources: readonly string[]): NodeUsage {
  const pods = planner.podsOn(info).filter((p) => !p.terminating);
  const usage: Usage = {};
  const percent: Usage = {};
  for (const r of resources) {
    usage[r] = r === 'pods' ? pods.length : pods.reduce((s, p) => s + (p.resources.requests[r] ?? 0), 0);
    const cap = info.node.allocatable[r] ?? 0;
    percent[r] = cap > 0 ? (usage[r] / cap) * 100 : 0;
  }
  return { info, usage, percent };
}

const atOrBelow = (percent: Usage, t: Thresholds) => Object.entries(t).every(([r, v]) => percent[r]! <= v);
const above = (percent: Usage, t: Thresholds) => Object.entries(t).some(([r, v]) => percent[r]! > v);

/** The first resource whose target `n` would exceed once `pod` joins it. */
function risesAbove(n: NodeUsage, pod: Pod, t: Thresholds): string | undefined {
  return Object.keys(t).find((r) => {
    const cap = n.info.node.allocatable[r] ?? 0;
    const used = n.usage[r]! + (r === 'pods' ? 1 : (pod.resources.requests[r] ?? 0));
    return (cap > 0 ? (used / cap) * 100 : 0) > t[r]!;
  });
}

/** Allocatable capped at the thresholds (full allocatable for a resource without one). */
function capped(info: NodeInfo, t: Thresholds, resources: readonly string[]): Usage {
  const out: Usage = {};
  for (const r of resources) {
    const cap = info.node.allocatable[r] ?? 0;
    out[r] = t[r] === undefined ? cap : Math.trunc(t[r] * 0.01 * cap);
  }
  return out;
}

function describe(n: NodeUsage, resources: readonly string[]): string {
  return resources.map((r) => `${r} ${Math.round(n.percent[r]!)}%`).join(', ');
}

const totalRaw = (n: NodeUsage) => Object.values(n.usage).reduce((s, v) => s + v, 0);
const byName = (a: NodeUsage, b: NodeUsage) => (a.info.node.name < b.info.node.name ? -1 : a.info.node.name > b.info.node.name ? 1 : 0);

/** Upstream's PodToleratesTaints: some destination has no more taints than the pod has tolerations, and the pod tolerates them all. */
function toleratesSomeDestination(pod: Pod, dests: readonly NodeUsage[]): boolean {
  return dests.some((d) => pod.tolerations.length >= d.info.node.taints.length && d.info.node.taints.every((t) => tolerationsTolerateTaint(pod.tolerations, t)));
}

interface Source {
  readonly n: NodeUsage;
  /** Usage ceiling the source must get under (Low), or undefined (High). */
  readonly ceiling?: Usage;
}

function evictFrom(
  planner: EvictionPlanner,
  name: 'LowNodeUtilization' | 'HighNodeUtilization',
  sources: readonly Source[],
  dests: readonly NodeUsage[],
  destCeilings: ReadonlyMap<string, Usage>,
  resources: readonly string[],
  opts: { excluded: readonly string[]; nodeLimit?: number; podFilter: (p: Pod) => boolean; reason: (n: NodeUsage) => string; accept: (pod: Pod, dest: NodeInfo) => string | undefined },
): void {
  const available: Usage = {};
  for (const r of resources) available[r] = dests.reduce((s, d) => s + destCeilings.get(d.info.node.name)![r]! - d.usage[r]!, 0);
  const keepGoing = (s: Source) => (!s.ceiling || resources.some((r) => s.n.usage[r]! > s.ceiling![r]!)) && resources.every((r) => available[r]! > 0);
  for (const s of sources) {
    const removable = planner.candidates(planner.podsOn(s.n.info)).filter(opts.podFilter);
    if (removable.length === 0 || !keepGoing(s)) continue;
    let evicted = 0;
    const reason = opts.reason(s.n);
    for (const pod of removable) {
      if (opts.nodeLimit !== undefined && evicted >= opts.nodeLimit) break;
      if (!toleratesSomeDestination(pod, dests)) continue;
      if (!inNamespaces({ exclude: opts.excluded }, pod.namespace) || !planner.preEvictable(pod)) continue;
      if (!planner.tryMove(pod, name, reason, (dest) => opts.accept(pod, dest))) continue;
      evicted++;
      for (const r of resources) {
        const used = r === 'pods' ? 1 : (pod.resources.requests[r] ?? 0);
        s.n.usage[r] = s.n.usage[r]! - used;
        available[r] = available[r]! - used;
      }
      if (!keepGoing(s)) break;
    }
  }
}

/** Moves pods off overutilized nodes, most used first, towards underutilized ones. */
export function lowNodeUtilization(planner: EvictionPlanner, args: StrategyArgs['LowNodeUtilization']): void {
  const named = Object.keys(args.thresholds);
  const resources = [...new Set([...named, ...BASIC])];
  const nodes = planner.nodes().map((i) => measure(planner, i, resources));
  let low = args.thresholds;
  let high = args.targetThresholds;
  if (args.useDeviationThresholds && nodes.length > 0) {
    const avg = (r: string) => nodes.reduce((s, n) => s + n.percent[r]!, 0) / nodes.length;
    const clamp = (v: number) => Math.min(100, Math.max(0, v));
    low = Object.fromEntries(named.map((r) => [r, clamp(avg(r) - args.thresholds[r]!)]));
    high = Object.fromEntries(named.map((r) => [r, clamp(avg(r) + (args.targetThresholds[r] ?? 0))]));
  }
  const under = nodes.filter((n) => !n.info.node.unschedulable && atOrBelow(n.percent, low));
  const over = nodes.filter((n) => !under.includes(n) && above(n.percent, high));
  if (under.length === 0 || under.length <= (args.numberOfNodes ?? 0) || under.length === nodes.length || over.length === 0) return;
  over.sort((a, b) => totalRaw(b) - totalRaw(a) || byName(a, b));
  const ceilings = new Map(nodes.map((n) => [n.info.node.name, capped(n.info, high, resources)]));
  const underNames = new Set(under.map((n) => n.info.node.name));
  evictFrom(
    planner,
    'LowNodeUtilization',
    over.map((n) => ({ n, ceiling: ceilings.get(n.info.node.name)! })),
    under,
    ceilings,
    resources,
    {
      excluded: args.evictableNamespaces?.exclude ?? [],
      nodeLimit: args.evictionLimits?.node,
      podFilter: () => true,
      reason: (n) => `node ${n.info.node.name} is overutilized (${describe(n, resources)}) against targetThresholds`,
      accept: (pod, dest) => {
        if (!underNames.has(dest.node.name)) return `${dest.node.name} was not underutilized`;
        const r = risesAbove(measure(planner, dest, resources), pod, high);
        return r ? `${r} would rise above its target threshold` : undefined;
      },
    },
  );
}

/** Empties underutilized nodes, least used first, onto the nodes that are not. */
export function highNodeUtilization(planner: EvictionPlanner, args: StrategyArgs['HighNodeUtilization']): void {
  const named = Object.keys(args.thresholds);
  const resources = [...new Set([...named, ...BASIC])];
  const nodes = planner.nodes().map((i) => measure(planner, i, resources));
  const under = nodes.filter((n) => atOrBelow(n.percent, args.thresholds));
  const schedulable = nodes.filter((n) => !under.includes(n) && !n.info.node.unschedulable);
  if (under.length === 0 || under.length <= (args.numberOfNodes ?? 0) || under.length === nodes.length || schedulable.length === 0) return;
  under.sort((a, b) => totalRaw(a) - totalRaw(b) || byName(a, b));
  const full = Object.fromEntries(named.map((r) => [r, 100]));
  const ceilings = new Map(nodes.map((n) => [n.info.node.name, capped(n.info, full, resources)]));
  const underNames = new Set(under.map((n) => n.info.node.name));
  const onlyThresholding = args.evictionModes?.includes('OnlyThresholdingResources') ?? false;
  evictFrom(planner, 'HighNodeUtilization', under.map((n) => ({ n })), schedulable, ceilings, resources, {
    excluded: args.evictableNamespaces?.exclude ?? [],
    podFilter: (p) => !onlyThresholding || named.some((r) => p.resources.requests[r] !== undefined),
    reason: (n) => `node ${n.info.node.name} is underutilized (${describe(n, resources)}) against thresholds`,
    accept: (_pod, dest) => (underNames.has(dest.node.name) ? `${dest.node.name} is underutilized too` : undefined),
  });
}
