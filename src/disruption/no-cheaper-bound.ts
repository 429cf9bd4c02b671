// A cheap proof that consolidating a set of candidates finds nothing, without its
// scheduling simulation. Some of the candidates' pods must go to new claims: a pod
// too big for every node the simulation may put it on, or, per resource and size, more
// pods of at least that size than those nodes can hold (placing pods only fills nodes
// further). With those pods on a claim, a delete is impossible and a replace needs one
// claim whose instance types can all hold them; if none of those types is offered
// below the candidates' price, no option passes the price filter (worstLaunchPrice <
// their price), so every outcome is a refusal. Only a refusal's wording (single-node
// consolidation publishes it) still needs the simulation.

import { addInto, type ResourceList } from '../model/resources.js';
import type { NodeInfo } from '../cluster/node-info.js';
import type { Pod } from '../model/pod.js';
import { fits, usableOfferings } from '../provisioner/nodeclaim.js';
import { cachedPoolTemplate } from '../provisioner/plan.js';
import { isUnderConsolidateAfter, type Candidate } from './candidates.js';
import type { ConsolidationInput } from './consolidate.js';

/** The resources every NodeResourcesFit checks (never ignored by its arguments). */
const BOUNDED = ['cpu', 'memory', 'ephemeral-storage'] as const;

const free = (info: NodeInfo, r: string): number => (info.node.allocatable[r] ?? 0) - (info.requested[r] ?? 0);
const slots = (info: NodeInfo): number => (info.node.allocatable.pods ?? 0) - info.pods.length;

/** Whether the pod could fit on the node by pod count and the BOUNDED resources (what NodeResourcesFit checks, at least). */
function hasRoom(pod: Pod, info: NodeInfo): boolean {
  if (slots(info) < 1) return false;
  const req = pod.resources.requests;
  return BOUNDED.every((r) => (req[r] ?? 0) === 0 || (req[r] ?? 0) <= free(info, r));
}

/**
 * The nodes consolidation's simulation may leave a candidate's pods on: not the
 * candidates, not nodes being disrupted (gone from its copy), not nodes inside their
 * consolidateAfter (tainted there), and not nodes still initializing (a pod placed on
 * one refuses the decision, so an outcome that uses one is a refusal already).
 */
function destinations(input: ConsolidationInput, candidates: readonly Candidate[]): NodeInfo[] {
  const leaving = new Set(candidates.map((c) => c.node.name));
  const o = { ...(input.lastPodEventMs && { lastPodEventMs: input.lastPodEventMs }), ...(input.uninitialized && { uninitialized: input.uninitialized }) };
  return input.cluster.nodeInfos().filter((info) => {
    const name = info.node.name;
    return !leaving.has(name) && !input.disrupting?.has(name) && !input.initializing?.has(name) && !isUnderConsolidateAfter(info.node, input.pools, input.nowMs, o);
  });
}

/**
 * A lower bound on what the pods that go to new claims request together (per BOUNDED
 * resource, and their number), or undefined when all might stay on `nodes`. Every pod
 * with no room on any node goes; and for each resource and each size t a pod requests,
 * the pods requesting at least t can only sit on nodes with t free: at most
 * floor(free / t) of them per node (and its free pod slots), at most the nodes' free
 * amount in all. What exceeds that goes to claims.
 */
export function claimLowerBound(pods: readonly Pod[], nodes: readonly NodeInfo[]): { requests: ResourceList; pods: number } | undefined {
  const homeless = pods.filter((pod) => !nodes.some((info) => hasRoom(pod, info)));
  const requests: Record<string, number> = {};
  for (const pod of homeless) addInto(requests, pod.resources.requests);
  let count = Math.max(homeless.length, pods.length - nodes.reduce((s, info) => s + Math.max(0, slots(info)), 0));
  for (const r of BOUNDED) {
    for (const t of new Set(pods.map((p) => p.resources.requests[r] ?? 0))) {
      if (t <= 0) continue;
      const big = pods.filter((p) => (p.resources.requests[r] ?? 0) >= t);
      let fitting = 0, room = 0;
      for (const info of nodes) {
        const f = free(info, r);
        const s = slots(info);
        if (f < t || s < 1) continue;
        fitting += Math.min(Math.floor(f / t), s);
        room += f;
      }
      const over = big.length - fitting;
      count = Math.max(count, over);
      requests[r] = Math.max(requests[r] ?? 0, over * t, big.reduce((s, p) => s + (p.resources.requests[r] ?? 0), 0) - room);
    }
  }
  return count > 0 ? { requests, pods: count } : undefined;
}

/**
 * Whether computeConsolidation(candidates) is sure to refuse them (with replacements
 * allowed): some of their pods need a claim (claimLowerBound), and no instance type
 * that could hold that much is offered anywhere for less than the candidates cost
 * together (or some candidate's price is unknown, which refuses any replacement).
 */
export function surelyNoCheaper(input: ConsolidationInput, candidates: readonly Candidate[]): boolean {
  const { replacement } = input;
  if (!replacement) return false;
  const need = claimLowerBound(candidates.flatMap((c) => c.reschedulable), destinations(input, candidates));
  if (!need) return false;
  let price = 0;
  for (const c of candidates) {
    const p = input.pricePerHour(c.node);
    if (p === undefined) return true;
    price += p;
  }
  for (const pool of input.pools) {
    if (pool.replicas !== null) continue;
    const template = cachedPoolTemplate(pool, replacement.instanceTypes, replacement.daemonSetPods ?? []);
    for (const it of template.instanceTypes) {
      if (!fits(need.requests, need.pods, it)) continue;
      for (const o of usableOfferings(it, template.requirements)) if (o.price < price) return false;
    }
  }
  return true;
}
