// NodeResourcesFit: the pod's requests must fit in what the node has left; scores
// nodes with the configured strategy (LeastAllocated by default, MostAllocated,
// RequestedToCapacityRatio).

import { isExtendedResourceName, isScalarResourceName } from '../../model/resource-names.js';
import type { Pod } from '../../model/pod.js';
import type { NodeInfo } from '../../cluster/node-info.js';
import type { FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Code, Status } from '../status.js';
import {
  DEFAULT_RESOURCE_SPEC,
  leastAllocatedScorer,
  mostAllocatedScorer,
  requestedToCapacityRatioScorer,
  scoreNode,
  type ResourceScorer,
  type ResourceSpec,
  type ShapePoint,
} from './resource-scoring.js';
import { parseResourceSpecs } from './resource-args.js';

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

interface FitArgs {
  readonly ignoredResources: ReadonlySet<string>;
  readonly ignoredResourceGroups: ReadonlySet<string>;
  readonly resources: readonly ResourceSpec[];
  readonly scorer: ResourceScorer;
}

function parseShape(raw: unknown): ShapePoint[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new Error('scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified');
  return raw.map((p: { utilization?: unknown; score?: unknown }, i) => {
    const utilization = Number(p.utilization ?? 0);
    const score = Number(p.score ?? 0);
    if (!Number.isInteger(utilization) || utilization < 0 || utilization > 100) throw new Error(`scoringStrategy.requestedToCapacityRatio.shape[${i}].utilization: Invalid value: ${utilization}: not in valid range [0, 100]`);
    if (!Number.isInteger(score) || score < 0 || score > 10) throw new Error(`scoringStrategy.requestedToCapacityRatio.shape[${i}].score: Invalid value: ${score}: not in valid range [0, 10]`);
    const prev = i > 0 ? Number((raw[i - 1] as { utilization?: unknown }).utilization ?? 0) : -1;
    if (utilization <= prev) throw new Error(`scoringStrategy.requestedToCapacityRatio.shape[${i}].utilization: Invalid value: ${utilization}: utilization values must be sorted in increasing order`);
    return { utilization, score };
  });
}

function parseFitArgs(args: Readonly<Record<string, unknown>>): FitArgs {
  const strategy = (args.scoringStrategy ?? {}) as { type?: string; resources?: unknown; requestedToCapacityRatio?: { shape?: unknown } };
  const type = strategy.type ?? 'LeastAllocated';
  const resources = strategy.resources === undefined ? DEFAULT_RESOURCE_SPEC : parseResourceSpecs(strategy.resources, 'scoringStrategy.resources');
  let scorer: ResourceScorer;
  switch (type) {
    case 'LeastAllocated':
      scorer = leastAllocatedScorer(resources);
      break;
    case 'MostAllocated':
      scorer = mostAllocatedScorer(resources);
      break;
    case 'RequestedToCapacityRatio':
      scorer = requestedToCapacityRatioScorer(resources, parseShape(strategy.requestedToCapacityRatio?.shape));
      break;
    default:
      throw new Error(`scoringStrategy.type: Unsupported value: ${JSON.stringify(type)}: supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`);
  }
  const strings = (v: unknown, field: string): Set<string> => {
    if (v === undefined) return new Set();
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error(`${field}: Invalid value: must be a list of strings`);
    return new Set(v as string[]);
  };
  return { ignoredResources: strings(args.ignoredResources, 'ignoredResources'), ignoredResourceGroups: strings(args.ignoredResourceGroups, 'ignoredResourceGroups'), resources, scorer };
}

/** fitsRequest: every resource the pod requests that the node cannot supply, in upstream's order. */
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
    score: (_state, pod, nodeInfo) => scoreNode(nodeInfo, podRequests(pod), a.resources, false, a.scorer),
  };
};
