// What a node costs per hour, read from the instance catalog by the labels Karpenter
// puts on the nodes it launches (instance type, zone, capacity type).

import type { Node } from '../model/node.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE, type InstanceType } from '../provisioner/catalog/types.js';

/**
 * $/h of a node from its offering in the catalog; undefined when the catalog has no such
 * offering, or the node lacks the zone or capacity-type label naming it (Karpenter prices
 * such a node at 0 and ranks it last).
 */
export function catalogPrices(types: readonly InstanceType[]): (node: Node) => number | undefined {
  const byName = new Map(types.map((it) => [it.name, it]));
  return (node) => {
    const it = byName.get(node.labels[LABEL_INSTANCE_TYPE] ?? '');
    const zone = node.labels[LABEL_ZONE];
    const capacityType = node.labels[LABEL_CAPACITY_TYPE];
    return it?.offerings.find((o) => o.zone === zone && o.capacityType === capacityType)?.price;
  };
}
