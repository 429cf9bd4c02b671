// TaintToleration: NoSchedule/NoExecute taints must be tolerated; untolerated
// PreferNoSchedule taints lower a node's score.

import type { NodeInfo } from '../../cluster/node-info.js';
import { doNotScheduleTaints, findUntoleratedTaint, tolerationsTolerateTaint, type Toleration } from '../../model/taints.js';
import type { CycleState, FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin, StateData } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { featureEnabled } from '../feature-gates.js';
import { Code, Status } from '../status.js';
import { normalizeToMax } from './normalize.js';

export const TAINT_TOLERATION = 'TaintToleration';
export const ERR_REASON_UNTOLERATED = 'node(s) had untolerated taint(s)';
const PRE_SCORE_KEY = 'PreScore' + TAINT_TOLERATION;
/** Filter's rejection, one constant (a tainted zone rejects hundreds of nodes per cycle). */
const UNTOLERATED = Object.freeze(new Status(Code.UnschedulableAndUnresolvable, Object.freeze([ERR_REASON_UNTOLERATED]), TAINT_TOLERATION));

class PreScoreState implements StateData {
  constructor(readonly tolerationsPreferNoSchedule: readonly Toleration[]) {}
  clone(): this {
    return this;
  }
}

function preferNoScheduleTolerations(state: CycleState, tolerations: readonly Toleration[]): readonly Toleration[] {
  const s = state.tryRead<PreScoreState>(PRE_SCORE_KEY);
  return s ? s.tolerationsPreferNoSchedule : tolerations.filter((t) => t.effect === '' || t.effect === 'PreferNoSchedule');
}

/** The raw score: how many PreferNoSchedule taints of the node the tolerations leave untolerated. */
function intolerablePreferNoSchedule(tolerations: readonly Toleration[], nodeInfo: NodeInfo, comparison: boolean): number {
  let intolerable = 0;
  for (const taint of nodeInfo.node.taints) {
    if (taint.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tolerations, taint, comparison)) intolerable++;
  }
  return intolerable;
}

export const newTaintToleration: PluginFactory = ({ features }): PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin => {
  // Lt/Gt tolerations compare integers only with the gate on; off, they tolerate nothing.
  const comparison = featureEnabled(features, 'TaintTolerationComparisonOperators');
  return {
    name: TAINT_TOLERATION,
    // Upstream's PreFilter only skips pods with a deferred resize (an alpha gate); it is kept so configs may list it.
    preFilter: () => ({ status: Status.SUCCESS }),
    filter: (_state, pod, nodeInfo) =>
      findUntoleratedTaint(nodeInfo.node.taints, pod.tolerations, doNotScheduleTaints, comparison) === undefined ? Status.SUCCESS : UNTOLERATED,
    preScore: (state, pod) => {
      state.write(PRE_SCORE_KEY, new PreScoreState(pod.tolerations.filter((t) => t.effect === '' || t.effect === 'PreferNoSchedule')));
      return Status.SUCCESS;
    },
    score: (state, pod, nodeInfo) => intolerablePreferNoSchedule(preferNoScheduleTolerations(state, pod.tolerations), nodeInfo, comparison),
    scoreAll: (state, pod, nodes, out, offset) => {
      const tolerations = preferNoScheduleTolerations(state, pod.tolerations);
      for (let j = 0; j < nodes.length; j++) out[offset + j] = intolerablePreferNoSchedule(tolerations, nodes[j]!, comparison);
    },
    normalizeScore: normalizeToMax(true),
  };
};
