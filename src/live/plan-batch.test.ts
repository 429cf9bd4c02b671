import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { loadLive, planBatch } from './plan-batch.js';
import { liveObjects, node, nodeClaim, nodePool, pod } from './test-objects.test-support.js';

const instanceTypes = bundledInstanceTypes();

function plan(objects: Parameters<typeof liveObjects>[0], batch: string[]) {
  const r = planBatch({ objects: liveObjects(objects), batch: new Set(batch), instanceTypes, seed: 1 });
  if (!r.ok) assert.fail(r.errors.join('\n'));
  return r.plan;
}

test('the apiserver incident: two pending replicas with hostname anti-affinity need two new nodes', () => {
  const p = plan(
    {
      nodes: [node('n1')],
      nodePools: [nodePool('default')],
      pods: [pod('web-0', { node: 'n1', antiAffinity: true }), pod('web-1', { unschedulable: true, antiAffinity: true }), pod('web-2', { unschedulable: true, antiAffinity: true })],
    },
    ['default/web-1', 'default/web-2'],
  );
  assert.equal(p.nodeClaims.length, 2);
  assert.deepEqual(p.nodeClaims.map((c) => c.pods.length), [1, 1]);
  assert.deepEqual(p.unschedulable, []);
});

test('a claim still in flight counts as capacity: no second launch for the same pods', () => {
  const pools = [nodePool('default')];
  const first = plan({ nodePools: pools, pods: [pod('web-1', { unschedulable: true })] }, ['default/web-1']);
  assert.equal(first.nodeClaims.length, 1);
  const c = first.nodeClaims[0]!;
  const again = plan(
    { nodePools: pools, pods: [pod('web-1', { unschedulable: true })], nodeClaims: [nodeClaim('default-abcde', { nodePool: 'default', instanceType: c.instanceType, zone: c.zone })] },
    ['default/web-1'],
  );
  assert.deepEqual(again.nodeClaims, []);
  assert.deepEqual(again.placements, [{ pod: 'default/web-1', node: 'default-abcde' }]);
});

test('a claim whose node registered is not counted twice', () => {
  const claim = nodeClaim('default-abcde', { nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a' });
  const registered = node('default-abcde', { 'berth.dev/nodeclaim': 'default-abcde', 'karpenter.sh/nodepool': 'default' });
  const p = plan({ nodePools: [nodePool('default', { limits: { nodes: '2' } })], nodeClaims: [claim], nodes: [registered], pods: [pod('big', { unschedulable: true, cpu: '7' })] }, ['default/big']);
  // Counted once (as its node), the claim leaves room for one more node under the limit of two.
  assert.equal(p.nodeClaims.length, 1);
  assert.deepEqual(p.unschedulable, []);
});

test('NodePool limits: in-flight claims count against them', () => {
  const pools = [nodePool('default', { limits: { nodes: '1' } })];
  const p = plan({ nodePools: pools, pods: [pod('a', { unschedulable: true, cpu: '3' })], nodeClaims: [nodeClaim('default-x', { nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a' })] }, ['default/a']);
  assert.deepEqual(p.nodeClaims, []);
  assert.match(p.unschedulable[0]!.message, /node limits have been exhausted/);
});

test('a pod no NodePool can take gets a reason and no claim', () => {
  const p = plan({ nodePools: [nodePool('default')], pods: [pod('gpu', { unschedulable: true, nodeSelector: { 'kubernetes.io/arch': 'arm64' } })] }, ['default/gpu']);
  assert.deepEqual(p.nodeClaims, []);
  assert.equal(p.unschedulable.length, 1);
  assert.match(p.unschedulable[0]!.message, /nodepool "default"/);
});

test('pending pods outside the batch and finished pods are not planned for', () => {
  const p = plan({ nodePools: [nodePool('default')], pods: [pod('waiting'), pod('done', { phase: 'Succeeded' }), pod('a', { unschedulable: true })] }, ['default/a']);
  assert.equal(p.nodeClaims.length, 1);
  assert.deepEqual(p.nodeClaims[0]!.pods, ['default/a']);
});

test('an invalid object is reported, not planned around', () => {
  const r = planBatch({ objects: liveObjects({ nodePools: [nodePool('default')], pods: [{ metadata: { name: 'bad', namespace: 'default' }, spec: { containers: 'x' } }] }), batch: new Set(['default/bad']), instanceTypes });
  assert.equal(r.ok, false);
});

test('a launched node not Initialized yet is planned without its not-ready and startup taints: no second launch', () => {
  const pools = [nodePool('default')];
  const fresh = node('default-abcde', { 'berth.dev/nodeclaim': 'default-abcde', 'karpenter.sh/nodepool': 'default' });
  const tainted = { ...fresh, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } };
  const claims = [nodeClaim('default-abcde', { nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a' })];
  const p = plan({ nodePools: pools, nodes: [tainted], nodeClaims: claims, pods: [pod('web-1', { unschedulable: true })] }, ['default/web-1']);
  assert.deepEqual(p.nodeClaims, []);
  assert.deepEqual(p.placements, [{ pod: 'default/web-1', node: 'default-abcde' }]);
  // Ready already (the taint is about to be lifted): planned without it too.
  const readyTainted = { ...tainted, status: { ...(tainted.status as object), conditions: [{ type: 'Ready', status: 'True' }] } };
  assert.deepEqual(plan({ nodePools: pools, nodes: [readyTainted], nodeClaims: claims, pods: [pod('web-1', { unschedulable: true })] }, ['default/web-1']).nodeClaims, []);
  // Registered NotReady with a startup taint, not Initialized: planned without either.
  const startupClaim = { ...claims[0]!, spec: { ...(claims[0]!.spec as object), startupTaints: [{ key: 'agent-not-ready', effect: 'NoExecute' }] } };
  const registering = { ...tainted, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, { key: 'agent-not-ready', effect: 'NoExecute' }] }, status: { ...(tainted.status as object), conditions: [{ type: 'Ready', status: 'False' }] } };
  assert.deepEqual(plan({ nodePools: pools, nodes: [registering], nodeClaims: [startupClaim], pods: [pod('web-1', { unschedulable: true })] }, ['default/web-1']).nodeClaims, []);
  // An Initialized node that went NotReady keeps the taint: its pods need another node.
  const initialized = { ...claims[0]!, status: { conditions: [{ type: 'Initialized', status: 'True' }] } };
  const broken = { ...tainted, status: { ...(tainted.status as object), conditions: [{ type: 'Ready', status: 'False' }] } };
  assert.equal(plan({ nodePools: pools, nodes: [broken], nodeClaims: [initialized], pods: [pod('web-1', { unschedulable: true })] }, ['default/web-1']).nodeClaims.length, 1);
  // A node berth did not launch keeps its taint.
  const other = { ...tainted, metadata: { ...tainted.metadata, name: 'static', labels: { 'kubernetes.io/hostname': 'static' } } };
  assert.equal(plan({ nodePools: pools, nodes: [other], pods: [pod('web-1', { unschedulable: true })] }, ['default/web-1']).nodeClaims.length, 1);
});

test('a claim still launching, of a NodePool with startup taints, counts as capacity without them: no second launch', () => {
  const np = nodePool('default');
  const spec = (np.spec as { template: { spec: object } }).template.spec;
  const pool = { ...np, spec: { ...(np.spec as object), template: { spec: { ...spec, startupTaints: [{ key: 'agent-not-ready', effect: 'NoExecute' }] } } } };
  const claims = [nodeClaim('default-abcde', { nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a' })];
  const p = plan({ nodePools: [pool], nodeClaims: claims, pods: [pod('web-1', { unschedulable: true })] }, ['default/web-1']);
  assert.deepEqual(p.nodeClaims, []);
});

test('cached objects are loaded as the API serves them: the client\'s Date fields read as their timestamps', () => {
  const n = node('n1');
  const cached = { ...n, metadata: { ...n.metadata, creationTimestamp: new Date('2026-01-02T03:04:05Z') as unknown as string } };
  const loaded = loadLive(liveObjects({ nodes: [cached] }), new Set());
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.errors.join('\n'));
  assert.equal(loaded.live.nodes[0]!.creation, Date.parse('2026-01-02T03:04:05Z'));
});
