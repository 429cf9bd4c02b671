import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePod } from '../../model/pod.js';
import { compileLabelSelector } from '../../model/selector.js';
import { compileStorageClass } from '../../model/volumes.js';
import { createSimulation } from '../simulation.js';
import { clusterWithNodes } from '../fixtures.test-support.js';
import type { StatefulSetStorage } from './statefulset-claims.js';

const labels = { app: 'db' };
const spec = { containers: [{ name: 'c', image: 'v1', resources: { requests: { cpu: '100m' } } }], terminationGracePeriodSeconds: 5, volumes: [{ name: 'data', emptyDir: {} }] };

function setup(storage: Partial<StatefulSetStorage> = {}) {
  const cluster = clusterWithNodes([{ name: 'n1', zone: 'z1' }, { name: 'n2', zone: 'z2' }]);
  cluster.volumes.setStorageClass(compileStorageClass({ metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'ebs.csi.aws.com' }));
  const sim = createSimulation(cluster, { seed: 1, volumes: { provisionDelayMs: 1000 } });
  const s = addDb(sim, 'sts-db', storage);
  return { sim, s, volumes: cluster.volumes };
}

function addDb(sim: ReturnType<typeof createSimulation>, uid: string, storage: Partial<StatefulSetStorage> = {}, replicas = 3) {
  return sim.statefulSets.add({
    namespace: 'default',
    name: 'db',
    uid,
    replicas,
    selector: compileLabelSelector({ matchLabels: labels }),
    selectorLabels: labels,
    template: { metadata: { labels }, spec },
    templatePod: compilePod({ metadata: { name: 'db', namespace: 'default', labels }, spec }, { order: 0 }),
    storage: { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }], whenDeleted: 'Retain', whenScaled: 'Retain', ...storage },
  });
}

const claimNames = (sim: ReturnType<typeof setup>['sim']) => [...sim.world.cluster.volumes.claims()].map((c) => c.name).sort();

describe('StatefulSet claims', () => {
  it('creates <template>-<sts>-<ordinal> before each pod, with the selector labels and the default class, and mounts it as the template volume', () => {
    const { sim, volumes } = setup();
    sim.engine.run(30_000);
    assert.deepEqual(claimNames(sim), ['data-db-0', 'data-db-1', 'data-db-2']);
    const pvc = volumes.claim('default', 'data-db-1')!;
    assert.deepEqual(pvc.labels, { app: 'db' });
    assert.equal(pvc.storageClassName, 'standard');
    assert.equal(pvc.phase, 'Bound');
    const created = sim.engine.log.findIndex((r) => r.type === 'ClaimCreated' && r['claim'] === 'default/data-db-1');
    const podCreated = sim.engine.log.findIndex((r) => r.type === 'PodCreated' && r['pod'] === 'default/db-1');
    assert.ok(created >= 0 && created < podCreated);
    // The claim replaces the template's emptyDir of the same name.
    assert.deepEqual(sim.world.cluster.getPod('default/db-1')!.volumes, [{ kind: 'claim', name: 'data', claimName: 'data-db-1', ephemeral: false, readOnly: false }]);
  });

  it('keeps the claims of a deleted pod and of scaled-down ordinals under Retain, and the recreated pod mounts the same claim', () => {
    const { sim, s, volumes } = setup();
    sim.engine.run(30_000);
    const volume = volumes.claim('default', 'data-db-1')!.volumeName;
    sim.world.deletePod('default/db-1', 'test');
    sim.engine.run(60_000);
    assert.equal(volumes.claim('default', 'data-db-1')!.volumeName, volume);
    sim.statefulSets.scale(s.key, 1);
    sim.engine.run(120_000);
    assert.deepEqual(claimNames(sim), ['data-db-0', 'data-db-1', 'data-db-2']);
  });

  it('deletes a scaled-down ordinal\'s claims with its pod under whenScaled: Delete, and the provisioned volumes with them', () => {
    const { sim, s, volumes } = setup({ whenScaled: 'Delete' });
    sim.engine.run(30_000);
    const gone = volumes.claim('default', 'data-db-2')!.volumeName;
    sim.statefulSets.scale(s.key, 2);
    sim.engine.run(60_000);
    assert.deepEqual(claimNames(sim), ['data-db-0', 'data-db-1']);
    assert.equal(volumes.persistentVolume(gone), undefined);
    // A pod deleted without a scale-down keeps its claim.
    sim.world.deletePod('default/db-1', 'test');
    sim.engine.run(90_000);
    assert.deepEqual(claimNames(sim), ['data-db-0', 'data-db-1']);
    // Scaling up again gets a fresh claim.
    sim.statefulSets.scale(s.key, 3);
    sim.engine.run(120_000);
    assert.notEqual(volumes.claim('default', 'data-db-2')?.volumeName ?? gone, gone);
  });

  it('whenDeleted: Delete (StatefulSetAutoDeletePVC): deleting the set deletes its pods, then each claim once its pod is gone, retained scaled-down claims included, and their volumes', () => {
    const { sim, s, volumes } = setup({ whenDeleted: 'Delete' });
    sim.engine.run(30_000);
    sim.statefulSets.scale(s.key, 2);
    sim.engine.run(60_000);
    assert.deepEqual(claimNames(sim), ['data-db-0', 'data-db-1', 'data-db-2']);
    const provisioned = claimNames(sim).map((n) => volumes.claim('default', n)!.volumeName);
    sim.statefulSets.remove(s.key);
    // The pods are terminating: their claims stay (pvc-protection), the unmounted one goes now.
    assert.deepEqual(claimNames(sim), ['data-db-0', 'data-db-1']);
    assert.ok(sim.statefulSets.podsOf(s).every((p) => p.terminating));
    sim.engine.run(120_000);
    assert.deepEqual([sim.statefulSets.podsOf(s).length, claimNames(sim).length], [0, 0]);
    for (const v of provisioned) assert.equal(volumes.persistentVolume(v), undefined);
    assert.equal(sim.statefulSets.objects.has(s.key), false);
    assert.equal(sim.world.cluster.statefulSets.length, 0);
  });

  it('whenDeleted: Retain: the claims outlive the deleted set, and a set re-created with the same name mounts them and their volumes again', () => {
    const { sim, s, volumes } = setup();
    sim.engine.run(30_000);
    const before = new Map(claimNames(sim).map((n) => [n, volumes.claim('default', n)!.volumeName]));
    sim.statefulSets.remove(s.key);
    sim.engine.run(60_000);
    assert.equal(sim.statefulSets.podsOf(s).length, 0);
    assert.deepEqual(claimNames(sim), ['data-db-0', 'data-db-1', 'data-db-2']);
    const again = addDb(sim, 'sts-db-2');
    sim.engine.run(120_000);
    assert.equal(sim.statefulSets.podsOf(again).filter((p) => p.nodeName !== '').length, 3);
    assert.deepEqual(new Map(claimNames(sim).map((n) => [n, volumes.claim('default', n)!.volumeName])), before);
    assert.equal(sim.engine.log.filter((r) => r.type === 'ClaimCreated').length, 3);
  });
});
