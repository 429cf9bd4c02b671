// PreScore, Score and NormalizeScore of PodTopologySpread (scoring.go): nodes in
// domains with fewer matching pods score higher; each ScheduleAnyway constraint
// weighs its counts by log(number of domains + 2) so small topologies are not
// drowned out by large ones.

import type { NodeInfo } from '../../../cluster/node-info.js';
import { LABEL_HOSTNAME } from '../../../model/node.js';
import type { Pod } from '../../../model/pod.js';
import { MAX_NODE_SCORE, type CycleState, type NodeScore, type StateData } from '../../framework.js';
import { SchedulerError } from '../../status.js';
import type { ClusterState } from '../../../cluster/state.js';
import { hasAllTopologyKeys, includesEveryNode, nodeIncluded, type SpreadConstraint } from './constraints.js';
import { domainCounts } from './domain-counts.js';
import { goLog, goRound } from './go-math.js';
import { matchQuery, nodeMatchCount, type MatchQuery } from './match-counts.js';
import { keepQuestion } from './match-index.js';

export const PRE_SCORE_STATE_KEY = 'PreScorePodTopologySpread';

export class PreScoreState implements StateData {
  constructor(
    readonly constraints: readonly SpreadConstraint[],
    /** Filtered nodes lacking some topology key: they score 0. */
    readonly ignoredNodes: ReadonlySet<string>,
    /** Per constraint: topology value → matching pods; empty for the hostname key (counted per node in Score). */
    readonly topologyValueToPodCounts: readonly ReadonlyMap<string, number>[],
    readonly topologyNormalizingWeight: readonly number[],
    /** Per constraint: its selector's question for nodeMatchCount in the pod's namespace. */
    readonly matchQueries: readonly MatchQuery[],
  ) {
    this.domainScores = constraints.map((c, i) => {
      const m = new Map<string, number>();
      if (c.topologyKey !== LABEL_HOSTNAME) for (const [value, count] of topologyValueToPodCounts[i]!) m.set(value, scoreForCount(count, c.maxSkew, topologyNormalizingWeight[i]!));
      return m;
    });
  }

  /** Per constraint but the hostname one: topology value → what a node there adds to its score (worked out once per cycle, not per node). */
  readonly domainScores: readonly ReadonlyMap<string, number>[];

  /** Read-only after PreScore, so copies can share it. */
  clone(): PreScoreState {
    return this;
  }
}

/** log(size + 2), computed as Go does (see go-math.ts). */
export function topologyNormalizingWeight(size: number): number {
  return goLog(size + 2);
}

/** maxSkew - 1 is added so that small differences between domains are tolerated. */
export function scoreForCount(count: number, maxSkew: number, weight: number): number {
  return count * weight + (maxSkew - 1);
}

/**
 * Builds the scoring state. `requireAllTopologies` is false only for
 * system-defaulted constraints, so nodes without a zone label still get hostname spreading.
 */
export function computePreScoreState(
  pod: Pod,
  constraints: readonly SpreadConstraint[],
  filteredNodes: readonly NodeInfo[],
  allNodes: readonly NodeInfo[],
  requireAllTopologies: boolean,
  cluster?: ClusterState,
): PreScoreState {
  const ignored = new Set<string>();
  const counts = constraints.map(() => new Map<string, number>());
  // Domains are the values seen on candidate nodes; a missing label reads as ''.
  for (const info of filteredNodes) {
    const labels = info.node.labels;
    if (requireAllTopologies && !hasAllTopologyKeys(labels, constraints)) {
      ignored.add(info.node.name);
      continue;
    }
    for (let i = 0; i < constraints.length; i++) {
      const key = constraints[i]!.topologyKey;
      if (key === LABEL_HOSTNAME) continue;
      const value = labels[key] ?? '';
      if (!counts[i]!.has(value)) counts[i]!.set(value, 0);
    }
  }
  const weights = constraints.map((c, i) =>
    topologyNormalizingWeight(c.topologyKey === LABEL_HOSTNAME ? filteredNodes.length - ignored.size : counts[i]!.size),
  );

  // Matching pods are counted over every node of the cluster, in the candidate domains only:
  // from the cluster's kept tallies where every node counts (hostname domains are counted in Score).
  const tallied = constraints.map((c) => cluster !== undefined && allNodes === cluster.nodeInfos() && includesEveryNode(c, pod));
  constraints.forEach((c, i) => {
    if (!tallied[i] || c.topologyKey === LABEL_HOSTNAME) return;
    const all = domainCounts(cluster!, constraints, c, pod.namespace, requireAllTopologies);
    for (const value of counts[i]!.keys()) counts[i]!.set(value, all.get(value) ?? 0);
  });
  const queries = constraints.map((c) => matchQuery(c.selector, pod.namespace));
  // Score reads hostname counts node by node: kept by the cluster's index where every node counts.
  constraints.forEach((c, i) => {
    if (tallied[i] && c.topologyKey === LABEL_HOSTNAME) keepQuestion(cluster!, queries[i]!);
  });
  if (tallied.every(Boolean)) return new PreScoreState(constraints, ignored, counts, weights, queries);
  for (const info of allNodes) {
    const node = info.node;
    if (requireAllTopologies && !hasAllTopologyKeys(node.labels, constraints)) continue;
    constraints.forEach((c, i) => {
      if (tallied[i] || !nodeIncluded(c, pod, node)) return;
      const m = counts[i]!;
      const value = node.labels[c.topologyKey] ?? '';
      const current = m.get(value);
      if (current === undefined) return;
      m.set(value, current + nodeMatchCount(info, queries[i]!));
    });
  }
  return new PreScoreState(constraints, ignored, counts, weights, queries);
}

export function readPreScoreState(state: CycleState): PreScoreState {
  const s = state.tryRead<PreScoreState>(PRE_SCORE_STATE_KEY);
  if (s === undefined) throw new SchedulerError(`error reading ${JSON.stringify(PRE_SCORE_STATE_KEY)} from cycleState: not found`);
  return s;
}

/** The raw score: the weighted matching-pod counts of the node's domains (lower is better). */
export function scoreNode(s: PreScoreState, pod: Pod, info: NodeInfo): number {
  const node = info.node;
  if (s.ignoredNodes.size > 0 && s.ignoredNodes.has(node.name)) return 0;
  let score = 0;
  // A plain loop: this runs for every scored node.
  for (let i = 0; i < s.constraints.length; i++) {
    const c = s.constraints[i]!;
    if (!Object.hasOwn(node.labels, c.topologyKey)) continue;
    score +=
      c.topologyKey === LABEL_HOSTNAME
        ? scoreForCount(nodeMatchCount(info, s.matchQueries[i]!), c.maxSkew, s.topologyNormalizingWeight[i]!)
        : s.domainScores[i]!.get(node.labels[c.topologyKey]!)!;
  }
  // Score returns int64(math.Round(score)).
  return goRound(score);
}

const INVALID_SCORE = -1;

/** Inverts raw scores into [0, 100]: the least-loaded node gets 100; ignored nodes get 0. */
export function normalizeScores(s: PreScoreState, scores: NodeScore[]): void {
  let minScore = Number.MAX_SAFE_INTEGER;
  let maxScore = 0;
  for (const ns of scores) {
    if (s.ignoredNodes.size > 0 && s.ignoredNodes.has(ns.name)) {
      ns.score = INVALID_SCORE;
      continue;
    }
    if (ns.score < minScore) minScore = ns.score;
    if (ns.score > maxScore) maxScore = ns.score;
  }
  for (const ns of scores) {
    if (ns.score === INVALID_SCORE) ns.score = 0;
    else if (maxScore === 0) ns.score = MAX_NODE_SCORE;
    // int64 arithmetic: the division truncates.
    else ns.score = Math.trunc((MAX_NODE_SCORE * (maxScore + minScore - ns.score)) / maxScore);
  }
}
