import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import { VolumeStore } from '../cluster/volumes.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compilePod, type Pod } from '../model/pod.js';
import { compilePersistentVolume, compilePersistentVolumeClaim, compileStorageClass, type PersistentVolume } from '../model/volumes.js';
import { bundledInstanceTypes } from './catalog/catalog.js';
import { planProvisioning, type PoolSpec } from './plan.js';
import { volumeRequirementAlternatives } from './volume-topology.js';

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
