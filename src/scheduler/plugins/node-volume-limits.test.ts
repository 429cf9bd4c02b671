// NodeVolumeLimits, translated from kube-scheduler's csi_test.go (TestCSILimits):
// unique volumes per driver against CSINode allocatable.count, VolumeAttachments,
// pending claims counted by their class's driver, in-tree EBS as ebs.csi.aws.com,
// ephemeral claims, and the preventPodSchedulingIfMissing check.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPlugin, mkNode, mkPod } from '../../../test/fixtures/plugin-harness.js';
import { boundPVC, mkClass, mkCSINode, mkPV, mkPVC, storageCluster } from '../../../test/fixtures/volumes.js';
import type { Pod } from '../../model/pod.js';
import { compileCSIDriver, compileVolumeAttachment, type PodVolumeManifest } from '../../model/volumes.js';
import type { FeatureGates } from '../feature-gates.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin } from '../framework.js';
import { Code } from '../status.js';
import { ERR_REASON_MAX_VOLUME_COUNT, newNodeVolumeLimits } from './node-volume-limits.js';

const EBS = 'ebs.csi.aws.com';
const GCE = 'pd.csi.storage.gke.io';
let n = 0;
const claims = (...names: string[]): PodVolumeManifest[] => names.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } }));
const pod = (volumes: PodVolumeManifest[], onNode = false, meta: { uid?: string; name?: string } = {}) =>
  mkPod(meta.name ?? `p${n++}`, { volumes, ...(onNode ? { nodeName: 'node-1' } : {}) }, meta.uid ? { uid: meta.uid } : {});

const pvs = [
  ...[0, 1, 2, 3].map((i) => mkPV(`ebs-${i}`, { csi: { driver: EBS, volumeHandle: `ebs-vol-${i}` } })),
  ...[0, 1].map((i) => mkPV(`gce-${i}`, { csi: { driver: GCE, volumeHandle: `gce-vol-${i}` } })),
  mkPV('intree-0', { awsElasticBlockStore: { volumeID: 'aws-vol-0' } }),
  mkPV('intree-1', { awsElasticBlockStore: { volumeID: 'aws-vol-1' } }),
  mkPV('intree-2', { awsElasticBlockStore: { volumeID: 'aws-vol-2' } }),
];
const pvcs = [
  ...[0, 1, 2, 3].map((i) => boundPVC(`csi-ebs-${i}`, `ebs-${i}`)),
  ...[0, 1].map((i) => boundPVC(`csi-gce-${i}`, `gce-${i}`)),
  ...[0, 1, 2].map((i) => boundPVC(`intree-${i}`, `intree-${i}`)),
  mkPVC('csi-pending', { storageClassName: 'csi-sc' }),
  boundPVC('csi-missing-pv', 'no-such-pv', { storageClassName: 'csi-sc' }),
  mkPVC('no-sc', { storageClassName: 'nonexistent-sc' }),
  mkPVC('eph-xyz', { storageClassName: 'csi-sc' }, { ownerReferences: [{ kind: 'Pod', name: 'eph', uid: 'eph-uid', controller: true }] }),
];
const classes = [mkClass('csi-sc', { provisioner: EBS })];

const csiEBSOneVolPod = () => pod(claims('csi-ebs-0'));
const csiEBSTwoVolPod = () => pod(claims('csi-ebs-1', 'csi-ebs-2'), true);
const runningPod = () => pod(claims('csi-ebs-3'), true);

interface Case {
  newPod: Pod;
  existing?: Pod[];
  limits?: Record<string, number>;
  csiNode?: boolean;
  vaCount?: number;
  drivers?: ReturnType<typeof compileCSIDriver>[];
  features?: FeatureGates;
}

function run(c: Case) {
  const node = mkNode('node-1');
  const csiNodes = c.csiNode === false ? [] : [mkCSINode('node-1', Object.entries(c.limits ?? {}).map(([name, count]) => ({ name, ...(count >= 0 ? { allocatable: { count } } : {}) })))];
  const volumeAttachments = Array.from({ length: c.vaCount ?? 0 }, (_, i) => compileVolumeAttachment({ metadata: { name: `va-${i}` }, spec: { attacher: EBS, nodeName: 'node-1', source: { persistentVolumeName: `ebs-${i}` } } }));
  const cluster = storageCluster([node], c.existing ?? [], { persistentVolumes: pvs, persistentVolumeClaims: pvcs, storageClasses: classes, csiNodes, volumeAttachments, csiDrivers: c.drivers ?? [] });
  const { plugin } = buildPlugin<PreFilterPlugin & FilterPlugin>(newNodeVolumeLimits, {}, cluster, c.features);
  const state = new CycleState();
  const pre = plugin.preFilter(state, c.newPod, cluster.nodeInfos()).status;
  if (!pre.isSuccess()) return { code: pre.code, reasons: [...pre.reasons] };
  const s = plugin.filter(state, c.newPod, cluster.nodeInfo('node-1')!);
  return { code: s.code, reasons: [...s.reasons] };
}

interface Verdict {
  code: Code;
  reasons: string[];
}
const ok: Verdict = { code: Code.Success, reasons: [] };
const exceeded: Verdict = { code: Code.Unschedulable, reasons: [ERR_REASON_MAX_VOLUME_COUNT] };

describe('NodeVolumeLimits (csi_test.go TestCSILimits)', () => {
  const cases: [string, () => Case, Verdict][] = [
    ['should count VolumeAttachments towards volume limit when no pods exist', () => ({ newPod: csiEBSOneVolPod(), limits: { [EBS]: 2 }, vaCount: 2 }), exceeded],
    ['should schedule pod when VolumeAttachments count does not exceed limit', () => ({ newPod: csiEBSOneVolPod(), limits: { [EBS]: 2 }, vaCount: 1 }), ok],
    ['fits when node volume limit >= new pods CSI volume', () => ({ newPod: csiEBSOneVolPod(), existing: [runningPod(), csiEBSTwoVolPod()], limits: { [EBS]: 4 } }), ok],
    ["doesn't when node volume limit <= pods CSI volume", () => ({ newPod: csiEBSOneVolPod(), existing: [runningPod(), csiEBSTwoVolPod()], limits: { [EBS]: 2 } }), exceeded],
    ['should when driver does not support volume limits', () => ({ newPod: csiEBSOneVolPod(), existing: [runningPod(), csiEBSTwoVolPod()], limits: { [EBS]: -1 } }), ok],
    ['count pending PVCs towards volume limit <= pods CSI volume', () => ({ newPod: csiEBSOneVolPod(), existing: [pod(claims('csi-pending'), true), csiEBSTwoVolPod()], limits: { [EBS]: 2 } }), exceeded],
    ['count multiple pending pvcs towards volume limit >= pods CSI volume', () => ({ newPod: csiEBSOneVolPod(), existing: [pod(claims('csi-pending'), true), pod(claims('csi-pending'), true), csiEBSTwoVolPod()], limits: { [EBS]: 4 } }), ok],
    ['should count PVCs with invalid PV name but valid SC', () => ({ newPod: csiEBSOneVolPod(), existing: [pod(claims('csi-missing-pv'), true), csiEBSTwoVolPod()], limits: { [EBS]: 2 } }), exceeded],
    ["don't count pvcs with missing SC towards volume limit", () => ({ newPod: csiEBSOneVolPod(), existing: [runningPod(), pod(claims('no-sc'), true)], limits: { [EBS]: 2 } }), ok],
    ['count pvcs with the same type towards volume limit', () => ({ newPod: csiEBSOneVolPod(), existing: [pod(claims('csi-gce-0', 'csi-gce-1'), true), csiEBSTwoVolPod()], limits: { [EBS]: 2, [GCE]: 2 } }), exceeded],
    ["don't count pvcs with different type towards volume limit", () => ({ newPod: pod(claims('csi-gce-0', 'csi-gce-1')), existing: [csiEBSTwoVolPod(), runningPod()], limits: { [EBS]: 2, [GCE]: 2 } }), ok],
    ['should count in-tree volumes if migration is enabled', () => ({ newPod: pod(claims('intree-0')), existing: [pod(claims('intree-1', 'intree-2'), true)], limits: { [EBS]: 2 } }), exceeded],
    ['nil csi node', () => ({ newPod: pod([{ name: 'v', awsElasticBlockStore: { volumeID: 'aws-inline1' } }]), existing: [pod(claims('intree-1', 'intree-2'), true)], csiNode: false }), ok],
    ['should count in-tree inline volumes if migration is enabled', () => ({ newPod: pod([{ name: 'v', awsElasticBlockStore: { volumeID: 'aws-inline1' } }]), existing: [pod(claims('intree-1', 'intree-2'), true)], limits: { [EBS]: 2 } }), exceeded],
    ['ephemeral volume not owned', () => ({ newPod: pod([{ name: 'xyz', ephemeral: { volumeClaimTemplate: { spec: {} } } }], false, { name: 'eph', uid: 'other-uid' }), limits: { [EBS]: 2 } }), { code: Code.Error, reasons: ['PVC default/eph-xyz was not created for pod default/eph (pod is not owner)'] }],
    ['ephemeral volume unbound', () => ({ newPod: pod([{ name: 'xyz', ephemeral: { volumeClaimTemplate: { spec: {} } } }], false, { name: 'eph', uid: 'eph-uid' }), limits: { [EBS]: 2 } }), ok],
    ["ephemeral doesn't when node volume limit <= pods CSI volume", () => ({ newPod: pod([{ name: 'xyz', ephemeral: { volumeClaimTemplate: { spec: {} } } }], false, { name: 'eph', uid: 'eph-uid' }), existing: [csiEBSTwoVolPod()], limits: { [EBS]: 2 } }), exceeded],
    ['skip Filter when the pod only uses secrets and configmaps', () => ({ newPod: pod([{ name: 'c', emptyDir: {} }]), limits: { [EBS]: 0 } }), { code: Code.Skip, reasons: [] }],
  ];
  for (const [name, mk, want] of cases) it(`upstream: ${JSON.stringify(name)}`, () => assert.deepEqual(run(mk()), want));

  it('a missing claim of the pod being placed is its lister error', () => {
    assert.deepEqual(run({ newPod: pod(claims('nope')), limits: { [EBS]: 2 } }), { code: Code.UnschedulableAndUnresolvable, reasons: ['looking up PVC default/nope: persistentvolumeclaim "nope" not found'] });
  });

});

describe('NodeVolumeLimits and the VolumeLimitScaling gate (csi_test.go TestVolumeLimitScalingGate)', () => {
  const driver = (prevent: boolean) => compileCSIDriver({ metadata: { name: EBS }, spec: prevent ? { preventPodSchedulingIfMissing: true } : {} });
  const off = { VolumeLimitScaling: false };
  const notInstalled: Verdict = { code: Code.Unschedulable, reasons: [`${EBS} CSI driver is not installed on the node`] };
  // "no-csi-driver": the node's CSINode lists no driver; "csinode": it lists the driver with a limit of 2.
  const cases: [string, Case, Verdict][] = [
    ['gate enabled - allow scheduling when CSIDriver exists but PreventPodSchedulingIfMissing is not set', { newPod: csiEBSOneVolPod(), limits: {}, drivers: [driver(false)] }, ok],
    ['gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is true', { newPod: csiEBSOneVolPod(), limits: {}, drivers: [driver(true)] }, notInstalled],
    ['gate disabled - skip driver presence check (regardless of CSIDriver presence)', { newPod: csiEBSOneVolPod(), limits: {}, drivers: [driver(true)], features: off }, ok],
    ['gate enabled - driver installed within limit', { newPod: csiEBSOneVolPod(), limits: { [EBS]: 2 }, drivers: [driver(true)] }, ok],
    ['gate enabled - allow scheduling when CSIDriver object missing', { newPod: csiEBSOneVolPod(), limits: {} }, ok],
  ];
  for (const [name, c, want] of cases) it(`upstream: ${JSON.stringify(name)}`, () => assert.deepEqual(run(c), want));

  it('with the gate off a driver missing from the node still counts against the limits the node has', () => {
    const existing = [csiEBSTwoVolPod()];
    assert.deepEqual(run({ newPod: pod(claims('csi-gce-0')), existing, limits: { [EBS]: 5 }, drivers: [compileCSIDriver({ metadata: { name: GCE }, spec: { preventPodSchedulingIfMissing: true } })], features: off }), ok);
    assert.deepEqual(run({ newPod: csiEBSOneVolPod(), existing, limits: { [EBS]: 2 }, drivers: [driver(true)], features: off }), exceeded);
  });
});
