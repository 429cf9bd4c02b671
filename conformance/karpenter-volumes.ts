// Volumes for the Karpenter differential cases: what a group's pods mount and the
// claims, volumes and classes behind them. Karpenter v1.14.1 turns a bound claim's
// PV node affinity and an unbound WaitForFirstConsumer claim's StorageClass
// allowedTopologies into NodeClaim requirements (one alternative per OR'd term),
// and leaves out pods whose claims it cannot use (missing claim, unbound claim of
// an Immediate class). The kinds below cover each of those paths, with the zone
// keys a real cluster uses (the EBS CSI driver's own key, which the AWS provider
// normalizes to topology.kubernetes.io/zone, and the deprecated beta key).

import fc from 'fast-check';

type Obj = Record<string, unknown>;

export const EBS_DRIVER = 'ebs.csi.aws.com';
export const ZONE_KEYS = ['topology.kubernetes.io/zone', 'topology.ebs.csi.aws.com/zone', 'failure-domain.beta.kubernetes.io/zone'] as const;

export type VolumeKind =
  | 'none'
  /** One claim per pod, bound to a PV pinned to one zone (zones taken in turn). */
  | 'boundZonal'
  /** One claim per pod, bound to a PV whose node affinity ORs two zones. */
  | 'boundTwoTerms'
  /** Every pod mounts the same ReadWriteMany claim, bound to a zonal PV. */
  | 'sharedZonal'
  /** A bound PV with no node affinity (an EFS-like volume): no constraint. */
  | 'boundNoAffinity'
  /** A local PV pinned to a node that does not exist, and a zone: Karpenter ignores the hostname. */
  | 'boundLocal'
  /** Unbound claims of a WaitForFirstConsumer class whose allowedTopologies name some zones. */
  | 'wffcZonal'
  /** The same with two allowedTopologies terms (OR'd). */
  | 'wffcTwoTerms'
  /** Unbound claims of a WaitForFirstConsumer class with no allowedTopologies. */
  | 'wffcPlain'
  /** Generic ephemeral volumes: the claim the ephemeral controller made (<pod>-<volume>), of a zonal WFFC class. */
  | 'ephemeral'
  /** Unbound claims of an Immediate class: neither side schedules the pod. */
  | 'immediateUnbound'
  /** A claim that does not exist. */
  | 'missingClaim'
  /** Every pod mounts one unbound ReadWriteOncePod claim of a zonal WFFC class. */
  | 'sharedRWOP';

export interface VolumeGen {
  kind: VolumeKind;
  /** The zone key of the PV node affinity or class topology. */
  key: string;
  /** Zones the volumes use, in the order pods take them. */
  zones: string[];
  /** A second set of zones (second term). */
  zones2: string[];
  /** Also mount a second claim (a plain WFFC one) besides the first. */
  second: boolean;
}

const VOLUME_KINDS: readonly VolumeKind[] = [
  'boundZonal',
  'boundZonal',
  'boundTwoTerms',
  'sharedZonal',
  'boundNoAffinity',
  'boundLocal',
  'wffcZonal',
  'wffcZonal',
  'wffcTwoTerms',
  'wffcPlain',
  'ephemeral',
  'immediateUnbound',
  'missingClaim',
  'sharedRWOP',
];

export const volumeGenArb = (zones: readonly string[]): fc.Arbitrary<VolumeGen> =>
  fc.record({
    kind: fc.oneof({ weight: 3, arbitrary: fc.constant<VolumeKind>('none') }, { weight: 2, arbitrary: fc.constantFrom(...VOLUME_KINDS) }),
    key: fc.constantFrom<string>(ZONE_KEYS[0], ZONE_KEYS[0], ZONE_KEYS[1], ZONE_KEYS[2]),
    zones: fc.subarray([...zones], { minLength: 1 }),
    zones2: fc.subarray([...zones], { minLength: 1, maxLength: 2 }),
    second: fc.boolean(),
  });

/** The storage objects of a case. */
export interface CaseStorage {
  persistentVolumes: Obj[];
  persistentVolumeClaims: Obj[];
  storageClasses: Obj[];
}

export const emptyStorage = (): CaseStorage => ({ persistentVolumes: [], persistentVolumeClaims: [], storageClasses: [] });

const zoneTerm = (key: string, zones: readonly string[]) => ({ matchExpressions: [{ key, operator: 'In', values: [...zones] }] });

function storageClass(name: string, mode: 'WaitForFirstConsumer' | 'Immediate', topologies: { key: string; values: string[] }[][] = []): Obj {
  const sc: Obj = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: EBS_DRIVER, volumeBindingMode: mode };
  if (topologies.length > 0) sc['allowedTopologies'] = topologies.map((t) => ({ matchLabelExpressions: t }));
  return sc;
}

function claim(name: string, cls: string, modes: string[], volumeName?: string, owner?: Obj): Obj {
  const spec: Obj = { accessModes: modes, resources: { requests: { storage: '10Gi' } }, storageClassName: cls };
  const metadata: Obj = { name, namespace: 'default', uid: `uid-pvc-${name}` };
  if (volumeName !== undefined) {
    spec['volumeName'] = volumeName;
    metadata['annotations'] = { 'pv.kubernetes.io/bind-completed': 'yes' };
  }
  if (owner) metadata['ownerReferences'] = [owner];
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata, spec, status: { phase: volumeName !== undefined ? 'Bound' : 'Pending' } };
}

function volume(name: string, claimName: string, modes: string[], cls: string, terms: Obj[] | null, local: boolean): Obj {
  const spec: Obj = {
    capacity: { storage: '10Gi' },
    accessModes: modes,
    storageClassName: cls,
    persistentVolumeReclaimPolicy: 'Delete',
    claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: claimName, uid: `uid-pvc-${claimName}` },
  };
  if (local) spec['local'] = { path: '/mnt/disks/ssd1' };
  else spec['csi'] = { driver: EBS_DRIVER, volumeHandle: `vol-${name}` };
  if (terms) spec['nodeAffinity'] = { required: { nodeSelectorTerms: terms } };
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec, status: { phase: 'Bound' } };
}

function addOnce(list: Obj[], obj: Obj): void {
  const name = (obj['metadata'] as { name: string }).name;
  if (!list.some((o) => (o['metadata'] as { name: string }).name === name)) list.push(obj);
}

/**
 * Adds group `gi`'s volumes to pod `i` (its spec, as built by groupPods) and the
 * objects behind them to `storage`.
 */
export function addPodVolumes(v: VolumeGen, gi: number, i: number, pod: Obj, storage: CaseStorage): void {
  if (v.kind === 'none') return;
  const podName = (pod['metadata'] as { name: string }).name;
  const spec = pod['spec'] as Obj;
  const volumes: Obj[] = [];
  const zone = v.zones[i % v.zones.length]!;
  const own = `data-g${gi}-${i}`;
  const rwo = ['ReadWriteOnce'];
  const mountClaim = (name: string) => volumes.push({ name: `v${volumes.length}`, persistentVolumeClaim: { claimName: name } });
  const topology = (zs: readonly string[]) => [{ key: v.key, values: [...zs] }];
  switch (v.kind) {
    case 'boundZonal':
    case 'boundTwoTerms':
    case 'boundNoAffinity':
    case 'boundLocal': {
      const terms =
        v.kind === 'boundZonal'
          ? [zoneTerm(v.key, [zone])]
          : v.kind === 'boundTwoTerms'
            ? [zoneTerm(v.key, [zone]), zoneTerm(v.key, v.zones2)]
            : v.kind === 'boundLocal'
              ? [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [`gone-node-${i}`] }, { key: v.key, operator: 'In', values: [zone] }] }]
              : null;
      storage.persistentVolumes.push(volume(`pv-${own}`, own, rwo, 'gp3', terms, v.kind === 'boundLocal'));
      storage.persistentVolumeClaims.push(claim(own, 'gp3', rwo, `pv-${own}`));
      addOnce(storage.storageClasses, storageClass('gp3', 'WaitForFirstConsumer'));
      mountClaim(own);
      break;
    }
    case 'sharedZonal': {
      const shared = `shared-g${gi}`;
      if (i === 0) {
        storage.persistentVolumes.push(volume(`pv-${shared}`, shared, ['ReadWriteMany'], 'gp3', [zoneTerm(v.key, [v.zones[0]!])], false));
        storage.persistentVolumeClaims.push(claim(shared, 'gp3', ['ReadWriteMany'], `pv-${shared}`));
        addOnce(storage.storageClasses, storageClass('gp3', 'WaitForFirstConsumer'));
      }
      mountClaim(shared);
      break;
    }
    case 'wffcZonal':
    case 'wffcTwoTerms':
    case 'ephemeral': {
      const cls = `zonal-g${gi}`;
      addOnce(storage.storageClasses, storageClass(cls, 'WaitForFirstConsumer', v.kind === 'wffcTwoTerms' ? [topology(v.zones), topology(v.zones2)] : [topology(v.zones)]));
      if (v.kind === 'ephemeral') {
        const name = `v${volumes.length}`;
        const owner = { apiVersion: 'v1', kind: 'Pod', name: podName, uid: (pod['metadata'] as { uid: string }).uid, controller: true };
        storage.persistentVolumeClaims.push(claim(`${podName}-${name}`, cls, rwo, undefined, owner));
        volumes.push({ name, ephemeral: { volumeClaimTemplate: { spec: { accessModes: rwo, resources: { requests: { storage: '10Gi' } }, storageClassName: cls } } } });
      } else {
        storage.persistentVolumeClaims.push(claim(own, cls, rwo));
        mountClaim(own);
      }
      break;
    }
    case 'wffcPlain':
      addOnce(storage.storageClasses, storageClass('gp3', 'WaitForFirstConsumer'));
      storage.persistentVolumeClaims.push(claim(own, 'gp3', rwo));
      mountClaim(own);
      break;
    case 'immediateUnbound':
      addOnce(storage.storageClasses, storageClass('io2-now', 'Immediate'));
      storage.persistentVolumeClaims.push(claim(own, 'io2-now', rwo));
      mountClaim(own);
      break;
    case 'missingClaim':
      mountClaim(`never-created-g${gi}`);
      break;
    case 'sharedRWOP': {
      const shared = `rwop-g${gi}`;
      const cls = `zonal-g${gi}`;
      if (i === 0) {
        addOnce(storage.storageClasses, storageClass(cls, 'WaitForFirstConsumer', [topology(v.zones)]));
        storage.persistentVolumeClaims.push(claim(shared, cls, ['ReadWriteOncePod']));
      }
      mountClaim(shared);
      break;
    }
  }
  if (v.second) {
    const extra = `extra-g${gi}-${i}`;
    addOnce(storage.storageClasses, storageClass('gp3', 'WaitForFirstConsumer'));
    storage.persistentVolumeClaims.push(claim(extra, 'gp3', rwo));
    mountClaim(extra);
  }
  spec['volumes'] = volumes;
}

/**
 * The zones a node may be in for `pod`'s volumes: the union over its volume
 * alternatives, or undefined when its volumes constrain no zone. Used by the
 * runner's constraint check (both plans must keep every pod in such a zone).
 */
export function volumeZones(pod: Obj, storage: CaseStorage): Set<string> | undefined {
  const isZoneKey = (k: string) => (ZONE_KEYS as readonly string[]).includes(k);
  const byName = (list: Obj[], name: string) => list.find((o) => (o['metadata'] as { name: string }).name === name);
  const podName = (pod['metadata'] as { name: string }).name;
  let allowed: Set<string> | undefined;
  for (const vol of ((pod['spec'] as Obj)['volumes'] as Obj[] | undefined) ?? []) {
    const claimName = vol['ephemeral'] ? `${podName}-${vol['name'] as string}` : (vol['persistentVolumeClaim'] as { claimName: string } | undefined)?.claimName;
    const pvc = claimName === undefined ? undefined : byName(storage.persistentVolumeClaims, claimName);
    if (!pvc) continue;
    const pvcSpec = pvc['spec'] as { volumeName?: string; storageClassName: string };
    const zones = new Set<string>();
    if (pvcSpec.volumeName !== undefined) {
      const pv = byName(storage.persistentVolumes, pvcSpec.volumeName);
      const terms = ((pv?.['spec'] as Obj | undefined)?.['nodeAffinity'] as { required: { nodeSelectorTerms: { matchExpressions: { key: string; values: string[] }[] }[] } } | undefined)?.required.nodeSelectorTerms ?? [];
      for (const t of terms) for (const e of t.matchExpressions) if (isZoneKey(e.key)) e.values.forEach((z) => zones.add(z));
    } else {
      const sc = byName(storage.storageClasses, pvcSpec.storageClassName) as { allowedTopologies?: { matchLabelExpressions: { key: string; values: string[] }[] }[] } | undefined;
      for (const t of sc?.allowedTopologies ?? []) for (const e of t.matchLabelExpressions) if (isZoneKey(e.key)) e.values.forEach((z) => zones.add(z));
    }
    if (zones.size === 0) continue;
    allowed = allowed === undefined ? zones : new Set([...allowed].filter((z) => zones.has(z)));
  }
  return allowed;
}

/** The part of `storage` that `pods` mount: their claims, those claims' volumes and classes. */
export function usedStorage(pods: readonly Obj[], storage: CaseStorage): CaseStorage {
  const name = (o: Obj) => (o['metadata'] as { name: string }).name;
  const claims = new Set<string>();
  for (const pod of pods) {
    for (const vol of ((pod['spec'] as Obj)['volumes'] as Obj[] | undefined) ?? []) {
      if (vol['ephemeral']) claims.add(`${name(pod)}-${vol['name'] as string}`);
      const pvc = vol['persistentVolumeClaim'] as { claimName: string } | undefined;
      if (pvc) claims.add(pvc.claimName);
    }
  }
  const persistentVolumeClaims = storage.persistentVolumeClaims.filter((c) => claims.has(name(c)));
  const specs = persistentVolumeClaims.map((c) => c['spec'] as { volumeName?: string; storageClassName: string });
  const volumes = new Set(specs.map((s) => s.volumeName));
  const classes = new Set(specs.map((s) => s.storageClassName));
  return {
    persistentVolumes: storage.persistentVolumes.filter((v) => volumes.has(name(v))),
    persistentVolumeClaims,
    storageClasses: storage.storageClasses.filter((c) => classes.has(name(c))),
  };
}
