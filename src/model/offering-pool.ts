// What the cloud takes away together: a spot interruption wave reclaims instances of
// one type in one zone, and an insufficient-capacity fault hits one type in one zone.
// Read off a node's labels as the provider sets them.

import { LABEL_INSTANCE_TYPE, LABEL_ZONE } from './node.js';
import { LABEL_CAPACITY_TYPE } from './nodepool.js';
import type { Labels } from './selector.js';

/** "m5.large/us-west-2a": the node's instance type in its zone; undefined without both labels. */
export function offeringPoolOf(labels: Labels): string | undefined {
  const type = labels[LABEL_INSTANCE_TYPE];
  const zone = labels[LABEL_ZONE];
  return type !== undefined && zone !== undefined ? `${type}/${zone}` : undefined;
}

/** The capacity type a node's provider labels say it has (Karpenter, EKS managed node groups, GKE). */
export function capacityTypeOf(labels: Labels): string | undefined {
  if (labels[LABEL_CAPACITY_TYPE] !== undefined) return labels[LABEL_CAPACITY_TYPE];
  if (labels['eks.amazonaws.com/capacityType'] !== undefined) return labels['eks.amazonaws.com/capacityType'].toLowerCase().replace('_', '-');
  if (labels['cloud.google.com/gke-spot'] === 'true' || labels['cloud.google.com/gke-preemptible'] === 'true') return 'spot';
  return undefined;
}
