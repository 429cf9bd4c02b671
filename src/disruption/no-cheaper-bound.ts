// A cheap proof that single-node consolidation of a candidate finds nothing, without
// its scheduling simulation. Some of the candidate's pods may have no room (cpu,
// memory, pod count) on any other node: the simulation can only put them on new
// claims, since placing pods only fills nodes further. With those pods on a claim,
// a delete is impossible and a replace needs one claim whose instance types can all
// hold them; if none of those types is offered below the candidate's price, no
// option passes the price filter (worstLaunchPrice < candidate price), so every
// outcome is a refusal. Only the refusal's wording still needs the simulation.

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
 * Whether computeConsolidation([c]) is sure to refuse `c` (with replacements allowed):
 * its pods that fit on no other node need a claim, and no instance type that could
 * hold them is offered anywhere for less than the candidate costs.
 */
export function surelyNoCheaper(input: ConsolidationInput, c: Candidate): boolean {
  const { replacement } = input;
  const price = input.pricePerHour(c.node);
  if (!replacement || price === undefined) return false;
  const others = input.cluster.nodeInfos().filter((info) => info.node.name !== c.node.name);
  const homeless = c.reschedulable.filter((pod) => !others.some((info) => hasRoom(pod, info)));
  if (homeless.length === 0) return false;
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
