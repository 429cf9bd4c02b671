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
import { frameAt, readySeries, recordHistory, type History } from '../../src/sim/history.js';
import { analyze } from '../../src/analyze/analyze.js';
import { describeDiagnostic } from '../../src/io/diagnostics.js';
import type { Finding } from '../../src/analyze/finding.js';

export type { Diagnostic, Explanation, Finding, ProvisionPlan, ScheduleReport };
export { describeDiagnostic, formatTime };

export const SOURCE_NAME = 'playground.yaml';

export interface NodeView {
  readonly name: string;
  readonly zone: string;
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly planned: boolean;
  readonly detail: string;
}

export interface PodView {
  readonly key: string;
  readonly workload: string;
  readonly node: string;
}

export interface RunView {
  readonly nodes: NodeView[];
  readonly pods: PodView[];
  readonly pending: { pod: string; message: string }[];
  readonly provision?: ProvisionPlan;
  readonly warnings: Diagnostic[];
}

export type Loaded = { ok: true; input: LoadedInput; warnings: Diagnostic[] } | { ok: false; errors: Diagnostic[] };

export function load(text: string): Loaded {
  const r = loadSources([{ name: SOURCE_NAME, text }]);
  return r.ok ? { ok: true, input: r.input, warnings: r.warnings } : { ok: false, errors: r.errors };
}

const ZONE = 'topology.kubernetes.io/zone';

function workloadOf(cluster: ClusterState, key: string): string {
  const pod = cluster.getPod(key);
  const owner = pod?.ownerReferences.find((o) => o.controller) ?? pod?.ownerReferences[0];
  if (!owner) return key;
  // ReplicaSet names carry a pod-template hash; the Deployment is what the user wrote.
  return owner.kind === 'ReplicaSet' ? owner.name.replace(/-[a-z0-9]{5,10}$/, '') : owner.name;
}

function existingNodes(cluster: ClusterState): NodeView[] {
  return cluster.nodeInfos().map((ni) => ({
    name: ni.node.name,
    zone: ni.node.labels[ZONE] ?? '(no zone)',
    cpuMilli: ni.node.allocatable['cpu'] ?? 0,
    memoryBytes: ni.node.allocatable['memory'] ?? 0,
    planned: false,
    detail: '',
  }));
}

function boundPods(cluster: ClusterState): PodView[] {
  return [...cluster.pods()].filter((p) => p.nodeName).map((p) => ({ key: p.key, workload: workloadOf(cluster, p.key), node: p.nodeName }));
}

export function schedule(input: LoadedInput, warnings: Diagnostic[], seed = 0): RunView & { report: ScheduleReport } {
  const cluster = buildClusterState(input);
  const pods = boundPods(cluster);
  const report = scheduleAll(cluster, {}, { seed });
  for (const p of report.placements) pods.push({ key: p.pod, workload: workloadOf(cluster, p.pod), node: p.node });
  return { nodes: existingNodes(cluster), pods, pending: report.unschedulable, warnings, report };
}

export function provision(input: LoadedInput, warnings: Diagnostic[], seed = 0): RunView {
  const cluster = buildClusterState(input);
  const pods = boundPods(cluster);
  // Before planning: the planner adds its hypothetical claims to the cluster it is given.
  const nodes = existingNodes(cluster);
  const instanceTypes = catalogOrBundled(input.catalogs);
  const plan = planProvisioning({
    cluster,
    pools: input.nodePools.filter((np) => np.replicas === null),
    instanceTypes,
    daemonSetPods: input.workloads.filter((w) => w.kind === 'DaemonSet').map((w) => w.templatePod),
    config: {},
    seed,
  });
  const types = new Map(instanceTypes.map((t) => [t.name, t]));
  for (const c of plan.nodeClaims) {
    const t = types.get(c.instanceType);
    nodes.push({
      name: c.name,
      zone: c.zone,
      cpuMilli: t?.allocatable['cpu'] ?? 0,
      memoryBytes: t?.allocatable['memory'] ?? 0,
      planned: true,
      detail: `${c.instanceType} · ${c.capacityType} · $${c.pricePerHour.toFixed(4)}/h`,
    });
  }
  for (const p of plan.placements) pods.push({ key: p.pod, workload: workloadOf(cluster, p.pod), node: p.node });
  return { nodes, pods, pending: plan.unschedulable, provision: plan, warnings };
}

/** Explains a pod at the moment the scheduler would try it, against the input as loaded. */
export function explain(input: LoadedInput, podKey: string, seed = 0): Explanation | undefined {
  const cluster = buildClusterState(input);
  const pod = cluster.getPod(podKey);
  if (!pod || pod.nodeName) return undefined;
  return explainPod(cluster, {}, podKey, seed);
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
  readonly endMs: number;
  /** Each pod's FailedScheduling messages in time order, for the pending lane at a given time. */
  readonly failures: Map<string, { t: number; message: string }[]>;
}

/** The placement at simulated time `t`, with each pending pod's latest FailedScheduling message by then. */
export function viewAt(sim: SimulationView, t: number): RunView {
  const frame = frameAt(sim.history, t);
  if (!frame) return { nodes: [], pods: [], pending: [], warnings: sim.warnings };
  const lastFailure = (pod: string) => sim.failures.get(pod)?.filter((f) => f.t <= t).at(-1)?.message;
  return {
    nodes: frame.nodes.map((n) => ({ name: n.name, zone: n.zone || '(no zone)', cpuMilli: n.cpuMilli, memoryBytes: n.memoryBytes, planned: false, detail: n.up ? '' : 'down' })),
    pods: frame.pods.filter((p) => p.node && !p.terminating).map((p) => ({ key: p.key, workload: p.workload, node: p.node })),
    pending: frame.pods.filter((p) => !p.node).map((p) => ({ pod: p.key, message: lastFailure(p.key) ?? 'not yet tried by the scheduler' })),
    warnings: sim.warnings,
  };
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
  const scenario = loadScenario({ name: SOURCE_NAME, text });
  if (!scenario.ok) return { ok: false, errors: scenario.errors };
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '';
  const sources: SourceInput[] = [{ name: SOURCE_NAME, text, parsed: scenario.source }];
  for (const f of scenario.scenario.files) {
    const name = normalize(dir + f);
    const content = read(name);
    if (content === undefined) return { ok: false, errors: [{ severity: 'error', file: SOURCE_NAME, line: 1, column: 1, message: `the playground has no file ${name} (only the bundled examples can be referenced)` }] };
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
    endMs: run.final.timeMs,
    failures,
  };
  return { ok: true, view: { ...partial, ...viewAt({ ...partial, nodes: [], pods: [], pending: [] }, run.final.timeMs) } };
}

/** A Scenario document is simulated; anything else is scheduled. */
export function isScenario(text: string): boolean {
  return /^kind:\s*Scenario\s*$/m.test(text);
}

/** `berth check` on the editor's manifests: findings with evidence and fixes, the provisioner on when NodePools are given. */
export function check(input: LoadedInput, seed = 0): Finding[] {
  return analyze({ input, instanceTypes: catalogOrBundled(input.catalogs), provisioner: input.nodePools.some((np) => np.replicas === null), seed });
}
