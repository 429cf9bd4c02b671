// A StatefulSet's per-ordinal claims (volumeClaimTemplates): the controller creates
// `<template>-<statefulset>-<ordinal>` before the ordinal's pod, mounts it as the
// template's volume, and under persistentVolumeClaimRetentionPolicy.whenScaled:
// Delete makes a scaled-down ordinal's pod the owner of its claims so that they go
// with it. Claims outlive their pods otherwise (Retain, the default). Under
// whenDeleted: Delete the set owns the claims it creates, and the garbage collector
// deletes them with the set; under Retain a set re-created with the same name finds
// them and mounts them again.

import { admitClass, defaultClass } from '../../io/load-volumes.js';
import { statefulSetClaimName, statefulSetClaims, type ClaimTemplate } from '../../io/workloads.js';
import { changedPod, type Pod } from '../../model/pod.js';
import type { Labels } from '../../model/selector.js';
import { compilePersistentVolumeClaim, type PersistentVolumeClaim, type PodVolume, type StorageClass } from '../../model/volumes.js';
import type { World } from '../world.js';

export interface StatefulSetStorage {
  readonly volumeClaimTemplates: readonly ClaimTemplate[];
  readonly whenDeleted: 'Retain' | 'Delete';
  readonly whenScaled: 'Retain' | 'Delete';
}

export interface ClaimOwner {
  readonly namespace: string;
  readonly name: string;
  readonly selectorLabels: Labels;
  readonly storage?: StatefulSetStorage;
}

function templateName(t: ClaimTemplate): string {
  return t.metadata.name ?? '';
}

/** updateStorage: the template's volumes, with each claim template's volume backed by the ordinal's claim. */
export function withOrdinalClaims(s: ClaimOwner, pod: Pod, ordinal: number): Pod {
  const templates = s.storage?.volumeClaimTemplates ?? [];
  if (templates.length === 0) return pod;
  const names = new Set(templates.map(templateName));
  const claims: PodVolume[] = templates.map((t) => ({ kind: 'claim', name: templateName(t), claimName: statefulSetClaimName(templateName(t), s.name, ordinal), ephemeral: false, readOnly: false }));
  return changedPod(pod, { volumes: [...(pod.volumes ?? []).filter((v) => !names.has(v.name)), ...claims], persistentVolumeClaims: true });
}

/** The ordinal's claims that `exists` does not know yet, as the controller creates them: the default class admitted, a uid from `newUid`. */
export function newOrdinalClaims(s: ClaimOwner, ordinal: number, classes: Iterable<StorageClass>, exists: (name: string) => boolean, newUid: () => string): PersistentVolumeClaim[] {
  if (!s.storage) return [];
  const sts = { namespace: s.namespace, name: s.name, volumeClaimTemplates: s.storage.volumeClaimTemplates };
  const dflt = defaultClass(classes);
  return statefulSetClaims(sts, s.selectorLabels, ordinal)
    .filter((m) => !exists(m.metadata.name ?? ''))
    .map((m) => compilePersistentVolumeClaim(admitClass({ ...m, metadata: { ...m.metadata, uid: newUid() } }, dflt)));
}

/** createPersistentVolumeClaims: the ordinal's claims that do not exist yet; returns their keys. */
export function createMissingClaims(world: World, s: ClaimOwner, ordinal: number): string[] {
  const store = world.cluster.volumes;
  const created = newOrdinalClaims(s, ordinal, store.storageClasses(), (name) => store.claim(s.namespace, name) !== undefined, () => world.newUid());
  for (const pvc of created) world.setClaim(pvc, 'ClaimCreated', { statefulSet: `${s.namespace}/${s.name}` });
  return created.map((pvc) => pvc.key);
}

/** The ordinal's claim keys, one per claim template. */
export function ordinalClaims(s: ClaimOwner, ordinal: number): string[] {
  return (s.storage?.volumeClaimTemplates ?? []).map((t) => `${s.namespace}/${statefulSetClaimName(templateName(t), s.name, ordinal)}`);
}

/** The claims a scaled-down ordinal's pod takes with it (whenScaled: Delete), as namespace/name keys. */
export function claimsDeletedWithPod(s: ClaimOwner, ordinal: number): string[] {
  return s.storage?.whenScaled === 'Delete' ? ordinalClaims(s, ordinal) : [];
}
