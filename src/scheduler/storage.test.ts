// Storage end to end through `berth schedule`'s path (load → ClusterState →
// scheduleAll), on examples/storage: the acceptance case, checked against
// kube-scheduler v1.37.2's answer for the same objects (the oracle gives the same
// placement and, word for word, the same message).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildClusterState, loadSources } from '../io/load.js';
import { scheduleAll } from './run.js';

const example = (name: string) => ({ name: `examples/storage/${name}`, text: readFileSync(new URL(`../../examples/storage/${name}`, import.meta.url), 'utf8') });

function schedule(...files: string[]) {
  const loaded = loadSources(files.map(example));
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
  assert.deepEqual(loaded.warnings, []);
  const cluster = buildClusterState(loaded.input);
  return { report: scheduleAll(cluster, {}), cluster };
}

describe('a pod whose claim is bound to a zonal PV', () => {
  it('lands only in the volume\'s zone (us-west-2c), though the other zones have more room', () => {
    const { report } = schedule('zonal-pv.yaml');
    assert.deepEqual(report.placements, [{ pod: 'default/db', node: 'node-c' }]);
  });

  it('stays Pending with upstream\'s FailedScheduling message when that zone has no room', () => {
    const { report } = schedule('zonal-pv.yaml', 'zonal-pv-full.yaml');
    assert.deepEqual(report.placements, []);
    assert.deepEqual(report.unschedulable, [
      {
        pod: 'default/db',
        message:
          "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
      },
    ]);
  });
});

describe('WaitForFirstConsumer claims across a schedule', () => {
  it('a StatefulSet\'s claims bind to available volumes in the zones their pods land in, one volume per claim', () => {
    const pv = (name: string, zone: string) => `apiVersion: v1
kind: PersistentVolume
metadata: {name: ${name}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/disk}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [${zone}]}]
`;
    const node = (name: string, zone: string) => `apiVersion: v1
kind: Node
metadata: {name: ${name}, labels: {topology.kubernetes.io/zone: ${zone}}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
`;
    const text = [
      node('n-a', 'a'),
      node('n-b', 'b'),
      'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n',
      pv('pv-a', 'a'),
      pv('pv-b', 'b'),
      `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: db, resources: {requests: {cpu: "1"}}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 5Gi}}}
`,
    ].join('---\n');
    const loaded = loadSources([{ name: 'sts.yaml', text }]);
    assert.ok(loaded.ok);
    const cluster = buildClusterState(loaded.input);
    const report = scheduleAll(cluster, {});
    // Two volumes, three claims: the third pod finds none left (each volume was assumed for an earlier pod).
    assert.equal(report.placements.length, 2);
    assert.deepEqual(report.unschedulable.map((u) => [u.pod, u.message]), [
      ['default/db-2', "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."],
    ]);
    const bound = [...cluster.volumes.claims()].filter((c) => c.bindCompleted).map((c) => [c.name, c.volumeName]);
    const zoneOf = new Map(report.placements.map((p) => [p.pod, p.node === 'n-a' ? 'pv-a' : 'pv-b']));
    assert.deepEqual(bound.sort(), [['data-db-0', zoneOf.get('default/db-0')], ['data-db-1', zoneOf.get('default/db-1')]].sort());
  });
});
