// Storage for conformance cases: StorageClasses (Immediate, WaitForFirstConsumer
// with and without allowedTopologies, no-provisioner, a capacity-tracking CSI
// driver), PersistentVolumes (zonal and per-host node affinity, zone labels for
// VolumeZone, available, pre-bound or bound), claims in every binding state
// (bound, half-bound, unbound, selected node, lost, ReadWriteOncePod), CSINodes
// with attach limits and migrated plugins, CSIDrivers, CSIStorageCapacities and
// VolumeAttachments; and the volumes the pending and bound pods mount (claims,
// ephemeral claims, in-tree EBS/GCE PD disks).
//
// Choices keep both sides deterministic where upstream iterates a Go map: PVs have
// distinct capacities (the smallest fitting one is unique), a node sees at most one
// CSIStorageCapacity per class, and only one driver may be "not installed".

import fc from 'fast-check';

type Json = Record<string, unknown>;

const ZONE = 'topology.kubernetes.io/zone';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
const HOSTNAME = 'kubernetes.io/hostname';
const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;

const EBS = 'ebs.csi.aws.com';
const CAP_DRIVER = 'cap.csi.example.com';
const PICKY_DRIVER = 'picky.csi.example.com';

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const maybe = <T>(arb: fc.Arbitrary<T>, percent = 50): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: percent, arbitrary: arb }, { weight: 100 - percent, arbitrary: fc.constant(undefined) });

/** The classes a case may use; 'ghost' is named by claims but never created. */
const CLASSES = ['wffc', 'wffc-zonal', 'imm', 'static', 'cap', 'picky', 'intree', 'ghost'] as const;
type ClassName = (typeof CLASSES)[number];

function classJson(name: ClassName, zones: readonly string[]): Json | undefined {
  const sc = (provisioner: string, mode: string, more: Json = {}): Json => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, volumeBindingMode: mode, ...more });
  switch (name) {
    case 'wffc':
      return sc(EBS, 'WaitForFirstConsumer');
    case 'wffc-zonal':
      return sc(EBS, 'WaitForFirstConsumer', { allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE, values: [...zones] }] }] });
    case 'imm':
      return sc(EBS, 'Immediate');
    case 'static':
      return sc('kubernetes.io/no-provisioner', 'WaitForFirstConsumer');
    case 'cap':
      return sc(CAP_DRIVER, 'WaitForFirstConsumer');
    case 'picky':
      return sc(PICKY_DRIVER, 'WaitForFirstConsumer');
    case 'intree':
      return sc('kubernetes.io/aws-ebs', 'WaitForFirstConsumer');
    case 'ghost':
      return undefined;
  }
}

interface PVDraw {
  readonly cls: ClassName | '';
  readonly sizeGi: number;
  readonly modes: readonly string[];
  readonly affinity: 'none' | 'zone' | 'host' | 'field' | 'region';
  readonly zones: readonly number[];
  readonly host: number;
  readonly zoneLabel: 'none' | 'ga' | 'beta' | 'multi' | 'bad';
  readonly phase: 'Available' | 'Bound' | 'Released';
  readonly source: 'csi' | 'ebs' | 'gce';
  readonly deleting: boolean;
}

const modesArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant(['ReadWriteOnce']) },
  { weight: 2, arbitrary: fc.constant(['ReadWriteOncePod']) },
  { weight: 1, arbitrary: fc.constant(['ReadWriteOnce', 'ReadOnlyMany']) },
  { weight: 1, arbitrary: fc.constant(['ReadWriteMany']) },
);

const pvDrawArb: fc.Arbitrary<PVDraw> = fc.record({
  cls: fc.oneof({ weight: 6, arbitrary: pick(['wffc', 'wffc-zonal', 'static', 'imm', 'cap'] as const) }, { weight: 1, arbitrary: fc.constant('' as const) }),
  sizeGi: fc.integer({ min: 1, max: 20 }),
  modes: modesArb,
  affinity: fc.oneof({ weight: 5, arbitrary: fc.constant('zone' as const) }, { weight: 2, arbitrary: pick(['none', 'host'] as const) }, { weight: 1, arbitrary: pick(['field', 'region'] as const) }),
  zones: fc.uniqueArray(fc.nat(ZONES.length - 1), { minLength: 1, maxLength: 2 }),
  host: fc.nat(59),
  zoneLabel: fc.oneof({ weight: 5, arbitrary: fc.constant('none' as const) }, { weight: 3, arbitrary: fc.constant('ga' as const) }, { weight: 1, arbitrary: pick(['beta', 'multi', 'bad'] as const) }),
  phase: fc.oneof({ weight: 6, arbitrary: fc.constant('Available' as const) }, { weight: 1, arbitrary: pick(['Bound', 'Released'] as const) }),
  source: fc.oneof({ weight: 6, arbitrary: fc.constant('csi' as const) }, { weight: 1, arbitrary: pick(['ebs', 'gce'] as const) }),
  deleting: fc.oneof({ weight: 20, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

interface ClaimDraw {
  /** Which PV a bound or half-bound claim names (modulo the PV count); a missing one when out of range. */
  readonly pv: number;
  readonly state: 'bound' | 'unbound' | 'halfBound' | 'selected' | 'lost' | 'missingPV';
  readonly cls: ClassName | '';
  readonly requestGi: number;
  readonly modes: readonly string[];
  readonly selectedNode: number;
  readonly selector: boolean;
  readonly deleting: boolean;
}

const claimDrawArb: fc.Arbitrary<ClaimDraw> = fc.record({
  pv: fc.nat(7),
  state: fc.oneof(
    { weight: 6, arbitrary: fc.constant('bound' as const) },
    { weight: 6, arbitrary: fc.constant('unbound' as const) },
    { weight: 1, arbitrary: pick(['halfBound', 'selected', 'lost', 'missingPV'] as const) },
  ),
  cls: fc.oneof({ weight: 12, arbitrary: pick(CLASSES.filter((c) => c !== 'ghost')) }, { weight: 1, arbitrary: pick(['ghost', ''] as const) }),
  requestGi: fc.integer({ min: 1, max: 12 }),
  modes: modesArb,
  selectedNode: fc.nat(59),
  selector: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  deleting: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

interface CSINodeDraw {
  readonly node: number;
  readonly ebsCount: number | undefined;
  readonly capCount: number | undefined;
  readonly picky: boolean;
  readonly migrated: boolean;
}

const csiNodeDrawArb: fc.Arbitrary<CSINodeDraw> = fc.record({
  node: fc.nat(59),
  ebsCount: maybe(fc.nat(3), 70),
  capCount: maybe(fc.nat(2), 30),
  picky: fc.boolean(),
  migrated: fc.boolean(),
});

/** A volume a pod mounts: one of the case's claims, a missing claim, an ephemeral claim, or an in-tree disk. */
interface MountDraw {
  readonly kind: 'claim' | 'missing' | 'ephemeral' | 'ebs' | 'gce' | 'csi';
  readonly claim: number;
  readonly disk: number;
  readonly readOnly: boolean;
  readonly ownedEphemeral: boolean;
}

const mountDrawArb: fc.Arbitrary<MountDraw> = fc.record({
  kind: fc.oneof({ weight: 12, arbitrary: fc.constant('claim' as const) }, { weight: 1, arbitrary: pick(['missing', 'ephemeral', 'ebs', 'gce', 'csi'] as const) }),
  claim: fc.nat(7),
  disk: fc.nat(2),
  readOnly: fc.boolean(),
  ownedEphemeral: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
});

export interface StorageDraw {
  readonly pvs: readonly PVDraw[];
  readonly claims: readonly ClaimDraw[];
  readonly allowedZones: readonly number[];
  readonly csiNodes: readonly CSINodeDraw[];
  /** CSIDriver objects: capacity tracking for the cap driver, preventPodSchedulingIfMissing for the picky one. */
  readonly capDriver: 'none' | 'tracked' | 'untracked';
  readonly pickyDriver: boolean;
  /** Per zone: the cap class's capacity in Gi there (none when absent). */
  readonly capacities: readonly (number | undefined)[];
  readonly maxVolumeSize: boolean;
  readonly pending: readonly MountDraw[];
  /** Per bound pod (by index, cycling): the volumes it mounts. */
  readonly bound: readonly (readonly MountDraw[])[];
  readonly attachments: readonly { node: number; pv: number }[];
}

export const storageDrawArb: fc.Arbitrary<StorageDraw> = fc.record({
  pvs: fc.array(pvDrawArb, { maxLength: 8 }),
  claims: fc.array(claimDrawArb, { minLength: 1, maxLength: 6 }),
  allowedZones: fc.uniqueArray(fc.nat(ZONES.length - 1), { minLength: 1, maxLength: 2 }),
  csiNodes: fc.array(csiNodeDrawArb, { maxLength: 8 }),
  capDriver: pick(['none', 'tracked', 'tracked', 'untracked'] as const),
  pickyDriver: fc.boolean(),
  capacities: fc.array(maybe(fc.integer({ min: 0, max: 15 }), 70), { minLength: ZONES.length, maxLength: ZONES.length }),
  maxVolumeSize: fc.boolean(),
  pending: fc.array(mountDrawArb, { minLength: 1, maxLength: 3 }),
  bound: fc.array(fc.array(mountDrawArb, { maxLength: 2 }), { maxLength: 6 }),
  attachments: fc.array(fc.record({ node: fc.nat(59), pv: fc.nat(7) }), { maxLength: 2 }),
});

export interface StorageObjects {
  readonly pvs: Json[];
  readonly pvcs: Json[];
  readonly storageClasses: Json[];
  readonly csiNodes: Json[];
  readonly csiDrivers: Json[];
  readonly csiStorageCapacities: Json[];
  readonly volumeAttachments: Json[];
}

const gi = (n: number) => `${n}Gi`;

function pvJson(name: string, d: PVDraw, i: number, nodes: readonly string[], claimRef: Json | undefined): Json {
  const labels: Record<string, string> = {};
  const zones = d.zones.map((z) => ZONES[z]!);
  // A regional GCE PD needs GCE-style zone names to translate (berth does not model the translator's error).
  const zoneLabel = d.source === 'gce' && (d.zoneLabel === 'multi' || d.zoneLabel === 'bad') ? 'ga' : d.zoneLabel;
  if (zoneLabel === 'ga') labels[ZONE] = zones[0]!;
  if (zoneLabel === 'beta') labels[BETA_ZONE] = zones[0]!;
  if (zoneLabel === 'multi') labels[ZONE] = zones.join('__');
  // A valid label value that LabelZonesToSet cannot read (an empty zone between separators): VolumeZone ignores it.
  if (zoneLabel === 'bad') labels[ZONE] = `${zones[0]}____zone-x`;
  const spec: Json = {
    // Distinct capacities: the smallest fitting volume is never a tie.
    capacity: { storage: `${d.sizeGi * 1024 + i}Mi` },
    accessModes: d.modes,
    storageClassName: d.cls,
  };
  if (d.source === 'csi') spec['csi'] = { driver: d.cls === 'cap' ? CAP_DRIVER : EBS, volumeHandle: `vol-${i}` };
  else if (d.source === 'ebs') spec['awsElasticBlockStore'] = { volumeID: `aws://${zones[0]}/vol-${i}` };
  else spec['gcePersistentDisk'] = { pdName: `disk-${i}` };
  const term = (() => {
    switch (d.affinity) {
      case 'zone':
        return { matchExpressions: [{ key: ZONE, operator: 'In', values: zones }] };
      case 'host':
        return { matchExpressions: [{ key: HOSTNAME, operator: 'In', values: [nodes[d.host % nodes.length]!] }] };
      case 'field':
        return { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodes[d.host % nodes.length]!] }] };
      case 'region':
        return { matchExpressions: [{ key: REGION, operator: 'In', values: ['r1'] }] };
      case 'none':
        return undefined;
    }
  })();
  if (term) spec['nodeAffinity'] = { required: { nodeSelectorTerms: [term] } };
  if (claimRef) spec['claimRef'] = claimRef;
  const metadata: Json = { name, labels };
  if (d.deleting) metadata['deletionTimestamp'] = '2024-01-01T01:00:00Z';
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata, spec, status: { phase: claimRef ? 'Bound' : d.phase } };
}

/** The storage objects of a case and the volumes of its pods, written into `pending` and `bound` in place. */
/** The draw with the picky driver's CSIDriver present and the first claim of its class, so VolumeLimitScaling decides. */
export function withPickyDriver(d: StorageDraw): StorageDraw {
  return { ...d, pickyDriver: true, claims: d.claims.map((c, i) => (i === 0 ? { ...c, cls: 'picky' } : c)) };
}

export function assembleStorage(d: StorageDraw, nodes: readonly string[], pending: Json, bound: readonly Json[]): StorageObjects {
  const namespace = ((pending['metadata'] as Json)['namespace'] as string | undefined) ?? 'default';
  const zones = d.allowedZones.map((z) => ZONES[z]!);
  const classes = CLASSES.flatMap((c) => {
    const j = classJson(c, zones);
    return j ? [j] : [];
  });
  const claimName = (i: number) => `claim-${i}`;
  const pvName = (i: number) => `pv-${i}`;
  // A bound claim takes its PV (the first claim to name a PV wins it); the PV then names the claim.
  const claimOfPV = new Map<number, number>();
  d.claims.forEach((c, i) => {
    if ((c.state === 'bound' || c.state === 'halfBound') && d.pvs.length > 0 && !claimOfPV.has(c.pv % d.pvs.length)) claimOfPV.set(c.pv % d.pvs.length, i);
  });
  const pvs = d.pvs.map((p, i) => {
    const owner = claimOfPV.get(i);
    const claimRef = owner === undefined ? undefined : { namespace, name: claimName(owner), uid: `uid-pvc-${owner}` };
    return pvJson(pvName(i), p, i, nodes, claimRef);
  });
  const pvcs = d.claims.map((c, i) => {
    const pvIndex = [...claimOfPV].find(([, claim]) => claim === i)?.[0];
    const annotations: Record<string, string> = {};
    const spec: Json = { accessModes: c.modes, resources: { requests: { storage: gi(c.requestGi) } }, storageClassName: c.cls };
    let phase = 'Pending';
    if (pvIndex !== undefined && c.state === 'bound') {
      spec['volumeName'] = pvName(pvIndex);
      annotations['pv.kubernetes.io/bind-completed'] = 'yes';
      phase = 'Bound';
    } else if (pvIndex !== undefined) {
      spec['volumeName'] = pvName(pvIndex);
    } else if (c.state === 'missingPV') {
      spec['volumeName'] = 'pv-gone';
      annotations['pv.kubernetes.io/bind-completed'] = 'yes';
      phase = 'Bound';
    } else if (c.state === 'lost') {
      spec['volumeName'] = 'pv-gone';
      phase = 'Lost';
    } else if (c.state === 'selected') {
      annotations['volume.kubernetes.io/selected-node'] = nodes[c.selectedNode % nodes.length]!;
    }
    if (c.selector) spec['selector'] = { matchLabels: { [ZONE]: ZONES[c.selectedNode % ZONES.length]! } };
    const metadata: Json = { name: claimName(i), namespace, uid: `uid-pvc-${i}`, annotations };
    if (c.deleting) metadata['deletionTimestamp'] = '2024-01-01T01:00:00Z';
    return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata, spec, status: { phase } };
  });

  const mount = (pod: Json, m: MountDraw, j: number): Json => {
    const name = `v${j}`;
    switch (m.kind) {
      case 'claim':
        return { name, persistentVolumeClaim: { claimName: claimName(m.claim % d.claims.length), ...(m.readOnly ? { readOnly: true } : {}) } };
      case 'missing':
        return { name, persistentVolumeClaim: { claimName: 'claim-missing' } };
      case 'ephemeral': {
        const meta = pod['metadata'] as Json;
        const podName = meta['name'] as string;
        // The claim the ephemeral volume controller made (owned by the pod, or a foreign one of that name).
        pvcs.push({
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {
            name: `${podName}-${name}`,
            namespace: meta['namespace'] as string,
            uid: `uid-eph-${podName}-${name}`,
            ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: podName, uid: m.ownedEphemeral ? (meta['uid'] as string) : 'someone-else', controller: true }],
          },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'wffc' },
          status: { phase: 'Pending' },
        });
        return { name, ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'wffc' } } } };
      }
      case 'ebs':
        return { name, awsElasticBlockStore: { volumeID: `aws://zone-a/vol-disk${m.disk}`, ...(m.readOnly ? { readOnly: true } : {}) } };
      case 'gce':
        return { name, gcePersistentDisk: { pdName: `pd-${m.disk}`, ...(m.readOnly ? { readOnly: true } : {}) } };
      case 'csi':
        return { name, csi: { driver: EBS } };
    }
  };
  const addVolumes = (pod: Json, mounts: readonly MountDraw[]) => {
    if (mounts.length === 0) return;
    const spec = pod['spec'] as Json;
    spec['volumes'] = [...((spec['volumes'] as Json[] | undefined) ?? []), ...mounts.map((m, j) => mount(pod, m, j))];
  };
  addVolumes(pending, d.pending);
  bound.forEach((p, i) => {
    const mounts = d.bound[i % Math.max(1, d.bound.length)] ?? [];
    // Claims live in the pending pod's namespace; pods elsewhere would name missing claims (ignored for them upstream).
    if (((p['metadata'] as Json)['namespace'] ?? 'default') === namespace) addVolumes(p, mounts);
    else addVolumes(p, mounts.filter((m) => m.kind === 'ebs' || m.kind === 'gce'));
  });

  const byNode = new Map<string, CSINodeDraw>();
  for (const c of d.csiNodes) byNode.set(nodes[c.node % nodes.length]!, c);
  const csiNodes = [...byNode].map(([node, c]) => {
    const drivers: Json[] = [];
    if (c.ebsCount !== undefined || c.migrated) drivers.push({ name: EBS, nodeID: node, ...(c.ebsCount !== undefined ? { allocatable: { count: c.ebsCount } } : {}) });
    if (c.capCount !== undefined) drivers.push({ name: CAP_DRIVER, nodeID: node, allocatable: { count: c.capCount } });
    if (c.picky) drivers.push({ name: PICKY_DRIVER, nodeID: node });
    const metadata: Json = { name: node };
    if (c.migrated) metadata['annotations'] = { 'storage.alpha.kubernetes.io/migrated-plugins': 'kubernetes.io/aws-ebs,kubernetes.io/gce-pd' };
    return { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata, spec: { drivers } };
  });
  const csiDrivers: Json[] = [];
  if (d.capDriver !== 'none') csiDrivers.push({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: CAP_DRIVER }, spec: { storageCapacity: d.capDriver === 'tracked', attachRequired: true } });
  if (d.pickyDriver) csiDrivers.push({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: PICKY_DRIVER }, spec: { preventPodSchedulingIfMissing: true } });
  const csiStorageCapacities = d.capacities.flatMap((cap, z) =>
    cap === undefined
      ? []
      : [
          {
            apiVersion: 'storage.k8s.io/v1',
            kind: 'CSIStorageCapacity',
            metadata: { name: `cap-${ZONES[z]}`, namespace: 'kube-system' },
            storageClassName: 'cap',
            nodeTopology: { matchLabels: { [ZONE]: ZONES[z]! } },
            capacity: gi(cap),
            ...(d.maxVolumeSize ? { maximumVolumeSize: gi(Math.max(1, cap - 2)) } : {}),
          },
        ],
  );
  const volumeAttachments = d.pvs.length === 0 ? [] : d.attachments.map((a, i) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: `va-${i}` },
    spec: { attacher: EBS, nodeName: nodes[a.node % nodes.length]!, source: { persistentVolumeName: pvName(a.pv % d.pvs.length) } },
  }));
  return { pvs, pvcs, storageClasses: classes, csiNodes, csiDrivers, csiStorageCapacities, volumeAttachments };
}
