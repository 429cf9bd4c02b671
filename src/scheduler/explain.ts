// `berth explain`: every node × every plugin for one pending pod, at the moment
// the scheduler would try it (pods ahead of it in the queue already placed).

import type { NodeInfo } from '../cluster/node-info.js';
import type { ClusterState } from '../cluster/state.js';
import type { Pod } from '../model/pod.js';
import { CycleState, type Framework } from './framework.js';
import type { SchedulerConfig } from './profile.js';
import { scheduleAll } from './run.js';
import type { Scheduler, ScheduleOutcome } from './scheduler.js';
import { CODE_NAMES, SchedulerError, type Status } from './status.js';

export interface PluginVerdict {
  readonly plugin: string;
  readonly code: string;
  readonly reasons: readonly string[];
}

export interface PluginScoreRow {
  readonly plugin: string;
  readonly raw: number;
  readonly normalized: number;
  readonly weight: number;
  readonly weighted: number;
}

export interface NodeExplanation {
  readonly node: string;
  readonly filters: readonly PluginVerdict[];
  /** The plugin whose rejection the scheduler records (the first failing one), '' if none. */
  readonly rejectedBy: string;
  readonly feasible: boolean;
  readonly scores: readonly PluginScoreRow[];
  readonly total: number | null;
}

export interface Explanation {
  readonly pod: string;
  readonly preFilter: readonly (PluginVerdict & { readonly nodeNames: readonly string[] | null })[];
  readonly nodes: readonly NodeExplanation[];
  readonly selected: string | null;
  readonly message: string;
}

const verdict = (plugin: string, s: Status): PluginVerdict => ({ plugin, code: CODE_NAMES[s.code], reasons: [...s.reasons] });

/**
 * PreScore for the explanation's score table (run even for one feasible node, where
 * upstream skips scoring); false when a plugin fails, which then shows no scores.
 */
function preScores(fw: Framework, state: CycleState, pod: Pod, feasible: readonly NodeInfo[]): boolean {
  try {
    fw.runPreScorePlugins(state, pod, feasible);
    return true;
  } catch (e) {
    if (e instanceof SchedulerError) return false;
    throw e;
  }
}

export function explainAttempt(sched: Scheduler, podKey: string, outcome: ScheduleOutcome): Explanation {
  const pod = sched.cluster.getPod(podKey)!;
  const fw = sched.framework;
  const state = new CycleState();
  const nodes = sched.cluster.nodeInfos();
  const preFilter: Explanation['preFilter'][number][] = [];
  state.skipFilterPlugins = new Set();
  for (const pl of fw.plugins.preFilter) {
    const { result, status } = pl.preFilter(state, pod, nodes);
    if (status.isSkip()) state.skipFilterPlugins.add(pl.name);
    preFilter.push({ ...verdict(pl.name, status), nodeNames: result?.nodeNames ? [...result.nodeNames].sort() : null });
  }
  const rows = nodes.map((info) => {
    const filters = fw.runAllFilterPlugins(state, pod, info).map(({ plugin, status }) => verdict(plugin, status));
    const first = filters.find((f) => f.code !== 'Success' && f.code !== 'Skip');
    return { info, filters, rejectedBy: first?.plugin ?? '' };
  });
  const feasible = rows.filter((r) => r.rejectedBy === '').map((r) => r.info);
  const scoreByNode = new Map<string, { scores: PluginScoreRow[]; total: number }>();
  if (feasible.length > 0 && preScores(fw, state, pod, feasible)) {
    const weights = new Map(fw.plugins.score.map((s) => [s.plugin.name, s.weight]));
    for (const ns of fw.runScorePlugins(state, pod, feasible).records()) {
      const scores = ns.rawScores.map((raw, i) => {
        const weight = weights.get(raw.name) ?? 1;
        const weighted = ns.scores[i]?.score ?? 0;
        return { plugin: raw.name, raw: raw.score, normalized: weighted / weight, weight, weighted };
      });
      scoreByNode.set(ns.name, { scores, total: ns.totalScore });
    }
  }
  return {
    pod: pod.key,
    preFilter,
    nodes: rows.map((r) => {
      const s = scoreByNode.get(r.info.node.name);
      return { node: r.info.node.name, filters: r.filters, rejectedBy: r.rejectedBy, feasible: r.rejectedBy === '', scores: s?.scores ?? [], total: s?.total ?? null };
    }),
    selected: outcome.kind === 'scheduled' ? outcome.node : null,
    message: outcome.kind === 'unschedulable' ? outcome.message : '',
  };
}

/** Explains `podKey`, scheduling the pods ahead of it first; undefined when it is not a pending pod. */
export function explainPod(cluster: ClusterState, config: SchedulerConfig, podKey: string, seed?: number): Explanation | undefined {
  let explanation: Explanation | undefined;
  scheduleAll(cluster, config, {
    ...(seed === undefined ? {} : { seed }),
    stopAt: podKey,
    onAttempt: (pod, outcome, sched) => {
      if (pod.key === podKey && !explanation) explanation = explainAttempt(sched, podKey, outcome);
    },
  });
  return explanation;
}
