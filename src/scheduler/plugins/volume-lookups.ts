// What the volume plugins share: the listers' "not found" wording (the API's
// NotFound error text, which kube-scheduler passes on as the reason) and the
// pod volumes each plugin walks.

import type { Pod } from '../../model/pod.js';
import type { PodVolume } from '../../model/volumes.js';

/** apierrors.NewNotFound's message for a PersistentVolumeClaim. */
export const claimNotFound = (name: string) => `persistentvolumeclaim ${JSON.stringify(name)} not found`;
export const volumeNotFound = (name: string) => `persistentvolume ${JSON.stringify(name)} not found`;
export const classNotFound = (name: string) => `storageclass.storage.k8s.io ${JSON.stringify(name)} not found`;

type ClaimVolume = Extract<PodVolume, { kind: 'claim' }>;
type InlineVolume = Extract<PodVolume, { kind: 'inline' }>;

const NONE: readonly never[] = Object.freeze([]);

/** The pod's volumes backed by a claim: persistentVolumeClaim and generic ephemeral volumes, in spec order. */
export function claimVolumes(pod: Pod): readonly ClaimVolume[] {
  const vs = pod.volumes;
  if (vs === undefined) return NONE;
  return vs.filter((v): v is ClaimVolume => v.kind === 'claim');
}

/** Only the persistentVolumeClaim volumes (VolumeZone and VolumeRestrictions do not look at ephemeral ones). */
export function persistentClaimVolumes(pod: Pod): readonly ClaimVolume[] {
  return claimVolumes(pod).filter((v) => !v.ephemeral);
}

export function inlineVolumes(pod: Pod): readonly InlineVolume[] {
  const vs = pod.volumes;
  if (vs === undefined) return NONE;
  return vs.filter((v): v is InlineVolume => v.kind === 'inline');
}
