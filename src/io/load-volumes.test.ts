// Storage kinds through the loader: what lands in the input (claims created for
// StatefulSets and ephemeral volumes, the default class), API-server validation
// errors at file:line:column and field, and warnings for dangling references.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDiagnostic } from './diagnostics.js';
import { loadSources } from './load.js';

const load = (text: string) => loadSources([{ name: 'v.yaml', text }]);

const zonalPV = `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-c}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: gp3
  claimRef: {namespace: default, name: data}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0123}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-west-2c]}]
status: {phase: Bound}
`;
const gp3 = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-west-2a, us-west-2c]}]
`;
const claim = (extra = '') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 10Gi}}
${extra}`;

describe('storage kinds', () => {
  test('a PV, its bound claim and a class compile, with bytes, modes, node affinity and the bound state', () => {
    const r = load([zonalPV, gp3, claim('  storageClassName: gp3\n  volumeName: pv-c\nstatus: {phase: Bound}\n')].join('---\n'));
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    const [pv] = r.input.storage.persistentVolumes;
    assert.equal(pv?.capacity, 10 * 2 ** 30);
    assert.deepEqual(pv?.accessModes, ['ReadWriteOnce']);
    assert.equal(pv?.source.kind, 'csi');
    assert.equal(pv?.nodeAffinity?.matches({ name: 'n', labels: { 'topology.kubernetes.io/zone': 'us-west-2c' } }), true);
    assert.equal(pv?.nodeAffinity?.matches({ name: 'n', labels: { 'topology.kubernetes.io/zone': 'us-west-2a' } }), false);
    const [pvc] = r.input.storage.persistentVolumeClaims;
    assert.equal(pvc?.bindCompleted, true);
    assert.equal(pvc?.request, 10 * 2 ** 30);
    const [sc] = r.input.storage.storageClasses;
    assert.equal(sc?.volumeBindingMode, 'WaitForFirstConsumer');
    assert.deepEqual(sc?.allowedTopologies, [[{ key: 'topology.kubernetes.io/zone', values: ['us-west-2a', 'us-west-2c'] }]]);
    assert.deepEqual(r.warnings, []);
  });

  test('a claim with volumeName but neither Bound phase nor bind-completed annotation is not yet bound (the PV controller has not finished)', () => {
    const r = load([zonalPV, claim('  storageClassName: gp3\n  volumeName: pv-c\n')].join('---\n'));
    assert.ok(r.ok);
    assert.equal(r.input.storage.persistentVolumeClaims[0]?.bindCompleted, false);
  });

  test('DefaultStorageClass admission: a claim without storageClassName gets the default class; "" stays class-less', () => {
    const r = load([gp3, claim(), claim('  storageClassName: ""\n').replace('name: data', 'name: static')].join('---\n'));
    assert.ok(r.ok);
    assert.deepEqual(
      r.input.storage.persistentVolumeClaims.map((c) => [c.name, c.storageClassName]),
      [
        ['data', 'gp3'],
        ['static', ''],
      ],
    );
  });

  test('StatefulSet volumeClaimTemplates: one claim per template and ordinal, <template>-<sts>-<ordinal>, mounted by the pods', () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: etcd}
spec:
  replicas: 3
  ordinals: {start: 1}
  selector: {matchLabels: {app: etcd}}
  template:
    metadata: {labels: {app: etcd}}
    spec:
      containers: [{name: c, image: etcd}]
      volumes: [{name: data, emptyDir: {}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], storageClassName: gp3, resources: {requests: {storage: 5Gi}}}
`;
    const r = load([gp3, sts].join('---\n'));
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    assert.deepEqual(r.input.storage.generatedClaims, ['default/data-etcd-1', 'default/data-etcd-2', 'default/data-etcd-3']);
    assert.deepEqual(r.input.storage.persistentVolumeClaims[0]?.labels, { app: 'etcd' });
    // The template's emptyDir of the same name is replaced by the claim.
    assert.deepEqual(
      r.input.pods.map((p) => [p.name, p.volumes]),
      [1, 2, 3].map((i) => [`etcd-${i}`, [{ kind: 'claim', name: 'data', claimName: `data-etcd-${i}`, ephemeral: false, readOnly: false }]]),
    );
    const summary = r.input.workloads[0];
    assert.equal(summary?.storage?.whenDeleted, 'Retain');
  });

  test('a StatefulSet claim that the input has is kept, not recreated', () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: etcd}
spec:
  replicas: 1
  selector: {matchLabels: {app: etcd}}
  template: {metadata: {labels: {app: etcd}}, spec: {containers: [{name: c, image: etcd}]}}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}}
`;
    const r = load([sts, claim().replace('name: data', 'name: data-etcd-0').replace('10Gi', '7Gi')].join('---\n'));
    assert.ok(r.ok);
    assert.deepEqual(r.input.storage.generatedClaims, []);
    assert.equal(r.input.storage.persistentVolumeClaims[0]?.request, 7 * 2 ** 30);
  });

  test('a generic ephemeral volume gets its claim <pod>-<volume>, controlled by the pod', () => {
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, uid: u1}
spec:
  containers: [{name: c, image: x}]
  volumes:
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        spec: {accessModes: [ReadWriteOnce], storageClassName: gp3, resources: {requests: {storage: 1Gi}}}
`;
    const r = load([gp3, pod].join('---\n'));
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    const [pvc] = r.input.storage.persistentVolumeClaims;
    assert.equal(pvc?.key, 'default/web-scratch');
    assert.deepEqual(pvc?.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'u1', controller: true }]);
    assert.equal(r.input.pods[0]?.volumes?.[0]?.kind === 'claim' && r.input.pods[0].volumes[0].ephemeral, true);
  });

  test('in-tree and CSI inline volumes are read with their identity', () => {
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: x}]
  volumes:
  - {name: a, awsElasticBlockStore: {volumeID: "aws://us-west-2a/vol-1"}}
  - {name: b, gcePersistentDisk: {pdName: disk-1, readOnly: true}}
  - {name: c, csi: {driver: inline.example.com}}
  - {name: d, configMap: {name: x}}
`;
    const r = load(pod);
    assert.ok(r.ok);
    assert.deepEqual(
      r.input.pods[0]?.volumes?.map((v) => (v.kind === 'inline' ? v.source.kind : v.kind)),
      ['awsElasticBlockStore', 'gcePersistentDisk', 'csi'],
    );
  });

  const bad = [
    { name: 'PV without capacity', text: zonalPV.replace('  capacity: {storage: 10Gi}\n', ''), want: 'v.yaml:4:1: PersistentVolume pv-c: spec.capacity: Required value' },
    { name: 'PV capacity of cpu', text: zonalPV.replace('{storage: 10Gi}', '{cpu: 1}'), want: 'v.yaml:5:3: PersistentVolume pv-c: spec.capacity: Unsupported value: "cpu": supported values: "storage"' },
    { name: 'PV capacity not a quantity', text: zonalPV.replace('10Gi', '10GB'), want: 'v.yaml:5:23: PersistentVolume pv-c: spec.capacity.storage: ' },
    { name: 'PV without a source', text: zonalPV.replace('  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0123}\n', ''), want: 'v.yaml:4:1: PersistentVolume pv-c: spec: Required value: must specify a volume type' },
    { name: 'unknown access mode', text: claim().replace('[ReadWriteOnce]', '[ReadWriteOnce, ReadWriteAll]'), want: 'v.yaml:5:32: PersistentVolumeClaim default/data: spec.accessModes[1]: Unsupported value: "ReadWriteAll": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"' },
    { name: 'ReadWriteOncePod with another mode', text: claim().replace('[ReadWriteOnce]', '[ReadWriteOncePod, ReadOnlyMany]'), want: 'v.yaml:5:3: PersistentVolumeClaim default/data: spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes' },
    { name: 'claim without access modes', text: claim().replace('  accessModes: [ReadWriteOnce]\n', ''), want: 'v.yaml:4:1: PersistentVolumeClaim default/data: spec.accessModes: Required value: at least 1 access mode is required' },
    { name: 'claim of zero bytes', text: claim().replace('10Gi', '0'), want: 'v.yaml:6:35: PersistentVolumeClaim default/data: spec.resources.requests.storage: Invalid value: "0": must be greater than zero' },
    { name: 'claim without a storage request', text: claim().replace('{requests: {storage: 10Gi}}', '{}'), want: 'v.yaml:6:3: PersistentVolumeClaim default/data: spec.resources.requests.storage: Required value' },
    { name: 'class without provisioner', text: gp3.replace('provisioner: ebs.csi.aws.com\n', ''), want: 'v.yaml:1:1: StorageClass gp3: provisioner: Required value' },
    { name: 'unknown binding mode', text: gp3.replace('WaitForFirstConsumer', 'Later'), want: 'v.yaml:5:20: StorageClass gp3: volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"' },
    { name: 'negative attach count', text: 'apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\nspec:\n  drivers: [{name: ebs.csi.aws.com, allocatable: {count: -1}}]\n', want: 'v.yaml:5:58: CSINode n1: spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0' },
  ];
  for (const c of bad) {
    test(`error: ${c.name}`, () => {
      const r = load(c.text);
      assert.ok(!r.ok);
      const got = r.errors.map(formatDiagnostic);
      assert.ok(got.some((g) => g.startsWith(c.want)), got.join('\n'));
    });
  }

  test('warnings name the scheduler message a dangling reference leads to', () => {
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: missing}}]
`;
    const r = load([claim('  storageClassName: fast\n'), claim('  storageClassName: gp3\n  volumeName: nowhere\n').replace('name: data', 'name: orphan'), pod].join('---\n'));
    assert.ok(r.ok);
    assert.deepEqual(r.warnings.map(formatDiagnostic), [
      'v.yaml:7:21: PersistentVolumeClaim default/data: spec.storageClassName: Not found: StorageClass "fast" is not in the input; the claim is treated as Immediate binding and stays unbound (pod has unbound immediate PersistentVolumeClaims)',
      'v.yaml:16:15: PersistentVolumeClaim default/orphan: spec.volumeName: Not found: PersistentVolume "nowhere" is not in the input; pods using the claim cannot schedule (node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s))',
      'v.yaml:23:3: Pod default/web: spec.volumes: Not found: PersistentVolumeClaim default/missing (volume "data") is not in the input; the pod cannot schedule (persistentvolumeclaim "missing" not found)',
    ]);
  });

  test('storage kinds are read, not skipped', () => {
    const r = load([zonalPV, gp3, 'apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: ebs.csi.aws.com}\nspec: {storageCapacity: true}\n'].join('---\n'));
    assert.ok(r.ok);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.input.storage.csiDrivers[0]?.storageCapacity, true);
    assert.equal(r.input.storage.csiDrivers[0]?.attachRequired, true);
  });
});
