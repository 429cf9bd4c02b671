// berth's side of a conformance case: load the case's objects through berth's
// own loader (as `berth schedule -f` would), run one scheduling cycle for the
// pending pod on a fresh Scheduler, and report it in the oracle's result shape.

import type { Diagnostic } from '../src/io/diagnostics.js';
import { buildClusterState, loadSources } from '../src/io/load.js';
import { loadSchedulerConfig } from '../src/io/scheduler-config.js';
import { Rand } from '../src/model/rand.js';
import { explainAttempt } from '../src/scheduler/explain.js';
import { CycleState, type Framework, type Handle, type NodePluginScores } from '../src/scheduler/framework.js';
import { parseFeatureGates } from '../src/scheduler/feature-gates.js';
import { buildFramework, type SchedulerConfig } from '../src/scheduler/profile.js';
import { profileFor } from '../src/scheduler/run.js';
import { Scheduler } from '../src/scheduler/scheduler.js';
import type { ClusterState } from '../src/cluster/state.js';
import { CODE_NAMES, SchedulerError } from '../src/scheduler/status.js';
import type { ConformanceCase } from './generators.js';
import type { AttemptResult, NodeOut, PreFilterOut, ScoreOut } from './result.js';

/**
 * A Rand whose every intn(n) is `offset mod n`. Only DefaultPreemption draws from
 * the scheduler's Rand (its start offset into the potential nodes); the oracle
 * takes the same number as `preemptionOffset` and reduces it the same way, so
 * both sides start the dry run at the same node.
 */
export class FixedOffsetRand extends Rand {
  constructor(private readonly offset: number) {
    super(0);
  }

  override intn(n: number): number {
    if (!(n > 0)) throw new Error(`intn: n must be positive, got ${n}`);
    return ((this.offset % n) + n) % n;
  }
}

/** A Scheduler whose Rand is fixed: plugins read `handle.rand` when they draw, after construction. */
class FixedOffsetScheduler extends Scheduler {
  override readonly rand: Rand;

  constructor(cluster: ClusterState, build: (h: Handle) => Framework, offset: number) {
    super(cluster, build);
    this.rand = new FixedOffsetRand(offset);
  }
}

const DEFAULT_CONFIG: SchedulerConfig = {};

/** Every object of the case as one `kind: List` document. */
export function caseAsList(c: ConformanceCase): string {
  const storage = [...(c.storageClasses ?? []), ...(c.pvs ?? []), ...(c.pvcs ?? []), ...(c.csiNodes ?? []), ...(c.csiDrivers ?? []), ...(c.csiStorageCapacities ?? []), ...(c.volumeAttachments ?? [])];
  const items = [...c.priorityClasses, ...c.namespaces, ...c.nodes, ...c.pods, c.pod, ...c.pdbs, ...(c.services ?? []), ...(c.replicaSets ?? []), ...(c.statefulSets ?? []), ...storage];
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

/** Diagnostics with their messages uncut: upstream's wording is compared whole, which the CLI's display bound would cut. */
const inFull = (ds: readonly Diagnostic[]) => ds.map((d) => `${d.file}:${d.line}:${d.column}: ${[d.object, d.field, d.message].filter(Boolean).join(': ')}`).join('; ');

const errorResult = (error: string): AttemptResult => ({ error, nodes: null, preFilter: null, feasible: null, topScore: null, selected: null, message: '', postFilter: '', preemption: null });

function topScore(scores: readonly NodePluginScores[], order: ReadonlyMap<string, number>): string[] {
  const best = Math.max(...scores.map((s) => s.totalScore));
  return scores.filter((s) => s.totalScore === best).map((s) => s.name).sort((a, b) => order.get(a)! - order.get(b)!);
}

/** Runs one case on berth. Never throws: failures come back as `error`. */
export function runBerth(c: ConformanceCase): AttemptResult {
  try {
    return runBerthUnsafe(c);
  } catch (e) {
    return errorResult(`berth threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}

function runBerthUnsafe(c: ConformanceCase): AttemptResult {
  let config = DEFAULT_CONFIG;
  if (c.config) {
    const parsed = loadSchedulerConfig({ name: 'config.json', text: JSON.stringify(c.config) });
    if (!parsed.ok) return errorResult(`berth rejected the configuration: ${inFull(parsed.errors)}`);
    config = parsed.config;
  }
  if (c.featureGates) config = { ...config, featureGates: parseFeatureGates(Object.entries(c.featureGates).map(([k, v]) => `${k}=${v}`).join(',')) };
  const loaded = loadSources([{ name: 'case.json', text: caseAsList(c) }], {
    tolerationComparisonOperators: c.featureGates?.['TaintTolerationComparisonOperators'] === true,
    podLevelResources: c.featureGates?.['PodLevelResources'] !== false,
  });
  if (!loaded.ok) return errorResult(`berth rejected the input: ${inFull(loaded.errors)}`);
  const cluster = buildClusterState(loaded.input);
  const meta = c.pod['metadata'] as { name: string; namespace?: string };
  const key = `${meta.namespace || 'default'}/${meta.name}`;
  const pod = cluster.getPod(key);
  if (!pod) return errorResult(`berth lost the pending pod ${key}`);
  const profile = profileFor(config, pod.schedulerName);
  if (!profile) return errorResult(`no profile for scheduler ${pod.schedulerName}`);
  const sched = new FixedOffsetScheduler(cluster, (h) => buildFramework(config, profile, h), c.preemptionOffset);
  const fw = sched.framework;
  const infos = cluster.nodeInfos();
  const order = new Map(infos.map((n, i) => [n.node.name, i]));

  // The aggregated PreFilter verdict, as the scheduler computes it.
  const preState = new CycleState();
  let pre: ReturnType<Framework['runPreFilterPlugins']>;
  try {
    pre = fw.runPreFilterPlugins(preState, pod, infos);
  } catch (e) {
    // A plugin's Error (e.g. a spread selector upstream cannot parse): the oracle reports it as the case's error.
    if (e instanceof SchedulerError) return errorResult(`berth scheduling error: ${e.message}`);
    throw e;
  }
  const preFilter: PreFilterOut = {
    status: CODE_NAMES[pre.status.code],
    plugin: pre.status.plugin,
    reasons: [...pre.status.reasons],
    nodeNames: pre.nodeNames === null ? null : [...pre.nodeNames].sort(),
    skippedFilterPlugins: [...preState.skipFilterPlugins].sort(),
  };

  const outcome = sched.schedulePod(pod);
  if (outcome.kind === 'unschedulable' && outcome.error) return errorResult(`berth scheduling error: ${outcome.message}`);
  const explanation = explainAttempt(sched, key, outcome);
  const scores = outcome.kind === 'scheduled' ? outcome.scores : undefined;
  const weights = new Map(fw.plugins.score.map((s) => [s.plugin.name, s.weight]));
  const scoreRows = new Map<string, { scores: ScoreOut[]; total: number }>();
  for (const ns of scores ?? []) {
    const rows = ns.scores.map((w, i) => {
      const weight = weights.get(w.name) ?? 0;
      return { plugin: w.name, raw: ns.rawScores[i]?.score ?? 0, normalized: weight === 0 ? 0 : Math.trunc(w.score / weight), weight, weighted: w.score };
    });
    scoreRows.set(ns.name, { scores: rows, total: ns.totalScore });
  }
  const preRejected = !pre.status.isSuccess();
  const nodes: NodeOut[] = explanation.nodes.map((n) => ({
    name: n.node,
    filters: preRejected ? null : n.filters.map((f) => ({ plugin: f.plugin, code: f.code, reasons: [...f.reasons] })),
    firstFailure: preRejected ? '' : n.rejectedBy,
    scores: scoreRows.get(n.node)?.scores ?? null,
    total: scoreRows.get(n.node)?.total ?? null,
  }));

  let feasible: string[];
  if (outcome.kind === 'unschedulable') feasible = [];
  else if (scores) feasible = scores.map((s) => s.name);
  else feasible = [outcome.node];

  const preemption = outcome.kind === 'unschedulable' && outcome.preemption && outcome.preemption.nominatedNodeName !== ''
    ? { node: outcome.preemption.nominatedNodeName, victims: outcome.preemption.victims.map((v) => v.key) }
    : null;
  return {
    nodes,
    preFilter,
    feasible,
    topScore: outcome.kind === 'unschedulable' ? [] : scores ? topScore(scores, order) : [outcome.node],
    selected: outcome.kind === 'scheduled' ? outcome.node : null,
    message: outcome.kind === 'unschedulable' ? outcome.message : '',
    postFilter: outcome.kind === 'unschedulable' ? (outcome.diagnosis?.postFilterMsg ?? '') : '',
    preemption,
    unschedulablePlugins: outcome.kind === 'unschedulable' ? [...(outcome.diagnosis?.unschedulablePlugins ?? [])].sort() : [],
  };
}
