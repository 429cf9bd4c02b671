import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimObject, gcDecisions, readClaim, statusDecisions, withCondition, type Claim } from './claims.js';
import { isProvisionable } from './objects.js';
import { claimOf, nodeClaim, pod, T0 } from './test-objects.test-support.js';

const claim = (name: string, created = T0, terminating = false): Claim => claimOf(name, { created, terminating });
const gc = (claims: Claim[], instances: { name: string; claim: string }[], now: number, orphanedSince: ReadonlyMap<string, number> = new Map()) =>
  gcDecisions({ now, claims, instances, registrationTtlMs: 60_000, orphanGraceMs: 15_000, orphanedSince });

test('a claim without an instance is launched until the registration TTL, then deleted', () => {
  const early = gc([claim('a')], [], T0 + 59_999);
  assert.deepEqual([early.launch, early.deleteClaims], [['a'], []]);
  assert.deepEqual(gc([claim('a')], [], T0 + 60_000).deleteClaims, [{ name: 'a', reason: 'RegistrationTimeout', message: 'node did not register within 60s' }]);
});

test('a claim with its instance is left alone; a terminating claim is neither launched nor deleted again', () => {
  const d = gc([claim('a'), claim('b', T0, true)], [{ name: 'a', claim: 'a' }], T0 + 3_600_000);
  assert.deepEqual([d.launch, d.deleteClaims, d.deleteNodes], [[], [], []]);
});

test('a launched claim whose instance is gone is deleted, whatever its age, never launched again', () => {
  const young = claimOf('young', { launched: true, providerID: 'kwok://young' });
  const d = gc([young], [], T0 + 1_000);
  assert.deepEqual(d.launch, []);
  assert.deepEqual(d.deleteClaims, [{ name: 'young', reason: 'InstanceTerminated', message: 'instance kwok://young no longer exists' }]);
});

test('a claim past its expireAfter is deleted (Expired), with or without its node', () => {
  const old = claimOf('old', { expireAfterMs: 3_600_000, launched: true, registered: true });
  assert.deepEqual(gc([old], [{ name: 'old', claim: 'old' }], T0 + 3_599_999).deleteClaims, []);
  assert.deepEqual(gc([old], [{ name: 'old', claim: 'old' }], T0 + 3_600_000).deleteClaims.map((c) => c.reason), ['Expired']);
});

test('an orphan is counted from the pass that first finds its claim gone, not from its creation; nodes berth did not launch never are', () => {
  const instances = [{ name: 'orphan', claim: 'gone' }, { name: 'static', claim: '' }];
  const first = gc([], instances, T0 + 3_600_000);
  assert.deepEqual(first.deleteNodes, [], 'an hour-old node whose claim just went gets the full grace');
  assert.deepEqual([...first.orphanedSince], [['orphan', T0 + 3_600_000]]);
  assert.deepEqual(gc([], instances, T0 + 3_614_999, first.orphanedSince).deleteNodes, []);
  assert.deepEqual(gc([], instances, T0 + 3_615_000, first.orphanedSince).deleteNodes, [{ name: 'orphan', reason: 'its NodeClaim gone has been gone for 15s' }]);
  assert.deepEqual([...gc([claim('gone')], instances, T0 + 3_615_000, first.orphanedSince).orphanedSince], [], 'the claim came back: forgotten');
});

test('NodeClaim objects round-trip through claimObject and readClaim', () => {
  const o = claimObject({ name: 'plan-1', nodePool: 'default', instanceType: 'c5.large', zone: 'us-west-2b', capacityType: 'spot', pricePerHour: 0.03, pods: [] });
  assert.equal(o.metadata?.generateName, 'default-');
  assert.deepEqual(readClaim({ ...o, metadata: { ...o.metadata, name: 'default-xyz12', creationTimestamp: new Date(T0).toISOString() } }), {
    ...claimOf('default-xyz12', { instanceType: 'c5.large', zone: 'us-west-2b', capacityType: 'spot', pricePerHour: 0.03 }),
  });
  assert.deepEqual(o.metadata?.finalizers, ['berth.dev/termination']);
  const fromPool = claimObject({ name: 'p', nodePool: 'default', instanceType: 'c5.large', zone: 'z', capacityType: 'spot', pricePerHour: 0.1 }, {
    expireAfterSeconds: 2_592_000, terminationGracePeriodSeconds: 300, startupTaints: [{ key: 'cilium.io/agent-not-ready', value: '', effect: 'NoExecute' }], hash: '123456',
  });
  assert.deepEqual(fromPool.metadata?.annotations, { 'karpenter.sh/nodepool-hash': '123456', 'karpenter.sh/nodepool-hash-version': 'v3' }, 'stamped as Karpenter stamps its NodeClaims');
  assert.deepEqual(fromPool.spec, { nodePool: 'default', instanceType: 'c5.large', zone: 'z', capacityType: 'spot', price: '0.1000', expireAfter: '2592000s', terminationGracePeriod: '300s', startupTaints: [{ key: 'cilium.io/agent-not-ready', effect: 'NoExecute' }] });
  const read = readClaim({ ...fromPool, metadata: { name: 'p', deletionTimestamp: new Date(T0).toISOString() } })!;
  assert.deepEqual([read.expireAfterMs, read.terminationGracePeriodMs, read.terminating, read.deleted], [2_592_000_000, 300_000, true, T0]);
  assert.equal(readClaim(nodeClaim('x', { nodePool: '', instanceType: 'm5.large', zone: 'a' })), undefined);
});

test('only pods kube-scheduler marked Unschedulable ask for nodes', () => {
  assert.equal(isProvisionable(pod('a', { unschedulable: true })), true);
  assert.equal(isProvisionable(pod('b')), false, 'not tried yet');
  assert.equal(isProvisionable(pod('c', { node: 'n1', unschedulable: true })), false, 'bound');
  const gated = pod('d');
  assert.equal(isProvisionable({ ...gated, status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } }), false);
  assert.equal(isProvisionable({ ...pod('e', { unschedulable: true }), metadata: { name: 'e', deletionTimestamp: new Date(T0).toISOString() } }), false, 'terminating');
});

test('status: an instance never recorded is adopted (Launched), once', () => {
  const done: Claim = { ...claim('done'), launched: true, registered: true };
  const d = statusDecisions([claim('lost'), claim('joined'), done, claim('none')], [
    { claim: 'lost', providerID: 'kwok://lost' }, { claim: 'joined', providerID: 'kwok://joined' }, { claim: 'done', providerID: 'kwok://done' },
  ]);
  assert.deepEqual(d.launched, [{ name: 'lost', providerID: 'kwok://lost' }, { name: 'joined', providerID: 'kwok://joined' }]);
});

test('withCondition keeps what another writer added and writes nothing when the condition is already set', () => {
  const base = nodeClaim('a', { nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a' });
  const o = { ...base, metadata: { ...base.metadata, labels: { team: 'x' } } };
  const launched = withCondition(o, 'Launched', 'Launched', { providerID: 'kwok://a' }, T0)!;
  assert.equal(readClaim(launched)!.launched, true);
  assert.equal(readClaim(launched)!.registered, false);
  assert.deepEqual(launched.metadata?.labels, { team: 'x' });
  assert.equal(withCondition(launched, 'Launched', 'Launched', { providerID: 'kwok://a' }, T0 + 1), undefined);
  const registered = withCondition(launched, 'Registered', 'Registered', { nodeName: 'a' }, T0 + 2)!;
  assert.deepEqual((registered.status as { conditions: { type: string }[] }).conditions.map((c) => c.type), ['Launched', 'Registered']);
  assert.equal((registered.status as { providerID: string }).providerID, 'kwok://a');
});
