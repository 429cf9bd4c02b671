// The CSINode the EBS CSI driver's node plugin registers when a launched node joins
// a cluster that runs the driver (some CSINode already lists ebs.csi.aws.com): the
// instance type's attach limit as allocatable count (catalog/ebs-limits.ts), the
// topology keys the other nodes' plugin reports, and the node labels the kubelet
// sets from them (the zone under each key). Without such evidence nothing is added:
// berth then treats every node as running the driver with no limit, as before.

import type { VolumeStore } from '../cluster/volumes.js';
import type { Node } from '../model/node.js';
import type { Labels } from '../model/selector.js';
import type { CSINode } from '../model/volumes.js';
import { EBS_CSI_DRIVER } from '../provisioner/catalog/ebs-limits.js';
import { LABEL_ZONE, type InstanceType } from '../provisioner/catalog/types.js';

export function ebsCsiNode(store: VolumeStore, node: Node, it: InstanceType): { csiNode: CSINode; labels: Labels } | undefined {
  const template = store.csiNodeWithDriver(EBS_CSI_DRIVER);
  const driver = template?.drivers.find((d) => d.name === EBS_CSI_DRIVER);
  if (!template || !driver || it.ebsVolumeLimit === undefined) return undefined;
  const zone = node.labels[LABEL_ZONE];
  const labels: Record<string, string> = {};
  if (zone !== undefined) for (const key of driver.topologyKeys) if (key.endsWith('/zone')) labels[key] = zone;
  return {
    csiNode: { name: node.name, drivers: [{ name: EBS_CSI_DRIVER, nodeID: node.name, topologyKeys: driver.topologyKeys, allocatableCount: it.ebsVolumeLimit }], migratedPlugins: template.migratedPlugins },
    labels,
  };
}
