// NodeResourcesFit: the pod's requests must fit in what the node has left; scores
// nodes with the configured strategy (LeastAllocated by default, MostAllocated,
// RequestedToCapacityRatio).

import { isExtendedResourceName, isScalarResourceName } from '../../model/resource-names.js';
import type { Pod } from '../../model/pod.js';
import type { NodeInfo } from '../../cluster/node-info.js';
import type { FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Code, Status } from '../status.js';
import { leastAllocatedScorer, mostAllocatedScorer, requestedToCapacityRatioScorer, scoreNode, type ResourceScorer } from './resource-scoring.js';
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

/**
 * fitsRequest: every resource the pod requests that the node cannot supply. cpu,
 * memory and ephemeral-storage come first; scalar resources follow in name order
 * (upstream walks a Go map, so its order there is unspecified).
 */
export function insufficientResources(pod: Pod, nodeInfo: NodeInfo, ignored: ReadonlySet<string> = new Set(), ignoredGroups: ReadonlySet<string> = new Set()): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  const alloc = nodeInfo.node.allocatable;
  const allowedPods = alloc.pods ?? 0;
  if (nodeInfo.pods.length + 1 > allowedPods) {
    out.push({ resourceName: 'pods', reason: 'Too many pods', requested: 1, used: nodeInfo.pods.length, capacity: allowedPods, unresolvable: false });
  }
  const req = pod.resources.requests;
  const cpu = req.cpu ?? 0;
  const memory = req.memory ?? 0;
  const storage = req['ephemeral-storage'] ?? 0;
  const scalars = Object.keys(req).filter((k) => isScalarResourceName(k) && (req[k] ?? 0) !== 0).sort();
  if (cpu === 0 && memory === 0 && storage === 0 && scalars.length === 0) return out;
  const check = (name: string, amount: number) => {
    const capacity = alloc[name] ?? 0;
    const used = nodeInfo.requested[name] ?? 0;
    if (amount > 0 && amount > capacity - used) {
      out.push({ resourceName: name, reason: `Insufficient ${name}`, requested: amount, used, capacity, unresolvable: amount > capacity });
    }
  };
  check('cpu', cpu);
  check('memory', memory);
  check('ephemeral-storage', storage);
  for (const name of scalars) {
    if (isExtendedResourceName(name) && (ignored.has(name) || ignoredGroups.has(name.split('/')[0]!))) continue;
    check(name, req[name]!);
  }
  return out;
}

export const newNodeResourcesFit: PluginFactory = ({ args }): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin => {
  const a = parseFitArgs(args);
  const scorer = scorerFor(a);
  // Scoring counts containers without cpu/memory requests at the non-zero defaults.
  const podRequests = (pod: Pod) => a.resources.map((r) => pod.resources.scoring[r.name] ?? 0);
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
    score: (_state, pod, nodeInfo) => scoreNode(nodeInfo, podRequests(pod), a.resources, false, scorer),
  };
};
