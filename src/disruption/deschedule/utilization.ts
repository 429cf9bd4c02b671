// LowNodeUtilization and HighNodeUtilization: node usage is the pods' requests
// as a percentage of allocatable (pods: the pod count against the pod
// capacity), for cpu, memory, pods and any extended resource named in the
// thresholds; cpu, memory and pods left out of the thresholds count as 100%.
// A node is underutilized when every resource is below `thresholds`, and (Low)
// overutilized when any resource is above `targetThresholds`. Cordoned nodes
// are neither sources nor targets.

import type { NodeInfo } from '../../cluster/node-info.js';
import type { Pod } from '../../model/pod.js';
import type { EvictionPlanner } from './planner.js';
import type { StrategyArgs, Thresholds } from './policy.js';

const BASIC = ['cpu', 'memory', 'pods'];

function resourcesOf(...ts: Thresholds[]): string[] {
  return [...new Set([...BASIC, ...ts.flatMap((t) => Object.keys(t))])];
}

/** Percent of allocatable the node's pods request, with `extra` (a pod to add) counted too. */
export function usagePercent(info: NodeInfo, resource: string, extra?: Pod): number {
  const allocatable = info.node.allocatable[resource] ?? 0;
  const used = resource === 'pods' ? info.pods.length + (extra ? 1 : 0) : (info.requested[resource] ?? 0) + (extra?.resources.requests[resource] ?? 0);
  if (allocatable <= 0) return used > 0 ? Infinity : 0;
  return (used / allocatable) * 100;
}

function below(info: NodeInfo, thresholds: Thresholds, resources: readonly string[]): boolean {
  return resources.every((r) => usagePercent(info, r) < (thresholds[r] ?? 100));
}

function above(info: NodeInfo, thresholds: Thresholds, resources: readonly string[], extra?: Pod): string | undefined {
  return resources.find((r) => usagePercent(info, r, extra) > (thresholds[r] ?? 100));
}

function describeUsage(info: NodeInfo, resources: readonly string[]): string {
  return resources.map((r) => `${r} ${Math.round(usagePercent(info, r))}%`).join(', ');
}

function totalUsage(info: NodeInfo, resources: readonly string[]): number {
  return resources.reduce((s, r) => s + Math.min(usagePercent(info, r), 1000), 0);
}

const byName = (a: NodeInfo, b: NodeInfo) => (a.node.name < b.node.name ? -1 : a.node.name > b.node.name ? 1 : 0);

/** Moves pods off overutilized nodes, most used first, onto nodes that were underutilized, until each is back under its targets. */
export function lowNodeUtilization(planner: EvictionPlanner, args: StrategyArgs['LowNodeUtilization']): void {
  const resources = resourcesOf(args.thresholds, args.targetThresholds);
  const nodes = planner.cluster.nodeInfos().filter((i) => !i.node.unschedulable);
  const under = new Set(nodes.filter((i) => below(i, args.thresholds, resources)).map((i) => i.node.name));
  const over = nodes.filter((i) => above(i, args.targetThresholds, resources) !== undefined);
  if (under.size === 0 || over.length === 0 || under.size <= (args.numberOfNodes ?? 0)) return;
  over.sort((a, b) => totalUsage(b, resources) - totalUsage(a, resources) || byName(a, b));
  for (const info of over) {
    const reason = `node ${info.node.name} is overutilized (${describeUsage(info, resources)}) against targetThresholds`;
    for (const pod of planner.candidates(info.pods, args.evictableNamespaces)) {
      if (above(info, args.targetThresholds, resources) === undefined) break;
      if (!planner.stillOn(pod, info.node.name)) continue;
      planner.tryMove(pod, 'LowNodeUtilization', reason, (dest) => {
        if (!under.has(dest.node.name)) return `${dest.node.name} was not underutilized`;
        const r = above(dest, args.targetThresholds, resources, pod);
        return r ? `${r} would rise above its target threshold` : undefined;
      });
    }
  }
}

/** Empties underutilized nodes, least used first, onto nodes that are not underutilized. */
export function highNodeUtilization(planner: EvictionPlanner, args: StrategyArgs['HighNodeUtilization']): void {
  const resources = resourcesOf(args.thresholds);
  const nodes = planner.cluster.nodeInfos().filter((i) => !i.node.unschedulable);
  const under = nodes.filter((i) => below(i, args.thresholds, resources));
  const underNames = new Set(under.map((i) => i.node.name));
  if (under.length === 0 || under.length === nodes.length || under.length <= (args.numberOfNodes ?? 0)) return;
  under.sort((a, b) => totalUsage(a, resources) - totalUsage(b, resources) || byName(a, b));
  for (const info of under) {
    const reason = `node ${info.node.name} is underutilized (${describeUsage(info, resources)}) against thresholds`;
    for (const pod of planner.candidates(info.pods, args.evictableNamespaces)) {
      if (!planner.stillOn(pod, info.node.name)) continue;
      planner.tryMove(pod, 'HighNodeUtilization', reason, (dest) => (underNames.has(dest.node.name) ? `${dest.node.name} is underutilized too` : undefined));
    }
  }
}
