import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ANN_SELECTED_NODE,
  compilePersistentVolume,
  compilePersistentVolumeClaim,
  compileStorageClass,
  type PersistentVolumeClaim,
} from '../../model/volumes.js';
import { createSimulation } from '../simulation.js';
import { clusterWithNodes } from '../fixtures.test-support.js';

const ZONE = 'topology.kubernetes.io/zone';

function claim(name: string, o: { storageClassName?: string; size?: string; volumeName?: string; phase?: string; annotations?: Record<string, string> } = {}): PersistentVolumeClaim {
  return compilePersistentVolumeClaim({
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '10Gi' } }, storageClassName: o.storageClassName ?? 'gp3', ...(o.volumeName ? { volumeName: o.volumeName } : {}) },
    ...(o.phase ? { status: { phase: o.phase } } : {}),
  });
}

function staticPV(name: string, size: string, o: { zone?: string; storageClassName?: string } = {}) {
  return compilePersistentVolume({
    metadata: { name },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      storageClassName: o.storageClassName ?? 'gp3',
      csi: { driver: 'ebs.csi.aws.com', volumeHandle: name },
      ...(o.zone ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In' as const, values: [o.zone] }] }] } } } : {}),
    },
  });
}

function setup(mode: 'Immediate' | 'WaitForFirstConsumer', provisioner = 'ebs.csi.aws.com') {
  const cluster = clusterWithNodes([
    { name: 'a1', zone: 'us-west-2a' },
    { name: 'b1', zone: 'us-west-2b' },
    { name: 'c1', zone: 'us-west-2c' },
  ]);
  cluster.volumes.setStorageClass(compileStorageClass({ metadata: { name: 'gp3' }, provisioner, volumeBindingMode: mode }));
  const sim = createSimulation(cluster, { seed: 1, volumes: { provisionDelayMs: 5000 } });
  return { sim, volumes: cluster.volumes };
}

const zoneOf = (sim: ReturnType<typeof setup>['sim'], claimName: string) => {
  const volumes = sim.world.cluster.volumes;
  const pvc = volumes.claim('default', claimName)!;
  const pv = volumes.persistentVolume(pvc.volumeName);
  return pv?.nodeAffinity?.terms[0]?.matchExpressions?.[0]?.values[0];
};

describe('PersistentVolume controller', () => {
  it('provisions an Immediate claim after the delay, in the zone the external provisioner picks for its ordinal', () => {
    const { sim } = setup('Immediate');
    for (const o of [0, 1, 2]) sim.world.setClaim(claim(`data-etcd-${o}`), 'ClaimCreated');
    sim.engine.run(4999);
    assert.equal(sim.world.cluster.volumes.claim('default', 'data-etcd-0')!.volumeName, '');
    sim.engine.run(5000);
    assert.deepEqual([0, 1, 2].map((o) => zoneOf(sim, `data-etcd-${o}`)), ['us-west-2b', 'us-west-2c', 'us-west-2a']);
    const pvc = sim.world.cluster.volumes.claim('default', 'data-etcd-0')!;
    assert.equal(pvc.phase, 'Bound');
    assert.ok(pvc.bindCompleted);
    const pv = sim.world.cluster.volumes.persistentVolume(pvc.volumeName)!;
    assert.equal(pv.name, 'pvc-uid-data-etcd-0');
    assert.equal(pv.capacity, 10 * 1024 ** 3);
    assert.deepEqual(pv.claimRef, { namespace: 'default', name: 'data-etcd-0', uid: 'uid-data-etcd-0' });
  });

  it('binds an Immediate claim to the smallest Available volume that fits, without provisioning', () => {
    const { sim, volumes } = setup('Immediate');
    for (const pv of [staticPV('big', '100Gi'), staticPV('small', '5Gi'), staticPV('fit', '20Gi')]) volumes.setPersistentVolume(pv);
    sim.world.setClaim(claim('c'), 'ClaimCreated');
    sim.engine.run(0);
    assert.equal(volumes.claim('default', 'c')!.volumeName, 'fit');
    assert.equal(volumes.persistentVolume('fit')!.phase, 'Bound');
    assert.ok(!sim.engine.log.some((r) => r.type === 'ProvisioningStarted'));
  });

  it('leaves a WaitForFirstConsumer claim alone until the scheduler selects a node, then provisions in that node\'s zone', () => {
    const { sim, volumes } = setup('WaitForFirstConsumer');
    sim.world.setClaim(claim('c'), 'ClaimCreated');
    sim.engine.run(60_000);
    assert.equal(volumes.claim('default', 'c')!.volumeName, '');
    sim.world.setClaim({ ...volumes.claim('default', 'c')!, annotations: { [ANN_SELECTED_NODE]: 'c1' } }, 'Selected');
    sim.engine.run(70_000);
    assert.equal(zoneOf(sim, 'c'), 'us-west-2c');
  });

  it('hands a WaitForFirstConsumer claim back to the scheduler when the selected node is gone (rescheduleProvisioning)', () => {
    const { sim, volumes } = setup('WaitForFirstConsumer');
    sim.world.setClaim(claim('c', { annotations: { [ANN_SELECTED_NODE]: 'gone' } }), 'ClaimCreated');
    sim.engine.run(10_000);
    const pvc = volumes.claim('default', 'c')!;
    assert.equal(pvc.volumeName, '');
    assert.equal(pvc.annotations[ANN_SELECTED_NODE], undefined);
    assert.ok(sim.engine.log.some((r) => r.type === 'ProvisioningFailed' && r['message'] === 'node "gone" not found'));
  });

  it('never provisions for kubernetes.io/no-provisioner or a class that does not exist', () => {
    const { sim, volumes } = setup('Immediate', 'kubernetes.io/no-provisioner');
    sim.world.setClaim(claim('c'), 'ClaimCreated');
    sim.world.setClaim(claim('d', { storageClassName: 'missing' }), 'ClaimCreated');
    sim.engine.run(60_000);
    assert.equal(volumes.claim('default', 'c')!.volumeName, '');
    assert.equal(volumes.claim('default', 'd')!.volumeName, '');
  });

  it('deletes the volume it provisioned when the claim is deleted, and releases a static one', () => {
    const { sim, volumes } = setup('Immediate');
    volumes.setPersistentVolume(staticPV('static', '10Gi'));
    sim.world.setClaim(claim('s'), 'ClaimCreated');
    sim.world.setClaim(claim('p', { size: '50Gi' }), 'ClaimCreated');
    sim.engine.run(10_000);
    assert.equal(volumes.claim('default', 's')!.volumeName, 'static');
    assert.equal(volumes.claim('default', 'p')!.volumeName, 'pvc-uid-p');
    sim.world.deleteClaim('default/s', 'Deleted');
    sim.world.deleteClaim('default/p', 'Deleted');
    sim.engine.run(11_000);
    assert.equal(volumes.persistentVolume('pvc-uid-p'), undefined);
    assert.equal(volumes.persistentVolume('static')!.phase, 'Released');
    // A released volume is not bound again (Retain keeps its data for its old claim).
    sim.world.setClaim(claim('again'), 'ClaimCreated');
    sim.engine.run(20_000);
    assert.equal(volumes.claim('default', 'again')!.volumeName, 'pvc-uid-again');
  });

  it('marks a bound claim whose volume is gone Lost', () => {
    const { sim, volumes } = setup('Immediate');
    sim.world.setClaim(claim('c', { volumeName: 'missing', phase: 'Bound' }), 'ClaimCreated');
    sim.engine.run(0);
    assert.equal(volumes.claim('default', 'c')!.phase, 'Lost');
  });

  it('completes a claim written with spec.volumeName once the volume exists', () => {
    const { sim, volumes } = setup('Immediate');
    sim.world.setClaim(claim('c', { volumeName: 'later' }), 'ClaimCreated');
    sim.engine.run(1000);
    assert.equal(volumes.claim('default', 'c')!.bindCompleted, false);
    sim.world.setPersistentVolume(staticPV('later', '10Gi', { zone: 'us-west-2a' }), 'VolumeCreated');
    sim.engine.run(2000);
    assert.equal(volumes.claim('default', 'c')!.phase, 'Bound');
    assert.deepEqual(volumes.persistentVolume('later')!.claimRef?.name, 'c');
  });
});

describe('PersistentVolume controller, drivers without topology', () => {
  it('provisions a volume reachable from every node for a driver that reports no topology (EFS)', () => {
    const { sim, volumes } = setup('Immediate', 'efs.csi.aws.com');
    sim.world.setClaim(claim('shared'), 'ClaimCreated');
    sim.engine.run(10_000);
    const pv = volumes.persistentVolume(volumes.claim('default', 'shared')!.volumeName)!;
    assert.equal(pv.nodeAffinity, null);
  });
});
