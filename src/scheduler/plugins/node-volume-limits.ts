// NodeVolumeLimits (CSILimits): a node attaches at most CSINode's
// allocatable.count volumes per CSI driver. Volumes are counted once each, by
// driver and handle: bound claims by their PV, unbound ones by the class's
// provisioner (a placeholder handle per claim), in-tree EBS/GCE PD volumes and
// claims as their CSI driver's where the node has a CSINode, plus
// VolumeAttachments on the node that no pod there accounts for. With the
// VolumeLimitScaling gate (on in v1.37.2) a driver whose CSIDriver sets
// preventPodSchedulingIfMissing must be installed on the node; with it off
// such a driver's volumes count like any other's.

import type { CSINode, PersistentVolumeClaim } from '../../model/volumes.js';
import { ephemeralClaimOwnerError, inTreePluginByProvisioner, inTreePluginOf, translatedVolumeHandle, translateInTreePV } from '../../model/volumes.js';
import type { Pod } from '../../model/pod.js';
import type { FilterPlugin, Handle, PreFilterPlugin } from '../framework.js';
import type { PluginFactory } from '../registry.js';
import { Status } from '../status.js';
import { featureEnabled } from '../feature-gates.js';
import { claimNotFound } from './volume-lookups.js';

export const NODE_VOLUME_LIMITS = 'NodeVolumeLimits';
export const ERR_REASON_MAX_VOLUME_COUNT = 'node(s) exceed max volume count';
/** Stands in for the random prefix upstream gives handles of claims not yet bound (only uniqueness matters). */
const UNBOUND_HANDLE_PREFIX = 'unbound';

class LookupError extends Error {}

/** volume unique name (driver/handle) → driver, in the order found. */
type Attachable = Map<string, string>;

function csiDriverInfo(handle: Handle, csiNode: CSINode | undefined, pvc: PersistentVolumeClaim): [string, string] | undefined {
  const store = handle.cluster.volumes;
  const fromClass = (): [string, string] | undefined => {
    if (pvc.storageClassName === '') return undefined;
    const sc = store.storageClass(pvc.storageClassName);
    if (!sc) return undefined;
    const placeholder = `${UNBOUND_HANDLE_PREFIX}-${pvc.namespace}/${pvc.name}`;
    const inTree = inTreePluginByProvisioner(sc.provisioner);
    if (inTree) return csiNode ? [inTree.driver, placeholder] : undefined;
    return [sc.provisioner, placeholder];
  };
  if (pvc.volumeName === '') return fromClass();
  const pv = store.persistentVolume(pvc.volumeName);
  if (!pv) return fromClass();
  if (pv.source.kind === 'csi') return [pv.source.driver, pv.source.volumeHandle];
  if (!inTreePluginOf(pv.source) || !csiNode) return undefined;
  const csi = translateInTreePV(pv).source;
  return csi.kind === 'csi' ? [csi.driver, csi.volumeHandle] : undefined;
}

/** filterAttachableVolumes: adds the pod's attachable volumes to `out`; for the pod being placed a missing claim is an error. */
function attachableVolumes(handle: Handle, pod: Pod, csiNode: CSINode | undefined, newPod: boolean, out: Attachable): void {
  const store = handle.cluster.volumes;
  for (const v of pod.volumes ?? []) {
    if (v.kind === 'inline') {
      // Inline in-tree disks count as their CSI driver's once the node has a CSINode.
      const plugin = inTreePluginOf(v.source);
      if (!plugin || !csiNode) continue;
      const volumeHandle = translatedVolumeHandle(v.source);
      if (volumeHandle !== '') out.set(`${plugin.driver}/${volumeHandle}`, plugin.driver);
      continue;
    }
    const pvc = store.claim(pod.namespace, v.claimName);
    if (!pvc) {
      if (newPod) throw new LookupError(`looking up PVC ${pod.namespace}/${v.claimName}: ${claimNotFound(v.claimName)}`);
      continue;
    }
    if (v.ephemeral) {
      const err = ephemeralClaimOwnerError(pod, pvc);
      if (err) throw new Error(err);
    }
    const info = csiDriverInfo(handle, csiNode, pvc);
    if (!info || info[0] === '' || info[1] === '') continue;
    out.set(`${info[0]}/${info[1]}`, info[0]);
  }
}

/** checkCSIDriverOnNode: a driver that asks for it must be on the node's CSINode. */
function driverInstalled(handle: Handle, driverName: string, csiNode: CSINode | undefined): boolean {
  const driver = handle.cluster.volumes.csiDriver(driverName);
  if (!driver || !driver.preventPodSchedulingIfMissing) return true;
  return csiNode !== undefined && csiNode.drivers.some((d) => d.name === driverName);
}

export const newNodeVolumeLimits: PluginFactory = ({ handle, features }): PreFilterPlugin & FilterPlugin => {
  const checkDriverInstalled = featureEnabled(features, 'VolumeLimitScaling');
  return {
    name: NODE_VOLUME_LIMITS,

    preFilter: (_state, pod) => ({
      status: (pod.volumes ?? []).some((v) => v.kind === 'claim' || inTreePluginOf(v.source) !== undefined) ? Status.SUCCESS : Status.SKIP,
    }),

    filter(_state, pod, nodeInfo) {
      if (!pod.volumes) return Status.SUCCESS;
      const store = handle.cluster.volumes;
      const nodeName = nodeInfo.node.name;
      const csiNode = store.csiNode(nodeName);
      const newVolumes: Attachable = new Map();
      try {
        attachableVolumes(handle, pod, csiNode, true, newVolumes);
      } catch (e) {
        if (e instanceof LookupError) return Status.unresolvable(e.message);
        return Status.error((e as Error).message);
      }
      if (newVolumes.size === 0) return Status.SUCCESS;
      for (const driver of newVolumes.values()) {
        if (checkDriverInstalled && !driverInstalled(handle, driver, csiNode)) return Status.unschedulable(`${driver} CSI driver is not installed on the node`);
      }
      const limits = new Map<string, number>();
      for (const d of csiNode?.drivers ?? []) if (d.allocatableCount !== undefined) limits.set(d.name, d.allocatableCount);
      if (limits.size === 0) return Status.SUCCESS;

      const attached: Attachable = new Map();
      try {
        for (const p of nodeInfo.pods) attachableVolumes(handle, p, csiNode, false, attached);
      } catch (e) {
        return Status.error((e as Error).message);
      }
      const attachedCount = new Map<string, number>();
      for (const [id, driver] of attached) {
        newVolumes.delete(id);
        attachedCount.set(driver, (attachedCount.get(driver) ?? 0) + 1);
      }
      // VolumeAttachments of volumes no pod on the node accounts for still take a slot (one per volume).
      const attachments: Attachable = new Map();
      for (const va of store.attachmentsOn(nodeName)) {
        if (va.attacher === '' || va.persistentVolumeName === '') continue;
        const pv = store.persistentVolume(va.persistentVolumeName);
        if (pv?.source.kind === 'csi') attachments.set(`${va.attacher}/${pv.source.volumeHandle}`, va.attacher);
      }
      for (const [id, driver] of attachments) if (!attached.has(id)) attachedCount.set(driver, (attachedCount.get(driver) ?? 0) + 1);
      const newCount = new Map<string, number>();
      for (const driver of newVolumes.values()) newCount.set(driver, (newCount.get(driver) ?? 0) + 1);
      for (const [driver, count] of newCount) {
        const limit = limits.get(driver);
        if (limit !== undefined && (attachedCount.get(driver) ?? 0) + count > limit) return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT);
      }
      return Status.SUCCESS;
    },
  };
};
