import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { EvictionResult } from './eviction.js';
import { Metrics } from './metrics.js';
import type { KubeObject } from './objects.js';
import { drainStep, evictionTiers, isWaitingEviction, MIN_DRAIN_MS, Termination, terminationDeadline, toleratesDisrupted } from './termination.js';
import { claimOf, iso, liveObjects, pod, T0 } from './test-objects.test-support.js';

const FINALIZER = 'berth.dev/termination';

/** A pod bound to `node`, owned by a ReplicaSet unless `owner` says otherwise. */
function onNode(name: string, node = 'n1', extra: { owner?: string; priorityClassName?: string; tolerations?: object[]; annotations?: Record<string, string>; deletedAt?: number; grace?: number; phase?: string } = {}): KubeObject {
  const p = pod(name, { node, ...(extra.phase ? { phase: extra.phase } : {}) });
  return {
    ...p,
    metadata: {
      ...p.metadata,
      annotations: extra.annotations ?? {},
      ...(extra.deletedAt !== undefined ? { deletionTimestamp: iso(extra.deletedAt) } : {}),
      ownerReferences: [{ kind: extra.owner ?? 'ReplicaSet', name: 'o', controller: true }],
    } as KubeObject['metadata'],
    spec: {
      ...(p.spec as object),
      ...(extra.priorityClassName ? { priorityClassName: extra.priorityClassName } : {}),
      ...(extra.tolerations ? { tolerations: extra.tolerations } : {}),
      terminationGracePeriodSeconds: extra.grace ?? 30,
    },
  };
}

const names = (pods: readonly KubeObject[]) => pods.map((p) => p.metadata?.name);

test('upstream: "should not evict pods that tolerate karpenter disruption taint with equal operator" / "with exists operator" (termination suite_test.go)', () => {
  const equal = onNode('equal', 'n1', { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Equal', effect: 'NoSchedule' }] });
  const exists = onNode('exists', 'n1', { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }] });
  const everything = onNode('everything', 'n1', { tolerations: [{ operator: 'Exists' }] });
  for (const p of [equal, exists, everything]) assert.equal(toleratesDisrupted(p), true, p.metadata?.name);
  assert.deepEqual(drainStep([equal, exists, everything], T0, undefined), { evict: [], delete: [], waiting: 0 });
});

test('upstream: "should evict pods that tolerate the node.kubernetes.io/unschedulable taint" (termination suite_test.go)', () => {
  const p = onNode('p', 'n1', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] });
  assert.deepEqual(names(drainStep([p], T0, undefined).evict), ['p']);
});

test('upstream: "should delete nodes with terminal pods" and "should not evict static pods" (termination suite_test.go)', () => {
  const done = onNode('done', 'n1', { phase: 'Succeeded' });
  const failed = onNode('failed', 'n1', { phase: 'Failed' });
  const mirror = { ...onNode('mirror'), metadata: { ...onNode('mirror').metadata, annotations: { 'kubernetes.io/config.mirror': 'x' } } };
  const staticPod = onNode('static', 'n1', { owner: 'Node' });
  assert.deepEqual(drainStep([done, failed, mirror, staticPod], T0, undefined), { evict: [], delete: [], waiting: 0 });
});

test('upstream: "should evict non-critical pods first" (termination suite_test.go): non-critical, then DaemonSet, then critical, then critical DaemonSet', () => {
  const pods = [
    onNode('critical-ds', 'n1', { owner: 'DaemonSet', priorityClassName: 'system-node-critical' }),
    onNode('critical', 'n1', { priorityClassName: 'system-cluster-critical' }),
    onNode('ds', 'n1', { owner: 'DaemonSet' }),
    onNode('app', 'n1'),
  ];
  assert.deepEqual(evictionTiers(pods).map(names), [['app'], ['ds'], ['critical'], ['critical-ds']]);
  assert.deepEqual(names(drainStep(pods, T0, undefined).evict), ['app']);
  assert.deepEqual(names(drainStep(pods.slice(0, 3), T0, undefined).evict), ['ds'], 'the next tier once the first is gone');
  assert.equal(drainStep(pods, T0, undefined).waiting, 4);
});

test('upstream: "should bypass pods which are stuck terminating past their grace period" (termination suite_test.go)', () => {
  const stuck = onNode('stuck', 'n1', { deletedAt: T0 });
  assert.equal(isWaitingEviction(stuck, T0 + 60_000), true, 'within a minute of its deletion time it is waited for');
  assert.equal(isWaitingEviction(stuck, T0 + 60_001), false);
  assert.deepEqual(drainStep([stuck], T0 + 60_001, undefined), { evict: [], delete: [], waiting: 0 });
});

test('a do-not-disrupt pod is waited for, never evicted, without a terminationGracePeriod', () => {
  const p = onNode('keep', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
  assert.deepEqual(drainStep([p], T0 + 3_600_000, undefined), { evict: [], delete: [], waiting: 1 });
});

test('upstream: "should preemptively delete pods to satisfy their terminationGracePeriodSeconds" (termination suite_test.go)', () => {
  const deadline = terminationDeadline(claimOf('c', { terminating: true, deleted: T0, terminationGracePeriodMs: 300_000 }));
  assert.equal(deadline, T0 + 300_000);
  const p = onNode('p', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, grace: 300 });
  const step = drainStep([p], T0 + 2 * MIN_DRAIN_MS, deadline);
  assert.deepEqual(step.delete.map((d) => [d.pod.metadata?.name, d.graceSeconds]), [['p', 290]]);
});

test('upstream: "should only delete pods when their terminationGracePeriodSeconds is less than the the node\'s remaining terminationGracePeriod" (termination suite_test.go)', () => {
  const deadline = T0 + 300_000;
  const p = onNode('p', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, grace: 60 });
  assert.deepEqual(drainStep([p], T0 + 90_000, deadline).delete, [], 'at 90 s, 210 s remain: more than its 60 s');
  assert.deepEqual(drainStep([p], T0 + 265_000, deadline).delete.map((d) => d.graceSeconds), [35], 'past 240 s it is deleted with what remains');
});

test('upstream: "should update deletion timestamp for terminating pods when it is after node deletion timestamp" (termination suite_test.go)', () => {
  const deadline = T0 + 300_000;
  const slow = onNode('slow', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, grace: 6000, deletedAt: T0 + 6_000_000 });
  assert.deepEqual(drainStep([slow], T0 + 90_000, deadline).delete.map((d) => d.graceSeconds), [210]);
  const quick = onNode('quick', 'n1', { grace: 30, deletedAt: T0 + 30_000 });
  assert.deepEqual(drainStep([quick], T0 + 90_000, deadline).delete, [], 'a pod whose deletion ends before the deadline is left to end');
});

/** An API server that honours finalizers: a delete marks an object with finalizers, an update that removes the last one of a marked object removes it. */
class FinalizingKube {
  nodes: KubeObject[] = [];
  claims: KubeObject[] = [];
  pods: KubeObject[] = [];
  readonly calls: string[] = [];
  readonly events: string[] = [];
  evictions = new Map<string, EvictionResult>();
  now = T0;

  private list(kind: string): KubeObject[] {
    return kind === 'Node' ? this.nodes : kind === 'NodeClaim' ? this.claims : this.pods;
  }
  private set(kind: string, objects: KubeObject[]): void {
    if (kind === 'Node') this.nodes = objects;
    else if (kind === 'NodeClaim') this.claims = objects;
    else this.pods = objects;
  }

  readonly kube = {
    update: async (_v: string, kind: string, name: string, mutate: (o: KubeObject) => KubeObject | undefined) => {
      const o = this.list(kind).find((x) => x.metadata?.name === name);
      const next = o && mutate(o);
      if (!o || !next) return o;
      this.calls.push(`update ${kind}/${name}`);
      const gone = next.metadata?.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0;
      this.set(kind, gone ? this.list(kind).filter((x) => x !== o) : this.list(kind).map((x) => (x === o ? next : x)));
      return next;
    },
    delete: async (_v: string, kind: string, name: string) => {
      const o = this.list(kind).find((x) => x.metadata?.name === name);
      if (!o || o.metadata?.deletionTimestamp) return;
      this.calls.push(`delete ${kind}/${name}`);
      if ((o.metadata?.finalizers ?? []).length === 0) this.set(kind, this.list(kind).filter((x) => x !== o));
      else this.set(kind, this.list(kind).map((x) => (x === o ? { ...o, metadata: { ...o.metadata, deletionTimestamp: iso(this.now) } } : x)));
    },
  };

  readonly cloud = {
    delete: async (i: { nodeName: string }) => {
      this.calls.push(`cloud.delete ${i.nodeName}`);
      await this.kube.delete('v1', 'Node', i.nodeName);
    },
    list: async () => this.nodes.map((n) => ({ nodeName: n.metadata!.name!, claim: n.metadata!.labels!['berth.dev/nodeclaim']!, created: T0, providerID: `kwok://${n.metadata!.name}` })),
  };

  termination(): Termination {
    return new Termination(
      this.kube,
      this.cloud,
      {
        objects: () => liveObjects({ nodes: this.nodes, nodeClaims: this.claims, pods: this.pods }),
        leading: () => true,
        event: async (about, reason) => void this.events.push(`${about.kind}/${about.object.metadata?.name} ${reason}`),
      },
      async (p) => {
        const name = p.metadata?.name ?? '';
        const result = this.evictions.get(name) ?? 'evicted';
        this.calls.push(`evict ${name} ${result}`);
        if (result === 'evicted') this.pods = this.pods.filter((x) => x.metadata?.name !== name);
        return result;
      },
      async (p, grace) => void this.calls.push(`delete Pod/${p.metadata?.name} grace=${grace}`),
      pino({ level: 'silent' }),
      new Metrics(),
      () => this.now,
    );
  }

  /** Node n1 of claim n1 (registered), both with the finalizer, and pods on it. */
  static with(pods: KubeObject[], claimSpec: Record<string, unknown> = {}): FinalizingKube {
    const k = new FinalizingKube();
    k.nodes = [{ metadata: { name: 'n1', uid: 'uid-node-n1', labels: { 'berth.dev/nodeclaim': 'n1', 'karpenter.sh/nodepool': 'default' }, finalizers: [FINALIZER] }, spec: {} }];
    k.claims = [{ metadata: { name: 'n1', uid: 'uid-claim-n1', creationTimestamp: iso(T0), finalizers: [FINALIZER] }, spec: { nodePool: 'default', instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'on-demand', ...claimSpec } }];
    k.pods = pods;
    return k;
  }
}

test('upstream: "should delete nodeclaims associated with nodes" (termination suite_test.go): a Node deleted directly takes its claim, drains, then both go', async () => {
  const k = FinalizingKube.with([onNode('web-1'), onNode('ds', 'n1', { owner: 'DaemonSet' })]);
  const t = k.termination();
  await k.kube.delete('v1', 'Node', 'n1');
  await t.pass();
  assert.deepEqual(k.calls.slice(1), ['delete NodeClaim/n1', 'update Node/n1', 'evict web-1 evicted']);
  const taints = (k.nodes[0]!.spec as { taints: { key: string; effect: string }[] }).taints;
  assert.deepEqual(taints, [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }]);
  assert.equal(k.nodes[0]!.metadata?.labels?.['node.kubernetes.io/exclude-from-external-load-balancers'], 'karpenter', 'upstream: "should exclude nodes from load balancers when terminating"');
  await t.pass();
  assert.deepEqual(k.calls.slice(-1), ['evict ds evicted'], 'DaemonSet pods after the others');
  await t.pass();
  assert.equal(k.nodes.length, 1, 'upstream: "should not finish draining until minDrainTime has passed"');
  k.now += MIN_DRAIN_MS;
  await t.pass();
  assert.deepEqual([k.nodes.length, k.claims.length], [0, 0], 'the node goes, then its claim');
  assert.deepEqual(k.calls.slice(-3), ['cloud.delete n1', 'update Node/n1', 'update NodeClaim/n1']);
  assert.deepEqual(k.events, ['Node/n1 Terminating', 'Pod/web-1 Evicted', 'NodeClaim/n1 Terminating', 'Pod/ds Evicted']);
});

test('upstream: "should fail to evict pods that violate a PDB" (termination suite_test.go): a claim deleted by a user drains through the Eviction API, a 429 holds the node until the PDB allows it', async () => {
  const k = FinalizingKube.with([onNode('web-1')]);
  k.evictions.set('web-1', 'blocked');
  const t = k.termination();
  await k.kube.delete('berth.dev/v1alpha1', 'NodeClaim', 'n1');
  await t.pass(); // the claim deletes its node
  assert.ok(k.calls.includes('delete Node/n1'));
  for (let i = 0; i < 5; i++) {
    k.now += 2_000;
    await t.pass();
  }
  assert.deepEqual([k.nodes.length, k.pods.length], [1, 1], 'never forced');
  assert.ok(k.calls.filter((c) => c === 'evict web-1 blocked').length >= 2, 'retried');
  k.evictions.delete('web-1');
  k.now += 10_000;
  await t.pass();
  k.now += MIN_DRAIN_MS;
  await t.pass();
  await t.pass();
  assert.deepEqual([k.nodes.length, k.claims.length, k.pods.length], [0, 0, 0]);
});

test('a claim with a terminationGracePeriod: past its deadline a do-not-disrupt pod is deleted with the time that remains, bypassing the PDB', async () => {
  const k = FinalizingKube.with([onNode('pinned', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, grace: 30 })], { terminationGracePeriod: '60s' });
  const t = k.termination();
  await k.kube.delete('berth.dev/v1alpha1', 'NodeClaim', 'n1');
  await t.pass();
  await t.pass();
  assert.ok(!k.calls.some((c) => c.startsWith('evict') || c.startsWith('delete Pod')), 'do-not-disrupt: not evicted');
  k.now += 31_000;
  await t.pass();
  assert.deepEqual(k.calls.filter((c) => c.startsWith('delete Pod')), ['delete Pod/pinned grace=29']);
});

test('a claim that never got a node: the instance (if any) is deleted and the finalizer removed', async () => {
  const k = FinalizingKube.with([]);
  k.nodes = [];
  await k.kube.delete('berth.dev/v1alpha1', 'NodeClaim', 'n1');
  await k.termination().pass();
  assert.deepEqual(k.claims, []);
});
