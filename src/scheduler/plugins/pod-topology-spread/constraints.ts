// The constraints PodTopologySpread works with (common.go): the pod's own
// constraints of one whenUnsatisfiable kind, or the configured defaults with a
// selector deduced from the pod's Services and controller, plus the node and pod
// predicates shared by filtering and scoring.

import type { ClusterState } from '../../../cluster/state.js';
import type { Node } from '../../../model/node.js';
import { matchesRequiredNodeAffinity, type Pod } from '../../../model/pod.js';
import type { Labels, Selector } from '../../../model/selector.js';
import { doNotScheduleTaints, findUntoleratedTaint } from '../../../model/taints.js';
import type { DefaultConstraint, WhenUnsatisfiable } from './args.js';
import { defaultSelector } from './default-selector.js';

export interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: Selector;
  readonly minDomains: number;
  /** nodeAffinityPolicy Honor: only nodes matching the pod's nodeSelector and required node affinity count. */
  readonly honorNodeAffinity: boolean;
  /** nodeTaintsPolicy Honor: nodes with NoSchedule/NoExecute taints the pod does not tolerate do not count. */
  readonly honorNodeTaints: boolean;
  /** TaintTolerationComparisonOperators, for honorNodeTaints: whether Lt/Gt tolerations compare (off: they tolerate nothing). */
  readonly tolerationComparison?: boolean;
}

/** The feature gates PodTopologySpread reads. */
export interface SpreadGates {
  /** MatchLabelKeysInPodTopologySpread: matchLabelKeys narrow the selector (off: labelSelector alone). */
  readonly matchLabelKeys: boolean;
  readonly tolerationComparison: boolean;
}

export const DEFAULT_SPREAD_GATES: SpreadGates = { matchLabelKeys: true, tolerationComparison: false };

/** The parse error of the first of the pod's own constraints of kind `action` whose selector upstream cannot parse. */
export function selectorError(pod: Pod, action: WhenUnsatisfiable): string | undefined {
  return pod.topologySpreadConstraints.find((c) => c.whenUnsatisfiable === action && c.selectorError !== undefined)?.selectorError;
}

/** The pod's constraints of kind `action`, or the defaults when the pod declares none of any kind. */
export function constraintsFor(pod: Pod, action: WhenUnsatisfiable, defaults: readonly DefaultConstraint[], cluster: ClusterState, gates: SpreadGates = DEFAULT_SPREAD_GATES): SpreadConstraint[] {
  const tolerationComparison = gates.tolerationComparison;
  if (pod.topologySpreadConstraints.length > 0) {
    // matchLabelKeys were merged into the selector when the pod was compiled (as the API server
    // merges them at creation); with the gate off neither the API server nor the scheduler does.
    return pod.topologySpreadConstraints
      .filter((c) => c.whenUnsatisfiable === action)
      .map((c) => ({
        maxSkew: c.maxSkew,
        topologyKey: c.topologyKey,
        selector: gates.matchLabelKeys ? c.selector : c.labelSelectorOnly,
        minDomains: c.minDomains,
        honorNodeAffinity: c.nodeAffinityPolicy === 'Honor',
        honorNodeTaints: c.nodeTaintsPolicy === 'Honor',
        tolerationComparison,
      }));
  }
  const wanted = defaults.filter((c) => c.whenUnsatisfiable === action);
  if (wanted.length === 0) return [];
  const selector = defaultSelector(pod, cluster);
  if (selector.everything) return [];
  return wanted.map((c) => ({
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    selector,
    minDomains: c.minDomains ?? 1,
    // Unset policies mean Honor for node affinity and Ignore for taints.
    honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
    honorNodeTaints: c.nodeTaintsPolicy === 'Honor',
    tolerationComparison,
  }));
}

/** Whether `node` counts for constraint `c` under its node inclusion policies. */
export function nodeIncluded(c: SpreadConstraint, pod: Pod, node: Node): boolean {
  if (c.honorNodeAffinity && !matchesRequiredNodeAffinity(pod, node)) return false;
  if (c.honorNodeTaints && findUntoleratedTaint(node.taints, pod.tolerations, doNotScheduleTaints, c.tolerationComparison) !== undefined) return false;
  return true;
}

/** Whether every node counts for `c` whatever it is (so per-cluster domain tallies apply). */
export function includesEveryNode(c: SpreadConstraint, pod: Pod): boolean {
  if (c.honorNodeTaints) return false;
  return !c.honorNodeAffinity || (pod.requiredNodeAffinity === null && Object.keys(pod.nodeSelector).length === 0);
}

/** Whether the node carries every constraint's topology key. */
export function hasAllTopologyKeys(labels: Labels, constraints: readonly SpreadConstraint[]): boolean {
  for (const c of constraints) if (!Object.hasOwn(labels, c.topologyKey)) return false;
  return true;
}

/** Pods in `namespace` matching `selector`, leaving out terminating pods. */
export function countMatchingPods(pods: readonly Pod[], selector: Selector, namespace: string): number {
  let n = 0;
  for (const p of pods) if (countsAsMatching(p, selector, namespace)) n++;
  return n;
}

/** Whether countMatchingPods counts `pod`. An empty selector counts nothing here, unlike its usual meaning. */
export function countsAsMatching(pod: Pod, selector: Selector, namespace: string): boolean {
  return !selector.everything && !pod.terminating && pod.namespace === namespace && selector.matches(pod.labels);
}
