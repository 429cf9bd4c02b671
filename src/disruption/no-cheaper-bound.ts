// A cheap proof that consolidating a set of candidates finds nothing, without its
// scheduling simulation. Some of the candidates' pods may have no room (cpu, memory,
// pod count) on any other node: the simulation can only put them on new claims, since
// placing pods only fills nodes further. With those pods on a claim, a delete is
// impossible and a replace needs one claim whose instance types can all hold them; if
// none of those types is offered below the candidates' price, no option passes the
// price filter (worstLaunchPrice < their price), so every outcome is a refusal. Only a
// refusal's wording (single-node consolidation publishes it) still needs the simulation.

import { addInto } from '../model/resources.js';
import type { NodeInfo } from '../cluster/node-info.js';
import type { Pod } from '../model/pod.js';
import { fits, usableOfferings } from '../provisioner/nodeclaim.js';
import { cachedPoolTemplate } from '../provisioner/plan.js';
import type { Candidate } from './candidates.js';
import type { ConsolidationInput } from './consolidate.js';

/** Whether the pod could fit on the node by cpu, memory and pod count (what NodeResourcesFit checks, at least). */
function hasRoom(pod: Pod, info: NodeInfo): boolean {
  const alloc = info.node.allocatable;
  if (info.pods.length + 1 > (alloc.pods ?? 0)) return false;
  const req = pod.resources.requests;
  const used = info.requested;
  const cpu = req.cpu ?? 0;
  const memory = req.memory ?? 0;
  return (cpu === 0 || cpu <= (alloc.cpu ?? 0) - (used.cpu ?? 0)) && (memory === 0 || memory <= (alloc.memory ?? 0) - (used.memory ?? 0));
}

/**
 * Whether computeConsolidation(candidates) is sure to refuse them (with replacements
 * allowed): their pods that fit on no other node need a claim, and no instance type
 * that could hold them is offered anywhere for less than the candidates cost together
 * (or some candidate's price is unknown, which refuses any replacement).
 */
export function surelyNoCheaper(input: ConsolidationInput, candidates: readonly Candidate[]): boolean {
  const { replacement } = input;
  if (!replacement) return false;
  const leaving = new Set(candidates.map((c) => c.node.name));
  const others = input.cluster.nodeInfos().filter((info) => !leaving.has(info.node.name));
  const homeless = candidates.flatMap((c) => c.reschedulable.filter((pod) => !others.some((info) => hasRoom(pod, info))));
  if (homeless.length === 0) return false;
  let price = 0;
  for (const c of candidates) {
    const p = input.pricePerHour(c.node);
    if (p === undefined) return true;
    price += p;
  }
  const requests: Record<string, number> = {};
  for (const pod of homeless) addInto(requests, pod.resources.requests);
  for (const pool of input.pools) {
    if (pool.replicas !== null) continue;
    const template = cachedPoolTemplate(pool, replacement.instanceTypes, replacement.daemonSetPods ?? []);
    for (const it of template.instanceTypes) {
      if (!fits(requests, homeless.length, it)) continue;
      for (const o of usableOfferings(it, template.requirements)) if (o.price < price) return false;
    }
  }
  return true;
}
