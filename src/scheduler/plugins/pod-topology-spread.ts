// PodTopologySpread: spreads pods matching a selector evenly across topology
// domains. DoNotSchedule constraints filter nodes, ScheduleAnyway constraints
// score them; pods without constraints get the configured defaults (with
// defaultingType System: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway).

import type { NodeInfo } from '../../cluster/node-info.js';
import type { Pod } from '../../model/pod.js';
import type { CycleState, FilterPlugin, NodeScore, PreFilterExtensions, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { featureEnabled } from '../feature-gates.js';
import { Status } from '../status.js';
import { parsePodTopologySpreadArgs } from './pod-topology-spread/args.js';
import { constraintsFor, selectorError, type SpreadGates } from './pod-topology-spread/constraints.js';
import { computePreFilterState, filterNode, POD_TOPOLOGY_SPREAD, PRE_FILTER_STATE_KEY, readPreFilterState, updateWithPod } from './pod-topology-spread/filtering.js';
import { computePreScoreState, normalizeScores, PRE_SCORE_STATE_KEY, readPreScoreState, scoreNode } from './pod-topology-spread/scoring.js';

export { ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, POD_TOPOLOGY_SPREAD } from './pod-topology-spread/filtering.js';

export type PodTopologySpreadPlugin = PreFilterPlugin &
  FilterPlugin &
  PreScorePlugin &
  ScorePlugin & {
    readonly preFilterExtensions: PreFilterExtensions;
    normalizeScore(state: CycleState, pod: Pod, scores: NodeScore[]): void;
  };

export const newPodTopologySpread: PluginFactory = ({ handle, args, features }) => {
  const { systemDefaulted, defaultConstraints } = parsePodTopologySpreadArgs(args);
  const gates: SpreadGates = {
    matchLabelKeys: featureEnabled(features, 'MatchLabelKeysInPodTopologySpread'),
    tolerationComparison: featureEnabled(features, 'TaintTolerationComparisonOperators'),
  };

  const extensionUpdate = (state: CycleState, podToSchedule: Pod, pod: Pod, nodeInfo: NodeInfo, delta: 1 | -1): Status => {
    const s = readPreFilterState(state);
    if (s instanceof Status) return s;
    updateWithPod(s, pod, podToSchedule, nodeInfo.node, delta);
    return Status.SUCCESS;
  };

  const plugin: PodTopologySpreadPlugin = {
    name: POD_TOPOLOGY_SPREAD,

    preFilter(state, pod, nodes) {
      const err = selectorError(pod, 'DoNotSchedule');
      if (err !== undefined) return { status: Status.error(`get constraints from pod: obtaining pod's hard topology spread constraints: ${err}`) };
      const constraints = constraintsFor(pod, 'DoNotSchedule', defaultConstraints, handle.cluster, gates);
      if (constraints.length === 0) return { status: Status.SKIP };
      state.write(PRE_FILTER_STATE_KEY, computePreFilterState(pod, constraints, nodes, handle.cluster));
      return { status: Status.SUCCESS };
    },

    preFilterExtensions: {
      addPod: (state, podToSchedule, podToAdd, nodeInfo) => extensionUpdate(state, podToSchedule, podToAdd, nodeInfo, 1),
      removePod: (state, podToSchedule, podToRemove, nodeInfo) => extensionUpdate(state, podToSchedule, podToRemove, nodeInfo, -1),
    },

    filter(state, pod, nodeInfo) {
      const s = readPreFilterState(state);
      if (s instanceof Status) return s;
      return filterNode(s, pod, nodeInfo.node);
    },

    preScore(state, pod, filteredNodes) {
      const allNodes = handle.cluster.nodeInfos();
      if (allNodes.length === 0) return Status.SKIP;
      const err = selectorError(pod, 'ScheduleAnyway');
      if (err !== undefined) return Status.error(`calculating preScoreState: obtaining pod's soft topology spread constraints: ${err}`);
      const constraints = constraintsFor(pod, 'ScheduleAnyway', defaultConstraints, handle.cluster, gates);
      if (constraints.length === 0) return Status.SKIP;
      // Only system defaults tolerate nodes missing a topology key (e.g. no zone label).
      const requireAllTopologies = pod.topologySpreadConstraints.length > 0 || !systemDefaulted;
      state.write(PRE_SCORE_STATE_KEY, computePreScoreState(pod, constraints, filteredNodes, allNodes, requireAllTopologies, handle.cluster));
      return Status.SUCCESS;
    },

    score(state, pod, nodeInfo) {
      return scoreNode(readPreScoreState(state), pod, nodeInfo);
    },
    scoreAll(state, pod, nodes, out, offset) {
      const s = readPreScoreState(state);
      for (let j = 0; j < nodes.length; j++) out[offset + j] = scoreNode(s, pod, nodes[j]!);
    },

    normalizeScore(state, _pod, scores: NodeScore[]) {
      normalizeScores(readPreScoreState(state), scores);
    },
  };
  return plugin;
};
