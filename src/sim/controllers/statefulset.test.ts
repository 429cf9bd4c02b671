import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePod } from '../../model/pod.js';
import { compileLabelSelector } from '../../model/selector.js';
import { createSimulation } from '../simulation.js';
import { clusterWithNodes } from '../fixtures.test-support.js';
import type { StatefulSetInit } from './statefulset.js';

function template(image: string) {
  const labels = { app: 'db' };
  const spec = { containers: [{ name: 'c', image, resources: { requests: { cpu: '100m' } } }], terminationGracePeriodSeconds: 5 };
  return { template: { metadata: { labels }, spec }, templatePod: compilePod({ metadata: { name: 'db', namespace: 'default', labels }, spec }, { order: 0 }) };
}

function setup(o: Partial<StatefulSetInit> = {}) {
  const sim = createSimulation(clusterWithNodes([{ name: 'n1' }, { name: 'n2' }]), { seed: 1 });
  const s = sim.statefulSets.add({ namespace: 'default', name: 'db', uid: 'sts-db', replicas: 3, selector: compileLabelSelector({ matchLabels: { app: 'db' } }), ...template('v1'), ...o });
  return { sim, s };
}

/** Times of a log event type per pod name. */
function times(sim: ReturnType<typeof setup>['sim'], type: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of sim.engine.log) if (r.type === type && typeof r['pod'] === 'string') out[r['pod'].slice('default/'.length)] ??= r.t;
  return out;
}

describe('StatefulSet controller', () => {
  const creationCases = [
    // Each pod starts 1 s after binding and is ready 1 s later: OrderedReady waits for that.
    { name: 'OrderedReady creates each ordinal after the previous is ready', policy: 'OrderedReady' as const, want: { 'db-0': 0, 'db-1': 2000, 'db-2': 4000 } },
    { name: 'Parallel creates every ordinal at once', policy: 'Parallel' as const, want: { 'db-0': 0, 'db-1': 0, 'db-2': 0 } },
  ];
  for (const c of creationCases) {
    it(c.name, () => {
      const { sim, s } = setup({ podManagementPolicy: c.policy });
      sim.engine.run(20_000);
      assert.deepEqual(times(sim, 'PodCreated'), c.want);
      const p = sim.world.cluster.getPod('default/db-1')!;
      assert.equal(p.labels['statefulset.kubernetes.io/pod-name'], 'db-1');
      assert.equal(p.labels['apps.kubernetes.io/pod-index'], '1');
      assert.equal(p.labels['controller-revision-hash'], s.updateRevision);
      assert.deepEqual(sim.world.cluster.statefulSets.map((x) => x.uid), ['sts-db']);
      assert.deepEqual(p.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'sts-db', controller: true }]);
      assert.deepEqual({ ...s.status, currentRevision: '', updateRevision: '' }, { replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: '', updateRevision: '' });
    });
  }

  it('OrderedReady scales down from the highest ordinal, waiting for each pod to be gone', () => {
    const { sim, s } = setup({ replicas: 4 });
    sim.engine.run(20_000);
    const t0 = sim.engine.now;
    sim.statefulSets.scale(s.key, 1);
    sim.engine.run(60_000);
    const term = times(sim, 'PodTerminating');
    assert.deepEqual(Object.keys(term).sort((a, b) => term[a]! - term[b]!), ['db-3', 'db-2', 'db-1']);
    // Grace period 5 s each, one after the other.
    assert.deepEqual([term['db-3'], term['db-2'], term['db-1']], [t0, t0 + 5000, t0 + 10_000]);
    assert.equal(s.status.replicas, 1);
  });

  it('recreates a deleted pod with the same name once the old one is gone', () => {
    const { sim } = setup();
    sim.engine.run(20_000);
    const old = sim.world.cluster.getPod('default/db-1')!;
    const t0 = sim.engine.now;
    sim.world.deletePod(old.key, 'test');
    sim.engine.run(t0 + 4000);
    assert.equal(sim.world.cluster.getPod('default/db-1')!.uid, old.uid, 'still terminating');
    sim.engine.run(30_000);
    const fresh = sim.world.cluster.getPod('default/db-1')!;
    assert.notEqual(fresh.uid, old.uid);
    assert.equal(fresh.terminating, false);
  });

  const rolloutCases = [
    { name: 'partition 0 updates from the highest ordinal down', strategy: { type: 'RollingUpdate' as const }, order: ['db-2', 'db-1', 'db-0'], updated: 3 },
    { name: 'partition 1 leaves ordinal 0 on the old revision', strategy: { type: 'RollingUpdate' as const, partition: 1 }, order: ['db-2', 'db-1'], updated: 2 },
    { name: 'OnDelete deletes nothing', strategy: { type: 'OnDelete' as const }, order: [], updated: 0 },
  ];
  for (const c of rolloutCases) {
    it(c.name, () => {
      const { sim, s } = setup({ updateStrategy: c.strategy });
      sim.engine.run(20_000);
      const before = s.updateRevision;
      const t = template('v2');
      sim.statefulSets.setTemplate(s.key, t.template, t.templatePod);
      sim.engine.run(100_000);
      const order = sim.engine.log.filter((r) => r.type === 'StatefulSetPodDeleted').map((r) => String(r['pod']).slice('default/'.length));
      assert.deepEqual(order, c.order);
      assert.equal(s.status.updatedReplicas, c.updated);
      assert.equal(s.status.currentRevision, c.updated === 3 ? s.updateRevision : before);
    });
  }

  it('maxUnavailable 2 deletes two pods at a time', () => {
    const { sim, s } = setup({ replicas: 4, updateStrategy: { type: 'RollingUpdate', maxUnavailable: 2 } });
    sim.engine.run(20_000);
    const t0 = sim.engine.now;
    const t = template('v2');
    sim.statefulSets.setTemplate(s.key, t.template, t.templatePod);
    sim.engine.run(100_000);
    const deleted = sim.engine.log.filter((r) => r.type === 'StatefulSetPodDeleted').map((r) => [String(r['pod']).slice(8), r.t]);
    assert.deepEqual(deleted.slice(0, 2), [['db-3', t0], ['db-2', t0]]);
    assert.equal(s.status.updatedReplicas, 4);
  });
});
