// The one module through which the playground calls berth's engine: the same
// functions the CLI uses, fed in-memory sources instead of files.

import { buildClusterState, loadSources, type Diagnostic, type LoadedInput, type SourceInput } from '../../src/io/load.js';
import type { ClusterState } from '../../src/cluster/state.js';
import { scheduleAll, type ScheduleReport } from '../../src/scheduler/run.js';
import { explainPod, type Explanation } from '../../src/scheduler/explain.js';
import { planProvisioning, type ProvisionPlan } from '../../src/provisioner/plan.js';
import { catalogOrBundled } from '../../src/provisioner/catalog/catalog.js';
import { loadScenario } from '../../src/io/scenario.js';
import { runScenario } from '../../src/sim/scenario.js';
import { eventLine, formatTime, timelineRecords } from '../../src/sim/timeline.js';
import { readySeries, recordHistory, type History } from '../../src/sim/history.js';
import { viewAt } from './sim-view.js';
import { analyze } from '../../src/analyze/analyze.js';
import { ALL_CHECKS } from '../../src/analyze/checks/index.js';
import { describeDiagnostic } from '../../src/io/diagnostics.js';
import type { Finding } from '../../src/analyze/finding.js';
import { loadSchedulerConfig } from '../../src/io/scheduler-config.js';
import type { SchedulerConfig } from '../../src/scheduler/profile.js';
import type { Pod } from '../../src/model/pod.js';
import { schedulerConfigDocuments } from './scheduler-config-doc.js';
import { spreadSkews, type SpreadSkew } from '../../src/scheduler/spread-skew.js';
import { TAB_FILE, TABS, type Tabs } from './input-tabs.js';

export type { Diagnostic, Explanation, Finding, ProvisionPlan, ScheduleReport, SchedulerConfig };
export { describeDiagnostic, formatTime };

/** The name the engine gives the Scenario pane's text in its diagnostics. */
const SCENARIO_FILE = TAB_FILE.scenario;

export interface NodeView {
  readonly name: string;
  readonly zone: string;
  /** karpenter.sh/nodepool, '' for a node no NodePool made. */
  readonly nodePool: string;
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly cpuRequested: number;
  readonly memoryRequested: number;
  readonly planned: boolean;
  readonly detail: string;
}

/** How a pod came to its node: bound in the input, placed by this run's scheduler, or on a NodeClaim the provisioner planned. */
export type Placement = 'bound' | 'scheduled' | 'provisioned';

export interface PodView {
  readonly key: string;
  readonly workload: string;
  readonly node: string;
  readonly placement: Placement;
}

/** One topology spread constraint as the run left the cluster, with the workloads that declare it. */
export interface SpreadView extends SpreadSkew {
  readonly namespace: string;
  readonly workloads: string[];
}

export interface RunView {
  readonly nodes: NodeView[];
  readonly pods: PodView[];
  readonly pending: { pod: string; message: string }[];
  /** Absent for a simulation's frames. */
  readonly spreads?: SpreadView[];
  readonly provision?: ProvisionPlan;
  readonly warnings: Diagnostic[];
}

export type Loaded = { ok: true; input: LoadedInput; warnings: Diagnostic[]; config: SchedulerConfig } | { ok: false; errors: Diagnostic[] };

/** The CLI's warning for a kind it skips; the playground uses this one as `--config`. */
const CONFIG_SKIPPED = /^skipping kind KubeSchedulerConfiguration \(apiVersion kubescheduler\.config\.k8s\.io\/v1\)/;

/** The panes berth loads as `-f` inputs (the Scenario pane is simulate's own). */
const MANIFEST_TABS = TABS.filter((t) => t !== 'scenario');

/**
 * The panes' manifests as `-f` loads them, each pane a file; a
 * KubeSchedulerConfiguration among them is loaded as `--config`, its errors at their
 * lines. `--config` is one file of one document: a second configuration (the
 * Scheduler pane's counts first) is an error at its line, not silently ignored.
 */
export function load(tabs: Tabs): Loaded {
  const sources = MANIFEST_TABS.filter((t) => tabs[t].trim() !== '').map((t) => ({ name: TAB_FILE[t], text: tabs[t] }));
  const r = loadSources(sources);
  const configs = [...sources]
    .sort((a, b) => (a.name === TAB_FILE.scheduler ? -1 : b.name === TAB_FILE.scheduler ? 1 : 0))
    .flatMap((s) => schedulerConfigDocuments(s.text).map((d) => ({ name: s.name, ...d })));
  const [first, ...others] = configs;
  const config = first === undefined ? { ok: true as const, config: {} } : loadSchedulerConfig({ name: first.name, text: first.text });
  const extra: Diagnostic[] = others.map((d) => ({
    severity: 'error',
    file: d.name,
    line: d.line,
    column: 1,
    object: 'KubeSchedulerConfiguration',
    message: `a second one: the scheduler takes one configuration (as --config does), and ${first!.name}:${first!.line} is already it; remove one, or merge their profiles`,
  }));
  if (!r.ok || !config.ok || extra.length > 0) return { ok: false, errors: [...(r.ok ? [] : r.errors), ...(config.ok ? [] : config.errors), ...extra] };
  const warnings = first === undefined ? r.warnings : r.warnings.filter((w) => !(w.file === first.name && CONFIG_SKIPPED.test(w.message)));
  return { ok: true, input: r.input, warnings, config: config.config };
}

const ZONE = 'topology.kubernetes.io/zone';
const NODEPOOL = 'karpenter.sh/nodepool';

function workloadOf(cluster: ClusterState, key: string): string {
  const pod = cluster.getPod(key);
  const owner = pod?.ownerReferences.find((o) => o.controller) ?? pod?.ownerReferences[0];
  if (!owner) return key;
  // ReplicaSet names carry a pod-template hash; the Deployment is what the user wrote.
  return owner.kind === 'ReplicaSet' ? owner.name.replace(/-[a-z0-9]{5,10}$/, '') : owner.name;
}

/** The nodes with what their pods request; call after the run placed its pods. */
function existingNodes(cluster: ClusterState): NodeView[] {
  return cluster.nodeInfos().map((ni) => ({
    name: ni.node.name,
    zone: ni.node.labels[ZONE] ?? '(no zone)',
    nodePool: ni.node.labels[NODEPOOL] ?? '',
    cpuMilli: ni.node.allocatable['cpu'] ?? 0,
    memoryBytes: ni.node.allocatable['memory'] ?? 0,
    cpuRequested: ni.requested['cpu'] ?? 0,
    memoryRequested: ni.requested['memory'] ?? 0,
    planned: false,
    detail: '',
  }));
}

function boundPods(cluster: ClusterState): PodView[] {
  return [...cluster.pods()].filter((p) => p.nodeName).map((p) => ({ key: p.key, workload: workloadOf(cluster, p.key), node: p.nodeName, placement: 'bound' }));
}

/** The skew of every constraint the input's pods declare, one entry per identical constraint and result (replicas share theirs). */
function spreadViews(cluster: ClusterState): SpreadView[] {
  const byKey = new Map<string, SpreadView>();
  const seen = new Set<string>();
  for (const pod of cluster.pods()) {
    if (pod.topologySpreadConstraints.length === 0) continue;
    // A bare pod's workload is its key already.
    const owner = workloadOf(cluster, pod.key);
    const workload = owner.includes('/') ? owner : `${pod.namespace}/${owner}`;
    if (seen.has(workload)) continue;
    seen.add(workload);
    for (const skew of spreadSkews(cluster, pod)) {
      const key = `${pod.namespace}\x00${JSON.stringify(skew)}`;
      const known = byKey.get(key);
      if (known) known.workloads.push(workload);
      else byKey.set(key, { ...skew, namespace: pod.namespace, workloads: [workload] });
    }
  }
  return [...byKey.values()];
}

/** Called every `every` pods the scheduler tries, with how many it tried of how many were pending. */
export type Progress = (done: number, total: number) => void;

export function schedule(loaded: Loaded & { ok: true }, seed = 0, progress?: Progress): RunView & { report: ScheduleReport } {
  const cluster = buildClusterState(loaded.input);
  const pods = boundPods(cluster);
  const total = [...cluster.pods()].filter((p) => !p.nodeName).length;
  let done = 0;
  const report = scheduleAll(cluster, loaded.config, { seed, ...(progress && { onAttempt: () => progress(++done, total) }) });
  for (const p of report.placements) pods.push({ key: p.pod, workload: workloadOf(cluster, p.pod), node: p.node, placement: 'scheduled' });
  return { nodes: existingNodes(cluster), pods, pending: report.unschedulable, spreads: spreadViews(cluster), warnings: loaded.warnings, report };
}

export function provision(loaded: Loaded & { ok: true }, seed = 0): RunView {
  const { input } = loaded;
  const cluster = buildClusterState(input);
  const pods = boundPods(cluster);
  const instanceTypes = catalogOrBundled(input.catalogs);
  const plan = planProvisioning({
    cluster,
    pools: input.nodePools.filter((np) => np.replicas === null),
    instanceTypes,
    daemonSetPods: input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod),
    config: loaded.config,
    seed,
  });
  // The planner added its claims to `cluster` as nodes; the input's own nodes are the rest.
  const claimNames = new Set(plan.nodeClaims.map((c) => c.name));
  const nodes = existingNodes(cluster).filter((n) => !claimNames.has(n.name));
  const types = new Map(instanceTypes.map((t) => [t.name, t]));
  const placedOnClaim = new Map<string, Pod[]>();
  for (const p of plan.placements) {
    const pod = cluster.getPod(p.pod);
    if (claimNames.has(p.node) && pod) placedOnClaim.set(p.node, [...(placedOnClaim.get(p.node) ?? []), pod]);
  }
  for (const c of plan.nodeClaims) {
    const t = types.get(c.instanceType);
    const requested = (r: string) => (placedOnClaim.get(c.name) ?? []).reduce((sum, p) => sum + (p.resources.requests[r] ?? 0), 0);
    nodes.push({
      name: c.name,
      zone: c.zone,
      nodePool: c.nodePool,
      cpuMilli: t?.allocatable['cpu'] ?? 0,
      memoryBytes: t?.allocatable['memory'] ?? 0,
      cpuRequested: requested('cpu'),
      memoryRequested: requested('memory'),
      planned: true,
      detail: `${c.instanceType} · ${c.capacityType} · $${c.pricePerHour.toFixed(4)}/h`,
    });
  }
  for (const p of plan.placements) pods.push({ key: p.pod, workload: workloadOf(cluster, p.pod), node: p.node, placement: claimNames.has(p.node) ? 'provisioned' : 'scheduled' });
  return { nodes, pods, pending: plan.unschedulable, spreads: spreadViews(cluster), provision: plan, warnings: loaded.warnings };
}

export interface PodExplanation {
  readonly explanation: Explanation;
  /** What the table is of, when it is not simply the pod's own scheduling attempt. */
  readonly note: string;
}

/**
 * `berth explain` for any pod of the input: a pending one at the moment the scheduler
 * would try it; one bound in the input as if it were pending again (the same attempt
 * with its binding taken away).
 */
export function explain(loaded: Loaded & { ok: true }, podKey: string, seed = 0): PodExplanation | undefined {
  const bound = loaded.input.pods.find((p) => p.key === podKey && p.nodeName);
  const input = bound ? { ...loaded.input, pods: loaded.input.pods.map((p) => (p === bound ? { ...p, nodeName: '' } : p)) } : loaded.input;
  const cluster = buildClusterState(input);
  if (!cluster.getPod(podKey)) return undefined;
  const explanation = explainPod(cluster, loaded.config, podKey, seed);
  if (!explanation) return undefined;
  const note = bound ? `${podKey} is bound to ${bound.nodeName} in the input; below, where the scheduler would put it if it were pending now.` : '';
  return { explanation, note };
}

export interface TimelineEntry {
  readonly t: number;
  readonly line: string;
}

export interface SimulationView extends RunView {
  readonly timeline: TimelineEntry[];
  readonly expectations: { name: string; passed: boolean; detail: string }[];
  /** The cluster at every instant it changed, for scrubbing. */
  readonly history: History;
  /** Ready replicas of each workload over time, a step series. */
  readonly ready: Map<string, { t: number; ready: number }[]>;
  /** The simulated cloud's $/h at each instant the cluster changed. */
  readonly cost: { t: number; costPerHour: number }[];
  readonly endMs: number;
  /** Each pod's FailedScheduling messages in time order, for the pending lane at a given time. */
  readonly failures: Map<string, { t: number; message: string }[]>;
}

/** 'a/b/../c.yaml' → 'a/c.yaml': scenario file references resolved against the bundled examples. */
function normalize(path: string): string {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '..') out.pop();
    else if (seg !== '.' && seg !== '') out.push(seg);
  }
  return out.join('/');
}

/**
 * Runs a Scenario document. `path` is where the text came from (an example's path,
 * or the playground's own name), against which its `files:` are looked up with `read`.
 */
export function simulate(text: string, path: string, read: (path: string) => string | undefined): { ok: true; view: SimulationView } | { ok: false; errors: Diagnostic[] } {
  const scenario = loadScenario({ name: SCENARIO_FILE, text });
  if (!scenario.ok) return { ok: false, errors: scenario.errors };
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '';
  const sources: SourceInput[] = [{ name: SCENARIO_FILE, text, parsed: scenario.source }];
  for (const f of scenario.scenario.files) {
    const name = normalize(dir + f);
    const content = read(name);
    if (content === undefined) return { ok: false, errors: [{ severity: 'error', file: SCENARIO_FILE, line: 1, column: 1, message: `the playground has no file ${name} (only the bundled examples can be referenced)` }] };
    sources.push({ name, text: content });
  }
  const loaded = loadSources(sources);
  if (!loaded.ok) return { ok: false, errors: loaded.errors };
  let recorded: (() => History) | undefined;
  const run = runScenario(loaded.input, scenario.scenario.spec, {
    instanceTypes: catalogOrBundled(loaded.input.catalogs),
    observe: (sim) => (recorded = recordHistory(sim)),
  });
  const history = recorded!();
  const failures = new Map<string, { t: number; message: string }[]>();
  for (const r of run.events) {
    if (r.type !== 'FailedScheduling') continue;
    const pod = r['pod'] as string;
    let list = failures.get(pod);
    if (!list) failures.set(pod, (list = []));
    list.push({ t: r.t, message: r['message'] as string });
  }
  const partial = {
    warnings: loaded.warnings,
    timeline: timelineRecords(run.events, false).map((r) => ({ t: r.t, line: eventLine(r) })),
    expectations: run.expectations.map(({ name, passed, detail }) => ({ name, passed, detail })),
    history,
    ready: readySeries(history),
    cost: history.frames.map((f) => ({ t: f.t, costPerHour: f.costPerHour })),
    endMs: run.final.timeMs,
    failures,
  };
  return { ok: true, view: { ...partial, ...viewAt(partial, run.final.timeMs) } };
}

/** A scenario's own errors (its spec and its inline objects), as `berth simulate` reports them before running. */
export function lintScenario(text: string): Diagnostic[] {
  if (text.trim() === '') return [];
  const scenario = loadScenario({ name: SCENARIO_FILE, text });
  return scenario.ok ? [] : scenario.errors;
}

export const CHECK_COUNT = ALL_CHECKS.length;

/** What the page shows of a finding: its text, without the remedies (which hold functions, and cannot cross to the page). */
export type FindingView = Pick<Finding, 'severity' | 'rule' | 'object' | 'message' | 'evidence' | 'fix'>;

const findingView = ({ severity, rule, object, message, evidence, fix }: Finding): FindingView => ({ severity, rule, object, message, evidence, fix });

/** `berth check` on the editor's manifests: findings with evidence and fixes, the provisioner on when NodePools are given; `onCheck` hears each check as it ends. */
export function check(input: LoadedInput, seed = 0, onCheck?: (rule: string, findings: readonly FindingView[]) => void): FindingView[] {
  const ctx = { input, instanceTypes: catalogOrBundled(input.catalogs), provisioner: input.nodePools.some((np) => np.replicas === null), seed };
  return analyze(ctx, undefined, onCheck && ((rule, found) => onCheck(rule, found.map(findingView)))).map(findingView);
}
