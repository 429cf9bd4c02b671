// Consolidation answers kept from one disruption pass to the next. Karpenter computes
// every candidate again at each pass; berth, being deterministic, may reuse an answer
// as long as nothing the computation reads has changed: the nodes and the pods bound
// to them (pending pods are set aside by the simulation when replacements are
// allowed), the nodes being disrupted, not initialized, or inside consolidateAfter,
// the policy and storage objects the scheduler reads, and the NodePools, instance
// types and DaemonSet pods replacements are planned from. The answer is then the same
// by construction, so decisions and their timing are Karpenter's as before.

import type { ClusterState } from '../cluster/state.js';
import { isUnderConsolidateAfter, type Candidate } from './candidates.js';
import type { ConsolidationInput } from './consolidate.js';

const sameElements = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export class ConsolidationMemo {
  private readonly answers = new Map<string, unknown>();
  /** What the kept answers were computed against: compared by identity. */
  private refs: readonly unknown[] = [];
  private state = '';
  /** The state key of the input last seen (a pass asks many times with the same input). */
  private lastInput: ConsolidationInput | undefined;

  /** The answer of the computation named `what` for `candidates`: the kept one when nothing it read has changed, otherwise `compute`'s, kept. */
  answer<T>(input: ConsolidationInput, candidates: readonly Candidate[], what: string, compute: () => T): T {
    this.refresh(input);
    const key = `${what}\n${candidates.map((c) => `${c.node.name}:${c.reschedulable.map((p) => p.key).join(',')}`).join('\n')}`;
    if (this.answers.has(key)) return this.answers.get(key) as T;
    const fresh = compute();
    this.answers.set(key, fresh);
    return fresh;
  }

  /** Drops the kept answers when something they read changed since they were computed. */
  private refresh(input: ConsolidationInput): void {
    if (input === this.lastInput) return;
    this.lastInput = input;
    const { cluster } = input;
    const refs = [cluster, ...input.pools, '|', input.scheduler, input.pricePerHour, input.replacement?.spotToSpot, ...objectRefs(cluster), ...(input.replacement?.instanceTypes ?? []), '|', ...(input.replacement?.daemonSetPods ?? [])];
    const state = stateKey(input);
    if (state === this.state && sameElements(refs, this.refs)) return;
    this.answers.clear();
    this.refs = refs;
    this.state = state;
  }
}

/** The scheduler's policy and storage objects (PDBs, owners PodTopologySpread defaults from, volumes). */
function objectRefs(cluster: ClusterState): unknown[] {
  return [...cluster.pdbs, '|', ...cluster.services, '|', ...cluster.replicationControllers, '|', ...cluster.replicaSets, '|', ...cluster.statefulSets, '|', cluster.volumes, cluster.volumes.version, cluster.namespaces.size];
}

/** The cluster's versions and the node sets the simulation treats apart (disrupting, uninitialized, initializing, inside consolidateAfter). */
function stateKey(input: ConsolidationInput): string {
  const { cluster } = input;
  const o = { ...(input.lastPodEventMs && { lastPodEventMs: input.lastPodEventMs }), ...(input.uninitialized && { uninitialized: input.uninitialized }) };
  const closed = cluster.nodeInfos().filter((i) => isUnderConsolidateAfter(i.node, input.pools, input.nowMs, o)).map((i) => i.node.name);
  // Without replacements the simulation schedules the pending pods too.
  const version = input.replacement ? `b${cluster.boundVersion}` : `v${cluster.version}`;
  const sorted = (set: ReadonlySet<string> | undefined) => [...(set ?? [])].sort().join(',');
  return [version, sorted(input.disrupting), sorted(input.uninitialized), sorted(input.initializing), closed.join(',')].join('\n');
}
