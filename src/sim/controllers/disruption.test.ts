import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IntOrString } from '../../model/manifest.js';
import { compilePdb } from '../../model/pdb.js';
import { createSimulation } from '../simulation.js';
import { app, clusterWithNodes } from '../fixtures.test-support.js';
import { allowedDisruptions, expectedAndDesired } from './disruption.js';

describe('PDB arithmetic', () => {
  const cases: { name: string; spec: { minAvailable?: IntOrString; maxUnavailable?: IntOrString }; pods: number; scale: number; healthy: number; want: [number, number, number] }[] = [
    { name: 'minAvailable int counts the selected pods', spec: { minAvailable: 2 }, pods: 4, scale: 5, healthy: 4, want: [4, 2, 2] },
    { name: 'minAvailable % of scale rounds up', spec: { minAvailable: '50%' }, pods: 3, scale: 3, healthy: 3, want: [3, 2, 1] },
    { name: 'maxUnavailable int', spec: { maxUnavailable: 1 }, pods: 3, scale: 3, healthy: 3, want: [3, 2, 1] },
    { name: 'maxUnavailable % rounds up', spec: { maxUnavailable: '10%' }, pods: 5, scale: 5, healthy: 5, want: [5, 4, 1] },
    { name: 'maxUnavailable larger than scale clamps desired at 0', spec: { maxUnavailable: 9 }, pods: 2, scale: 2, healthy: 1, want: [2, 0, 1] },
    { name: 'no expected pods allows nothing', spec: { maxUnavailable: '50%' }, pods: 0, scale: 0, healthy: 0, want: [0, 0, 0] },
    { name: 'fewer healthy than desired allows nothing', spec: { minAvailable: 3 }, pods: 3, scale: 3, healthy: 2, want: [3, 3, 0] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { expectedCount, desiredHealthy } = expectedAndDesired(c.spec, c.pods, () => c.scale);
      assert.deepEqual([expectedCount, desiredHealthy, allowedDisruptions(c.healthy, desiredHealthy, expectedCount)], c.want);
    });
  }
});

function setup(pdbSpec: { minAvailable?: IntOrString; maxUnavailable?: IntOrString }, replicas = 3) {
  const sim = createSimulation(clusterWithNodes([{ name: 'n1' }, { name: 'n2' }]), { seed: 2 });
  sim.deployments.add(app('web', { replicas, grace: 10 }));
  sim.disruption.add({ pdb: compilePdb({ metadata: { name: 'web-pdb', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, ...pdbSpec } }) });
  sim.engine.run(10_000);
  return sim;
}

describe('eviction', () => {
  it('refuses with the 429 message and the budget cause once the budget is spent', () => {
    const sim = setup({ minAvailable: 2 });
    assert.equal(sim.disruption.status('default/web-pdb')!.disruptionsAllowed, 1);
    const [a, b] = [...sim.world.cluster.pods()].filter((p) => p.labels['app'] === 'web');
    assert.deepEqual(sim.disruption.evict(a!.key), { allowed: true });
    assert.equal(sim.world.cluster.getPod(a!.key)!.terminating, true);
    const refused = (cause: string) => ({ allowed: false, code: 429, message: "Cannot evict pod as it would violate the pod's disruption budget.", causes: [{ type: 'DisruptionBudget', message: cause }] });
    // In the same instant the API server's decrement is all there is: the status still counts 3 healthy.
    assert.deepEqual(sim.disruption.evict(b!.key), refused('The disruption budget web-pdb does not allow evicting pods currently'));
    // Once the controller has seen the eviction, the cause names the numbers.
    sim.engine.run(sim.engine.now);
    assert.deepEqual(sim.disruption.evict(b!.key), refused('The disruption budget web-pdb needs 2 healthy pods and has 2 currently'));
  });

  it('refuses with 500 when two budgets select the pod', () => {
    const sim = setup({ maxUnavailable: 1 });
    sim.disruption.add({ pdb: compilePdb({ metadata: { name: 'other', namespace: 'default' }, spec: { selector: {}, maxUnavailable: 1 } }) });
    const [a] = [...sim.world.cluster.pods()];
    const r = sim.disruption.evict(a!.key);
    assert.deepEqual(r, { allowed: false, code: 500, message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', causes: [] });
  });
});

describe('drainNode', () => {
  it('cordons, then waits for the budget: evictions are retried every 5 s until replacements are ready', () => {
    const sim = setup({ maxUnavailable: 0 }, 2);
    const onN1 = [...sim.world.cluster.pods()].filter((p) => p.nodeName === 'n1');
    assert.ok(onN1.length > 0);
    const t0 = sim.engine.now;
    sim.disruption.drainNode('n1');
    assert.equal(sim.world.cluster.nodeInfo('n1')!.node.unschedulable, true);
    sim.engine.run(t0 + 16_000);
    const retries = sim.engine.log.filter((r) => r.type === 'DrainEvictionRetry');
    assert.deepEqual(
      retries.filter((r) => r['pod'] === onN1[0]!.key).map((r) => r.t),
      [t0, t0 + 5000, t0 + 10_000, t0 + 15_000],
    );
    assert.match(String(retries[0]!['message']), /^error when evicting pods\/"web-[a-z0-9]+-[a-z0-9]+" -n "default" \(will retry after 5s\): Cannot evict pod/);
    assert.equal(sim.engine.log.some((r) => r.type === 'DrainComplete'), false);
  });

  it('a concurrent eviction that loses the budget update is retried by the API server 500 ms later, not by kubectl 5 s later', () => {
    // Found by conformance/sim-vs-real (s1-37): kubectl evicts a node's pods concurrently; two
    // evictions under one budget both read disruptionsAllowed 1, one update conflicts, and
    // the API server retries it (EvictionsRetry, 500 ms) against the budget re-read, which the
    // first pod's ready replacement has restored by then.
    const sim = createSimulation(clusterWithNodes([{ name: 'n1' }, { name: 'n2' }]), { seed: 2, pods: { defaults: { startDelayMs: 0, readyDelayMs: 0 } } });
    sim.deployments.add(app('web', { replicas: 4, grace: 0 }));
    sim.disruption.add({ pdb: compilePdb({ metadata: { name: 'web-pdb', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 } }) });
    sim.engine.run(10_000);
    const onN1 = [...sim.world.cluster.pods()].filter((p) => p.nodeName === 'n1');
    assert.equal(onN1.length, 2);
    const t0 = sim.engine.now;
    sim.disruption.drainNode('n1');
    sim.engine.run(t0 + 20_000);
    const evicted = sim.engine.log.filter((r) => r.type === 'Evicted' && onN1.some((p) => p.key === r['pod'])).map((r) => r.t - t0);
    assert.deepEqual(evicted, [0, 500]);
    assert.equal(sim.engine.log.some((r) => r.type === 'DrainEvictionRetry'), false);
  });

  it('completes when the budget allows one pod at a time', () => {
    const sim = setup({ maxUnavailable: 1 }, 4);
    sim.disruption.drainNode('n1');
    sim.engine.run(200_000);
    assert.equal(sim.engine.log.filter((r) => r.type === 'DrainComplete').length, 1);
    assert.equal([...sim.world.cluster.pods()].filter((p) => p.nodeName === 'n1').length, 0);
  });
});

describe('a PDB whose pods name a controller not seen yet (kube-controller-manager: failSafe, then the work queue retries the key)', () => {
  it('allows nothing at first, then counts the pods once their ReplicaSet exists, with no pod event in between', () => {
    const sim = createSimulation(clusterWithNodes([{ name: 'n1' }, { name: 'n2' }]), { seed: 2 });
    sim.deployments.add(app('web', { replicas: 3, grace: 10 }));
    sim.engine.run(10_000);
    // A PDB synced while the cluster's pods point at a ReplicaSet the controller does not know (as a
    // dump's pods do before its workloads are added): the sync fails; nothing changes on the pods after.
    const pods = [...sim.world.cluster.pods()];
    const rsUid = pods[0]!.ownerReferences[0]!.uid;
    const [key, rs] = [...sim.replicaSets.objects].find(([, r]) => r.uid === rsUid)!;
    sim.replicaSets.objects.delete(key);
    sim.disruption.add({ pdb: compilePdb({ metadata: { name: 'web-pdb', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 } }) });
    assert.equal(sim.disruption.status('default/web-pdb')!.disruptionsAllowed, 0);
    sim.replicaSets.objects.set(key, rs);
    sim.engine.run(sim.engine.now + 1_000);
    assert.equal(sim.disruption.status('default/web-pdb')!.disruptionsAllowed, 1);
  });
});
