// InterPodAffinity scoring (scoring.go). PreScore sums term weights per
// topology pair (key → value → score) from every existing pod: the incoming
// pod's preferred terms matched against it (+weight / -weight for anti), its
// required affinity terms matched against the incoming pod (+hardPodAffinityWeight)
// and its preferred terms matched against the incoming pod. A node scores the
// sum over the pairs its labels form; scores are then min-max scaled.

import type { NodeInfo } from '../../../cluster/node-info.js';
import type { ClusterState } from '../../../cluster/state.js';
import type { Pod, WeightedPodAffinityTerm } from '../../../model/pod.js';
import type { Labels } from '../../../model/selector.js';
import { MAX_NODE_SCORE, type NodeScore, type StateData } from '../../framework.js';
import type { InterPodAffinityArgs } from './args.js';
import { clusterTally } from '../../../cluster/node-tally.js';
import { fixedNamespaces, labelsKey, mergeTermNamespaces, termKey, termMatches, type MergedTerm } from './terms.js';
import { labelValue } from './topology-counts.js';

export const PRE_SCORE_STATE_KEY = 'PreScoreInterPodAffinity';

/** topology key → node label value → summed weight. */
export type TopologyScore = Map<string, Map<string, number>>;

export class PreScoreState implements StateData {
  constructor(readonly topologyScore: TopologyScore) {}

  /** Read-only after PreScore, so shared like upstream. */
  clone(): PreScoreState {
    return this;
  }
}

interface WeightedMergedTerm {
  readonly weight: number;
  readonly term: MergedTerm;
}

/** One recorded contribution: `amount` for the pair (key, the node's value of key). */
type PairRecord = readonly [key: string, value: string, amount: number];

/** Everything one node contributes to the PreScore pairs of `incoming` (termsOf lists the pods to look at). */
interface PreScoreQuery {
  readonly incoming: Pod;
  readonly nsLabels: Labels;
  readonly preferredAffinity: readonly WeightedMergedTerm[];
  readonly preferredAntiAffinity: readonly WeightedMergedTerm[];
  readonly hasConstraints: boolean;
  readonly args: InterPodAffinityArgs;
}

/** What a node contributes when no term matched there (most nodes): one shared list, never changed. */
const NO_RECORDS: readonly PairRecord[] = [];

/** `out` with the pair (key, the node's value of key) recorded, created on the first record; unchanged when the node lacks key. */
function withRecord(out: PairRecord[] | undefined, nodeLabels: Labels, key: string, amount: number): PairRecord[] | undefined {
  const value = labelValue(nodeLabels, key);
  if (value === undefined) return out;
  if (out === undefined) return [[key, value, amount]];
  out.push([key, value, amount]);
  return out;
}

// Runs for every node of every tally built (each simulation's cluster builds its own): no closures, and no list for a node without records.
function nodeRecords(q: PreScoreQuery, info: NodeInfo): readonly PairRecord[] {
  const nodeLabels = info.node.labels;
  let out: PairRecord[] | undefined;
  for (const existing of q.hasConstraints ? info.pods : info.podsWithAffinity) {
    for (const { weight, term } of q.preferredAffinity) if (term.matches(existing)) out = withRecord(out, nodeLabels, term.topologyKey, weight);
    for (const { weight, term } of q.preferredAntiAffinity) if (term.matches(existing)) out = withRecord(out, nodeLabels, term.topologyKey, -weight);
    if (q.args.hardPodAffinityWeight > 0) {
      for (const term of existing.requiredAffinity) if (termMatches(term, q.incoming, q.nsLabels)) out = withRecord(out, nodeLabels, term.topologyKey, q.args.hardPodAffinityWeight);
    }
    for (const { weight, term } of existing.preferredAffinity) if (termMatches(term, q.incoming, q.nsLabels)) out = withRecord(out, nodeLabels, term.topologyKey, weight);
    for (const { weight, term } of existing.preferredAntiAffinity) if (termMatches(term, q.incoming, q.nsLabels)) out = withRecord(out, nodeLabels, term.topologyKey, -weight);
  }
  return out ?? NO_RECORDS;
}

/** Pair scores with, per pair, how many contributions were recorded (a pair exists once recorded, even if its sum is 0). */
interface PairTotals {
  readonly score: TopologyScore;
  readonly recorded: Map<string, Map<string, number>>;
}

function applyRecords(t: PairTotals, records: readonly PairRecord[], sign: 1 | -1): void {
  for (const [key, value, amount] of records) {
    let values = t.score.get(key);
    let counts = t.recorded.get(key);
    if (!values || !counts) {
      t.score.set(key, (values = new Map()));
      t.recorded.set(key, (counts = new Map()));
    }
    const n = (counts.get(value) ?? 0) + sign;
    if (n === 0) {
      values.delete(value);
      counts.delete(value);
      if (values.size === 0) {
        t.score.delete(key);
        t.recorded.delete(key);
      }
    } else {
      counts.set(value, n);
      values.set(value, (values.get(value) ?? 0) + sign * amount);
    }
  }
}

const copyPairMaps = (m: ReadonlyMap<string, ReadonlyMap<string, number>>) => new Map([...m].map(([key, values]) => [key, new Map(values)]));
const copyPairTotals = (t: PairTotals): PairTotals => ({ score: copyPairMaps(t.score), recorded: copyPairMaps(t.recorded) });

const weightedKey = (terms: readonly WeightedPodAffinityTerm[]) => terms.map((t) => `${t.weight}:${termKey(t.term)}`).join(';');

/**
 * Builds the PreScore state, or returns null for upstream's Skip: when existing
 * pods' preferences are ignored and the pod has no preferred terms, or when no
 * term matched on a node carrying its topology key. Over the whole cluster the
 * pairs come from a tally kept across cycles for pods alike in everything the
 * pairs depend on (labels, namespace and its labels, preferred terms).
 */
export function computePreScoreState(pod: Pod, cluster: ClusterState, args: InterPodAffinityArgs): PreScoreState | null {
  const hasConstraints = pod.preferredAffinity.length > 0 || pod.preferredAntiAffinity.length > 0;
  if (args.ignorePreferredTermsOfExistingPods && !hasConstraints) return null;

  const nsOf = (ns: string) => cluster.namespaceLabels(ns);
  const merge = (w: WeightedPodAffinityTerm): WeightedMergedTerm => ({ weight: w.weight, term: mergeTermNamespaces(w.term, nsOf) });
  const nsLabels = cluster.namespaceLabels(pod.namespace);
  const q: PreScoreQuery = {
    incoming: pod,
    nsLabels,
    preferredAffinity: pod.preferredAffinity.map(merge),
    preferredAntiAffinity: pod.preferredAntiAffinity.map(merge),
    hasConstraints,
    args,
  };
  const fresh = (): PairTotals => ({ score: new Map(), recorded: new Map() });
  let totals: PairTotals;
  // Without preferred terms of its own, only existing pods with terms can contribute: a few such nodes are cheaper to walk than the tally.
  const worthTally = hasConstraints || cluster.nodesWithAffinityPods().length * 8 > cluster.numNodes;
  if (worthTally && fixedNamespaces(pod.preferredAffinity.map((w) => w.term)) && fixedNamespaces(pod.preferredAntiAffinity.map((w) => w.term))) {
    const query = [
      'ipa-score',
      args.hardPodAffinityWeight,
      args.ignorePreferredTermsOfExistingPods,
      pod.namespace,
      labelsKey(pod.labels),
      labelsKey(nsLabels),
      weightedKey(pod.preferredAffinity),
      weightedKey(pod.preferredAntiAffinity),
    ].join('\x01');
    totals = clusterTally(cluster, query, () => ({ totals: fresh(), contribution: (info) => nodeRecords(q, info), apply: applyRecords, copy: copyPairTotals }));
  } else {
    totals = fresh();
    for (const info of hasConstraints ? cluster.nodeInfos() : cluster.nodesWithAffinityPods()) applyRecords(totals, nodeRecords(q, info), 1);
  }
  // The tally's map is shared: PreScoreState is read-only and lives for one cycle.
  return totals.score.size === 0 ? null : new PreScoreState(totals.score);
}

/** The sum of the pair scores the node's labels form. */
export function scoreNode(s: PreScoreState, info: NodeInfo): number {
  let total = 0;
  for (const [key, values] of s.topologyScore) {
    const value = labelValue(info.node.labels, key);
    if (value !== undefined) total += values.get(value) ?? 0;
  }
  return total;
}

/**
 * Min-max scaling to [0, 100] in float64, truncated: 100 * ((s - min) / (max - min)).
 * When every node scored the same, all get 0.
 */
export function normalizeTopologyScores(scores: NodeScore[]): void {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const s of scores) {
    if (s.score > max) max = s.score;
    if (s.score < min) min = s.score;
  }
  const diff = max - min;
  for (const s of scores) {
    const f = diff > 0 ? MAX_NODE_SCORE * ((s.score - min) / diff) : 0;
    s.score = Math.trunc(f);
  }
}
