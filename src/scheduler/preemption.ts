// Pod preemption (framework/preemption + the DefaultPreemption plugin's policy):
// decide whether a pod that fits nowhere may evict lower-priority pods, find the
// nodes where evicting some of them would make it fit, pick the cheapest victims
// on each, and choose one node. Nothing is evicted here: the result names the
// node to nominate and the victims, and the caller deletes them.
//
// Upstream dry-runs nodes in parallel and stops early once it has enough
// candidates; berth walks the same window sequentially, so the outcome is the
// one upstream gets with parallelism 1.

import type { NodeInfo } from '../cluster/node-info.js';
import type { ClusterState } from '../cluster/state.js';
import { disruptionsAllowed, type PodDisruptionBudget } from '../model/pdb.js';
import type { Pod } from '../model/pod.js';
import { NodeToStatus, type CycleState, type Handle, type PostFilterResult } from './framework.js';
import { goSortSlice } from './go-sort.js';
import { fitErrorMessage } from './messages.js';
import { Code, SchedulerError, Status } from './status.js';

export const DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10;
export const DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100;

export const ERR_PREEMPTION_POLICY_NEVER = 'not eligible due to preemptionPolicy=Never.';
export const ERR_TERMINATING_ON_NOMINATED_NODE = 'not eligible due to a terminating pod on the nominated node.';
export const ERR_NO_VICTIMS = 'No preemption victims found for incoming pod';
export const ERR_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const ERR_NO_CANDIDATE = 'no candidate node for preemption';
/** The status of every node without a lower-priority pod, one object for all (most nodes of most dry runs). */
const NO_VICTIMS = Object.freeze(Status.unresolvable(ERR_NO_VICTIMS));

/** DefaultPreemptionArgs after defaulting and validation. */
export interface PreemptionArgs {
  readonly minCandidateNodesPercentage: number;
  readonly minCandidateNodesAbsolute: number;
}

export interface Victims {
  /** Most important first (moreImportantPod order). */
  readonly pods: readonly Pod[];
  readonly numPDBViolations: number;
}

export interface Candidate {
  readonly name: string;
  readonly victims: Victims;
}

/** A PDB with the number of disruptions it still allows in this preemption attempt. */
export interface PdbBudget {
  readonly pdb: PodDisruptionBudget;
  readonly disruptionsAllowed: number;
}

/**
 * When a pod started, for ordering victims. berth's pods carry no status.startTime,
 * so creation (timestamp, or input order) stands in for it: older pods rank as
 * more important, as long-running pods do upstream.
 */
export function podStartTime(pod: Pod): number {
  return pod.creation;
}

/** util.MoreImportantPod: higher priority first, then the one that started earlier. */
export function moreImportantPod(a: Pod, b: Pod): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  return podStartTime(a) < podStartTime(b);
}

/** Deleted (graceful termination under way) because the scheduler picked it as a preemption victim. */
export function podTerminatingByPreemption(pod: Pod): boolean {
  return pod.terminating && pod.preemptedByScheduler === true;
}

/**
 * Disruptions each PDB allows. status.disruptionsAllowed is used when the input
 * carried a status. Otherwise berth stands in for the disruption controller with
 * what the cluster holds: the pods of the PDB's namespace that its selector
 * matches are the expected pods (no owner scale lookup), and the bound, Running,
 * non-terminating ones among them are the healthy pods.
 */
export function pdbBudgets(cluster: ClusterState): PdbBudget[] {
  return cluster.pdbs.map((pdb) => {
    if (pdb.statusDisruptionsAllowed !== undefined) return { pdb, disruptionsAllowed: pdb.statusDisruptionsAllowed };
    const matched = [...cluster.podsInNamespace(pdb.namespace)].filter((p) => pdb.selector.matches(p.labels));
    const healthy = matched.filter((p) => p.nodeName !== '' && p.phase === 'Running' && !p.terminating).length;
    return { pdb, disruptionsAllowed: disruptionsAllowed(pdb, matched.length, healthy) };
  });
}

/**
 * FilterVictimsWithPDBViolation for single-pod victims: walking `pods` in order,
 * a pod violates when evicting it takes some matching PDB below zero allowed
 * disruptions. Budgets are spent as pods are walked, so order matters.
 * (status.disruptedPods is not modelled: no pod is exempt for being already
 * accounted by the API server.)
 */
export function splitByPdbViolation(pods: readonly Pod[], budgets: readonly PdbBudget[]): { violating: Pod[]; nonViolating: Pod[] } {
  const allowed = budgets.map((b) => b.disruptionsAllowed);
  const violates = (pod: Pod): boolean => {
    if (Object.keys(pod.labels).length === 0) return false;
    for (let i = 0; i < budgets.length; i++) {
      const { pdb } = budgets[i]!;
      if (pdb.namespace !== pod.namespace) continue;
      // Unlike the disruption controller, preemption lets a nil or empty selector match nothing.
      if (pdb.selector.everything || pdb.selector.nothing || !pdb.selector.matches(pod.labels)) continue;
      allowed[i]!--;
      if (allowed[i]! < 0) return true;
    }
    return false;
  };
  const violating: Pod[] = [];
  const nonViolating: Pod[] = [];
  for (const p of pods) (violates(p) ? violating : nonViolating).push(p);
  return { violating, nonViolating };
}

function hasLowerPriorityPod(nodeInfo: NodeInfo, preemptor: Pod): boolean {
  for (const p of nodeInfo.pods) if (p.priority < preemptor.priority) return true;
  return false;
}

/** How many candidates the dry run looks for among `numNodes` potential nodes (calculateNumCandidates). */
export function numCandidates(numNodes: number, args: PreemptionArgs): number {
  let n = Math.trunc((numNodes * args.minCandidateNodesPercentage) / 100);
  if (n < args.minCandidateNodesAbsolute) n = args.minCandidateNodesAbsolute;
  if (n > numNodes) n = numNodes;
  return n;
}

/** GetEarliestPodStartTime: the earliest start among the victims that share the highest priority. */
function earliestStartOfHighestPriority(pods: readonly Pod[]): number {
  let earliest = podStartTime(pods[0]!);
  let maxPriority = pods[0]!.priority;
  for (const p of pods) {
    if (p.priority === maxPriority) {
      if (podStartTime(p) < earliest) earliest = podStartTime(p);
    } else if (p.priority > maxPriority) {
      maxPriority = p.priority;
      earliest = podStartTime(p);
    }
  }
  return earliest;
}

const PRIORITY_OFFSET = 2 ** 31;

/**
 * Criteria applied in turn, each keeping only the best-scoring nodes, until one
 * node is left: fewest PDB violations; lowest highest-victim priority; smallest
 * sum of victim priorities (each shifted by 2^31 so negative priorities still
 * add cost); fewest victims; latest start among the highest-priority victims.
 */
const SCORE_FUNCS: readonly ((v: Victims) => number)[] = [
  (v) => -v.numPDBViolations,
  (v) => -v.pods[0]!.priority,
  (v) => -v.pods.reduce((sum, p) => sum + p.priority + PRIORITY_OFFSET, 0),
  (v) => -v.pods.length,
  (v) => (v.pods.length === 0 ? -Infinity : earliestStartOfHighestPriority(v.pods)),
];

/**
 * pickOneNodeForPreemption. Remaining ties go to the first node in candidate
 * order (upstream iterates a Go map here, so its "first" is arbitrary).
 */
export function pickOneNodeForPreemption(candidates: readonly Candidate[]): string {
  if (candidates.length === 0) return '';
  let remaining = candidates;
  for (const score of SCORE_FUNCS) {
    let best = -Infinity;
    let selected: Candidate[] = [];
    for (const c of remaining) {
      const s = score(c.victims);
      if (s > best) {
        best = s;
        selected = [];
      }
      if (s === best) selected.push(c);
    }
    if (selected.length === 1) return selected[0]!.name;
    remaining = selected;
  }
  return remaining[0]!.name;
}

/** Pods nominated to `nodeName` with lower priority than `priority`: upstream clears their nomination after preempting. */
export function lowerPriorityNominatedPods(handle: Handle, priority: number, nodeName: string): Pod[] {
  return handle.nominatedPodsForNode(nodeName).filter((p) => p.priority < priority);
}

/** utilerrors.NewAggregate(errs).Error(): one message as is, several deduplicated inside brackets. */
function aggregateMessage(messages: readonly string[]): string {
  if (messages.length === 1) return messages[0]!;
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export interface VictimSelection {
  readonly victims: Pod[];
  readonly numPDBViolations: number;
  readonly status: Status;
}

export interface DryRunResult {
  /** Candidates that violate no PDB first, then the others, each in the order found. */
  readonly candidates: Candidate[];
  readonly nodeStatuses: NodeToStatus;
  readonly errors: string[];
}

export interface PreemptionOutcome {
  readonly result?: PostFilterResult;
  readonly status: Status;
}

export class Evaluator {
  constructor(
    readonly handle: Handle,
    readonly args: PreemptionArgs,
  ) {}

  /**
   * Evaluator.Preempt without the actuation: status messages are upstream's,
   * before the plugin prefixes them with "preemption: ".
   */
  preempt(state: CycleState, pod: Pod, m: NodeToStatus): PreemptionOutcome {
    const nominatedNodeName = this.nominatedNodeName(pod);
    // Without a nomination the status is not read: looking it up would build the statuses' map.
    const eligibility = this.podEligibleToPreemptOthers(pod, nominatedNodeName, nominatedNodeName === '' ? m.absentNodesStatus : m.get(nominatedNodeName));
    if (!eligibility.eligible) return { status: Status.unschedulable(eligibility.reason) };

    const allNodes = this.handle.cluster.nodeInfos();
    const found = this.findCandidates(state, allNodes, pod, m);
    if (found.errors.length > 0 && found.candidates.length === 0) return { status: Status.error(aggregateMessage(found.errors)) };

    if (found.candidates.length === 0) {
      found.nodeStatuses.absentNodesStatus = Status.unresolvable(ERR_NOT_HELPFUL);
      const message = fitErrorMessage(allNodes.length, {
        nodeToStatus: found.nodeStatuses,
        unschedulablePlugins: new Set(),
        pendingPlugins: new Set(),
        preFilterMsg: '',
        postFilterMsg: '',
      });
      // An empty nomination tells the caller to clear any the pod had.
      return { result: { nominatedNodeName: '', victims: [] }, status: Status.unschedulable(message) };
    }

    const best = this.selectCandidate(found.candidates);
    if (!best || best.name === '') return { status: Status.unschedulable(ERR_NO_CANDIDATE) };
    return {
      result: { nominatedNodeName: best.name, victims: best.victims.pods },
      status: new Status(Code.Success, [`found a potential placement for pod on node ${best.name}, preempting ${best.victims.pods.length} victims`]),
    };
  }

  /**
   * status.nominatedNodeName. berth's scheduler may keep a nomination only in its
   * nominator (the API object is not rewritten), so that is consulted too.
   */
  nominatedNodeName(pod: Pod): string {
    if (pod.nominatedNodeName) return pod.nominatedNodeName;
    // Asked for every pod the dry run considers: no closure per node.
    for (const info of this.handle.cluster.nodeInfos()) {
      const nominated = this.handle.nominatedPodsForNode(info.node.name);
      for (let i = 0; i < nominated.length; i++) if (nominated[i]!.uid === pod.uid) return info.node.name;
    }
    return '';
  }

  /**
   * A pod may preempt unless its policy is Never, or it already preempted on its
   * nominated node and a lower-priority victim there is still terminating (then it
   * waits rather than evicting more). A nominated node that filters rejected as
   * unresolvable no longer holds it back.
   */
  podEligibleToPreemptOthers(pod: Pod, nominatedNodeName: string, nominatedNodeStatus: Status): { eligible: boolean; reason: string } {
    if (pod.preemptionPolicy === 'Never') return { eligible: false, reason: ERR_PREEMPTION_POLICY_NEVER };
    if (nominatedNodeName !== '') {
      if (nominatedNodeStatus.code === Code.UnschedulableAndUnresolvable) return { eligible: true, reason: '' };
      const info = this.handle.cluster.nodeInfo(nominatedNodeName);
      if (info?.pods.some((p) => p.priority < pod.priority && podTerminatingByPreemption(p))) {
        return { eligible: false, reason: ERR_TERMINATING_ON_NOMINATED_NODE };
      }
    }
    return { eligible: true, reason: '' };
  }

  /** Only nodes rejected as Unschedulable can be helped by evicting pods; unresolvable ones are skipped. */
  findCandidates(state: CycleState, allNodes: readonly NodeInfo[], pod: Pod, m: NodeToStatus): DryRunResult {
    if (allNodes.length === 0) return { candidates: [], nodeStatuses: new NodeToStatus(), errors: ['no nodes available'] };
    const potentialNodes = m.nodesWithCode(allNodes, Code.Unschedulable);
    if (potentialNodes.length === 0) return { candidates: [], nodeStatuses: new NodeToStatus(), errors: [] };
    // Read when a node first has victims to choose: a dry run where none has any (every pod of one priority) needs no budgets.
    let budgets: PdbBudget[] | undefined;
    const lazyBudgets = () => (budgets ??= pdbBudgets(this.handle.cluster));
    const offset = this.handle.rand.intn(potentialNodes.length);
    return this.dryRunPreemption(state, pod, potentialNodes, lazyBudgets, offset, numCandidates(potentialNodes.length, this.args));
  }

  /**
   * Tries nodes from `offset` round the list, until at least one candidate
   * violates no PDB and `candidatesNum` candidates are found (each kind is capped
   * at `candidatesNum`, extra ones are dropped), or every node was tried.
   */
  dryRunPreemption(state: CycleState, pod: Pod, potentialNodes: readonly NodeInfo[], budgets: () => readonly PdbBudget[], offset: number, candidatesNum: number): DryRunResult {
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    const nodeStatuses = new NodeToStatus();
    const errors: string[] = [];
    for (let i = 0; i < potentialNodes.length; i++) {
      const nodeInfo = potentialNodes[(offset + i) % potentialNodes.length]!;
      const name = nodeInfo.node.name;
      // No lower-priority pod: selectVictimsOnNode's first answer, without copying the state and node for it
      // (most nodes, most attempts, when every pod has the same priority).
      if (!hasLowerPriorityPod(nodeInfo, pod)) {
        nodeStatuses.add(name, NO_VICTIMS);
        continue;
      }
      const { victims, numPDBViolations, status } = this.selectVictimsOnNode(state.clone(), pod, nodeInfo.clone(), budgets());
      if (status.isSuccess() && victims.length > 0) {
        const list = numPDBViolations === 0 ? nonViolating : violating;
        if (list.length < candidatesNum) list.push({ name, victims: { pods: victims, numPDBViolations } });
        if (nonViolating.length > 0 && nonViolating.length + violating.length >= candidatesNum) break;
        continue;
      }
      const failure = status.isSuccess() ? Status.error(`expected at least one victim pod on node ${JSON.stringify(name)}`) : status;
      if (failure.code === Code.Error) errors.push(failure.message());
      nodeStatuses.add(name, failure);
    }
    return { candidates: [...nonViolating, ...violating], nodeStatuses, errors };
  }

  /**
   * The fewest pods to evict from `nodeInfo` (a copy this may change, with its own
   * `state`) for `preemptor` to fit: remove every lower-priority pod, check the
   * preemptor fits, then add pods back, most important first and PDB-protected
   * ones before the rest, keeping each that still lets the preemptor fit.
   * Inter-pod affinity of the preemptor to a victim is deliberately not honoured.
   */
  selectVictimsOnNode(state: CycleState, preemptor: Pod, nodeInfo: NodeInfo, budgets: readonly PdbBudget[]): VictimSelection {
    const fail = (status: Status): VictimSelection => ({ victims: [], numPDBViolations: 0, status });
    if (!hasLowerPriorityPod(nodeInfo, preemptor)) return fail(Status.unresolvable(ERR_NO_VICTIMS));
    const potential = nodeInfo.pods.filter((p) => p.priority < preemptor.priority);

    const remove = (p: Pod): Status => {
      nodeInfo.removePod(p);
      return this.handle.runPreFilterExtensionRemovePod(state, preemptor, p, nodeInfo);
    };
    const add = (p: Pod): Status => {
      nodeInfo.addPod(p);
      return this.handle.runPreFilterExtensionAddPod(state, preemptor, p, nodeInfo);
    };

    for (const p of potential) {
      const s = remove(p);
      if (!s.isSuccess()) return fail(Status.error(s.message()));
    }
    const fits = this.filterWithNominatedPods(state, preemptor, nodeInfo);
    if (!fits.isSuccess()) return fail(fits);

    goSortSlice(potential, moreImportantPod);
    const { violating, nonViolating } = splitByPdbViolation(potential, budgets);
    const victims: Pod[] = [];
    // Returns whether p could stay, or the failing status of an extension.
    const reprieve = (p: Pod): boolean | Status => {
      const added = add(p);
      if (!added.isSuccess()) return Status.error(added.message());
      if (this.filterWithNominatedPods(state, preemptor, nodeInfo).isSuccess()) return true;
      const removed = remove(p);
      if (!removed.isSuccess()) return Status.error(removed.message());
      victims.push(p);
      return false;
    };

    let numPDBViolations = 0;
    for (const p of violating) {
      const r = reprieve(p);
      if (r instanceof Status) return fail(r);
      if (!r) numPDBViolations++;
    }
    for (const p of nonViolating) {
      const r = reprieve(p);
      if (r instanceof Status) return fail(r);
    }
    // Victims were collected in two runs; restore a single importance order.
    if (violating.length > 0 && nonViolating.length > 0) goSortSlice(victims, moreImportantPod);
    return { victims, numPDBViolations, status: Status.SUCCESS };
  }

  /**
   * The Filter verdict during a dry run. A plugin's internal error (e.g. NodeVolumeLimits
   * on an ephemeral claim another pod owns) is a status here, as upstream's
   * RunFilterPlugins returns it: the node is no candidate and the error is collected,
   * where the scheduling cycle's own Filter pass aborts on it.
   */
  private filterWithNominatedPods(state: CycleState, preemptor: Pod, nodeInfo: NodeInfo): Status {
    try {
      return this.handle.runFilterPluginsWithNominatedPods(state, preemptor, nodeInfo);
    } catch (e) {
      if (e instanceof SchedulerError) return Status.error(e.message);
      throw e;
    }
  }

  selectCandidate(candidates: readonly Candidate[]): Candidate | undefined {
    if (candidates.length <= 1) return candidates[0];
    const name = pickOneNodeForPreemption(candidates);
    return candidates.find((c) => c.name === name) ?? candidates[0];
  }
}
