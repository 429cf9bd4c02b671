// InterPodAffinity: required pod affinity/anti-affinity as a filter (with the
// symmetric check of existing pods' required anti-affinity), preferred terms and
// existing pods' terms as a score. Mirrors pkg/scheduler/framework/plugins/interpodaffinity.

import type { CycleState, FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { SchedulerError, Status } from '../status.js';
import { parseInterPodAffinityArgs } from './inter-pod-affinity/args.js';
import { computePreFilterState, filterNode, INTER_POD_AFFINITY, PRE_FILTER_STATE_KEY, PreFilterState } from './inter-pod-affinity/filtering.js';
import { computePreScoreState, normalizeTopologyScores, PRE_SCORE_STATE_KEY, PreScoreState, scoreNode } from './inter-pod-affinity/scoring.js';

export {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
} from './inter-pod-affinity/filtering.js';

export { INTER_POD_AFFINITY };

function preFilterState(state: CycleState): PreFilterState | Status {
  const s = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
  return s instanceof PreFilterState ? s : Status.error(`error reading ${JSON.stringify(PRE_FILTER_STATE_KEY)} from cycleState: not found`);
}

function preScoreState(state: CycleState): PreScoreState {
  const s = state.tryRead<PreScoreState>(PRE_SCORE_STATE_KEY);
  if (!(s instanceof PreScoreState)) throw new SchedulerError(`failed to read ${JSON.stringify(PRE_SCORE_STATE_KEY)} from cycleState: not found`);
  return s;
}

export const newInterPodAffinity: PluginFactory = ({ handle, args }): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin => {
  const config = parseInterPodAffinityArgs(args);
  const cluster = handle.cluster;
  const namespaceLabels = (ns: string) => cluster.namespaceLabels(ns);
  return {
    name: INTER_POD_AFFINITY,
    preFilter: (state, pod, nodes) => {
      if (pod.affinityParseError !== undefined) return { status: Status.unresolvable(`parsing pod: ${pod.affinityParseError}`) };
      // The cluster's own node list comes with its index of nodes hosting required anti-affinity pods.
      const antiAffinityNodes = nodes === cluster.nodeInfos() ? cluster.nodesWithRequiredAntiAffinityPods() : nodes.filter((n) => n.podsWithRequiredAntiAffinity.length > 0);
      const s = computePreFilterState(pod, nodes, antiAffinityNodes, namespaceLabels, cluster);
      if (s.skippable) return { status: Status.SKIP };
      state.write(PRE_FILTER_STATE_KEY, s);
      return { status: Status.SUCCESS };
    },
    preFilterExtensions: {
      addPod: (state, _podToSchedule, podToAdd, nodeInfo) => {
        const s = preFilterState(state);
        if (s instanceof Status) return s;
        s.updateWithPod(podToAdd, nodeInfo.node, 1);
        return Status.SUCCESS;
      },
      removePod: (state, _podToSchedule, podToRemove, nodeInfo) => {
        const s = preFilterState(state);
        if (s instanceof Status) return s;
        s.updateWithPod(podToRemove, nodeInfo.node, -1);
        return Status.SUCCESS;
      },
    },
    filter: (state, _pod, nodeInfo) => {
      const s = preFilterState(state);
      return s instanceof Status ? s : filterNode(s, nodeInfo);
    },
    preScore: (state, pod) => {
      // Reached only when the profile runs InterPodAffinity's scoring without its PreFilter.
      if (pod.affinityParseError !== undefined) return Status.error(`failed to parse pod: ${pod.affinityParseError}`);
      const s = computePreScoreState(pod, cluster, config);
      if (s === null) return Status.SKIP;
      state.write(PRE_SCORE_STATE_KEY, s);
      return Status.SUCCESS;
    },
    score: (state, _pod, nodeInfo) => scoreNode(preScoreState(state), nodeInfo),
    normalizeScore: (state, _pod, scores) => {
      // Upstream leaves raw scores alone when no pair was recorded.
      if (preScoreState(state).topologyScore.size === 0) return;
      normalizeTopologyScores(scores);
    },
  };
};
