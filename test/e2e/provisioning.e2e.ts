// berth controller against the real API server, kube-scheduler and
// kube-controller-manager, with kwok running the nodes berth launches.
// `npm run test:e2e` (starts the cluster if needed; CI builds it first).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allRunning, apply, cleanUp, cluster, controller, controllerLog, deployment, e2eFile, kube, kwokNodes, leaseHolder, list, nodeClaims, scale, scenario,
  sleep, stopAll, stopController, waitFor,
} from './harness.js';

const ANTI_AFFINITY = {
  affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'apiserver' } } }] } },
};

const timings = e2eFile('e2e');

test('the apiserver incident live: 1 replica with hostname anti-affinity scaled to 3 → exactly 2 more nodes, 3 pods on 3 nodes', async () => {
  const ns = 'e2e-incident';
  await scenario(ns, [['default', { zones: ['us-west-2a'] }]], async () => {
    await controller();
    await apply(deployment(ns, 'apiserver', 1, ANTI_AFFINITY));
    await allRunning(ns, 'apiserver', 1);
    assert.equal((await kwokNodes()).length, 1, 'one node for the first replica');
    const t0 = Date.now();
    await scale(ns, 'apiserver', 3);
    const ps = await allRunning(ns, 'apiserver', 3);
    timings.incidentScaleUpToRunning = Date.now() - t0;
    assert.equal(new Set(ps.map((p) => p.node)).size, 3, 'three pods on three nodes');
    await sleep(3_000); // a late duplicate launch would show up here
    assert.equal((await kwokNodes()).length, 3, 'exactly 2 nodes launched for the scale-up');
    assert.equal((await nodeClaims()).length, 3);
  });
});

test('zone spread over 3 zones: one node and one pod per zone', async () => {
  const ns = 'e2e-spread';
  await scenario(ns, [['zonal', { zones: ['us-west-2a', 'us-west-2b', 'us-west-2c'] }]], async () => {
    await controller();
    const t0 = Date.now();
    await apply(deployment(ns, 'web', 3, {
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
    }));
    const ps = await allRunning(ns, 'web', 3);
    timings.zoneSpreadCreateToRunning = Date.now() - t0;
    const nodes = await kwokNodes();
    const zoneOf = new Map(nodes.map((n) => [n.metadata!.name!, n.metadata!.labels!['topology.kubernetes.io/zone']!]));
    assert.deepEqual(ps.map((p) => zoneOf.get(p.node)).sort(), ['us-west-2a', 'us-west-2b', 'us-west-2c']);
    assert.equal(nodes.length, 3);
  });
});

test('a pod no NodePool can take: no launch, and an Event that says why', async () => {
  const ns = 'e2e-nofit';
  await scenario(ns, [['amd64-only', { arch: 'amd64' }]], async () => {
    await controller();
    await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'arm', namespace: ns }, spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' }, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } });
    const event = await waitFor('a FailedProvisioning event', async () => {
      const evs = await list('v1', 'Event', ns);
      return evs.find((e) => (e as { reason?: string }).reason === 'FailedProvisioning');
    });
    assert.match((event as { message?: string }).message ?? '', /nodepool "amd64-only"/);
    assert.equal((await nodeClaims()).length, 0);
    assert.equal((await kwokNodes()).length, 0);
  });
});

test('controller restart mid-provisioning: the claims in flight are launched, none twice', async () => {
  const ns = 'e2e-restart';
  await scenario(ns, [['default']], async () => {
    const first = await controller(['--launch-delay', '6s']);
    await apply(deployment(ns, 'apiserver', 3, ANTI_AFFINITY));
    await waitFor('3 NodeClaims', async () => (await nodeClaims()).length === 3);
    assert.equal((await kwokNodes()).length, 0, 'killed before any node registered');
    await stopController(first, 'SIGKILL');
    await controller(['--launch-delay', '1s']);
    const ps = await allRunning(ns, 'apiserver', 3);
    assert.equal(new Set(ps.map((p) => p.node)).size, 3);
    await sleep(3_000);
    assert.equal((await nodeClaims()).length, 3, 'no duplicate claims');
    assert.equal((await kwokNodes()).length, 3, 'no duplicate nodes');
  });
});

test('API server restart: the controller recovers and provisions again', async () => {
  const ns = 'e2e-apiserver';
  await scenario(ns, [['default']], async () => {
    const c = await controller();
    await apply(deployment(ns, 'web', 1));
    await allRunning(ns, 'web', 1);
    cluster('stop', 'kube-apiserver');
    await sleep(3_000);
    cluster('start', 'kube-apiserver');
    await scale(ns, 'web', 6); // 6 × 500m does not fit on the first node
    await allRunning(ns, 'web', 6);
    assert.ok(c.child.exitCode === null, 'the same controller process recovered');
    assert.ok(controllerLog(c).some((l) => l.msg === 'list/watch failed; retrying' || l.msg === 'leader election'), 'it saw the outage');
  });
});

test('leader failover: two replicas, one acts; when the leader dies the standby takes over', async () => {
  const ns = 'e2e-leader';
  await scenario(ns, [['default']], async () => {
    const a = await controller([], 'replica-a');
    await waitFor('replica-a leads', async () => (await leaseHolder()) === 'replica-a');
    const b = await controller([], 'replica-b');
    await apply(deployment(ns, 'web', 1));
    await allRunning(ns, 'web', 1);
    assert.ok(!controllerLog(b).some((l) => l.msg === 'created NodeClaim'), 'the standby launched nothing');
    await stopController(a, 'SIGKILL');
    const t0 = Date.now();
    await waitFor('replica-b leads', async () => (await leaseHolder()) === 'replica-b', 30_000);
    timings.leaderFailover = Date.now() - t0;
    await scale(ns, 'web', 6);
    await allRunning(ns, 'web', 6);
    assert.ok(controllerLog(b).some((l) => l.msg === 'created NodeClaim'), 'the new leader provisions');
  });
});

test('garbage collection: a claim whose node never registers, and a node whose claim is gone', async () => {
  try {
    await controller(['--registration-ttl', '5s', '--orphan-grace', '3s']);
    // No NodePool "gone" exists, so this claim can never launch.
    await apply({ apiVersion: 'berth.dev/v1alpha1', kind: 'NodeClaim', metadata: { name: 'gone-abcde' }, spec: { nodePool: 'gone', instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'on-demand' } });
    await apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'orphan-1', labels: { 'berth.dev/nodeclaim': 'no-such-claim' }, annotations: { 'kwok.x-k8s.io/node': 'fake' } } });
    await waitFor('the stuck claim deleted', async () => !(await kube().read('berth.dev/v1alpha1', 'NodeClaim', 'gone-abcde')), 30_000);
    await waitFor('the orphaned node deleted', async () => !(await kube().read('v1', 'Node', 'orphan-1')), 30_000);
  } finally {
    await stopAll();
    await cleanUp('e2e-gc');
  }
});
