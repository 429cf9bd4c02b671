// Storage objects compiled for scheduling: PersistentVolumes, PersistentVolumeClaims,
// StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities and VolumeAttachments,
// and the volumes a pod spec names. Capacities are bytes (integers), selectors and
// node affinities are compiled once. Validation follows the API server's
// (pkg/apis/core/validation, pkg/apis/storage/validation) for the fields berth reads,
// with its wording; FieldError paths are relative to the object.

import { atPath, FieldError, type FieldPath } from './errors.js';
import type { LabelSelectorManifest, NodeSelectorTermManifest, ObjectMetaManifest, Quantity } from './manifest.js';
import { compileOwnerReferences, type OwnerReference } from './owner-references.js';
import { wholeValue } from './quantity.js';
import { compileLabelSelector, compileNodeSelector, type Labels, type NodeSelector, type Selector } from './selector.js';

// ---------------------------------------------------------------------------
// Manifests (what io/ validates the shape of)

export type AccessMode = 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod';
export const ACCESS_MODES: readonly AccessMode[] = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export type VolumeMode = 'Filesystem' | 'Block';
export type BindingMode = 'Immediate' | 'WaitForFirstConsumer';

export interface CSISourceManifest {
  driver: string;
  volumeHandle?: string;
  readOnly?: boolean;
}
export interface AwsEbsSourceManifest {
  volumeID: string;
  readOnly?: boolean;
}
export interface GcePdSourceManifest {
  pdName: string;
  readOnly?: boolean;
}
export interface IscsiSourceManifest {
  iqn: string;
  readOnly?: boolean;
}
export interface RbdSourceManifest {
  monitors: string[];
  image: string;
  pool?: string;
  readOnly?: boolean;
}

/** PersistentVolumeSpec's volume sources berth tells apart; any other named source counts as "other". */
export interface PersistentVolumeSourceManifest {
  csi?: CSISourceManifest | null;
  awsElasticBlockStore?: AwsEbsSourceManifest | null;
  gcePersistentDisk?: GcePdSourceManifest | null;
  iscsi?: IscsiSourceManifest | null;
  rbd?: RbdSourceManifest | null;
  /** hostPath, local, nfs, ...: the source is present but berth does not read it. */
  other?: string[];
}

export interface ObjectReferenceManifest {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
}

export interface PersistentVolumeManifest {
  apiVersion?: string;
  kind?: 'PersistentVolume';
  metadata: ObjectMetaManifest;
  spec: PersistentVolumeSourceManifest & {
    capacity?: Record<string, Quantity>;
    accessModes?: string[];
    storageClassName?: string;
    volumeMode?: VolumeMode;
    claimRef?: ObjectReferenceManifest | null;
    nodeAffinity?: { required?: { nodeSelectorTerms: NodeSelectorTermManifest[] } | null } | null;
  };
  status?: { phase?: string } | null;
}

export interface PersistentVolumeClaimSpecManifest {
  accessModes?: string[];
  resources?: { requests?: Record<string, Quantity>; limits?: Record<string, Quantity> } | null;
  storageClassName?: string;
  volumeName?: string;
  volumeMode?: VolumeMode;
  selector?: LabelSelectorManifest | null;
}

export interface PersistentVolumeClaimManifest {
  apiVersion?: string;
  kind?: 'PersistentVolumeClaim';
  metadata: ObjectMetaManifest;
  spec: PersistentVolumeClaimSpecManifest;
  status?: { phase?: string } | null;
}

export interface TopologySelectorTermManifest {
  matchLabelExpressions?: { key: string; values: string[] }[];
}

export interface StorageClassManifest {
  apiVersion?: string;
  kind?: 'StorageClass';
  metadata: ObjectMetaManifest;
  provisioner: string;
  volumeBindingMode?: BindingMode;
  allowedTopologies?: TopologySelectorTermManifest[];
  parameters?: Record<string, string>;
}

export interface CSINodeManifest {
  apiVersion?: string;
  kind?: 'CSINode';
  metadata: ObjectMetaManifest;
  spec: { drivers: { name: string; nodeID?: string; topologyKeys?: string[]; allocatable?: { count?: number } | null }[] };
}

export interface CSIDriverManifest {
  apiVersion?: string;
  kind?: 'CSIDriver';
  metadata: ObjectMetaManifest;
  spec?: { attachRequired?: boolean; storageCapacity?: boolean; preventPodSchedulingIfMissing?: boolean } | null;
}

export interface CSIStorageCapacityManifest {
  apiVersion?: string;
  kind?: 'CSIStorageCapacity';
  metadata: ObjectMetaManifest;
  storageClassName: string;
  nodeTopology?: LabelSelectorManifest | null;
  capacity?: Quantity;
  maximumVolumeSize?: Quantity;
}

export interface VolumeAttachmentManifest {
  apiVersion?: string;
  kind?: 'VolumeAttachment';
  metadata: ObjectMetaManifest;
  spec: { attacher: string; nodeName: string; source: { persistentVolumeName?: string } };
}

export interface EphemeralClaimTemplate {
  metadata?: ObjectMetaManifest | null;
  spec: PersistentVolumeClaimSpecManifest;
}

/** The pod volume sources berth reads (pod.spec.volumes[i]). */
export interface PodVolumeManifest {
  name: string;
  image?: { reference?: string } | null;
  emptyDir?: object | null;
  hostPath?: object | null;
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean } | null;
  ephemeral?: { volumeClaimTemplate?: EphemeralClaimTemplate | null } | null;
  csi?: { driver: string; readOnly?: boolean } | null;
  awsElasticBlockStore?: AwsEbsSourceManifest | null;
  gcePersistentDisk?: GcePdSourceManifest | null;
  iscsi?: IscsiSourceManifest | null;
  rbd?: RbdSourceManifest | null;
}

// ---------------------------------------------------------------------------
// Model

/** Annotations the PV controller and the scheduler use (component-helpers storage/volume). */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const ANN_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
/** CSINode annotation listing the in-tree plugins migrated to CSI on the node. */
export const ANN_MIGRATED_PLUGINS = 'storage.alpha.kubernetes.io/migrated-plugins';
/** A StorageClass provisioner that never provisions (static PVs only). */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

/** In-tree plugins whose volumes kube-scheduler counts and binds as their CSI driver's. */
export const IN_TREE_PLUGINS = {
  awsElasticBlockStore: { plugin: 'kubernetes.io/aws-ebs', driver: 'ebs.csi.aws.com', topologyKey: 'topology.ebs.csi.aws.com/zone' },
  gcePersistentDisk: { plugin: 'kubernetes.io/gce-pd', driver: 'pd.csi.storage.gke.io', topologyKey: 'topology.gke.io/zone' },
} as const;
export type InTreeSource = keyof typeof IN_TREE_PLUGINS;

/** Where a volume's data lives, as far as the scheduling plugins care. */
export type VolumeSource =
  | { readonly kind: 'csi'; readonly driver: string; readonly volumeHandle: string; readonly readOnly: boolean }
  | { readonly kind: 'awsElasticBlockStore'; readonly volumeID: string; readonly readOnly: boolean }
  | { readonly kind: 'gcePersistentDisk'; readonly pdName: string; readonly readOnly: boolean }
  | { readonly kind: 'iscsi'; readonly iqn: string; readonly readOnly: boolean }
  | { readonly kind: 'rbd'; readonly monitors: readonly string[]; readonly pool: string; readonly image: string; readonly readOnly: boolean }
  | { readonly kind: 'other'; readonly type: string };

export interface PersistentVolume {
  readonly name: string;
  readonly uid: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  /** GetPersistentVolumeClass: the beta annotation, else spec.storageClassName ('' for none). */
  readonly storageClassName: string;
  /** spec.capacity.storage in bytes. */
  readonly capacity: number;
  readonly accessModes: readonly AccessMode[];
  readonly volumeMode: VolumeMode;
  readonly claimRef: { readonly namespace: string; readonly name: string; readonly uid: string } | null;
  /** spec.nodeAffinity.required, compiled; null when the volume is reachable from every node. */
  readonly nodeAffinity: NodeSelector | null;
  readonly source: VolumeSource;
  /** status.phase; when the input does not say, Bound for a volume with a claimRef and Available otherwise. */
  readonly phase: string;
  readonly deleting: boolean;
}

export interface PersistentVolumeClaim {
  readonly namespace: string;
  readonly name: string;
  /** namespace/name */
  readonly key: string;
  readonly uid: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly ownerReferences: readonly OwnerReference[];
  /** GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName ('' for none). */
  readonly storageClassName: string;
  /** spec.resources.requests.storage in bytes (0 when unset). */
  readonly request: number;
  readonly accessModes: readonly AccessMode[];
  readonly volumeMode: VolumeMode;
  /** spec.selector compiled; null when absent (any volume). */
  readonly selector: Selector | null;
  /** spec.volumeName; '' when unbound. */
  readonly volumeName: string;
  /** The PV controller finished binding (the bind-completed annotation): only then does the scheduler treat the claim as bound. */
  readonly bindCompleted: boolean;
  /** status.phase: Pending, Bound or Lost ('' when the input does not say). */
  readonly phase: string;
  readonly deleting: boolean;
}

export interface StorageClass {
  readonly name: string;
  readonly provisioner: string;
  readonly volumeBindingMode: BindingMode;
  /** allowedTopologies: terms ORed, expressions ANDed; empty allows every node. */
  readonly allowedTopologies: readonly { readonly key: string; readonly values: readonly string[] }[][];
  readonly isDefault: boolean;
}

export interface CSINodeDriver {
  readonly name: string;
  readonly nodeID: string;
  readonly topologyKeys: readonly string[];
  /** allocatable.count: how many of this driver's volumes the node can attach; undefined when unlimited. */
  readonly allocatableCount: number | undefined;
}

export interface CSINode {
  readonly name: string;
  readonly drivers: readonly CSINodeDriver[];
  /** In-tree plugin names the node has migrated to CSI (the migrated-plugins annotation). */
  readonly migratedPlugins: ReadonlySet<string>;
}

export interface CSIDriver {
  readonly name: string;
  /** spec.attachRequired, defaulted to true. */
  readonly attachRequired: boolean;
  /** spec.storageCapacity, defaulted to false: the scheduler checks CSIStorageCapacity objects for this driver. */
  readonly storageCapacity: boolean;
  /** spec.preventPodSchedulingIfMissing: pods need the driver on the node's CSINode. */
  readonly preventPodSchedulingIfMissing: boolean;
}

export interface CSIStorageCapacity {
  readonly namespace: string;
  readonly name: string;
  readonly storageClassName: string;
  /** nodeTopology compiled; null when absent (no node has access). */
  readonly nodeTopology: Selector | null;
  readonly capacity: number | undefined;
  readonly maximumVolumeSize: number | undefined;
}

export interface VolumeAttachment {
  readonly name: string;
  readonly attacher: string;
  readonly nodeName: string;
  readonly persistentVolumeName: string;
}

/** A pod's volume, reduced to what the volume plugins read. */
export type PodVolume =
  | {
      readonly kind: 'claim';
      readonly name: string;
      /** The claim's name: claimName, or `<pod>-<volume>` for a generic ephemeral volume. */
      readonly claimName: string;
      readonly ephemeral: boolean;
      readonly readOnly: boolean;
      /** A generic ephemeral volume's volumeClaimTemplate: what the ephemeral volume controller creates the claim from. */
      readonly claimTemplate?: EphemeralClaimTemplate;
    }
  | { readonly kind: 'inline'; readonly name: string; readonly source: VolumeSource };

// ---------------------------------------------------------------------------
// Helpers

const INVALID_MODE = (m: string) => `Unsupported value: ${JSON.stringify(m)}: supported values: ${ACCESS_MODES.map((x) => JSON.stringify(x)).join(', ')}`;

/** validateAccessModes (PV and PVC share it): at least one, all known, ReadWriteOncePod alone. */
function compileAccessModes(modes: readonly string[] | undefined, path: FieldPath, requiredMessage: string): AccessMode[] {
  const list = modes ?? [];
  if (list.length === 0) throw new FieldError(requiredMessage, path);
  list.forEach((m, i) => {
    if (!(ACCESS_MODES as readonly string[]).includes(m)) throw new FieldError(INVALID_MODE(m), [...path, i]);
  });
  if (list.includes('ReadWriteOncePod') && list.length > 1) throw new FieldError('Forbidden: may not use ReadWriteOncePod with other access modes', path);
  return list as AccessMode[];
}

function storageQuantity(q: Quantity, path: FieldPath, positive: boolean): number {
  const v = atPath(path, () => wholeValue(q));
  if (positive && v <= 0) throw new FieldError(`Invalid value: ${JSON.stringify(String(q))}: must be greater than zero`, path);
  if (v < 0) throw new FieldError(`Invalid value: ${JSON.stringify(String(q))}: must be greater than or equal to 0`, path);
  return v;
}

function classOf(annotations: Labels | undefined, specClass: string | undefined): string {
  const beta = annotations?.[ANN_BETA_STORAGE_CLASS];
  return beta !== undefined ? beta : (specClass ?? '');
}

function sourceOf(spec: PersistentVolumeSourceManifest): VolumeSource | undefined {
  if (spec.csi) return { kind: 'csi', driver: spec.csi.driver, volumeHandle: spec.csi.volumeHandle ?? '', readOnly: spec.csi.readOnly ?? false };
  if (spec.awsElasticBlockStore) return { kind: 'awsElasticBlockStore', volumeID: spec.awsElasticBlockStore.volumeID, readOnly: spec.awsElasticBlockStore.readOnly ?? false };
  if (spec.gcePersistentDisk) return { kind: 'gcePersistentDisk', pdName: spec.gcePersistentDisk.pdName, readOnly: spec.gcePersistentDisk.readOnly ?? false };
  if (spec.iscsi) return { kind: 'iscsi', iqn: spec.iscsi.iqn, readOnly: spec.iscsi.readOnly ?? false };
  if (spec.rbd) return { kind: 'rbd', monitors: spec.rbd.monitors, pool: spec.rbd.pool ?? 'rbd', image: spec.rbd.image, readOnly: spec.rbd.readOnly ?? false };
  return undefined;
}

function countSources(spec: PersistentVolumeSourceManifest): number {
  return [spec.csi, spec.awsElasticBlockStore, spec.gcePersistentDisk, spec.iscsi, spec.rbd].filter((s) => s != null).length + (spec.other?.length ?? 0);
}

// ---------------------------------------------------------------------------
// Compile

export function compilePersistentVolume(m: PersistentVolumeManifest): PersistentVolume {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  const spec = m.spec;
  const capacityMap = spec.capacity ?? {};
  if (Object.keys(capacityMap).length === 0) throw new FieldError('Required value', ['spec', 'capacity']);
  for (const k of Object.keys(capacityMap)) {
    if (k !== 'storage') throw new FieldError(`Unsupported value: ${JSON.stringify(k)}: supported values: "storage"`, ['spec', 'capacity']);
  }
  const capacity = storageQuantity(capacityMap['storage']!, ['spec', 'capacity', 'storage'], false);
  const accessModes = compileAccessModes(spec.accessModes, ['spec', 'accessModes'], 'Required value');
  const sources = countSources(spec);
  if (sources === 0) throw new FieldError('Required value: must specify a volume type', ['spec']);
  if (sources > 1) throw new FieldError('Forbidden: may not specify more than 1 volume type', ['spec']);
  const required = spec.nodeAffinity?.required;
  if (spec.nodeAffinity && !required) throw new FieldError('Required value: must have at least one node affinity term', ['spec', 'nodeAffinity', 'required']);
  if (required && required.nodeSelectorTerms.length === 0) throw new FieldError('Required value: must have at least one node selector term', ['spec', 'nodeAffinity', 'required', 'nodeSelectorTerms']);
  // CheckNodeAffinity matches lazily, as a pod's required node affinity: a bad Gt/Lt value fails only its term.
  const nodeAffinity = required ? compileNodeSelector(required, ['spec', 'nodeAffinity', 'required'], { lazyValueErrors: true }) : null;
  const ref = spec.claimRef;
  return {
    name,
    uid: m.metadata.uid ?? name,
    labels: m.metadata.labels ?? {},
    annotations: m.metadata.annotations ?? {},
    storageClassName: classOf(m.metadata.annotations, spec.storageClassName),
    capacity,
    accessModes,
    volumeMode: spec.volumeMode ?? 'Filesystem',
    claimRef: ref ? { namespace: ref.namespace || 'default', name: ref.name ?? '', uid: ref.uid ?? '' } : null,
    nodeAffinity,
    source: sourceOf(spec) ?? { kind: 'other', type: spec.other?.[0] ?? '' },
    // The PV controller makes a volume Available once created; one that names a claim, Bound (a hand-written PV often has no status).
    phase: m.status?.phase ?? (ref ? 'Bound' : 'Available'),
    deleting: m.metadata.deletionTimestamp != null,
  };
}

/** The claim a spec describes; `path` is where the spec sits (for errors). */
function compileClaimSpec(spec: PersistentVolumeClaimSpecManifest, path: FieldPath) {
  const accessModes = compileAccessModes(spec.accessModes, [...path, 'accessModes'], 'Required value: at least 1 access mode is required');
  const requested = spec.resources?.requests?.['storage'];
  if (requested === undefined) throw new FieldError('Required value', [...path, 'resources', 'requests', 'storage']);
  const request = storageQuantity(requested, [...path, 'resources', 'requests', 'storage'], true);
  const selector = spec.selector ? atPath([...path, 'selector'], () => compileLabelSelector(spec.selector as Parameters<typeof compileLabelSelector>[0])) : null;
  return { accessModes, request, selector, volumeMode: spec.volumeMode ?? ('Filesystem' as VolumeMode) };
}

export function compilePersistentVolumeClaim(m: PersistentVolumeClaimManifest): PersistentVolumeClaim {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  const namespace = m.metadata.namespace || 'default';
  const annotations = m.metadata.annotations ?? {};
  const compiled = compileClaimSpec(m.spec, ['spec']);
  const phase = m.status?.phase ?? '';
  const volumeName = m.spec.volumeName ?? '';
  return {
    namespace,
    name,
    key: `${namespace}/${name}`,
    uid: m.metadata.uid ?? `${namespace}/${name}`,
    labels: m.metadata.labels ?? {},
    annotations,
    ownerReferences: compileOwnerReferences(m.metadata.ownerReferences),
    storageClassName: classOf(annotations, m.spec.storageClassName),
    ...compiled,
    volumeName,
    // A claim written as Bound (as kubectl shows a bound claim) is one whose binding the PV controller completed.
    bindCompleted: volumeName !== '' && (Object.hasOwn(annotations, ANN_BIND_COMPLETED) || phase === 'Bound'),
    phase,
    deleting: m.metadata.deletionTimestamp != null,
  };
}

export function compileStorageClass(m: StorageClassManifest): StorageClass {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  if (!m.provisioner) throw new FieldError('Required value', ['provisioner']);
  const allowedTopologies = (m.allowedTopologies ?? []).map((term, i) => {
    const exprs = term.matchLabelExpressions ?? [];
    if (exprs.length === 0) throw new FieldError('Required value: must have at least one label expression', ['allowedTopologies', i, 'matchLabelExpressions']);
    return exprs.map((e, j) => {
      const at = ['allowedTopologies', i, 'matchLabelExpressions', j];
      if (!e.key) throw new FieldError('Required value', [...at, 'key']);
      if (e.values.length === 0) throw new FieldError('Required value: must specify as least one value', [...at, 'values']);
      return { key: e.key, values: e.values };
    });
  });
  return {
    name,
    provisioner: m.provisioner,
    volumeBindingMode: m.volumeBindingMode ?? 'Immediate',
    allowedTopologies,
    isDefault: m.metadata.annotations?.[ANN_DEFAULT_CLASS] === 'true',
  };
}

export function compileCSINode(m: CSINodeManifest): CSINode {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  const seen = new Set<string>();
  const drivers = m.spec.drivers.map((d, i) => {
    if (!d.name) throw new FieldError('Required value', ['spec', 'drivers', i, 'name']);
    if (seen.has(d.name)) throw new FieldError(`Duplicate value: ${JSON.stringify(d.name)}`, ['spec', 'drivers', i, 'name']);
    seen.add(d.name);
    const count = d.allocatable?.count;
    if (count !== undefined && count < 0) throw new FieldError(`Invalid value: ${count}: must be greater than or equal to 0`, ['spec', 'drivers', i, 'allocatable', 'count']);
    return { name: d.name, nodeID: d.nodeID ?? '', topologyKeys: d.topologyKeys ?? [], allocatableCount: count };
  });
  const migrated = m.metadata.annotations?.[ANN_MIGRATED_PLUGINS] ?? '';
  return { name, drivers, migratedPlugins: new Set(migrated === '' ? [] : migrated.split(',')) };
}

export function compileCSIDriver(m: CSIDriverManifest): CSIDriver {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  return {
    name,
    attachRequired: m.spec?.attachRequired ?? true,
    storageCapacity: m.spec?.storageCapacity ?? false,
    preventPodSchedulingIfMissing: m.spec?.preventPodSchedulingIfMissing ?? false,
  };
}

export function compileCSIStorageCapacity(m: CSIStorageCapacityManifest): CSIStorageCapacity {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  if (!m.storageClassName) throw new FieldError('Required value', ['storageClassName']);
  return {
    namespace: m.metadata.namespace || 'default',
    name,
    storageClassName: m.storageClassName,
    nodeTopology: m.nodeTopology ? atPath(['nodeTopology'], () => compileLabelSelector(m.nodeTopology as Parameters<typeof compileLabelSelector>[0])) : null,
    capacity: m.capacity === undefined ? undefined : storageQuantity(m.capacity, ['capacity'], false),
    maximumVolumeSize: m.maximumVolumeSize === undefined ? undefined : storageQuantity(m.maximumVolumeSize, ['maximumVolumeSize'], false),
  };
}

export function compileVolumeAttachment(m: VolumeAttachmentManifest): VolumeAttachment {
  const name = m.metadata.name ?? '';
  if (!name) throw new FieldError('Required value: name or generateName is required', ['metadata', 'name']);
  if (!m.spec.attacher) throw new FieldError('Required value', ['spec', 'attacher']);
  if (!m.spec.nodeName) throw new FieldError('Required value', ['spec', 'nodeName']);
  return { name, attacher: m.spec.attacher, nodeName: m.spec.nodeName, persistentVolumeName: m.spec.source.persistentVolumeName ?? '' };
}

/** ephemeral.VolumeClaimName: the claim a generic ephemeral volume gets, `<pod>-<volume>`. */
export function ephemeralClaimName(podName: string, volumeName: string): string {
  return `${podName}-${volumeName}`;
}

/** The volumes of a pod spec that the volume plugins read (persistent claims, ephemeral claims, CSI and in-tree disks), in spec order. */
export function compilePodVolumes(podName: string, volumes: readonly PodVolumeManifest[] | undefined, path: FieldPath): PodVolume[] {
  const out: PodVolume[] = [];
  (volumes ?? []).forEach((v, i) => {
    if (v.persistentVolumeClaim) {
      const claimName = v.persistentVolumeClaim.claimName ?? '';
      if (!claimName) throw new FieldError('Required value', [...path, i, 'persistentVolumeClaim', 'claimName']);
      out.push({ kind: 'claim', name: v.name, claimName, ephemeral: false, readOnly: v.persistentVolumeClaim.readOnly ?? false });
    } else if (v.ephemeral) {
      if (!v.ephemeral.volumeClaimTemplate) throw new FieldError('Required value', [...path, i, 'ephemeral', 'volumeClaimTemplate']);
      out.push({ kind: 'claim', name: v.name, claimName: ephemeralClaimName(podName, v.name), ephemeral: true, readOnly: false, claimTemplate: v.ephemeral.volumeClaimTemplate });
    } else if (v.csi) {
      out.push({ kind: 'inline', name: v.name, source: { kind: 'csi', driver: v.csi.driver, volumeHandle: '', readOnly: v.csi.readOnly ?? false } });
    } else {
      const source = sourceOf(v);
      if (source) out.push({ kind: 'inline', name: v.name, source });
    }
  });
  return out;
}

/**
 * The claim a generic ephemeral volume stands for, as the ephemeral volume
 * controller creates it: named `<pod>-<volume>`, controlled by the pod.
 */
export function ephemeralClaimManifest(pod: { readonly namespace: string; readonly name: string; readonly uid: string }, volume: PodVolume): PersistentVolumeClaimManifest | undefined {
  if (volume.kind !== 'claim' || !volume.claimTemplate) return undefined;
  const template = volume.claimTemplate;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      ...(template.metadata ?? {}),
      name: volume.claimName,
      namespace: pod.namespace,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid, controller: true }],
    },
    spec: template.spec,
  };
}

/**
 * ephemeral.VolumeIsForPod: an ephemeral volume's claim must be controlled by the
 * pod; otherwise it is someone else's claim that happens to have the name.
 */
export function ephemeralClaimOwnerError(pod: { readonly namespace: string; readonly name: string; readonly uid: string }, pvc: PersistentVolumeClaim): string | undefined {
  const owner = pvc.ownerReferences.find((o) => o.controller);
  if (owner && owner.uid === pod.uid) return undefined;
  return `PVC ${pvc.namespace}/${pvc.name} was not created for pod ${pod.namespace}/${pod.name} (pod is not owner)`;
}

/** v1helper.MatchTopologySelectorTerms: no terms match every node; otherwise some term's every expression holds. */
export function matchesAllowedTopologies(sc: StorageClass, labels: Labels): boolean {
  if (sc.allowedTopologies.length === 0) return true;
  return sc.allowedTopologies.some((term) => term.every((e) => Object.hasOwn(labels, e.key) && e.values.includes(labels[e.key]!)));
}

/** volume.CheckNodeAffinity: a PV without node affinity is reachable from every node. */
export function pvMatchesNode(pv: PersistentVolume, node: { readonly name: string; readonly labels: Labels }): boolean {
  return pv.nodeAffinity === null || pv.nodeAffinity.matches(node);
}

/** volume.IsVolumeBoundToClaim: the PV's claimRef names this claim (and its uid, when the ref has one). */
export function isVolumeBoundToClaim(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  if (pv.claimRef === null) return false;
  if (pv.claimRef.name !== claim.name || pv.claimRef.namespace !== claim.namespace) return false;
  return pv.claimRef.uid === '' || pv.claimRef.uid === claim.uid;
}

/** The in-tree plugin a volume source belongs to, when kube-scheduler treats it as migrated to CSI. */
export function inTreePluginOf(source: VolumeSource): (typeof IN_TREE_PLUGINS)[InTreeSource] | undefined {
  return source.kind === 'awsElasticBlockStore' || source.kind === 'gcePersistentDisk' ? IN_TREE_PLUGINS[source.kind] : undefined;
}

/** The in-tree plugin whose provisioner name this is (a StorageClass's kubernetes.io/aws-ebs). */
export function inTreePluginByProvisioner(provisioner: string): (typeof IN_TREE_PLUGINS)[InTreeSource] | undefined {
  return Object.values(IN_TREE_PLUGINS).find((p) => p.plugin === provisioner);
}

/**
 * The CSI volume handle csi-translation-lib gives an in-tree disk: an EBS volume ID
 * without its `aws://<zone>/` prefix; a GCE PD as a zonal disk path (an inline PD
 * and a PV without zone labels get UNSPECIFIED).
 */
export function translatedVolumeHandle(source: VolumeSource, zoneLabel?: string): string {
  if (source.kind === 'awsElasticBlockStore') {
    const id = source.volumeID;
    if (!id.startsWith('aws://')) return id;
    const path = id.slice('aws://'.length);
    const slash = path.indexOf('/');
    return (slash < 0 ? '' : path.slice(slash)).replace(/^\/+|\/+$/g, '');
  }
  if (source.kind === 'gcePersistentDisk') {
    const zones = (zoneLabel ?? '').split('__').filter((z) => z !== '');
    if (zones.length > 1) return `projects/UNSPECIFIED/regions/${regionOfZone(zones[0]!)}/disks/${source.pdName}`;
    return `projects/UNSPECIFIED/zones/${zones[0] ?? 'UNSPECIFIED'}/disks/${source.pdName}`;
  }
  return source.kind === 'csi' ? source.volumeHandle : '';
}

function regionOfZone(zone: string): string {
  const i = zone.lastIndexOf('-');
  return i < 0 ? zone : zone.slice(0, i);
}

/** Whether a PV's storage size, mode, class and access modes allow it to hold the claim (FindMatchingVolume's static checks). */
export function volumeModesMatch(claim: PersistentVolumeClaim, pv: PersistentVolume): boolean {
  return claim.volumeMode === pv.volumeMode;
}

/** volume.CheckAccessModes: every mode the claim asks for is one the volume offers. */
export function accessModesSatisfied(claim: PersistentVolumeClaim, pv: PersistentVolume): boolean {
  return claim.accessModes.every((m) => pv.accessModes.includes(m));
}

const GA_ZONE = 'topology.kubernetes.io/zone';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const GA_REGION = 'topology.kubernetes.io/region';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';

/**
 * csi-translation-lib's TranslateInTreePVToCSI for EBS and GCE PD, as the scheduler
 * sees the result: the CSI driver and handle, and node affinity whose zone key
 * (GA or beta, whichever the PV uses) becomes the driver's topology key (zones
 * taken from the PV's zone label when its node affinity has none) and whose beta
 * region key becomes the GA one. Other volumes are returned unchanged.
 */
export function translateInTreePV(pv: PersistentVolume): PersistentVolume {
  const plugin = inTreePluginOf(pv.source);
  if (!plugin) return pv;
  const terms = pv.nodeAffinity?.terms ?? [];
  const hasKey = (key: string) => terms.some((t) => (t.matchExpressions ?? []).some((e) => e.key === key));
  const beta = hasKey(GA_ZONE) ? false : hasKey(BETA_ZONE) ? true : GA_ZONE in pv.labels ? false : BETA_ZONE in pv.labels;
  const zoneKey = beta ? BETA_ZONE : GA_ZONE;
  const rename = (key: string) => (key === zoneKey ? plugin.topologyKey : beta && key === BETA_REGION ? GA_REGION : key);
  let newTerms = terms.map((t) => ({ ...t, matchExpressions: (t.matchExpressions ?? []).map((e) => ({ ...e, key: rename(e.key) })) }));
  if (!hasKey(zoneKey)) {
    const zones = [...new Set((pv.labels[zoneKey] ?? '').split('__').map((z) => z.trim()).filter((z) => z !== ''))].sort();
    if (zones.length > 0) {
      const req = { key: plugin.topologyKey, operator: 'In' as const, values: zones };
      newTerms = newTerms.length === 0 ? [{ matchExpressions: [req] }] : newTerms.map((t) => ({ ...t, matchExpressions: [...t.matchExpressions, req] }));
    }
  }
  const nodeAffinity = newTerms.length > 0 ? compileNodeSelector({ nodeSelectorTerms: newTerms }, [], { lazyValueErrors: true }) : null;
  // The GCE translator reads the beta zone label first.
  const volumeHandle = translatedVolumeHandle(pv.source, pv.labels[BETA_ZONE] || pv.labels[GA_ZONE]);
  return { ...pv, nodeAffinity, source: { kind: 'csi', driver: plugin.driver, volumeHandle, readOnly: 'readOnly' in pv.source ? pv.source.readOnly : false } };
}
