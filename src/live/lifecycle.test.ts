import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lifecycleStep, notInitialized, registeredNode } from './lifecycle.js';
import type { KubeObject } from './objects.js';
import { claimOf } from './test-objects.test-support.js';

const claimObject = (startupTaints: object[] = []): KubeObject => ({ metadata: { name: 'c' }, spec: { nodePool: 'default', instanceType: 'm5.large', zone: 'z', capacityType: 'on-demand', startupTaints } });
function node(ready: 'True' | 'False' | undefined, taints: object[] = []): KubeObject {
  return { metadata: { name: 'c', labels: { 'berth.dev/nodeclaim': 'c' } }, spec: { taints }, status: { conditions: ready ? [{ type: 'Ready', status: ready }] : [] } };
}

test('upstream: "should not consider the Node to be initialized when the status of the Node is NotReady" (initialization_test.go)', () => {
  assert.equal(notInitialized(node('False'), claimObject()), 'Node status is NotReady');
  assert.equal(notInitialized(node(undefined), claimObject()), 'Node status is NotReady');
  assert.equal(notInitialized(node('True'), claimObject()), undefined);
});

test('upstream: "should not consider the Node to be initialized when all startupTaints aren\'t removed" / "once the startupTaints are removed" (initialization_test.go)', () => {
  const startup = [{ key: 'example.com/startup-taint', value: 'true', effect: 'NoSchedule' }, { key: 'example.com/other', effect: 'NoExecute' }];
  assert.equal(notInitialized(node('True', [{ key: 'example.com/other', effect: 'NoExecute' }]), claimObject(startup)), 'StartupTaint "example.com/other:NoExecute" still exists');
  assert.equal(notInitialized(node('True', [{ key: 'example.com/startup-taint', value: 'other', effect: 'NoSchedule' }]), claimObject(startup)), 'StartupTaint "example.com/startup-taint=true:NoSchedule" still exists', 'matched on key and effect');
  assert.equal(notInitialized(node('True', [{ key: 'example.com/startup-taint', effect: 'NoExecute' }]), claimObject(startup)), undefined, 'another effect is not the startup taint');
  assert.equal(notInitialized(node('True'), claimObject(startup)), undefined);
});

test('upstream: "should not consider the Node to be initialized when all ephemeralTaints aren\'t removed" / "while a readiness.k8s.io/ taint is present" (initialization_test.go)', () => {
  for (const t of [
    { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
    { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
    { key: 'readiness.k8s.io/some-rule', effect: 'NoSchedule' },
  ]) {
    assert.match(notInitialized(node('True', [t]), claimObject()) ?? '', /^KnownEphemeralTaint/, t.key);
  }
  assert.equal(notInitialized(node('True', [{ key: 'foo/readiness.k8s.io/bar', effect: 'NoSchedule' }]), claimObject()), undefined, 'a prefix, not a substring');
  assert.equal(notInitialized(node('True', [{ key: 'team', value: 'a', effect: 'NoSchedule' }]), claimObject()), undefined, 'the NodePool\'s own taints stay');
});

test('a joined node registers its claim at once and initializes it once Ready; a terminating claim owes nothing', () => {
  assert.deepEqual(lifecycleStep(claimOf('c', { launched: true }), claimObject(), node('False')), { register: true, initialize: false });
  assert.deepEqual(lifecycleStep(claimOf('c', { launched: true, registered: true }), claimObject(), node('True')), { register: false, initialize: true });
  assert.deepEqual(lifecycleStep(claimOf('c', { registered: true, initialized: true }), claimObject(), node('True')), { register: false, initialize: false });
  assert.deepEqual(lifecycleStep(claimOf('c', { terminating: true }), claimObject(), node('True')), { register: false, initialize: false });
});

test('upstream: "should sync the karpenter.sh/registered label to the Node" and "should add the initialization label to the node when the nodeClaim is initialized"; the termination finalizer goes on at registration', () => {
  const registered = registeredNode(node('False'), false)!;
  assert.deepEqual(registered.metadata?.labels, { 'berth.dev/nodeclaim': 'c', 'karpenter.sh/registered': 'true' });
  assert.deepEqual(registered.metadata?.finalizers, ['berth.dev/termination']);
  assert.equal(registeredNode(registered, false), undefined, 'nothing to write twice');
  assert.equal(registeredNode(registered, true)!.metadata?.labels?.['karpenter.sh/initialized'], 'true');
});

test('upstream: "should sync the annotations to the Node when the Node comes online" (registration_test.go): the NodePool hash reaches the Node', () => {
  const stamp = { 'karpenter.sh/nodepool-hash': '42', 'karpenter.sh/nodepool-hash-version': 'v3' };
  const withOwn = { ...node('False'), metadata: { ...node('False').metadata, annotations: { 'kwok.x-k8s.io/node': 'fake' } } };
  const registered = registeredNode(withOwn, false, stamp)!;
  assert.deepEqual(registered.metadata?.annotations, { 'kwok.x-k8s.io/node': 'fake', ...stamp });
  assert.equal(registeredNode(registered, false, stamp), undefined, 'nothing to write twice');
  assert.deepEqual(registeredNode({ ...registered, metadata: { ...registered.metadata, annotations: {} } }, false, stamp)!.metadata?.annotations, stamp, 'put back when missing');
});
