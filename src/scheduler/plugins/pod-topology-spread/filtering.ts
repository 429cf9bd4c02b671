// PreFilter, PreFilterExtensions and Filter of PodTopologySpread (filtering.go):
// DoNotSchedule constraints, matching pods counted per topology domain once per
// cycle, then each node checked as matchNum + selfMatch - globalMin <= maxSkew.

import type { NodeInfo } from '../../../cluster/node-info.js';
import type { Node } from '../../../model/node.js';
import type { Pod } from '../../../model/pod.js';
import type { CycleState, StateData } from '../../framework.js';
import { Code, Status } from '../../status.js';
import type { ClusterState } from '../../../cluster/state.js';
import { hasAllTopologyKeys, includesEveryNode, nodeIncluded, type SpreadConstraint } from './constraints.js';
import { domainCounts } from './domain-counts.js';
import { CriticalPaths } from './critical-paths.js';
import { matchQuery, nodeMatchCount } from './match-counts.js';

export const PRE_FILTER_STATE_KEY = 'PreFilterPodTopologySpread';

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;
export const POD_TOPOLOGY_SPREAD = 'PodTopologySpread';

/** Filter's rejections, one constant each (a failed cycle rejects every node of a large cluster). */
const rejection = (code: Code, reason: string) => Object.freeze(new Status(code, Object.freeze([reason]), POD_TOPOLOGY_SPREAD));
const NODE_LABEL_NOT_MATCH = rejection(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH);
const CONSTRAINTS_NOT_MATCH = rejection(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH);

export class PreFilterState implements StateData {
  constructor(
    /** Shared between clones: constraints never change within a cycle. */
    readonly constraints: readonly SpreadConstraint[],
    /** Per constraint: the two least-loaded domains. */
    readonly criticalPaths: CriticalPaths[],
    /** Per constraint: topology value → matching pods, over the eligible domains only. */
    readonly tpValueToMatchNum: Map<string, number>[],
  ) {}

  /** The global minimum for constraint i: 0 while fewer domains than minDomains exist. */
  minMatchNum(i: number, minDomains: number): number {
    if (this.tpValueToMatchNum[i]!.size < minDomains) return 0;
    return this.criticalPaths[i]!.minMatchNum;
  }

  clone(): PreFilterState {
    return new PreFilterState(
      this.constraints,
      this.criticalPaths.map((p) => p.clone()),
      this.tpValueToMatchNum.map((m) => new Map(m)),
    );
  }
}

/**
 * Counts matching pods per domain over the nodes that are eligible for each
 * constraint. Over the cluster's own node list, constraints every node counts for
 * take their counts from the cluster's kept tallies (domain-counts.ts).
 */
export function computePreFilterState(pod: Pod, constraints: readonly SpreadConstraint[], nodes: readonly NodeInfo[], cluster?: ClusterState): PreFilterState {
  const tallied = cluster !== undefined && nodes === cluster.nodeInfos() ? constraints.map((c) => includesEveryNode(c, pod)) : constraints.map(() => false);
  const counts = constraints.map((c, i) => (tallied[i] ? new Map(domainCounts(cluster!, constraints, c, pod.namespace)) : new Map<string, number>()));
  if (!tallied.every(Boolean)) countOnNodes(pod, constraints, nodes, counts, tallied);
  // Upstream walks a Go map here (random order); the minimum does not depend on it.
  const paths = counts.map((m) => {
    const p = CriticalPaths.empty();
    for (const [value, num] of m) p.update(value, num);
    return p;
  });
  return new PreFilterState(constraints, paths, counts);
}

function countOnNodes(pod: Pod, constraints: readonly SpreadConstraint[], nodes: readonly NodeInfo[], counts: Map<string, number>[], skip: readonly boolean[]): void {
  const queries = constraints.map((c) => matchQuery(c.selector, pod.namespace));
  for (const info of nodes) {
    const node = info.node;
    // A node lacking any topology key takes part in no constraint.
    if (!hasAllTopologyKeys(node.labels, constraints)) continue;
    constraints.forEach((c, i) => {
      if (skip[i] || !nodeIncluded(c, pod, node)) return;
      const value = node.labels[c.topologyKey]!;
      const m = counts[i]!;
      m.set(value, (m.get(value) ?? 0) + nodeMatchCount(info, queries[i]!));
    });
  }
}

/**
 * AddPod/RemovePod: account `updated` (added with delta 1, removed with -1) on
 * `node` for the constraints it matches, when the node counts for them (only
 * constraint `only` when given).
 */
export function updateWithPod(s: PreFilterState, updated: Pod, preemptor: Pod, node: Node, delta: 1 | -1, only?: number): void {
  if (updated.namespace !== preemptor.namespace) return;
  if (!hasAllTopologyKeys(node.labels, s.constraints)) return;
  s.constraints.forEach((c, i) => {
    if (only !== undefined && i !== only) return;
    // Unlike the PreFilter count, terminating pods are not singled out here.
    if (!c.selector.matches(updated.labels)) return;
    if (!nodeIncluded(c, preemptor, node)) return;
    const value = node.labels[c.topologyKey]!;
    const m = s.tpValueToMatchNum[i]!;
    const num = (m.get(value) ?? 0) + delta;
    m.set(value, num);
    s.criticalPaths[i]!.update(value, num);
  });
}

export function readPreFilterState(state: CycleState): PreFilterState | Status {
  const s = state.tryRead<PreFilterState>(PRE_FILTER_STATE_KEY);
  if (s === undefined) return Status.error(`reading ${JSON.stringify(PRE_FILTER_STATE_KEY)} from cycleState: not found`);
  return s;
}

/** Filter: the first constraint the node breaks decides the status. */
export function filterNode(s: PreFilterState, pod: Pod, node: Node): Status {
  for (let i = 0; i < s.constraints.length; i++) {
    const c = s.constraints[i]!;
    if (!Object.hasOwn(node.labels, c.topologyKey)) return NODE_LABEL_NOT_MATCH;
    const minMatchNum = s.minMatchNum(i, c.minDomains);
    const selfMatchNum = c.selector.matches(pod.labels) ? 1 : 0;
    const matchNum = s.tpValueToMatchNum[i]!.get(node.labels[c.topologyKey]!) ?? 0;
    if (matchNum + selfMatchNum - minMatchNum > c.maxSkew) return CONSTRAINTS_NOT_MATCH;
  }
  return Status.SUCCESS;
}
