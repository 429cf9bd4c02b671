// zod schemas for the storage kinds (core/v1 PersistentVolume and
// PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, CSINode, CSIDriver,
// CSIStorageCapacity, VolumeAttachment). Shapes only: model/volumes.ts compiles
// and validates the values, as the API server does.

import { z } from 'zod';
import type {
  CSIDriverManifest,
  CSINodeManifest,
  CSIStorageCapacityManifest,
  PersistentVolumeClaimManifest,
  PersistentVolumeManifest,
  StorageClassManifest,
  VolumeAttachmentManifest,
} from '../model/volumes.js';
import { claimSpec, diskSources, int, labelSelector, metadata, nodeSelectorTerm, quantity, quantityMap, strList, strMap } from './schemas.js';

const str = z.string();
const bool = z.boolean();

/** PersistentVolumeSource fields berth does not read, but which count as the volume's one source. */
const OTHER_PV_SOURCES = [
  'hostPath', 'local', 'nfs', 'cephfs', 'fc', 'flexVolume', 'azureDisk', 'azureFile', 'cinder', 'portworxVolume',
  'vsphereVolume', 'quobyte', 'flocker', 'glusterfs', 'photonPersistentDisk', 'scaleIO', 'storageos',
] as const;

const pvSpec = z
  .object({
    capacity: quantityMap.optional(),
    accessModes: strList.optional(),
    storageClassName: str.optional(),
    volumeMode: z.enum(['Filesystem', 'Block']).optional(),
    claimRef: z.object({ kind: str.optional(), namespace: str.optional(), name: str.optional(), uid: str.optional() }).nullable().optional(),
    nodeAffinity: z.object({ required: z.object({ nodeSelectorTerms: z.array(nodeSelectorTerm) }).nullable().optional() }).nullable().optional(),
    csi: z.object({ driver: str, volumeHandle: str.optional(), readOnly: bool.optional() }).nullable().optional(),
    ...diskSources,
  })
  .loose()
  .transform(({ capacity, accessModes, storageClassName, volumeMode, claimRef, nodeAffinity, csi, awsElasticBlockStore, gcePersistentDisk, iscsi, rbd, ...rest }) => {
    const other = OTHER_PV_SOURCES.filter((k) => rest[k] != null);
    return {
      ...(capacity !== undefined ? { capacity } : {}),
      ...(accessModes !== undefined ? { accessModes } : {}),
      ...(storageClassName !== undefined ? { storageClassName } : {}),
      ...(volumeMode !== undefined ? { volumeMode } : {}),
      ...(claimRef != null ? { claimRef } : {}),
      ...(nodeAffinity != null ? { nodeAffinity } : {}),
      ...(csi != null ? { csi } : {}),
      ...(awsElasticBlockStore != null ? { awsElasticBlockStore } : {}),
      ...(gcePersistentDisk != null ? { gcePersistentDisk } : {}),
      ...(iscsi != null ? { iscsi } : {}),
      ...(rbd != null ? { rbd } : {}),
      ...(other.length > 0 ? { other } : {}),
    };
  });

const phase = z.object({ phase: str.optional() }).nullable().optional();

export const persistentVolumeSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: pvSpec,
  status: phase,
}) satisfies z.ZodType<Omit<PersistentVolumeManifest, 'kind'>>;

export const persistentVolumeClaimSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: claimSpec,
  status: phase,
}) satisfies z.ZodType<Omit<PersistentVolumeClaimManifest, 'kind'>>;

export const storageClassSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  provisioner: str,
  volumeBindingMode: z.enum(['Immediate', 'WaitForFirstConsumer']).optional(),
  allowedTopologies: z.array(z.object({ matchLabelExpressions: z.array(z.object({ key: str, values: strList.default([]) })).optional() })).optional(),
  parameters: strMap.optional(),
}) satisfies z.ZodType<Omit<StorageClassManifest, 'kind'>>;

export const csiNodeSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({
    drivers: z
      .array(
        z.object({
          name: str,
          nodeID: str.optional(),
          topologyKeys: strList.nullable().optional().transform((v) => v ?? undefined),
          allocatable: z.object({ count: int.optional() }).nullable().optional(),
        }),
      )
      .default([]),
  }),
}) satisfies z.ZodType<Omit<CSINodeManifest, 'kind'>>;

export const csiDriverSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({ attachRequired: bool.optional(), storageCapacity: bool.optional(), preventPodSchedulingIfMissing: bool.optional() }).loose().nullable().optional(),
}) satisfies z.ZodType<Omit<CSIDriverManifest, 'kind'>>;

export const csiStorageCapacitySchema = z.object({
  apiVersion: str.optional(),
  metadata,
  storageClassName: str,
  nodeTopology: labelSelector.nullable().optional(),
  capacity: quantity.optional(),
  maximumVolumeSize: quantity.optional(),
}) satisfies z.ZodType<Omit<CSIStorageCapacityManifest, 'kind'>>;

export const volumeAttachmentSchema = z.object({
  apiVersion: str.optional(),
  metadata,
  spec: z.object({ attacher: str, nodeName: str, source: z.object({ persistentVolumeName: str.optional() }).loose() }),
}) satisfies z.ZodType<Omit<VolumeAttachmentManifest, 'kind'>>;
