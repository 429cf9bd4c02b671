// NodeResourcesFit: the pod's requests must fit in what the node has left; scores
// nodes with the configured strategy (LeastAllocated by default, MostAllocated,
// RequestedToCapacityRatio).

import { isExtendedResourceName, isScalarResourceName } from '../../model/resource-names.js';
import type { Pod } from '../../model/pod.js';
import type { NodeInfo } from '../../cluster/node-info.js';
import type { FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Code, Status } from '../status.js';
import { leastAllocatedScorer, mostAllocatedScorer, perPod, requestedToCapacityRatioScorer, scoreNode, scoreNodes, scoreScratch, type ResourceScorer } from './resource-scoring.js';
import { parseFitArgs, type FitArgs } from './resource-args.js';

export const NODE_RESOURCES_FIT = 'NodeResourcesFit';

export interface InsufficientResource {
  readonly resourceName: string;
  readonly reason: string;
  readonly requested: number;
  readonly used: number;
  readonly capacity: number;
  /** The node could never fit it, even empty: preemption cannot help. */
  readonly unresolvable: boolean;
}

function scorerFor(a: FitArgs): ResourceScorer {
  switch (a.strategy) {
    case 'LeastAllocated':
      return leastAllocatedScorer(a.resources);
    case 'MostAllocated':
      return mostAllocatedScorer(a.resources);
    case 'RequestedToCapacityRatio':
      return requestedToCapacityRatioScorer(a.resources, a.shape);
  }
}

/** The scalar resources a pod requests (non-zero), in name order; computed once per pod. */
const scalarsOf = perPod((pod): readonly string[] => {
  const req = pod.resources.requests;
  return Object.keys(req)
    .filter((k) => isScalarResourceName(k) && (req[k] ?? 0) !== 0)
    .sort();
});

function insufficient(out: InsufficientResource[], name: string, amount: number, nodeInfo: NodeInfo): InsufficientResource[] {
  const capacity = nodeInfo.node.allocatable[name] ?? 0;
  const used = nodeInfo.requested[name] ?? 0;
  if (amount > 0 && amount > capacity - used) {
    out.push({ resourceName: name, reason: `Insufficient ${name}`, requested: amount, used, capacity, unresolvable: amount > capacity });
  }
  return out;
}

const NONE: readonly InsufficientResource[] = Object.freeze([]);

/**
 * Whether the node has room for the pod by pod count, cpu, memory and ephemeral
 * storage: what fitsRequest checks whatever the plugin's arguments (they can only
 * ignore extended resources). Callers that need only a verdict skip nodes without it
 * before anything dearer.
 */
export function hasRoomFor(pod: Pod, nodeInfo: NodeInfo): boolean {
  const alloc = nodeInfo.node.allocatable;
  if (nodeInfo.pods.length + 1 > (alloc.pods ?? 0)) return false;
  const req = pod.resources.requests;
  const requested = nodeInfo.requested;
  const cpu = req.cpu ?? 0;
  const memory = req.memory ?? 0;
  const storage = req['ephemeral-storage'] ?? 0;
  return (
    (cpu === 0 || cpu <= (alloc.cpu ?? 0) - (requested.cpu ?? 0)) &&
    (memory === 0 || memory <= (alloc.memory ?? 0) - (requested.memory ?? 0)) &&
    (storage === 0 || storage <= (alloc['ephemeral-storage'] ?? 0) - (requested['ephemeral-storage'] ?? 0))
  );
}
const EMPTY_SET: ReadonlySet<string> = new Set();

/**
 * fitsRequest: every resource the pod requests that the node cannot supply. cpu,
 * memory and ephemeral-storage come first; scalar resources follow in name order
 * (upstream walks a Go map, so its order there is unspecified). Allocates nothing
 * when the pod fits (the Filter loop's common case).
 */
export function insufficientResources(pod: Pod, nodeInfo: NodeInfo, ignored: ReadonlySet<string> = EMPTY_SET, ignoredGroups: ReadonlySet<string> = EMPTY_SET): readonly InsufficientResource[] {
  let out: InsufficientResource[] | null = null;
  const alloc = nodeInfo.node.allocatable;
  const allowedPods = alloc.pods ?? 0;
  if (nodeInfo.pods.length + 1 > allowedPods) {
    out = [{ resourceName: 'pods', reason: 'Too many pods', requested: 1, used: nodeInfo.pods.length, capacity: allowedPods, unresolvable: false }];
  }
  const req = pod.resources.requests;
  const cpu = req.cpu ?? 0;
  const memory = req.memory ?? 0;
  const storage = req['ephemeral-storage'] ?? 0;
  const scalars = scalarsOf(pod);
  if (cpu === 0 && memory === 0 && storage === 0 && scalars.length === 0) return out ?? NONE;
  // Fast path: everything fits (checked without building records).
  if (scalars.length === 0 && hasRoomFor(pod, nodeInfo)) return NONE;
  out ??= [];
  insufficient(out, 'cpu', cpu, nodeInfo);
  insufficient(out, 'memory', memory, nodeInfo);
  insufficient(out, 'ephemeral-storage', storage, nodeInfo);
  for (const name of scalars) {
    if (isExtendedResourceName(name) && (ignored.has(name) || ignoredGroups.has(name.split('/')[0]!))) continue;
    insufficient(out, name, req[name]!, nodeInfo);
  }
  return out;
}

export const newNodeResourcesFit: PluginFactory = ({ args }): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin => {
  const a = parseFitArgs(args);
  const scorer = scorerFor(a);
  // Scoring counts containers without cpu/memory requests at the non-zero defaults.
  const podRequests = perPod((pod) => a.resources.map((r) => pod.resources.scoring[r.name] ?? 0));
  const scratch = scoreScratch(a.resources);
  return {
    name: NODE_RESOURCES_FIT,
    preFilter: () => ({ status: Status.SUCCESS }),
    filter: (_state, pod, nodeInfo) => {
      const insufficient = insufficientResources(pod, nodeInfo, a.ignoredResources, a.ignoredResourceGroups);
      if (insufficient.length === 0) return Status.SUCCESS;
      const code = insufficient.some((r) => r.unresolvable) ? Code.UnschedulableAndUnresolvable : Code.Unschedulable;
      return new Status(code, insufficient.map((r) => r.reason));
    },
    preScore: () => Status.SUCCESS,
    score: (_state, pod, nodeInfo) => scoreNode(nodeInfo, podRequests(pod), a.resources, false, scorer, scratch),
    scoreAll: (_state, pod, nodes, out, offset) => scoreNodes(nodes, podRequests(pod), a.resources, false, scorer, scratch, out, offset),
  };
};
