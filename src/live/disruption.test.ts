import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { claimFor, boundPod, disruptionPool, FakeCluster, launched } from './disruption-fakes.test-support.js';
import { DEFAULT_DISRUPTION_OPTIONS, LiveDisruption, type DisruptionOptions } from './disruption.js';
import { Metrics } from './metrics.js';
import { T0 } from './test-objects.test-support.js';

const FAST: DisruptionOptions = { ...DEFAULT_DISRUPTION_OPTIONS, pollMs: 0, validationMs: 0, checkMs: 0, evictionRetryMs: 0, drainTimeoutMs: 5_000, replacementTimeoutMs: 5_000 };

/** A controller over `cluster` whose clock starts an hour after the objects were made and moves 100 ms per reading. */
function disruption(cluster: FakeCluster, opts: Partial<DisruptionOptions> = {}) {
  let now = T0 + 3_600_000;
  const metrics = new Metrics();
  const d = new LiveDisruption(cluster.kube, cluster.cloud, cluster.host(), cluster.evict, { ...FAST, ...opts }, pino({ level: 'silent' }), metrics, () => (now += 100));
  return { d, metrics };
}

async function counter(metrics: Metrics, name: string): Promise<Record<string, number>> {
  const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === name)!;
  return Object.fromEntries((m.values as { labels: Record<string, string>; value: number }[]).map((v) => [Object.values(v.labels).join('/'), v.value]));
}

test('an empty node: tainted, an Event, its NodeClaim then its instance deleted; the busy node untouched', async () => {
  const c = FakeCluster.with(['n1', 'n2'], [boundPod('web-1', 'n2')]);
  const { d, metrics } = disruption(c);
  await d.pass();
  assert.deepEqual(c.calls, [['create', 'Event/n1.xxxx1'], ['update', 'Node/n1'], ['delete', 'NodeClaim/n1'], ['cloud.delete', 'n1']]);
  assert.deepEqual((c.events[0] as { reason?: string; message?: string }).reason, 'Disrupting');
  assert.match((c.events[0] as { message: string }).message, /Empty\/Delete/);
  assert.deepEqual(c.nodes.map((n) => n.metadata?.name), ['n2']);
  assert.deepEqual(await counter(metrics, 'berth_voluntary_disruption_decisions_total'), { 'Empty/delete': 1 });
  assert.deepEqual(await counter(metrics, 'berth_nodeclaims_disrupted_total'), { 'Empty/default': 1 });
});

test('consolidation drains through the Eviction API: DaemonSet and mirror pods stay, the node goes once the rest is evicted', async () => {
  const c = FakeCluster.with(['n1', 'n2'], [boundPod('web-1', 'n1'), boundPod('ds-1', 'n1', { owner: 'DaemonSet' }), boundPod('static-1', 'n1', { annotations: { 'kubernetes.io/config.mirror': 'x' } }), boundPod('web-2', 'n2')]);
  const { d, metrics } = disruption(c);
  await d.pass();
  const evicted = c.calls.filter(([v]) => v === 'evict').map(([, w]) => w);
  assert.equal(evicted.length, 1);
  assert.match(evicted[0]!, /^evicted:web-[12]$/);
  assert.ok(!c.calls.some(([v, w]) => v === 'delete' && w.startsWith('Pod/')), 'no pod deleted directly');
  assert.equal(c.nodes.length, 1, 'one node consolidated away');
  assert.deepEqual(await counter(metrics, 'berth_pods_eviction_requests_total'), { evicted: 1 });
  assert.deepEqual(await counter(metrics, 'berth_voluntary_disruption_decisions_total'), { 'Underutilized/delete': 1 });
});

test('a PDB refusing the eviction (429): retried, never forced; past the drain timeout the decision is abandoned and the node untainted', async () => {
  const c = FakeCluster.with(['n1', 'n2'], [boundPod('web-1', 'n1'), boundPod('web-2', 'n2')]);
  c.evictions.set('web-1', 'blocked').set('web-2', 'blocked');
  const { d, metrics } = disruption(c, { drainTimeoutMs: 2_000 });
  await d.pass();
  const evictions = c.calls.filter(([v]) => v === 'evict');
  assert.ok(evictions.length >= 2, `retried (${evictions.length} attempts)`);
  assert.ok(evictions.every(([, w]) => w.startsWith('blocked:')));
  assert.ok(!c.calls.some(([v, w]) => v === 'delete' || (v === 'cloud.delete' && w !== '')), 'nothing deleted');
  assert.equal(c.nodes.length, 2);
  assert.ok(!c.tainted('n1') && !c.tainted('n2'), 'the taint is gone again');
  assert.equal(c.pods.length, 2);
  assert.deepEqual(await counter(metrics, 'berth_voluntary_disruption_abandoned_total'), { 'Underutilized/drain': 1 });
  assert.ok((await counter(metrics, 'berth_pods_eviction_requests_total')).blocked! >= 2);
  assert.ok(c.events.some((e) => (e as { reason?: string }).reason === 'DisruptionAbandoned'));
});

test('a do-not-disrupt pod that arrives on a draining node is waited for, never evicted', async () => {
  const c = new FakeCluster();
  c.nodes = [launched('n1')];
  c.nodeClaims = [claimFor('n1')];
  const { d } = disruption(c, { drainTimeoutMs: 1_000 });
  // Empty when decided; a pinned pod is there by the time the drain starts.
  const objects = c.objects.bind(c);
  let calls = 0;
  c.objects = () => (++calls === 4 && c.pods.push(boundPod('pinned', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })), objects());
  await d.pass();
  assert.ok(!c.calls.some(([v]) => v === 'evict'));
  assert.equal(c.nodes.length, 1, 'the node stays');
  assert.ok(!c.tainted('n1'));
});

test('revalidation: a decision that no longer holds after the wait is dropped before anything is touched', async () => {
  const c = FakeCluster.with(['n1', 'n2'], [boundPod('web-2', 'n2')]);
  const objects = c.objects.bind(c);
  let calls = 0;
  // By the second look, a pod has landed on the empty node.
  c.objects = () => (++calls === 2 && c.pods.push(boundPod('web-1', 'n1', { cpu: '1' })), objects());
  const { d, metrics } = disruption(c, { validationMs: 1 });
  await d.pass();
  assert.deepEqual(c.calls, []);
  assert.deepEqual(await counter(metrics, 'berth_voluntary_disruption_abandoned_total'), { 'Empty/validation': 1 });
});

test('replace: the cheaper replacement is launched and Ready before the node is tainted and drained', async () => {
  const c = FakeCluster.with(['big'], [boundPod('web-1', 'big', { cpu: '500m' })], 'm5.4xlarge');
  const { d, metrics } = disruption(c);
  await d.pass();
  const verbs = c.calls.map(([v, w]) => `${v} ${w.replace(/^(NodeClaim|Event)\/.*/, '$1')}`);
  assert.deepEqual(verbs, ['create Event', 'update Node/big', 'create NodeClaim', 'launch default-xxxx2', 'evict evicted:web-1', 'delete NodeClaim', 'cloud.delete big']);
  assert.deepEqual(c.nodes.map((n) => n.metadata?.name), ['default-xxxx2']);
  assert.deepEqual(await counter(metrics, 'berth_voluntary_disruption_decisions_total'), { 'Underutilized/replace': 1 });
});

test('a replacement that never becomes Ready: abandoned, the replacement claim deleted, the node untainted and untouched', async () => {
  const c = FakeCluster.with(['big'], [boundPod('web-1', 'big', { cpu: '500m' })], 'm5.4xlarge');
  c.registerClaims = false;
  const { d, metrics } = disruption(c, { replacementTimeoutMs: 1_000 });
  await d.pass();
  assert.ok(!c.calls.some(([v]) => v === 'evict'));
  assert.ok(c.calls.some(([v, w]) => v === 'delete' && w === 'NodeClaim/default-xxxx2'));
  assert.deepEqual(c.nodeClaims.map((n) => n.metadata?.name), ['big']);
  assert.ok(!c.tainted('big'));
  assert.deepEqual(await counter(metrics, 'berth_voluntary_disruption_abandoned_total'), { 'Underutilized/replacement': 1 });
});

test('no decision while provisioning is in flight, for nodes not Ready, or within consolidateAfter of a pod event', async () => {
  const pending = new FakeCluster();
  pending.nodes = [launched('n1')];
  pending.nodeClaims = [claimFor('n1'), claimFor('launching')];
  await disruption(pending).d.pass();
  assert.deepEqual(pending.calls, [], 'a claim has no node yet');

  const notReady = new FakeCluster();
  notReady.nodes = [{ ...launched('n1'), status: { ...(launched('n1').status as object), conditions: [{ type: 'Ready', status: 'False' }] } }];
  notReady.nodeClaims = [claimFor('n1')];
  await disruption(notReady).d.pass();
  assert.deepEqual(notReady.calls, []);

  const recent = new FakeCluster();
  recent.nodePools = [disruptionPool({ consolidateAfter: '10m' })];
  recent.nodes = [launched('n1', 'c5a.large', recent.nodePools[0])];
  recent.nodeClaims = [claimFor('n1')];
  const { d } = disruption(recent);
  d.podChanged(boundPod('web-1', 'n1'), 'add');
  d.podChanged(boundPod('web-1', 'n1'), 'delete');
  await d.pass();
  assert.deepEqual(recent.calls, [], 'the pod left n1 just now');
});

test('a disrupted taint no decision owns (say, after a restart) is removed', async () => {
  const c = new FakeCluster();
  const n1 = launched('n1');
  c.nodes = [{ ...n1, spec: { ...(n1.spec as object), taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] } }];
  c.nodeClaims = [claimFor('n1')];
  c.pods = [boundPod('web-1', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })];
  await disruption(c).d.pass();
  assert.deepEqual(c.calls, [['update', 'Node/n1']]);
  assert.ok(!c.tainted('n1'));
});

test('losing the lease stops a decision where it is: no further calls', async () => {
  const c = FakeCluster.with(['n1', 'n2'], [boundPod('web-1', 'n1'), boundPod('web-2', 'n2')]);
  c.evictions.set('web-1', 'blocked').set('web-2', 'blocked');
  const evict = c.evict;
  let n = 0;
  const lost = async (p: Parameters<typeof evict>[0]) => {
    if (++n === 2) c.leading = false;
    return await evict(p);
  };
  await new LiveDisruption(c.kube, c.cloud, c.host(), lost, FAST, pino({ level: 'silent' }), new Metrics(), () => T0 + 3_600_000).pass();
  assert.equal(c.calls.filter(([v]) => v === 'evict').length, 2);
  assert.ok(c.tainted('n1') || c.tainted('n2'), 'left for the next leader to clean up');
});
