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
import type { Pod } from '../../model/pod.js';
import type { Labels } from '../../model/selector.js';
import { compilePersistentVolumeClaim, type PodVolume } from '../../model/volumes.js';
import type { World } from '../world.js';

export interface StatefulSetStorage {
  readonly volumeClaimTemplates: readonly ClaimTemplate[];
  readonly whenDeleted: 'Retain' | 'Delete';
  readonly whenScaled: 'Retain' | 'Delete';
}

interface ClaimOwner {
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
  return { ...pod, volumes: [...(pod.volumes ?? []).filter((v) => !names.has(v.name)), ...claims], persistentVolumeClaims: true };
}

/** createPersistentVolumeClaims: the ordinal's claims that do not exist yet, with the default class admitted; returns their keys. */
export function createMissingClaims(world: World, s: ClaimOwner, ordinal: number): string[] {
  if (!s.storage) return [];
  const created: string[] = [];
  const store = world.cluster.volumes;
  const sts = { namespace: s.namespace, name: s.name, volumeClaimTemplates: s.storage.volumeClaimTemplates };
  for (const m of statefulSetClaims(sts, s.selectorLabels, ordinal)) {
    if (store.claim(s.namespace, m.metadata.name ?? '')) continue;
    const pvc = compilePersistentVolumeClaim(admitClass({ ...m, metadata: { ...m.metadata, uid: world.newUid() } }, defaultClass(store.storageClasses())));
    world.setClaim(pvc, 'ClaimCreated', { statefulSet: `${s.namespace}/${s.name}` });
    created.push(pvc.key);
  }
  return created;
}

/** The ordinal's claim keys, one per claim template. */
export function ordinalClaims(s: ClaimOwner, ordinal: number): string[] {
  return (s.storage?.volumeClaimTemplates ?? []).map((t) => `${s.namespace}/${statefulSetClaimName(templateName(t), s.name, ordinal)}`);
}

/** The claims a scaled-down ordinal's pod takes with it (whenScaled: Delete), as namespace/name keys. */
export function claimsDeletedWithPod(s: ClaimOwner, ordinal: number): string[] {
  return s.storage?.whenScaled === 'Delete' ? ordinalClaims(s, ordinal) : [];
}
