// Live-mode faults on the real test cluster: the API server killed while claims
// are being created, cloud create failures and insufficient capacity, slow node
// registration with another writer updating the claims, a controller killed
// between the cloud's create and recording it, and replicas that cannot hold the
// lease. Watch expiry (410) and the lease's clock rules are unit tests
// (src/live/kube.test.ts, leader.test.ts): they need a fault no real cluster
// produces on demand.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allRunning, apply, claimsMatchNodes, claimViews, cluster, controller, controllerLog, deployment, e2eFile, kube, kwokNodes, list, nodeClaims, pods,
  scenario, sleep, stopController, waitFor,
} from './harness.js';

const antiAffinity = (app: string) => ({
  affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app } } }] } },
});

const timings = e2eFile('e2e fault');

/** Events on NodeClaims since `since` (cluster-scoped objects' Events go to "default", which outlives the tests). */
async function claimEvents(reason: string, since: number): Promise<{ message?: string }[]> {
  const events = (await list('v1', 'Event', 'default')) as { reason?: string; message?: string; firstTimestamp?: string | Date; involvedObject?: { kind?: string } }[];
  return events.filter((e) => e.reason === reason && e.involvedObject?.kind === 'NodeClaim' && new Date(e.firstTimestamp ?? 0).getTime() >= since - 1_000);
}

test('kube-apiserver killed while claims are being created: every pod Running, no duplicate, no leaked node', async () => {
  const ns = 'e2e-fault-apiserver';
  await scenario(ns, [['default']], async () => {
    const c = await controller(['--launch-delay', '2s']);
    await apply(deployment(ns, 'db', 5, antiAffinity('db')));
    await waitFor('the first NodeClaim', async () => (await nodeClaims()).length > 0, 60_000);
    const claimsAtKill = (await nodeClaims()).length;
    const nodesAtKill = (await kwokNodes()).length;
    cluster('stop', 'kube-apiserver');
    await sleep(3_000);
    cluster('start', 'kube-apiserver');
    const t0 = Date.now();
    await allRunning(ns, 'db', 5);
    timings.apiserverKilledMidProvisioningToRunning = Date.now() - t0;
    await sleep(3_000); // a late second launch would show up here
    await waitFor('claims Registered', async () => (await claimViews()).every((x) => x.conditions.Registered === 'True'), 30_000);
    await claimsMatchNodes(5);
    assert.ok(c.child.exitCode === null, 'the same controller process recovered');
    console.log(`apiserver killed with ${claimsAtKill} claims and ${nodesAtKill} nodes`);
  });
});

test('cloud create failures and insufficient capacity: backoff, then the next cheapest offering; Events say why', async () => {
  const ns = 'e2e-fault-ice';
  await scenario(ns, [['default', { zones: ['us-west-2a'] }]], async () => {
    // c5a.large is the cheapest fit for one 500m pod here; c5.large / c6i.large come next.
    const c = await controller(['--inject-faults', JSON.stringify({ failCreates: 2, insufficientCapacity: [{ instanceType: 'c5a.large', zone: 'us-west-2a' }] })]);
    const t0 = Date.now();
    await apply(deployment(ns, 'web', 1));
    await allRunning(ns, 'web', 1);
    timings.createFailuresAndIceToRunning = Date.now() - t0;
    const claims = await claimViews();
    assert.equal(claims.length, 1, 'the ICE claim was deleted, one claim remains');
    assert.notEqual(claims[0]!.instanceType, 'c5a.large');
    await claimsMatchNodes(1);
    const failed = await claimEvents('LaunchFailed', t0);
    assert.equal(failed.length, 2, 'one LaunchFailed event per failed create');
    assert.match(failed[0]!.message ?? '', /injected fault.*retrying in/);
    const ice = await claimEvents('InsufficientCapacity', t0);
    assert.equal(ice.length, 1);
    assert.match(ice[0]!.message ?? '', /insufficient capacity for c5a\.large in us-west-2a \(on-demand\): offering unavailable for 3m/);
    const retries = controllerLog(c).filter((l) => l.msg === 'launch failed').map((l) => l.retryInMs);
    assert.deepEqual(retries, [500, 1000], 'exponential backoff');
  });
});

test('slow node registration while another writer updates the claims: no second launch, no lost update, claims Registered when the nodes appear', async () => {
  const ns = 'e2e-fault-slow';
  await scenario(ns, [['default']], async () => {
    const c = await controller(['--launch-delay', '6s', '--resync', '1s']);
    // Another writer relabels every claim as fast as it can (409s for the controller's status writes).
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      while (writing) {
        for (const claim of await nodeClaims().catch(() => [])) {
          try {
            await kube().replace({ ...claim, metadata: { ...claim.metadata, labels: { ...claim.metadata?.labels, 'team.example/owner': `w${++writes}` } } });
          } catch {
            // a conflict with the controller: ours to retry on the next round
          }
        }
        await sleep(20);
      }
    })();
    const t0 = Date.now();
    await apply(deployment(ns, 'cache', 3, antiAffinity('cache')));
    await allRunning(ns, 'cache', 3);
    timings.slowRegistrationToRunning = Date.now() - t0;
    await waitFor('claims Registered', async () => (await claimViews()).every((x) => x.conditions.Registered === 'True'), 30_000);
    writing = false;
    await writer;
    await claimsMatchNodes(3);
    for (const claim of await claimViews()) assert.match(claim.labels['team.example/owner'] ?? '', /^w\d+$/, "the other writer's label survived the controller's writes");
    const launched = controllerLog(c).filter((l) => l.msg === 'launched nodeclaim').map((l) => l.nodeClaim);
    assert.equal(launched.length, 3, 'each claim launched once although resync ran every second for 6 s');
    console.log(`other writer: ${writes} updates; controller conflicts: ${controllerLog(c).filter((l) => l.msg === 'NodeClaim status written after conflicts with another writer').reduce((n, l) => n + Number(l.conflicts), 0)}`);
  });
});

test('controller killed between the cloud create and recording it: the instance is adopted, nothing launched twice or leaked', async () => {
  const ns = 'e2e-fault-crash';
  await scenario(ns, [['default']], async () => {
    const first = await controller(['--inject-faults', JSON.stringify({ hangAfterCreateMs: 600_000 })]);
    await apply(deployment(ns, 'api', 2, antiAffinity('api')));
    await waitFor('2 instances created', async () => (await kwokNodes()).length === 2, 60_000);
    await stopController(first, 'SIGKILL');
    assert.ok((await claimViews()).every((x) => x.conditions.Launched === undefined), 'killed before any launch was recorded');
    const t0 = Date.now();
    const second = await controller();
    await waitFor('claims Launched and Registered', async () => (await claimViews()).every((x) => x.conditions.Launched === 'True' && x.conditions.Registered === 'True'), 30_000);
    timings.crashBetweenCreateAndRecordToAdopted = Date.now() - t0;
    await allRunning(ns, 'api', 2);
    await sleep(3_000);
    await claimsMatchNodes(2);
    assert.equal(controllerLog(second).filter((l) => l.msg === 'adopting an instance whose launch was not recorded').length, 2);
    assert.equal(controllerLog(second).filter((l) => l.msg === 'launched nodeclaim').length, 0, 'nothing created again');
  });
});

test('two replicas that cannot hold the lease never act: no claim, no node, and the reason logged', async () => {
  const ns = 'e2e-fault-nolease';
  await scenario(ns, [['default']], async () => {
    // deploy/rbac.yaml grants Leases only in berth-system: in "default" neither replica can take one.
    const a = await controller(['--lease-namespace', 'default'], 'nolease-a');
    const b = await controller(['--lease-namespace', 'default'], 'nolease-b');
    for (const c of [a, b]) {
      await waitFor(`${c.identity} refused the lease`, async () => controllerLog(c).some((l) => l.msg === 'leader election' && /403/.test(String(l.err))), 30_000);
    }
    await apply(deployment(ns, 'web', 2));
    await waitFor('2 pods', async () => (await pods(ns, 'app=web')).length === 2, 30_000);
    await sleep(6_000); // three batch windows and resyncs
    assert.equal((await nodeClaims()).length, 0);
    assert.equal((await kwokNodes()).length, 0);
    for (const c of [a, b]) assert.ok(!controllerLog(c).some((l) => l.msg === 'became leader' || l.msg === 'created NodeClaim'), `${c.identity} never acted`);
  });
});
