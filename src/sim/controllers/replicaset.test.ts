import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileLabelSelector } from '../../model/selector.js';
import { changedPod } from '../../model/pod.js';
import { createSimulation } from '../simulation.js';
import { World } from '../world.js';
import { clusterWithNodes, pod } from '../fixtures.test-support.js';

function setup() {
  const cluster = clusterWithNodes([{ name: 'n1', cpu: '1' }, { name: 'n2', cpu: '1' }]);
  const sim = createSimulation(cluster, { seed: 3 });
  const template = { ...pod('tmpl', { cpu: '1', labels: { app: 'x' } }), terminationGracePeriodSeconds: 5 };
  const rs = sim.replicaSets.add({ namespace: 'default', name: 'x', uid: 'rs-x', replicas: 3, selector: compileLabelSelector({ matchLabels: { app: 'x' } }), template, minReadySeconds: 0, owner: '' });
  return { sim, rs };
}

describe('ReplicaSet controller', () => {
  it('creates pods toward spec.replicas, named after the ReplicaSet and owned by it', () => {
    const { sim, rs } = setup();
    sim.engine.run(10_000);
    const pods = sim.replicaSets.podsOf(rs);
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.match(p.name, /^x-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.deepEqual(p.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: 'rs-x', controller: true }]);
      assert.deepEqual(p.labels, { app: 'x' });
    }
    assert.equal(new Set(pods.map((p) => p.uid)).size, 3);
    assert.deepEqual(sim.world.cluster.replicaSets.map((r) => r.uid), ['rs-x']);
    assert.deepEqual(sim.replicaSets.status(rs), { replicas: 3, readyReplicas: 2, availableReplicas: 2 });
  });

  it('scales down the unscheduled pod first, then the not-ready one, and replaces nothing', () => {
    const { sim, rs } = setup();
    sim.engine.run(10_000);
    const pendingKey = sim.world.cluster.pendingPods()[0]!.key;
    sim.replicaSets.scale(rs, 2);
    sim.engine.run(11_000);
    assert.equal(sim.world.cluster.getPod(pendingKey), undefined);
    assert.equal(sim.replicaSets.podsOf(rs).length, 2);
    // One pod is deleted (terminating for 5 s); its replacement is not ready yet when we scale down again.
    const [first] = sim.replicaSets.podsOf(rs);
    sim.world.deletePod(first!.key, 'test');
    sim.engine.run(16_500);
    const fresh = sim.replicaSets.podsOf(rs).find((p) => !sim.world.isReady(p.key))!;
    assert.ok(fresh, 'a replacement pod that is not ready yet');
    sim.replicaSets.scale(rs, 1);
    sim.engine.run(16_500);
    assert.equal(sim.world.cluster.getPod(fresh.key)!.terminating, true);
    sim.engine.run(60_000);
    assert.deepEqual(sim.replicaSets.status(rs), { replicas: 1, readyReplicas: 1, availableReplicas: 1 });
  });

  it('runs over copies of one cluster share the status of pods as they started, until one of them changes in a run', () => {
    const cluster = clusterWithNodes([{ name: 'n1', cpu: '4' }, { name: 'n2', cpu: '4' }]);
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: 'rs-x', controller: true };
    for (const n of ['n1', 'n2']) cluster.addPod(changedPod(pod(`x-${n}`, { nodeName: n, labels: { app: 'x' } }), { ownerReferences: [owner], phase: 'Running' }));
    const podIndex = World.indexPods(cluster);
    const run = () => {
      const sim = createSimulation(cluster.clone(), { seed: 1, podIndex });
      const rs = sim.replicaSets.add({ namespace: 'default', name: 'x', uid: 'rs-x', replicas: 2, selector: compileLabelSelector({ matchLabels: { app: 'x' } }), template: pod('tmpl', { labels: { app: 'x' } }), minReadySeconds: 0, owner: '' });
      return { sim, rs };
    };
    const a = run();
    assert.deepEqual(a.sim.replicaSets.status(a.rs), { replicas: 2, readyReplicas: 2, availableReplicas: 2 });
    a.sim.world.markNotReady('default/x-n1', 'test');
    assert.deepEqual(a.sim.replicaSets.status(a.rs), { replicas: 2, readyReplicas: 1, availableReplicas: 1 });
    const b = run();
    assert.deepEqual(b.sim.replicaSets.status(b.rs), { replicas: 2, readyReplicas: 2, availableReplicas: 2 });
    b.sim.world.deletePod('default/x-n2', 'test');
    assert.deepEqual(b.sim.replicaSets.status(b.rs), { replicas: 1, readyReplicas: 1, availableReplicas: 1 });
  });
});
