// One scheduling cycle for one pod (schedulePod/findNodesThatFitPod/prioritizeNodes),
// with upstream's round-robin start index, adaptive percentageOfNodesToScore and
// heap-ordered host selection. Filtering runs sequentially in node-tree order,
// which is upstream's behaviour with parallelism 1.

import type { NodeInfo } from '../cluster/node-info.js';
import type { ClusterState } from '../cluster/state.js';
import type { Pod } from '../model/pod.js';
import { Rand } from '../model/rand.js';
import { CycleState, Framework, NodeToStatus, ScoredNodes, type Handle, type NodePluginScores, type PostFilterResult } from './framework.js';
import { addPluginStatus, fitErrorMessage, NO_NODES_AVAILABLE, type Diagnosis } from './messages.js';
import { SchedulerError, Status } from './status.js';

const MIN_FEASIBLE_NODES_TO_FIND = 100;
const NO_PODS: readonly Pod[] = Object.freeze([]);
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/** How many feasible nodes to look for before scoring (numFeasibleNodesToFind). */
export function numFeasibleNodesToFind(percentageOfNodesToScore: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let percentage = percentageOfNodesToScore;
  if (percentage === 0) {
    percentage = 50 - Math.trunc(numAllNodes / 125);
    if (percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const numNodes = Math.trunc((numAllNodes * percentage) / 100);
  return numNodes < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : numNodes;
}

/**
 * The host container/heap would pop first from NewSortedScoredNodes: highest total
 * score; among equal totals, whichever heap.Init leaves at the root. Returns its index.
 */
export function selectHost(totals: readonly number[]): number {
  const h = totals.map((_, i) => i);
  const n = h.length;
  const less = (i: number, j: number) => totals[h[i]!]! > totals[h[j]!]!;
  for (let i0 = Math.trunc(n / 2) - 1; i0 >= 0; i0--) {
    let i = i0;
    for (;;) {
      const j1 = 2 * i + 1;
      if (j1 >= n) break;
      let j = j1;
      const j2 = j1 + 1;
      if (j2 < n && less(j2, j1)) j = j2;
      if (!less(j, i)) break;
      [h[i], h[j]] = [h[j]!, h[i]!];
      i = j;
    }
  }
  return h[0]!;
}

/**
 * Picks among equally scored nodes: `tied` lists them, the heap's pick first, the
 * others in filter order. Returns one of them, or undefined for the heap's pick.
 */
export type TieGuide = (pod: Pod, tied: readonly string[]) => string | undefined;

/** The heap's pick, or the guide's among the nodes with the same total. */
function guidedTop(totals: readonly number[], names: readonly string[], pod: Pod, guide: TieGuide): number {
  const heapPick = selectHost(totals);
  const tied = totals.flatMap((t, i) => (t === totals[heapPick] && i !== heapPick ? [i] : []));
  if (tied.length === 0) return heapPick;
  const chosen = guide(pod, [names[heapPick]!, ...tied.map((i) => names[i]!)]);
  const i = chosen === undefined ? -1 : names.indexOf(chosen);
  return i >= 0 && totals[i] === totals[heapPick] ? i : heapPick;
}

export type ScheduleOutcome =
  | {
      readonly kind: 'scheduled';
      readonly node: string;
      readonly evaluatedNodes: number;
      readonly feasibleNodes: number;
      /** Present when more than one node was feasible (scoring ran). */
      readonly scores?: readonly NodePluginScores[];
    }
  | {
      readonly kind: 'unschedulable';
      readonly message: string;
      readonly diagnosis?: Diagnosis;
      readonly preemption?: PostFilterResult;
      /**
       * The pod's nomination must go (upstream's clearNominatedNode): there were no
       * nodes, or preemption found no candidate and answered with an empty nomination.
       */
      readonly clearsNomination?: true;
      /** The attempt ended on a plugin's error (upstream's SchedulerError reason), not on a fit verdict. */
      readonly error?: true;
    };

/** A placement chosen by scoring: host selection reads only the totals, the per-node records are built if someone reads them. */
class ScoredOutcome {
  readonly kind = 'scheduled';
  constructor(
    readonly node: string,
    readonly evaluatedNodes: number,
    readonly feasibleNodes: number,
    private readonly scored: ScoredNodes,
  ) {}

  get scores(): readonly NodePluginScores[] {
    return this.scored.records();
  }
}

export interface SchedulerOptions {
  readonly seed?: number;
  /**
   * Among nodes with the highest score: `heap` (default) takes the one upstream's
   * heap leaves on top for the order the nodes were filtered in, which is what
   * upstream does when its parallel filter goroutines finish in node order; they may
   * finish in any order, so any of the tied nodes can win upstream. A TieGuide
   * chooses among them (the sim-vs-real harness follows the real cluster's choice).
   */
  readonly tieBreak?: 'heap' | TieGuide;
}

export class Scheduler implements Handle {
  readonly rand: Rand;
  private readonly tieBreak: 'heap' | TieGuide;
  nextStartNodeIndex = 0;
  private readonly nominated = new Map<string, Pod[]>();

  readonly framework: Framework;

  /** `buildFramework` receives this scheduler as the plugins' Handle. */
  constructor(
    readonly cluster: ClusterState,
    buildFramework: (handle: Handle) => Framework,
    opts: SchedulerOptions = {},
  ) {
    this.rand = new Rand(opts.seed ?? 0);
    this.tieBreak = opts.tieBreak ?? 'heap';
    this.framework = buildFramework(this);
  }

  // --- Handle ---
  nominatedPodsForNode(nodeName: string): readonly Pod[] {
    return this.nominated.get(nodeName) ?? NO_PODS;
  }

  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podToAdd: Pod, nodeInfo: NodeInfo): Status {
    return this.framework.runPreFilterExtensionAddPod(state, podToSchedule, podToAdd, nodeInfo);
  }

  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podToRemove: Pod, nodeInfo: NodeInfo): Status {
    return this.framework.runPreFilterExtensionRemovePod(state, podToSchedule, podToRemove, nodeInfo);
  }

  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    return this.framework.runFilterPlugins(state, pod, nodeInfo);
  }

  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status {
    return this.framework.runFilterPluginsWithNominatedPods(this, state, pod, nodeInfo);
  }

  // --- nominations ---
  nominate(pod: Pod, nodeName: string): void {
    this.clearNomination(pod);
    const list = this.nominated.get(nodeName) ?? [];
    list.push(pod);
    this.nominated.set(nodeName, list);
  }

  clearNomination(pod: Pod): void {
    for (const [node, list] of this.nominated) {
      const i = list.findIndex((p) => p.uid === pod.uid);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.nominated.delete(node);
    }
  }

  nominatedNodeOf(pod: Pod): string {
    for (const [node, list] of this.nominated) if (list.some((p) => p.uid === pod.uid)) return node;
    return '';
  }

  /**
   * One scheduling attempt: filter, score, select. Does not bind; runs PostFilter when nothing fits.
   * A plugin's error (a Status with the Error code) ends the attempt as upstream's
   * schedulingCycle does: the pod stays pending, its FailedScheduling message is the
   * error, and its nomination is cleared.
   */
  schedulePod(pod: Pod, state = new CycleState()): ScheduleOutcome {
    try {
      return this.attempt(pod, state);
    } catch (e) {
      if (e instanceof SchedulerError) return { kind: 'unschedulable', message: e.message, error: true, clearsNomination: true };
      throw e;
    }
  }

  private attempt(pod: Pod, state: CycleState): ScheduleOutcome {
    const allNodes = this.cluster.nodeInfos();
    if (allNodes.length === 0) return { kind: 'unschedulable', message: NO_NODES_AVAILABLE, clearsNomination: true };
    const diagnosis: Diagnosis = { nodeToStatus: new NodeToStatus(), unschedulablePlugins: new Set(), pendingPlugins: new Set(), preFilterMsg: '', postFilterMsg: '' };
    const feasible = this.findNodesThatFitPod(state, pod, allNodes, diagnosis);

    if (feasible.length === 0) {
      let preemption: PostFilterResult | undefined;
      let clear = false;
      if (diagnosis.preFilterStoppedAt !== undefined && this.framework.postFilterLacksState(diagnosis.preFilterStoppedAt)) {
        diagnosis.postFilterMsg = 'not found';
      } else if (this.framework.plugins.postFilter.length > 0) {
        const { result, status } = this.framework.runPostFilterPlugins(state, pod, diagnosis.nodeToStatus);
        diagnosis.postFilterMsg = status.message();
        if (status.isSuccess() && result) preemption = result;
        else clear = result?.nominatedNodeName === '';
      }
      return { kind: 'unschedulable', message: fitErrorMessage(allNodes.length, diagnosis), diagnosis, ...(preemption ? { preemption } : {}), ...(clear ? { clearsNomination: true as const } : {}) };
    }
    if (feasible.length === 1) {
      return { kind: 'scheduled', node: feasible[0]!.node.name, evaluatedNodes: 1 + diagnosis.nodeToStatus.size, feasibleNodes: 1 };
    }
    const scored = this.prioritizeNodes(state, pod, feasible);
    const chosen = this.tieBreak === 'heap' ? selectHost(scored.totals) : guidedTop(scored.totals, feasible.map((n) => n.node.name), pod, this.tieBreak);
    return new ScoredOutcome(feasible[chosen]!.node.name, feasible.length + diagnosis.nodeToStatus.size, feasible.length, scored);
  }

  private findNodesThatFitPod(state: CycleState, pod: Pod, allNodes: readonly NodeInfo[], diagnosis: Diagnosis): NodeInfo[] {
    const pre = this.framework.runPreFilterPlugins(state, pod, allNodes);
    for (const p of pre.pluginsWithNodes) diagnosis.unschedulablePlugins.add(p);
    if (!pre.status.isSuccess()) {
      if (pre.stoppedAt !== undefined) diagnosis.preFilterStoppedAt = pre.stoppedAt;
      diagnosis.nodeToStatus.absentNodesStatus = pre.status;
      diagnosis.preFilterMsg = pre.status.message();
      addPluginStatus(diagnosis, pre.status);
      return [];
    }

    const nominatedName = pod.nominatedNodeName || this.nominatedNodeOf(pod);
    if (nominatedName) {
      const info = this.cluster.nodeInfo(nominatedName);
      if (info) {
        const found = this.findNodesThatPassFilters(state, pod, diagnosis, [info]);
        if (found.length > 0) return found;
      }
    }

    let nodes: readonly NodeInfo[] = allNodes;
    if (pre.nodeNames !== null) {
      const names = pre.nodeNames;
      // Upstream iterates a Go map here; berth keeps node-tree order for determinism.
      nodes = this.cluster.nodeInfosNamed(names);
    }
    // Upstream formats the set it shares with the diagnosis at this point, so plugins
    // that just rejected the nominated node are named too. Only read when nothing fits,
    // so it is formatted then, from the plugins in the set now (a set keeps insertion order).
    const namedPlugins = diagnosis.unschedulablePlugins.size;
    const feasible = this.findNodesThatPassFilters(state, pod, diagnosis, nodes);
    if (pre.nodeNames !== null && feasible.length === 0) {
      const named = [...diagnosis.unschedulablePlugins].slice(0, namedPlugins).sort();
      diagnosis.nodeToStatus.absentNodesStatus = Status.unresolvable(`node(s) didn't satisfy plugin(s) [${named.join(' ')}]`);
    }
    // Like upstream, statuses from a failed nominated-node attempt count as processed too.
    const processed = feasible.length + diagnosis.nodeToStatus.size;
    this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % this.cluster.numNodes;
    return feasible;
  }

  private findNodesThatPassFilters(state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: readonly NodeInfo[]): NodeInfo[] {
    const numAllNodes = nodes.length;
    let numNodesToFind = numFeasibleNodesToFind(this.framework.percentageOfNodesToScore, numAllNodes);
    if (!this.framework.hasScorePlugins) numNodesToFind = 1;
    const feasible: NodeInfo[] = [];
    const statuses = diagnosis.nodeToStatus;
    // Statuses go in unchecked unless an earlier pass (the nominated node's) may have recorded one of these nodes.
    const distinct = statuses.size === 0;
    if (!this.framework.hasFilterPlugins) {
      for (let i = 0; i < numNodesToFind; i++) feasible.push(nodes[(this.nextStartNodeIndex + i) % numAllNodes]!);
    } else {
      // Like upstream with parallelism 1, the search stops at the first feasible node
      // beyond the quota (which is dropped), so rejections met before it still count.
      const fw = this.framework;
      // Without nominated pods anywhere, each node runs the cycle's filters directly.
      const plugins = this.nominated.size === 0 ? fw.filtersFor(state) : null;
      for (let i = 0; i < numAllNodes; i++) {
        const info = nodes[(this.nextStartNodeIndex + i) % numAllNodes]!;
        const status = plugins !== null ? fw.runFilters(plugins, state, pod, info) : this.runFilterPluginsWithNominatedPods(state, pod, info);
        if (status.isSuccess()) {
          if (feasible.length === numNodesToFind) break;
          feasible.push(info);
        } else {
          if (distinct) statuses.add(info.node.name, status);
          else statuses.set(info.node.name, status);
          addPluginStatus(diagnosis, status);
        }
      }
    }
    return feasible;
  }

  private prioritizeNodes(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): ScoredNodes {
    if (!this.framework.hasScorePlugins) return ScoredNodes.uniform(nodes, 1);
    this.framework.runPreScorePlugins(state, pod, nodes);
    return this.framework.runScorePlugins(state, pod, nodes);
  }
}
