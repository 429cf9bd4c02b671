// NodeResourcesBalancedAllocation: prefers nodes whose resource usage stays balanced after placing the pod.

import type { Pod } from '../../model/pod.js';
import type { CycleState, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';
import { parseBalancedAllocationArgs } from './resource-args.js';
import { balancedScorer, perPod, scoreNode, scoreNodes, scoreScratch } from './resource-scoring.js';

export const BALANCED_ALLOCATION = 'NodeResourcesBalancedAllocation';

export const newBalancedAllocation: PluginFactory = ({ args }): PreScorePlugin & ScorePlugin => {
  const resources = parseBalancedAllocationArgs(args);
  // Balance is judged on real requests (not the non-zero defaults), so best-effort pods are skipped.
  const scratch = scoreScratch(resources);
  const podRequests = perPod((pod: Pod) => resources.map((r) => pod.resources.requests[r.name] ?? 0));
  return {
    name: BALANCED_ALLOCATION,
    preScore: (_state: CycleState, pod) => (podRequests(pod).every((r) => r === 0) ? Status.SKIP : Status.SUCCESS),
    score: (_state, pod, nodeInfo) => {
      const reqs = podRequests(pod);
      return reqs.every((r) => r === 0) ? 0 : scoreNode(nodeInfo, reqs, resources, true, balancedScorer, scratch);
    },
    scoreAll: (_state, pod, nodes, out, offset) => {
      const reqs = podRequests(pod);
      if (reqs.every((r) => r === 0)) out.fill(0, offset, offset + nodes.length);
      else scoreNodes(nodes, reqs, resources, true, balancedScorer, scratch, out, offset);
    },
  };
};
