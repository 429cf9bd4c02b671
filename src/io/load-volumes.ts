// The storage stage of loading: compile PersistentVolumes, claims, StorageClasses,
// CSINodes, CSIDrivers, CSIStorageCapacities and VolumeAttachments; create the
// claims controllers would have created when the input lacks them (one per
// StatefulSet volumeClaimTemplate and ordinal, one per generic ephemeral volume);
// give claims without a class the default class, as the DefaultStorageClass
// admission plugin does; and warn about references the scheduler would trip over
// (a missing claim, class or volume), naming its message.

import type { StorageInput } from '../cluster/volumes.js';
import type { Pod } from '../model/pod.js';
import {
  compileCSIDriver,
  compileCSINode,
  compileCSIStorageCapacity,
  compilePersistentVolume,
  compilePersistentVolumeClaim,
  compileStorageClass,
  compileVolumeAttachment,
  ephemeralClaimManifest,
  type PersistentVolumeClaim,
  type PersistentVolumeClaimManifest,
  type StorageClass,
} from '../model/volumes.js';
import type { LoadContext } from './context.js';
import type { ManifestOf } from './kinds.js';
import type { WorkloadSummary } from './load-workloads.js';
import type { RawObject } from './objects.js';
import { statefulSetClaims } from './workloads.js';

export type StorageKind = 'PersistentVolume' | 'PersistentVolumeClaim' | 'StorageClass' | 'CSINode' | 'CSIDriver' | 'CSIStorageCapacity' | 'VolumeAttachment';
type Parsed<K extends StorageKind> = { readonly raw: RawObject; readonly manifest: ManifestOf<K> };

export interface StorageObjects {
  readonly persistentVolumes: readonly Parsed<'PersistentVolume'>[];
  readonly persistentVolumeClaims: readonly Parsed<'PersistentVolumeClaim'>[];
  readonly storageClasses: readonly Parsed<'StorageClass'>[];
  readonly csiNodes: readonly Parsed<'CSINode'>[];
  readonly csiDrivers: readonly Parsed<'CSIDriver'>[];
  readonly csiStorageCapacities: readonly Parsed<'CSIStorageCapacity'>[];
  readonly volumeAttachments: readonly Parsed<'VolumeAttachment'>[];
}

/** Where a pod or workload came from, for warnings about the claims it names. */
export interface PodSource {
  readonly pod: Pod;
  readonly raw: RawObject;
  /** Where the pod spec sits in `raw`: [] for a Pod, ['spec', 'template'] for a workload's generated pod. */
  readonly at: readonly (string | number)[];
}

export interface LoadedStorage extends Required<StorageInput> {
  /** Claims berth created because the input lacked them (StatefulSet templates, ephemeral volumes), in creation order. */
  readonly generatedClaims: readonly string[];
}

function compileAll<M, T>(ctx: LoadContext, objects: readonly { readonly raw: RawObject; readonly manifest: M }[], compile: (m: M) => T): T[] {
  const out: T[] = [];
  for (const p of objects) {
    const v = ctx.reporter.attempt(p.raw, () => compile(p.manifest));
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** GetDefaultClass: among classes marked default, the last one (upstream picks the newest by creation time). */
export function defaultClass(classes: Iterable<StorageClass>): StorageClass | undefined {
  return [...classes].filter((c) => c.isDefault).at(-1);
}

/** DefaultStorageClass admission: a claim that does not name a class (not even "") gets the default one. */
export function admitClass(m: PersistentVolumeClaimManifest, dflt: StorageClass | undefined): PersistentVolumeClaimManifest {
  if (!dflt || m.spec.storageClassName !== undefined || m.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] !== undefined) return m;
  return { ...m, spec: { ...m.spec, storageClassName: dflt.name } };
}

export function loadStorage(ctx: LoadContext, objects: StorageObjects, pods: readonly PodSource[], workloads: readonly { summary: WorkloadSummary; raw: RawObject }[]): LoadedStorage {
  const { reporter } = ctx;
  const storageClasses = compileAll(ctx, objects.storageClasses, compileStorageClass);
  const dflt = defaultClass(storageClasses);
  const persistentVolumes = compileAll(ctx, objects.persistentVolumes, compilePersistentVolume);
  const claims: PersistentVolumeClaim[] = [];
  const claimSource = new Map<string, { raw: RawObject; at: readonly (string | number)[] }>();
  for (const p of objects.persistentVolumeClaims) {
    const pvc = reporter.attempt(p.raw, () => compilePersistentVolumeClaim(admitClass(p.manifest as PersistentVolumeClaimManifest, dflt)));
    if (!pvc) continue;
    claims.push(pvc);
    claimSource.set(pvc.key, { raw: p.raw, at: [] });
  }
  const generatedClaims: string[] = [];
  const have = new Set(claims.map((c) => c.key));
  const create = (m: PersistentVolumeClaimManifest, raw: RawObject, at: readonly (string | number)[]) => {
    const pvc = reporter.attempt(raw, () => compilePersistentVolumeClaim(admitClass(m, dflt)), [...at]);
    if (!pvc || have.has(pvc.key)) return;
    have.add(pvc.key);
    claims.push(pvc);
    claimSource.set(pvc.key, { raw, at });
    generatedClaims.push(pvc.key);
  };

  // The StatefulSet controller creates each ordinal's claims before its pod.
  for (const { summary, raw } of workloads) {
    if (summary.kind !== 'StatefulSet' || !summary.storage) continue;
    const sts = { namespace: summary.namespace, name: summary.name, volumeClaimTemplates: summary.storage.volumeClaimTemplates };
    const start = summary.ordinalStart ?? 0;
    for (let ordinal = start; ordinal < start + summary.replicas; ordinal++) {
      statefulSetClaims(sts, summary.selectorSpec.matchLabels ?? {}, ordinal).forEach((m, i) => create(m, raw, ['spec', 'volumeClaimTemplates', i]));
    }
  }
  // The ephemeral volume controller creates a pod's claims from its volumes' templates.
  for (const { pod, raw, at } of pods) {
    (pod.volumes ?? []).forEach((v, i) => {
      const m = ephemeralClaimManifest(pod, v);
      if (m) create(m, raw, [...at, 'spec', 'volumes', i, 'ephemeral', 'volumeClaimTemplate']);
    });
  }

  warnDangling(ctx, claims, claimSource, new Set(persistentVolumes.map((pv) => pv.name)), new Set(storageClasses.map((c) => c.name)), pods);
  return {
    persistentVolumes,
    persistentVolumeClaims: claims,
    storageClasses,
    csiNodes: compileAll(ctx, objects.csiNodes, compileCSINode),
    csiDrivers: compileAll(ctx, objects.csiDrivers, compileCSIDriver),
    csiStorageCapacities: compileAll(ctx, objects.csiStorageCapacities, compileCSIStorageCapacity),
    volumeAttachments: compileAll(ctx, objects.volumeAttachments, compileVolumeAttachment),
    generatedClaims,
  };
}

/**
 * References the input leaves dangling are kept as written (kube-scheduler has a
 * message for each), with a warning that names the consequence.
 */
function warnDangling(
  ctx: LoadContext,
  claims: readonly PersistentVolumeClaim[],
  claimSource: ReadonlyMap<string, { raw: RawObject; at: readonly (string | number)[] }>,
  pvNames: ReadonlySet<string>,
  classNames: ReadonlySet<string>,
  pods: readonly PodSource[],
): void {
  const { reporter } = ctx;
  for (const pvc of claims) {
    const src = claimSource.get(pvc.key)!;
    const specAt = src.at.length > 0 ? [...src.at, 'spec'] : ['spec'];
    if (pvc.volumeName !== '' && !pvNames.has(pvc.volumeName)) {
      reporter.warn(src.raw, [...specAt, 'volumeName'], `Not found: PersistentVolume ${JSON.stringify(pvc.volumeName)} is not in the input; pods using the claim cannot schedule (node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s))`);
    } else if (pvc.volumeName === '' && pvc.storageClassName !== '' && !classNames.has(pvc.storageClassName)) {
      reporter.warn(src.raw, [...specAt, 'storageClassName'], `Not found: StorageClass ${JSON.stringify(pvc.storageClassName)} is not in the input; the claim is treated as Immediate binding and stays unbound (pod has unbound immediate PersistentVolumeClaims)`);
    }
  }
  const keys = new Set(claims.map((c) => c.key));
  const warned = new Set<string>();
  for (const { pod, raw, at } of pods) {
    for (const v of pod.volumes ?? []) {
      if (v.kind !== 'claim' || v.ephemeral || keys.has(`${pod.namespace}/${v.claimName}`)) continue;
      const once = `${raw.doc.file}:${JSON.stringify(raw.base)}:${v.claimName}`;
      if (warned.has(once)) continue;
      warned.add(once);
      reporter.warn(raw, [...at, 'spec', 'volumes'], `Not found: PersistentVolumeClaim ${pod.namespace}/${v.claimName} (volume ${JSON.stringify(v.name)}) is not in the input; the pod cannot schedule (persistentvolumeclaim ${JSON.stringify(v.claimName)} not found)`);
    }
  }
}
