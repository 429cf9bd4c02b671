import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimObject, gcDecisions, readClaim, statusDecisions, withCondition, type Claim } from './claims.js';
import { isProvisionable } from './objects.js';
import { nodeClaim, pod, T0 } from './test-objects.test-support.js';

const claim = (name: string, created = T0, terminating = false): Claim => ({ name, nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'on-demand', created, terminating, launched: false, registered: false });
const gc = (claims: Claim[], nodes: { name: string; claim: string; created: number }[], now: number) => gcDecisions({ now, claims, nodes, registrationTtlMs: 60_000, orphanGraceMs: 15_000 });

test('a claim without a node is launched until the registration TTL, then deleted', () => {
  assert.deepEqual(gc([claim('a')], [], T0 + 59_999), { launch: ['a'], deleteClaims: [], deleteNodes: [] });
  assert.deepEqual(gc([claim('a')], [], T0 + 60_000).deleteClaims, [{ name: 'a', reason: 'node did not register within 60s' }]);
});

test('a claim with its node is left alone; a terminating claim is neither launched nor deleted again', () => {
  assert.deepEqual(gc([claim('a'), claim('b', T0, true)], [{ name: 'a', claim: 'a', created: T0 }], T0 + 3_600_000), { launch: [], deleteClaims: [], deleteNodes: [] });
});

test('a node whose claim is gone is deleted after the grace period; nodes berth did not launch never are', () => {
  const nodes = [
    { name: 'orphan', claim: 'gone', created: T0 },
    { name: 'young', claim: 'also-gone', created: T0 + 10_000 },
    { name: 'static', claim: '', created: T0 },
  ];
  assert.deepEqual(gc([], nodes, T0 + 20_000).deleteNodes, [{ name: 'orphan', reason: 'its NodeClaim gone is gone' }]);
});

test('NodeClaim objects round-trip through claimObject and readClaim', () => {
  const o = claimObject({ name: 'plan-1', nodePool: 'default', instanceType: 'c5.large', zone: 'us-west-2b', capacityType: 'spot', pricePerHour: 0.03, pods: [] });
  assert.equal(o.metadata?.generateName, 'default-');
  assert.deepEqual(readClaim({ ...o, metadata: { ...o.metadata, name: 'default-xyz12', creationTimestamp: new Date(T0).toISOString() } }), {
    name: 'default-xyz12', nodePool: 'default', instanceType: 'c5.large', zone: 'us-west-2b', capacityType: 'spot', created: T0, terminating: false, launched: false, registered: false,
  });
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

test('status: an instance never recorded is adopted (Launched), a Node that joined marks its claim Registered, each written once', () => {
  const node = (name: string, claimName: string) => ({ metadata: { name, labels: { 'berth.dev/nodeclaim': claimName } } });
  const done: Claim = { ...claim('done'), launched: true, registered: true };
  const d = statusDecisions([claim('lost'), claim('joined'), done, claim('none')], [
    { claim: 'lost', providerID: 'kwok://lost' }, { claim: 'joined', providerID: 'kwok://joined' }, { claim: 'done', providerID: 'kwok://done' },
  ], [node('joined', 'joined'), node('done', 'done'), node('other', '')]);
  assert.deepEqual(d.launched, [{ name: 'lost', providerID: 'kwok://lost' }, { name: 'joined', providerID: 'kwok://joined' }]);
  assert.deepEqual(d.registered, [{ name: 'joined', nodeName: 'joined' }]);
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
