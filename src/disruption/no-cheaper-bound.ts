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
import { hasRoomFor } from '../scheduler/plugins/node-resources-fit.js';
import { cachedPoolTemplate } from '../provisioner/plan.js';
import { isUnderConsolidateAfter, type Candidate } from './candidates.js';
import type { ConsolidationInput } from './consolidate.js';

/** The resources NodeResourcesFit checks whatever its arguments (hasRoomFor). */
const BOUNDED = ['cpu', 'memory', 'ephemeral-storage'] as const;

/** A node pods may move to, with its free pod slots (at least one) and free amount of each BOUNDED resource. */
interface Room {
  readonly info: NodeInfo;
  readonly slots: number;
  readonly free: Readonly<Record<string, number>>;
}

/** The rooms of a cluster version's destinations, most free first per BOUNDED resource (by cpu, by memory...). */
interface Rooms {
  readonly version: number;
  readonly by: Readonly<Record<string, readonly Room[]>>;
}

/** Worked out once per input: a pass asks for every candidate, with the same cluster and node sets. */
const roomsOf = new WeakMap<ConsolidationInput, Rooms>();

/**
 * The nodes consolidation's simulation may leave a candidate's pods on (the candidates
 * aside): not nodes being disrupted (gone from its copy), not nodes inside their
 * consolidateAfter (tainted there), not nodes still initializing (a pod placed on one
 * refuses the decision, so an outcome that uses one is a refusal already), and only
 * with a free pod slot.
 */
function destinations(input: ConsolidationInput): Rooms {
  const kept = roomsOf.get(input);
  if (kept?.version === input.cluster.version) return kept;
  const o = { ...(input.lastPodEventMs && { lastPodEventMs: input.lastPodEventMs }), ...(input.uninitialized && { uninitialized: input.uninitialized }) };
  const rooms: Room[] = [];
  for (const info of input.cluster.nodeInfos()) {
    const name = info.node.name;
    const slots = (info.node.allocatable.pods ?? 0) - info.pods.length;
    if (slots < 1 || input.disrupting?.has(name) || input.initializing?.has(name) || isUnderConsolidateAfter(info.node, input.pools, input.nowMs, o)) continue;
    rooms.push({ info, slots, free: Object.fromEntries(BOUNDED.map((r) => [r, (info.node.allocatable[r] ?? 0) - (info.requested[r] ?? 0)])) });
  }
  const by = Object.fromEntries(BOUNDED.map((r) => [r, [...rooms].sort((a, b) => b.free[r]! - a.free[r]!)]));
  const fresh = { version: input.cluster.version, by };
  roomsOf.set(input, fresh);
  return fresh;
}

/**
 * A lower bound on what the pods that go to new claims request together (per BOUNDED
 * resource, and their number), or undefined when all might stay on the rooms of nodes
 * not `leaving`. Every pod with no room on any such node goes; and for each resource
 * and each size t a pod requests, the pods requesting at least t can only sit on nodes
 * with t free: at most floor(free / t) of them per node (and its free pod slots), at
 * most the nodes' free amount in all. What exceeds that goes to claims.
 */
function claimLowerBound(pods: readonly Pod[], rooms: Rooms, leaving: ReadonlySet<string>): { requests: ResourceList; pods: number } | undefined {
  const open = (room: Room) => !leaving.has(room.info.node.name);
  const byCpu = rooms.by.cpu!;
  const homeless = pods.filter((pod) => {
    const cpu = pod.resources.requests.cpu ?? 0;
    for (const room of byCpu) {
      if (room.free.cpu! < cpu) return true; // most free cpu first: none further has room
      if (open(room) && hasRoomFor(pod, room.info)) return false;
    }
    return true;
  });
  const requests: Record<string, number> = {};
  for (const pod of homeless) addInto(requests, pod.resources.requests);
  let count = homeless.length;
  for (const r of BOUNDED) {
    for (const t of new Set(pods.map((p) => p.resources.requests[r] ?? 0))) {
      if (t <= 0) continue;
      let big = 0, bigSum = 0;
      for (const p of pods) {
        const v = p.resources.requests[r] ?? 0;
        if (v < t) continue;
        big++;
        bigSum += v;
      }
      let fitting = 0, free = 0;
      for (const room of rooms.by[r]!) {
        const f = room.free[r]!;
        if (f < t) break;
        if (!open(room)) continue;
        fitting += Math.min(Math.floor(f / t), room.slots);
        free += f;
      }
      count = Math.max(count, big - fitting);
      requests[r] = Math.max(requests[r] ?? 0, (big - fitting) * t, bigSum - free);
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
  const need = claimLowerBound(candidates.flatMap((c) => c.reschedulable), destinations(input), new Set(candidates.map((c) => c.node.name)));
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
