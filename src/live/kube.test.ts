import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { readClaim, withCondition } from './claims.js';
import { FakeApiServer, MemoryKube } from './fake-apiserver.test-support.js';
import { CONFLICT_ATTEMPTS, Kube, statusCode, type Informer } from './kube.js';
import type { KubeObject } from './objects.js';

const POD = { apiVersion: 'v1', kind: 'Pod', path: '/api/v1/pods' };

let server: FakeApiServer | undefined;
let informer: Informer | undefined;
afterEach(async () => {
  await informer?.stop();
  await server?.close();
});

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function started() {
  server = new FakeApiServer();
  const kube = new Kube(await server.listen());
  const seen: string[] = [];
  const errors: unknown[] = [];
  informer = kube.informer(POD, (o, verb) => seen.push(`${verb} ${o.metadata?.name}`), (e) => errors.push(e));
  return { fake: server, seen, errors, names: () => informer!.list().map((o) => o.metadata?.name).sort() };
}

for (const fault of ['gone-event', 'gone-status'] as const) {
  test(`a watch answered with 410 Gone (${fault === 'gone-event' ? 'ERROR event on the stream' : 'HTTP status'}): the informer relists and catches up, deletions included`, async () => {
    const { fake, seen, names } = await started();
    fake.put('a');
    fake.put('b');
    await until('initial list', () => informer!.synced && names().length === 2);
    await until('watch open', () => fake.calls.watch === 1);
    // While the watch is away, the history it would resume from is compacted.
    fake.watchFault = fault;
    fake.dropWatches();
    await until('the 410', () => fake.calls.gone > 0);
    fake.watchFault = 'none';
    fake.remove('a');
    fake.put('c');
    await until('the relist', () => names().join() === 'b,c');
    assert.ok(fake.calls.list >= 2, 'listed again');
    assert.ok(seen.includes('delete a'), 'a deletion missed during the gap is still delivered');
    assert.ok(seen.includes('add c'));
    assert.ok(informer!.synced);
    // And the new watch works: a change after the relist arrives as an event.
    fake.put('d');
    await until('the watch after the relist', () => seen.includes('add d'));
  });
}

test('an informer whose list fails is not synced until a list succeeds (the controller must not plan on an empty cache)', async () => {
  server = new FakeApiServer();
  server.failLists = 2;
  server.put('a');
  const kube = new Kube(await server.listen());
  const errors: unknown[] = [];
  informer = kube.informer(POD, () => {}, (e) => errors.push(e));
  await until('the first failure', () => errors.length >= 1);
  assert.equal(informer.synced, false);
  await until('a successful list (after 0.5 s + 1 s of backoff)', () => informer!.synced);
  assert.deepEqual(informer.list().map((o) => o.metadata?.name), ['a']);
  assert.equal(server.calls.list, 3);
});

const CLAIM: KubeObject = { apiVersion: 'berth.dev/v1alpha1', kind: 'NodeClaim', metadata: { name: 'a' }, spec: { nodePool: 'default' } };
const stored = (k: MemoryKube) => [...k.objects.values()][0]!;

test('update on a 409 Conflict reads again and re-applies the change: neither writer loses its update', async () => {
  const k = new MemoryKube();
  await k.create(CLAIM);
  k.writes = 0;
  const label = (o: KubeObject, v: string): KubeObject => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata?.labels, team: v } } });
  // Two other writers get in between, one per attempt.
  k.interfere = [(o) => label(o, 'x'), (o) => ({ ...o, status: { note: 'other' } })];
  let conflicts = 0;
  const out = await k.update('berth.dev/v1alpha1', 'NodeClaim', 'a', (o) => withCondition(o, 'Launched', 'Launched', { providerID: 'kwok://a' }, 0), { onConflict: () => conflicts++ });
  assert.equal(conflicts, 2);
  assert.equal(k.writes, 3);
  assert.equal(out?.metadata?.labels?.team, 'x', "the other writer's label is kept");
  assert.equal((out?.status as { note?: string }).note, 'other', "the other writer's status field is kept");
  assert.equal(readClaim({ ...out!, spec: { nodePool: 'p', instanceType: 't', zone: 'z', capacityType: 'spot' } })?.launched, true);
  // Nothing to change: no write at all.
  assert.deepEqual(await k.update('berth.dev/v1alpha1', 'NodeClaim', 'a', (o) => withCondition(o, 'Launched', 'Launched', { providerID: 'kwok://a' }, 0)), stored(k));
  assert.equal(k.writes, 3);
});

test('update gives up after a bounded number of conflicts and reports the 409', async () => {
  const k = new MemoryKube();
  await k.create(CLAIM);
  k.writes = 0;
  k.interfere = Array.from({ length: 10 }, () => (o: KubeObject) => o);
  await assert.rejects(k.update('berth.dev/v1alpha1', 'NodeClaim', 'a', (o) => ({ ...o, status: { x: 1 } })), (e: { code?: number }) => e.code === 409);
  assert.equal(k.writes, CONFLICT_ATTEMPTS);
});

test('a watch that keeps failing to open is retried with growing backoff (not reset by the successful list before it)', async () => {
  server = new FakeApiServer();
  server.watchFault = 'unavailable';
  const kube = new Kube(await server.listen());
  const delays: number[] = [];
  informer = kube.informer(POD, () => {}, (_e, retryInMs) => delays.push(retryInMs));
  await until('three failed watches', () => delays.length >= 3);
  assert.deepEqual(delays.slice(0, 3), [500, 1000, 2000]);
  assert.ok(informer.synced, 'the list succeeded: the cache is usable while the watch is retried');
});

test('a failed list page read through only one of page and head (or neither) raises no unhandled rejection', async () => {
  server = new FakeApiServer();
  const kube = new Kube(await server.listen());
  const unhandled: unknown[] = [];
  const note = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', note);
  try {
    const unserved = '/apis/karpenter.sh/v1/nodeclaims?limit=500';
    await assert.rejects(kube.getListPage(unserved).page, (e) => statusCode(e) === 404);
    await assert.rejects(kube.getListPage(unserved).head, (e) => statusCode(e) === 404);
    const dropped = kube.getListPage(unserved);
    await dropped.page.then(() => assert.fail('served'), () => undefined);
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    process.off('unhandledRejection', note);
  }
  assert.deepEqual(unhandled, []);
});

test("a list page answered 504 with Retry-After (\"Too large resource version\") is asked again, as client-go does; a 500 without it is not", async () => {
  server = new FakeApiServer();
  const kube = new Kube(await server.listen());
  server.put('a');
  server.retryAfterLists = [504, 504];
  const page = (await kube.getListPage('/api/v1/pods?limit=500').page) as { items: KubeObject[] };
  assert.deepEqual(page.items.map((p) => p.metadata?.name), ['a']);
  assert.equal(server.calls.list, 3);
  server.failLists = 1;
  await assert.rejects(kube.getListPage('/api/v1/pods?limit=500').page, (e) => statusCode(e) === 500);
  assert.equal(server.calls.list, 4);
});

test("client-go's TestCheckRetryHandles429And5xx (rest/request_test.go): 429, 500, 501 and 504, each with Retry-After, are asked again until the 200", async () => {
  server = new FakeApiServer();
  const kube = new Kube(await server.listen());
  server.retryAfterLists = [429, 500, 501, 504];
  await kube.getListPage('/api/v1/pods?limit=500').page;
  assert.equal(server.calls.list, 5);
});
