// The Node a launched NodeClaim registers as: the instance type's labels, the
// NodePool's template labels and single-valued requirements, the offering's zone
// and capacity type, karpenter.sh/nodepool and the hostname; allocatable and
// capacity from the instance type; the NodePool's taints and startup taints.

import type { Node } from '../model/node.js';
import type { NodePool } from '../model/nodepool.js';
import type { Labels } from '../model/selector.js';
import { LABEL_CAPACITY_TYPE, LABEL_ZONE, type InstanceType, type Offering } from './catalog/types.js';
import { LABEL_HOSTNAME, LABEL_NODEPOOL } from './labels.js';
import { Requirements } from './requirements.js';

export function launchedNodeLabels(pool: NodePool, it: InstanceType, offering: Pick<Offering, 'zone' | 'capacityType'>, name: string): Labels {
  return offeringNodeLabels({ ...Requirements.fromNodeSelectorRequirements(pool.requirements).singleValueLabels(), ...pool.labels }, pool.name, it, offering, name);
}

/** A node's labels from its pool's (single-valued requirements and template labels), its instance type and its offering. */
export function offeringNodeLabels(poolLabels: Labels, poolName: string, it: InstanceType, offering: Pick<Offering, 'zone' | 'capacityType'>, name: string): Labels {
  return {
    ...poolLabels,
    ...it.labels,
    [LABEL_ZONE]: offering.zone,
    [LABEL_CAPACITY_TYPE]: offering.capacityType,
    [LABEL_NODEPOOL]: poolName,
    [LABEL_HOSTNAME]: name,
  };
}

export function launchedNode(name: string, pool: NodePool, it: InstanceType, offering: Pick<Offering, 'zone' | 'capacityType'>, creation: number): Node {
  return {
    name,
    uid: `node-${name}`,
    labels: launchedNodeLabels(pool, it, offering, name),
    annotations: {},
    taints: [...pool.taints, ...pool.startupTaints],
    unschedulable: false,
    allocatable: it.allocatable,
    capacity: it.capacity,
    images: [],
    creation,
  };
}
