import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextBackoff } from './kube.js';
import { MemoryKube } from './fake-apiserver.test-support.js';
import { LeaderElector, leaseAction, microTime } from './leader.js';

const T = Date.parse('2026-12-03T08:00:00Z');

test('lease decisions: create, renew, wait while held, take over once expired or released', () => {
  const D = 15_000;
  assert.equal(leaseAction(undefined, 'a', T, T, D), 'create');
  assert.equal(leaseAction({ holderIdentity: 'a', renewTime: new Date(T - 60_000).toISOString(), leaseDurationSeconds: 15 }, 'a', T, T - 60_000, D), 'renew');
  const heldByB = { holderIdentity: 'b', renewTime: microTime(T - 14_999), leaseDurationSeconds: 15 };
  assert.equal(leaseAction(heldByB, 'a', T, T - 14_999, D), 'wait');
  assert.equal(leaseAction(heldByB, 'a', T + 1, T - 14_999, D), 'takeover');
  assert.equal(leaseAction({ holderIdentity: '', renewTime: microTime(T), leaseDurationSeconds: 15 }, 'a', T, T, D), 'takeover', 'released');
});

test('a broken lease cannot make two replicas act: the times and duration in the record are not trusted, only when this replica saw it change', () => {
  const D = 15_000;
  // The holder's clock is an hour behind (or someone edited the lease): renewTime looks long expired.
  const skewed = { holderIdentity: 'b', renewTime: microTime(T - 3_600_000), leaseDurationSeconds: 15 };
  assert.equal(leaseAction(skewed, 'a', T, T - 1_000, D), 'wait', 'renewed (changed) a second ago on this clock');
  // A record without a duration, or with 0, does not make the lease free either.
  assert.equal(leaseAction({ holderIdentity: 'b', renewTime: microTime(T) }, 'a', T + 1_000, T, D), 'wait');
  assert.equal(leaseAction({ holderIdentity: 'b', renewTime: microTime(T), leaseDurationSeconds: 0 }, 'a', T + 1_000, T, D), 'wait');
  // Unchanged for this replica's own lease duration: the holder stopped renewing.
  assert.equal(leaseAction(skewed, 'a', T + D, T, D), 'takeover');
});

test('lease times are written with microseconds', () => {
  assert.equal(microTime(Date.parse('2026-12-03T08:00:01.234Z')), '2026-12-03T08:00:01.234000Z');
});

test('informer retries back off exponentially up to 30 s', () => {
  const delays = [0];
  for (let i = 0; i < 9; i++) delays.push(nextBackoff(delays.at(-1)!));
  assert.deepEqual(delays.slice(1), [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: 'berth-controller', namespace: 'berth-system' };
const OPTS = { namespace: LEASE.namespace, name: LEASE.name, leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 50 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function elector(kube: MemoryKube, identity: string, log: string[]) {
  return new LeaderElector(kube, { ...OPTS, identity }, { onStartedLeading: () => log.push(`${identity} leads`), onStoppedLeading: () => log.push(`${identity} stops`), onError: () => {} });
}

test('a holder renewing with a clock an hour behind keeps the lease: the candidate never leads while the record keeps changing', async () => {
  const kube = new MemoryKube();
  const log: string[] = [];
  const renew = async () => {
    const lease = await kube.read(LEASE.apiVersion, LEASE.kind, LEASE.name, LEASE.namespace);
    const spec = { holderIdentity: 'b', leaseDurationSeconds: 1, renewTime: microTime(Date.now() - 3_600_000) };
    if (lease) await kube.replace({ ...lease, spec });
    else await kube.create({ apiVersion: LEASE.apiVersion, kind: LEASE.kind, metadata: { name: LEASE.name, namespace: LEASE.namespace }, spec });
  };
  await renew();
  const a = elector(kube, 'a', log);
  a.start();
  for (let i = 0; i < 20; i++) {
    await sleep(50);
    await renew();
  }
  assert.deepEqual(log, [], 'a waited for 1 s while b renewed');
  const stoppedAt = Date.now();
  await sleep(900);
  assert.deepEqual(log, ['a leads'], 'b stopped renewing: a takes over after its own lease duration');
  assert.ok(a.mayAct);
  assert.ok(Date.now() - stoppedAt >= OPTS.leaseDurationMs);
  await a.release();
});

test('a leader cut off from the API server stops acting within the renew deadline, before the candidate takes over', async () => {
  const kube = new MemoryKube();
  const log: string[] = [];
  const a = elector(kube, 'a', log);
  a.start();
  await sleep(150);
  assert.ok(a.mayAct);
  const b = elector(kube.view(), 'b', log);
  b.start();
  await sleep(100);
  kube.down = new Error('connect ECONNREFUSED'); // a is cut off from the API server; b is not
  const t0 = Date.now();
  while (a.mayAct) await sleep(5);
  const stoppedActing = Date.now() - t0;
  assert.ok(stoppedActing <= OPTS.renewDeadlineMs, `a stopped acting after ${stoppedActing} ms`);
  while (!b.mayAct) await sleep(5);
  assert.ok(Date.now() - t0 >= OPTS.leaseDurationMs - 50, 'b took over only after the lease duration');
  await a.release();
  await b.release();
});
