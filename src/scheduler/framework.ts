// The scheduling framework: extension point interfaces and the runner that calls
// plugins in profile order, as frameworkImpl does upstream.

import type { ClusterState } from '../cluster/state.js';
import type { NodeInfo } from '../cluster/node-info.js';
import type { Pod } from '../model/pod.js';
import type { Rand } from '../model/rand.js';
import { Code, SchedulerError, Status } from './status.js';

export const MAX_NODE_SCORE = 100;
const DYNAMIC_RESOURCES = 'DynamicResources';
export const MIN_NODE_SCORE = 0;

/** Per-cycle plugin data. Values must implement clone() when they hold mutable state. */
export interface StateData {
  clone(): StateData;
}

export class CycleState {
  private readonly data = new Map<string, StateData>();
  skipFilterPlugins = new Set<string>();
  skipScorePlugins = new Set<string>();

  read<T extends StateData>(key: string): T {
    const v = this.data.get(key);
    if (v === undefined) throw new SchedulerError(`reading ${JSON.stringify(key)} from cycleState: not found`);
    return v as T;
  }

  tryRead<T extends StateData>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  write(key: string, value: StateData): void {
    this.data.set(key, value);
  }

  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v.clone());
    c.skipFilterPlugins = new Set(this.skipFilterPlugins);
    c.skipScorePlugins = new Set(this.skipScorePlugins);
    return c;
  }
}

/** What plugins may ask of the framework (fwk.Handle). */
export interface Handle {
  /** The snapshot being scheduled against. Plugins must not mutate it. */
  readonly cluster: ClusterState;
  readonly rand: Rand;
  /** Pods nominated to a node (by preemption) that are not yet bound there. */
  nominatedPodsForNode(nodeName: string): readonly Pod[];
  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podToAdd: Pod, nodeInfo: NodeInfo): Status;
  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podToRemove: Pod, nodeInfo: NodeInfo): Status;
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status;
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status;
}

export interface Plugin {
  readonly name: string;
}

export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: Pod, podToAdd: Pod, nodeInfo: NodeInfo): Status;
  removePod(state: CycleState, podToSchedule: Pod, podToRemove: Pod, nodeInfo: NodeInfo): Status;
}

export interface PreFilterResult {
  /** null means every node; a set restricts filtering to those nodes. */
  readonly nodeNames: ReadonlySet<string> | null;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): { result?: PreFilterResult; status: Status };
  preFilterExtensions?: PreFilterExtensions;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status;
}

export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): Status;
}

export interface NodeScore {
  readonly name: string;
  score: number;
}

export interface ScorePlugin extends Plugin {
  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number;
  /**
   * Optional: what score() gives for each of `nodes`, written to out[offset + j],
   * with the per-pod work done once for the cycle instead of once per node.
   */
  scoreAll?(state: CycleState, pod: Pod, nodes: readonly NodeInfo[], out: number[], offset: number): void;
  /** Rescales raw scores in place into [0, 100]. */
  normalizeScore?(state: CycleState, pod: Pod, scores: NodeScore[]): void;
}

/**
 * Reserve: the pod is going to `nodeName`; a plugin that keeps per-pod resources
 * (VolumeBinding's assumed volume bindings) records them so the next pod sees them.
 */
export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: Pod, nodeName: string): Status;
}

/** PreBind: what must be true in the cluster before the pod is bound (VolumeBinding: its claims bound or being provisioned). */
export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: Pod, nodeName: string): Status;
}

export interface NominatingInfo {
  readonly nominatedNodeName: string;
}

export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: Pod, statuses: NodeToStatus): { result?: PostFilterResult; status: Status };
}

export interface PostFilterResult {
  readonly nominatedNodeName: string;
  /** Pods to evict so that the preemptor fits (berth reports them; the caller deletes them). */
  readonly victims: readonly Pod[];
}

/** Queue ordering (QueueSort extension point): true when a should be scheduled before b. */
export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPod, b: QueuedPod): boolean;
}

export interface QueuedPod {
  readonly pod: Pod;
  /** When the pod entered the queue; ties keep input order. */
  readonly timestamp: number;
  readonly seq: number;
}

/** framework.NodeToStatus: explicit statuses for rejected nodes, one shared status for the absent ones. */
export class NodeToStatus {
  // Statuses added for distinct nodes are kept in two lists; the map is built when first read.
  private names: string[] = [];
  private statusList: Status[] = [];
  private map: Map<string, Status> | null = null;
  absentNodesStatus: Status = new Status(Code.UnschedulableAndUnresolvable);

  get explicit(): Map<string, Status> {
    if (this.map === null) {
      this.map = new Map();
      for (let i = 0; i < this.names.length; i++) this.map.set(this.names[i]!, this.statusList[i]!);
      this.names = [];
      this.statusList = [];
    }
    return this.map;
  }

  set(name: string, status: Status): void {
    this.explicit.set(name, status);
  }

  /** set() for a node that has no status yet (the Filter loop meets each node once): no map entry until someone reads. */
  add(name: string, status: Status): void {
    if (this.map !== null) this.map.set(name, status);
    else {
      this.names.push(name);
      this.statusList.push(status);
    }
  }

  get(name: string): Status {
    return this.explicit.get(name) ?? this.absentNodesStatus;
  }

  get size(): number {
    return this.map !== null ? this.map.size : this.names.length;
  }

  /**
   * Counts every explicit status's reasons into `histogram` (one per node),
   * without building the map or an iterator result per node (read once per failed
   * cycle, over every node of the cluster).
   */
  tallyReasons(histogram: Map<string, number>): void {
    const add = (status: Status, n: number) => {
      for (let i = 0; i < status.reasons.length; i++) histogram.set(status.reasons[i]!, (histogram.get(status.reasons[i]!) ?? 0) + n);
    };
    if (this.map !== null) {
      this.map.forEach((status) => add(status, 1));
      return;
    }
    // Plugins return shared statuses, so runs of the same one are counted at once.
    for (let i = 0; i < this.statusList.length; ) {
      const status = this.statusList[i]!;
      let j = i + 1;
      while (j < this.statusList.length && this.statusList[j] === status) j++;
      add(status, j - i);
      i = j;
    }
  }

  /** Nodes whose status has `code`, including the absent ones when the absent status has it. */
  nodesWithCode(allNodes: readonly NodeInfo[], code: Code): NodeInfo[] {
    if (this.map !== null) return allNodes.filter((n) => this.get(n.node.name).code === code);
    // Without building the map: mark the explicit nodes that differ from the absent ones' answer.
    const absentHas = this.absentNodesStatus.code === code;
    const marked = new Set<string>();
    for (let i = 0; i < this.names.length; i++) if ((this.statusList[i]!.code === code) !== absentHas) marked.add(this.names[i]!);
    return allNodes.filter((n) => marked.has(n.node.name) !== absentHas);
  }
}

export interface PluginScore {
  readonly name: string;
  readonly score: number;
}

export interface NodePluginScores {
  readonly name: string;
  readonly rawScores: readonly PluginScore[];
  /** Normalized and weighted, in the order of the profile's score plugins. */
  readonly scores: readonly PluginScore[];
  readonly totalScore: number;
}

/** One cycle's scores, plugin-major: [plugin * nodes + node]. Plain arrays: typed arrays this size live off the heap and cost more to create and collect than they save. */
class ScoreTable {
  readonly raw: number[];
  /** Only the rows of plugins that normalize are filled; the others' normalized scores are their raw ones. */
  readonly normalized: number[];
  constructor(
    readonly plugins: readonly { readonly name: string; readonly weight: number; readonly normalizes: boolean }[],
    readonly nodes: number,
  ) {
    this.raw = new Array<number>(plugins.length * nodes).fill(0);
    this.normalized = new Array<number>(plugins.length * nodes).fill(0);
  }

  normalizedScore(plugin: number, node: number): number {
    return (this.plugins[plugin]!.normalizes ? this.normalized : this.raw)[plugin * this.nodes + node]!;
  }
}

/**
 * A node's row of a ScoreTable. The per-plugin records (read by explain and
 * conformance, not by host selection) are built on demand, so scoring allocates
 * no record per node and plugin.
 */
class TableNodeScores implements NodePluginScores {
  constructor(
    readonly name: string,
    private readonly table: ScoreTable,
    private readonly index: number,
    readonly totalScore: number,
  ) {}

  get rawScores(): PluginScore[] {
    return this.table.plugins.map((p, i) => ({ name: p.name, score: this.table.raw[i * this.table.nodes + this.index]! }));
  }

  get scores(): PluginScore[] {
    return this.table.plugins.map((p, i) => ({ name: p.name, score: this.table.normalizedScore(i, this.index) * p.weight }));
  }
}

/** One cycle's scores: per-node totals for host selection; the per-node records only when asked for. */
export class ScoredNodes {
  private built: NodePluginScores[] | undefined;

  constructor(
    readonly nodes: readonly NodeInfo[],
    /** Weighted totals, in the order of `nodes`. */
    readonly totals: readonly number[],
    private readonly table: ScoreTable,
  ) {}

  /** Every node scoring `total` (upstream's score when no score plugin is configured). */
  static uniform(nodes: readonly NodeInfo[], total: number): ScoredNodes {
    return new ScoredNodes(nodes, new Array<number>(nodes.length).fill(total), new ScoreTable([], nodes.length));
  }

  records(): NodePluginScores[] {
    return (this.built ??= this.nodes.map((info, j) => new TableNodeScores(info.node.name, this.table, j, this.totals[j]!)));
  }
}

export interface ProfilePlugins {
  readonly queueSort: QueueSortPlugin;
  readonly preFilter: readonly PreFilterPlugin[];
  readonly filter: readonly FilterPlugin[];
  readonly postFilter: readonly PostFilterPlugin[];
  readonly preScore: readonly PreScorePlugin[];
  readonly score: readonly { plugin: ScorePlugin; weight: number }[];
  /** Absent: none (test frameworks built by hand). */
  readonly reserve?: readonly ReservePlugin[];
  readonly preBind?: readonly PreBindPlugin[];
}

function intersect(a: ReadonlySet<string> | null, b: ReadonlySet<string>): ReadonlySet<string> {
  // Plugins hand over their sets: nothing changes them afterwards, so the first one is kept as it is.
  if (a === null) return b;
  const out = new Set<string>();
  for (const n of a) if (b.has(n)) out.add(n);
  return out;
}

/** Runs a profile's plugins at each extension point. */
export class Framework {
  constructor(
    readonly profileName: string,
    readonly plugins: ProfilePlugins,
    /** 0 means the adaptive default. */
    readonly percentageOfNodesToScore: number,
    /** Every plugin the profile enables at PreFilter and PostFilter, berth's and pass-through ones, in order. */
    readonly configured?: { readonly preFilter: readonly string[]; readonly postFilter: readonly string[] },
  ) {}

  /**
   * Whether PostFilter fails for want of cycle state after PreFilter stopped at
   * `stoppedAt`: DynamicResources (not modeled by berth, on by default) reads the
   * state its PreFilter writes, and answers Error "not found" when an earlier
   * plugin's rejection kept its PreFilter from running.
   */
  postFilterLacksState(stoppedAt: string): boolean {
    const c = this.configured;
    if (!c || !c.postFilter.includes(DYNAMIC_RESOURCES)) return false;
    const dra = c.preFilter.indexOf(DYNAMIC_RESOURCES);
    return dra < 0 || c.preFilter.indexOf(stoppedAt) < dra;
  }

  runPreFilterPlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): { nodeNames: ReadonlySet<string> | null; status: Status; pluginsWithNodes: Set<string>; stoppedAt?: string } {
    state.skipFilterPlugins = new Set();
    let nodeNames: ReadonlySet<string> | null = null;
    const pluginsWithNodes = new Set<string>();
    let returnStatus: Status = Status.SUCCESS;
    for (const pl of this.plugins.preFilter) {
      const { result, status } = pl.preFilter(state, pod, nodes);
      if (status.isSkip()) {
        state.skipFilterPlugins.add(pl.name);
        continue;
      }
      if (!status.isSuccess()) {
        const s = status.withPlugin(pl.name);
        if (s.code === Code.UnschedulableAndUnresolvable) return { nodeNames: null, status: s, pluginsWithNodes: new Set(), stoppedAt: pl.name };
        if (s.code === Code.Unschedulable) {
          returnStatus = s;
          continue;
        }
        throw new SchedulerError(`running PreFilter plugin ${JSON.stringify(pl.name)}: ${s.message()}`);
      }
      const restrict: ReadonlySet<string> | null = result?.nodeNames ?? null;
      if (restrict !== null) {
        pluginsWithNodes.add(pl.name);
        nodeNames = intersect(nodeNames, restrict);
        if (nodeNames.size === 0) {
          const names = [...pluginsWithNodes].sort();
          const msg = names.length === 1 ? `node(s) didn't satisfy plugin ${names[0]}` : `node(s) didn't satisfy plugin(s) [${names.join(' ')}] simultaneously`;
          return { nodeNames, status: Status.unresolvable(msg), pluginsWithNodes, stoppedAt: pl.name };
        }
      }
    }
    return { nodeNames, status: returnStatus, pluginsWithNodes };
  }

  /** The filter plugins PreFilter did not skip, per skip set (a cycle's set is fixed once PreFilter is done). */
  private readonly activeFilters = new WeakMap<ReadonlySet<string>, readonly FilterPlugin[]>();

  /** The filter plugins the cycle of `state` runs; resolve once per cycle and pass to runFilters. */
  filtersFor(state: CycleState): readonly FilterPlugin[] {
    const skip = state.skipFilterPlugins;
    let plugins = this.activeFilters.get(skip);
    if (plugins === undefined) this.activeFilters.set(skip, (plugins = this.plugins.filter.filter((pl) => !skip.has(pl.name))));
    return plugins;
  }

  /** Runs Filter plugins in order; the first rejection wins (and names its plugin). */
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    return this.runFilters(this.filtersFor(state), state, pod, nodeInfo);
  }

  /** runFilterPlugins with the cycle's plugins already resolved (the Filter loop's per-node call). */
  runFilters(plugins: readonly FilterPlugin[], state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    for (let i = 0; i < plugins.length; i++) {
      const pl = plugins[i]!;
      const status = pl.filter(state, pod, nodeInfo);
      if (status.code !== Code.Success) {
        if (!status.isRejected()) throw new SchedulerError(`running ${JSON.stringify(pl.name)} filter plugin: ${status.message()}`);
        // Plugins may return constant statuses already naming them: no copy per rejected node.
        return status.plugin === pl.name ? status : status.withPlugin(pl.name);
      }
    }
    return Status.SUCCESS;
  }

  /** Every filter plugin's verdict on one node (for `berth explain`; scheduling stops at the first). */
  runAllFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { plugin: string; status: Status }[] {
    return this.plugins.filter.map((pl) => ({
      plugin: pl.name,
      status: state.skipFilterPlugins.has(pl.name) ? Status.SKIP : pl.filter(state, pod, nodeInfo).withPlugin(pl.name),
    }));
  }

  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podToAdd: Pod, nodeInfo: NodeInfo): Status {
    for (const pl of this.plugins.preFilter) {
      if (!pl.preFilterExtensions || state.skipFilterPlugins.has(pl.name)) continue;
      const s = pl.preFilterExtensions.addPod(state, podToSchedule, podToAdd, nodeInfo);
      if (!s.isSuccess()) return s.withPlugin(pl.name);
    }
    return Status.SUCCESS;
  }

  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podToRemove: Pod, nodeInfo: NodeInfo): Status {
    for (const pl of this.plugins.preFilter) {
      if (!pl.preFilterExtensions || state.skipFilterPlugins.has(pl.name)) continue;
      const s = pl.preFilterExtensions.removePod(state, podToSchedule, podToRemove, nodeInfo);
      if (!s.isSuccess()) return s.withPlugin(pl.name);
    }
    return Status.SUCCESS;
  }

  /**
   * Filters with nominated pods of equal or higher priority counted on the node
   * first, then (if any were added and that passed) without them, so a pod passes
   * only if it fits both with and without them.
   */
  runFilterPluginsWithNominatedPods(handle: Handle, state: CycleState, pod: Pod, info: NodeInfo): Status {
    const candidates = handle.nominatedPodsForNode(info.node.name);
    if (candidates.length === 0) return this.runFilterPlugins(state, pod, info);
    const nominated = candidates.filter((p) => p.priority >= pod.priority && p.uid !== pod.uid);
    if (nominated.length === 0) return this.runFilterPlugins(state, pod, info);
    const stateOut = state.clone();
    const infoOut = info.clone();
    for (const p of nominated) {
      infoOut.addPod(p);
      const s = this.runPreFilterExtensionAddPod(stateOut, pod, p, infoOut);
      if (!s.isSuccess()) throw new SchedulerError(s.message());
    }
    const status = this.runFilterPlugins(stateOut, pod, infoOut);
    if (!status.isSuccess()) return status;
    return this.runFilterPlugins(state, pod, info);
  }

  runPostFilterPlugins(state: CycleState, pod: Pod, statuses: NodeToStatus): { result?: PostFilterResult; status: Status } {
    let result: PostFilterResult | undefined;
    const reasons: string[] = [];
    let rejector = '';
    for (const pl of this.plugins.postFilter) {
      const r = pl.postFilter(state, pod, statuses);
      if (r.status.isSuccess()) return r;
      if (r.status.code === Code.UnschedulableAndUnresolvable) return { ...(r.result ? { result: r.result } : {}), status: r.status.withPlugin(pl.name) };
      // An error ends PostFilter with an Error status; its message still goes into the FitError (upstream logs it, binds nothing).
      if (!r.status.isRejected()) return { status: Status.error(r.status.message()).withPlugin(pl.name) };
      if (r.result) result = r.result;
      reasons.push(...r.status.reasons);
      if (!rejector) rejector = pl.name;
    }
    return { ...(result ? { result } : {}), status: new Status(Code.Unschedulable, reasons, rejector) };
  }

  runPreScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): void {
    state.skipScorePlugins = new Set();
    for (const pl of this.plugins.preScore) {
      const s = pl.preScore(state, pod, nodes);
      if (s.isSkip()) {
        state.skipScorePlugins.add(pl.name);
        continue;
      }
      if (!s.isSuccess()) throw new SchedulerError(`running PreScore plugin ${JSON.stringify(pl.name)}: ${s.message()}`);
    }
  }

  /** NodeScore records normalizers rescale in place, reused from cycle to cycle (scoring is synchronous). */
  private readonly normalizeRecords: { name: string; score: number }[] = [];

  private recordsFor(nodes: readonly NodeInfo[]): NodeScore[] {
    const records = this.normalizeRecords;
    const n = nodes.length;
    while (records.length < n) records.push({ name: '', score: 0 });
    records.length = n;
    for (let j = 0; j < n; j++) records[j]!.name = nodes[j]!.node.name;
    return records;
  }

  /** Raw scores, normalization and weights, exactly as RunScorePlugins. */
  runScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): ScoredNodes {
    const plugins = this.plugins.score.filter((s) => !state.skipScorePlugins.has(s.plugin.name));
    const n = nodes.length;
    const table = new ScoreTable(
      plugins.map(({ plugin, weight }) => ({ name: plugin.name, weight, normalizes: plugin.normalizeScore !== undefined })),
      n,
    );
    const totals = new Array<number>(n).fill(0);
    for (let i = 0; i < plugins.length; i++) {
      const { plugin, weight } = plugins[i]!;
      const row = i * n;
      const { raw } = table;
      if (plugin.scoreAll) plugin.scoreAll(state, pod, nodes, raw, row);
      else for (let j = 0; j < n; j++) raw[row + j] = plugin.score(state, pod, nodes[j]!);
      let final = raw;
      if (plugin.normalizeScore) {
        const scores = this.recordsFor(nodes);
        for (let j = 0; j < n; j++) scores[j]!.score = raw[row + j]!;
        plugin.normalizeScore(state, pod, scores);
        final = table.normalized;
        for (let j = 0; j < n; j++) final[row + j] = scores[j]!.score;
      }
      for (let j = 0; j < n; j++) {
        const score = final[row + j]!;
        if (score > MAX_NODE_SCORE || score < MIN_NODE_SCORE) {
          throw new SchedulerError(`plugin ${JSON.stringify(plugin.name)} returns an invalid score ${score}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`);
        }
        totals[j] = totals[j]! + score * weight;
      }
    }
    return new ScoredNodes(nodes, totals, table);
  }

  /** Reserve then PreBind for the node the cycle chose; the first failure stops (upstream then unreserves and retries the pod). */
  runReserveAndPreBind(state: CycleState, pod: Pod, nodeName: string): Status {
    for (const pl of this.plugins.reserve ?? []) {
      const s = pl.reserve(state, pod, nodeName);
      if (!s.isSuccess()) return s.withPlugin(pl.name);
    }
    for (const pl of this.plugins.preBind ?? []) {
      const s = pl.preBind(state, pod, nodeName);
      if (!s.isSuccess() && !s.isSkip()) return s.withPlugin(pl.name);
    }
    return Status.SUCCESS;
  }

  get hasScorePlugins(): boolean {
    return this.plugins.score.length > 0;
  }

  get hasFilterPlugins(): boolean {
    return this.plugins.filter.length > 0;
  }
}
