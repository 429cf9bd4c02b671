import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import { VolumeStore } from '../cluster/volumes.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compileNode } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import { compileCSINode, compilePersistentVolume, compilePersistentVolumeClaim, compileStorageClass, type PersistentVolume } from '../model/volumes.js';
import { bundledInstanceTypes } from './catalog/catalog.js';
import { planProvisioning, type PoolSpec } from './plan.js';
import { validatePersistentVolumeClaims, volumeRequirementAlternatives } from './volume-topology.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

const pool: PoolSpec = {
  name: 'default',
  weight: 0,
  labels: {},
  requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
  taints: [],
  limits: {},
};

// Karpenter's suite: a WaitForFirstConsumer class allowed in two zones.
const wffc = compileStorageClass({ metadata: { name: 'wffc' }, provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'WaitForFirstConsumer', allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE, values: ['us-west-2b', 'us-west-2c'] }] }] });

function pv(name: string, terms: { key: string; values: string[] }[][], source: 'csi' | 'local' = 'csi'): PersistentVolume {
  return compilePersistentVolume({
    metadata: { name },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'wffc',
      ...(source === 'csi' ? { csi: { driver: 'ebs.csi.aws.com', volumeHandle: name } } : { other: ['local'] }),
      nodeAffinity: { required: { nodeSelectorTerms: terms.map((t) => ({ matchExpressions: t.map((e) => ({ key: e.key, operator: 'In' as const, values: e.values })) })) } },
    },
  });
}

function claim(name: string, volumeName = '', ownerPod?: string) {
  return compilePersistentVolumeClaim({
    metadata: {
      name,
      namespace: 'default',
      annotations: volumeName ? { 'pv.kubernetes.io/bind-completed': 'yes' } : {},
      // An ephemeral volume's claim is controlled by its pod (VolumeBinding checks it).
      ...(ownerPod ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: ownerPod, uid: `uid-${ownerPod}`, controller: true }] } : {}),
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, storageClassName: 'wffc', ...(volumeName ? { volumeName } : {}) },
  });
}

let order = 0;
function pod(name: string, claims: string[], zones?: string[], spec: Partial<PodSpecManifest> = {}): Pod {
  return compilePod(
    {
      metadata: { name, namespace: 'default', uid: `uid-${name}` },
      spec: {
        ...spec,
        containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
        volumes: [...claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })), ...(spec.volumes ?? [])],
        ...(zones ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In' as const, values: zones }] }] } } } } : {}),
      },
    },
    { order: order++ },
  );
}

function provision(p: Pod, storage: ConstructorParameters<typeof VolumeStore>[0]) {
  const cluster = new ClusterState();
  cluster.volumes = new VolumeStore({ storageClasses: [wffc], ...storage });
  cluster.addPod(p);
  const plan = planProvisioning({ cluster, pools: [pool], instanceTypes: bundledInstanceTypes(), daemonSetPods: [], config: {} });
  const node = plan.placements.find((x) => x.pod === p.key)?.node;
  return { zone: plan.nodeClaims.find((c) => c.name === node)?.zone, unschedulable: plan.unschedulable };
}

const show = (alts: ReturnType<typeof volumeRequirementAlternatives>) => alts.map((r) => r.toString());

describe('Karpenter volume topology', () => {
  it('upstream: "should schedule to storage class zones if volume does not exist" (suite_test.go)', () => {
    assert.equal(provision(pod('p', ['c'], ['us-west-2a', 'us-west-2c']), { persistentVolumeClaims: [claim('c')] }).zone, 'us-west-2c');
  });

  it('upstream: "should schedule to volume zones if volume already bound" (suite_test.go)', () => {
    assert.equal(provision(pod('p', ['c']), { persistentVolumeClaims: [claim('c', 'pv')], persistentVolumes: [pv('pv', [[{ key: ZONE, values: ['us-west-2c'] }]])] }).zone, 'us-west-2c');
  });

  it('upstream: "should schedule to volume zones if volume already bound (ephemeral volume)" (suite_test.go)', () => {
    const p = pod('p', [], undefined, { volumes: [{ name: 'tmp', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'wffc', resources: { requests: { storage: '1Gi' } } } } } }] });
    assert.equal(provision(p, { persistentVolumeClaims: [claim('p-tmp', 'pv', 'p')], persistentVolumes: [pv('pv', [[{ key: ZONE, values: ['us-west-2c'] }]])] }).zone, 'us-west-2c');
  });

  it('upstream: "should not schedule if volume zones are incompatible" (suite_test.go)', () => {
    const r = provision(pod('p', ['c'], ['us-west-2a']), { persistentVolumeClaims: [claim('c', 'pv')], persistentVolumes: [pv('pv', [[{ key: ZONE, values: ['us-west-2c'] }]])] });
    assert.equal(r.zone, undefined);
    assert.match(r.unschedulable[0]!.message, /incompatible volume requirements/);
  });

  it('upstream: "should not ignore hostname affinity when using non-local path volumes" (suite_test.go)', () => {
    const r = provision(pod('p', ['c']), { persistentVolumeClaims: [claim('c', 'pv')], persistentVolumes: [pv('pv', [[{ key: HOST, values: ['elsewhere'] }]])] });
    assert.equal(r.zone, undefined);
  });

  it('ignores a local volume\'s hostname affinity: the term becomes an unconstrained alternative', () => {
    const store = new VolumeStore({ persistentVolumeClaims: [claim('c', 'pv')], persistentVolumes: [pv('pv', [[{ key: HOST, values: ['gone'] }]], 'local')] });
    assert.deepEqual(show(volumeRequirementAlternatives(pod('p', ['c']), store)), ['']);
  });

  it('takes each OR\'d term as an alternative and keeps the compatible cross product over volumes', () => {
    const store = new VolumeStore({
      storageClasses: [wffc],
      persistentVolumeClaims: [claim('a', 'pa'), claim('b')],
      persistentVolumes: [pv('pa', [[{ key: ZONE, values: ['us-west-2a'] }], [{ key: ZONE, values: ['us-west-2b'] }]])],
    });
    // a: 2a | 2b; b (unbound, class 2b,2c): only 2b survives the intersection.
    assert.deepEqual(show(volumeRequirementAlternatives(pod('p', ['a', 'b']), store)), [`${ZONE} In [us-west-2b]`]);
  });

  it('keeps every combination when none is compatible (Karpenter leaves the pod to fail later)', () => {
    const store = new VolumeStore({
      persistentVolumeClaims: [claim('a', 'pa'), claim('b', 'pb')],
      persistentVolumes: [pv('pa', [[{ key: ZONE, values: ['us-west-2a'] }]]), pv('pb', [[{ key: ZONE, values: ['us-west-2b'] }]])],
    });
    assert.equal(volumeRequirementAlternatives(pod('p', ['a', 'b']), store).length, 1);
    assert.equal(volumeRequirementAlternatives(pod('p', ['a', 'b']), store)[0]!.get(ZONE).len(), 0);
  });
});

/** A claim with every field a test may vary. */
function claimWith(name: string, o: { cls?: string; volumeName?: string; bindCompleted?: boolean; modes?: string[]; deleting?: boolean; phase?: string }) {
  return compilePersistentVolumeClaim({
    metadata: {
      name,
      namespace: 'default',
      annotations: o.volumeName && o.bindCompleted !== false ? { 'pv.kubernetes.io/bind-completed': 'yes' } : {},
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { accessModes: (o.modes ?? ['ReadWriteOnce']) as ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, storageClassName: o.cls ?? 'wffc', ...(o.volumeName ? { volumeName: o.volumeName } : {}) },
    ...(o.phase ? { status: { phase: o.phase } } : {}),
  });
}

function provisionAll(pods: Pod[], storage: ConstructorParameters<typeof VolumeStore>[0], existing: ReturnType<typeof compileNode>[] = []) {
  const cluster = new ClusterState();
  cluster.volumes = new VolumeStore({ storageClasses: [wffc], ...storage });
  for (const n of existing) cluster.addNode(n);
  for (const p of pods) cluster.addPod(p);
  return planProvisioning({ cluster, pools: [pool], instanceTypes: bundledInstanceTypes(), daemonSetPods: [], config: {} });
}

const immediate = compileStorageClass({ metadata: { name: 'now' }, provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'Immediate' });
const unzoned = compilePersistentVolume({ metadata: { name: 'pv' }, spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'pv' } } });

describe("Karpenter's Validate of a pod's claims (volumetopology.go ValidatePersistentVolumeClaims)", () => {
  const ignored = (storage: ConstructorParameters<typeof VolumeStore>[0]) => {
    const plan = provisionAll([pod('p', ['c'])], storage);
    assert.equal(plan.nodeClaims.length, 0);
    return plan.unschedulable[0]!.message;
  };

  it('upstream: "should not schedule if invalid pvc" (provisioning suite_test.go)', () => {
    assert.match(ignored({}), /^ignored by the provisioner: getting persistent volume claim, persistentvolumeclaims "c" not found/);
  });

  it('ignores a pod naming a missing claim even when the cluster holds no storage object at all (regression s7311-15)', () => {
    const cluster = new ClusterState();
    cluster.addPod(pod('p', ['c']));
    const plan = planProvisioning({ cluster, pools: [pool], instanceTypes: bundledInstanceTypes(), daemonSetPods: [], config: {} });
    assert.equal(plan.nodeClaims.length, 0);
    assert.match(plan.unschedulable[0]!.message, /persistentvolumeclaims "c" not found/);
  });

  it('upstream: "should schedule with an empty storage class if the pvc is bound" and "... a missing storage class if the pvc is bound"', () => {
    for (const cls of ['', 'missing']) {
      const plan = provisionAll([pod('p', ['c'])], { persistentVolumeClaims: [claimWith('c', { cls, volumeName: 'pv' })], persistentVolumes: [unzoned] });
      assert.equal(plan.nodeClaims.length, 1, `class ${JSON.stringify(cls)}`);
    }
  });

  it('upstream: "should not schedule with an empty storage class if the pvc is not bound" and "... a missing storage class if the pvc is not bound"', () => {
    assert.match(ignored({ persistentVolumeClaims: [claimWith('c', { cls: '' })] }), /unbound pvc "c" must define a storage class/);
    assert.match(ignored({ persistentVolumeClaims: [claimWith('c', { cls: 'missing' })] }), /failed to get storage class "missing"/);
  });

  it('upstream: "should schedule valid pods when a pod with an invalid pvc is encountered (volume name)"', () => {
    const plan = provisionAll([pod('bad', ['c']), pod('good', [])], { persistentVolumeClaims: [claimWith('c', { volumeName: 'gone' })] });
    assert.deepEqual(plan.placements.map((x) => x.pod), ['default/good']);
    assert.match(plan.unschedulable[0]!.message, /persistentvolumes "gone" not found/);
  });

  it('upstream: "should not launch nodes for pod with unbound volume for volumeBindingMode immediate" (scheduling suite_test.go)', () => {
    assert.match(ignored({ storageClasses: [immediate], persistentVolumeClaims: [claimWith('c', { cls: 'now' })] }), /pvc with immediate volume binding mode must be bound/);
  });

  it('upstream: "should not launch nodes for pod with deleting persistentVolumeClaim", "... bound persistentVolume that is marked for deletion", "... Lost persistentVolumeClaim"', () => {
    assert.match(ignored({ persistentVolumeClaims: [claimWith('c', { deleting: true })] }), /is being deleted/);
    const deletingPV = compilePersistentVolume({ metadata: { name: 'pv', deletionTimestamp: '2026-01-01T00:00:00Z' }, spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'h' } } });
    assert.match(ignored({ persistentVolumeClaims: [claimWith('c', { volumeName: 'pv' })], persistentVolumes: [deletingPV] }), /persistentvolume is being deleted/);
    assert.match(ignored({ persistentVolumeClaims: [claimWith('c', { volumeName: 'pv', phase: 'Lost' })], persistentVolumes: [unzoned] }), /bound to non-existent persistentvolume/);
  });

  it('a claim naming a volume without the PV controller\'s bind-completed mark is unbound to kube-scheduler, so Karpenter ignores the pod', () => {
    const store = new VolumeStore({ persistentVolumeClaims: [claimWith('c', { volumeName: 'pv', bindCompleted: false })], persistentVolumes: [unzoned] });
    assert.match(validatePersistentVolumeClaims(pod('p', ['c']), store) ?? '', /does not contain annotation pv.kubernetes.io\/bind-completed/);
  });
});

describe('kube-scheduler volume plugins stay off NodeClaims (Karpenter does not run them there)', () => {
  it('two pods sharing one ReadWriteOncePod claim both get a node planned', () => {
    const plan = provisionAll([pod('a', ['rwop']), pod('b', ['rwop'])], { persistentVolumeClaims: [claimWith('rwop', { modes: ['ReadWriteOncePod'] })] });
    assert.equal(plan.unschedulable.length, 0);
  });

  it('a class whose allowedTopologies use the beta zone key plans a node in one of those zones (no VolumeBinding check of claim labels)', () => {
    const beta = compileStorageClass({ metadata: { name: 'beta' }, provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'WaitForFirstConsumer', allowedTopologies: [{ matchLabelExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', values: ['us-west-2d'] }] }] });
    const plan = provisionAll([pod('p', ['c'])], { storageClasses: [beta], persistentVolumeClaims: [claimWith('c', { cls: 'beta' })] });
    assert.equal(plan.nodeClaims[0]?.zone, 'us-west-2d');
  });

  it("narrows a claim's zones to the volume's without settling one", () => {
    const plan = provisionAll([pod('p', ['c'])], { persistentVolumeClaims: [claimWith('c', {})] });
    const zone = plan.nodeClaims[0]!.requirements.find((r) => r.key === ZONE);
    assert.deepEqual([...(zone?.values ?? [])].sort(), ['us-west-2b', 'us-west-2c']);
  });

  it('upstream: "should launch a single node if all pods use the same PVC" (scheduling suite_test.go)', () => {
    const shared = pv('shared', [[{ key: ZONE, values: ['us-west-2a'] }]]);
    const pods = Array.from({ length: 40 }, (_, i) => pod(`p${i}`, ['c']));
    const plan = provisionAll(pods, { persistentVolumeClaims: [claimWith('c', { volumeName: 'shared', modes: ['ReadWriteMany'] })], persistentVolumes: [shared] });
    assert.equal(plan.nodeClaims.length, 1);
    assert.equal(plan.nodeClaims[0]!.zone, 'us-west-2a');
  });

  it('upstream: "should launch multiple nodes if required due to volume limits" (scheduling suite_test.go): an existing node\'s CSINode limit holds 5 pods of 2 volumes', () => {
    const existing = compileNode({ metadata: { name: 'n1', labels: { [ZONE]: 'us-west-2b', [HOST]: 'n1', 'kubernetes.io/arch': 'amd64' } }, status: { allocatable: { cpu: '1024', memory: '1024Gi', pods: '1024' } } }, 0);
    const csiNode = compileCSINode({ metadata: { name: 'n1' }, spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'n1', allocatable: { count: 10 } }] } });
    const claims = Array.from({ length: 6 }, (_, i) => [claimWith(`a${i}`, {}), claimWith(`b${i}`, {})]).flat();
    const pods = Array.from({ length: 6 }, (_, i) => pod(`p${i}`, [`a${i}`, `b${i}`]));
    const plan = provisionAll(pods, { persistentVolumeClaims: claims, csiNodes: [csiNode] }, [existing]);
    assert.equal(plan.placements.filter((x) => x.node === 'n1').length, 5);
    assert.equal(plan.nodeClaims.length, 1);
  });
});
