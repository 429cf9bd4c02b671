// Karpenter v1.14.1's test cases on its cluster state (in-flight NodeClaims, uninitialized
// nodes and their startup/ephemeral taints, nodes marked for deletion), from
// pkg/controllers/provisioning/suite_test.go and scheduling/suite_test.go, translated: each
// test is named after the upstream `It`. Upstream builds the state with one provisioning
// loop and then runs a second; here the state after the first loop is written out (the
// NodeClaims and Nodes it leaves) and one pass of planProvisioning is the second loop.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import { compileNode, type Node } from '../model/node.js';
import { compileNodeClaim, type NodeClaim } from '../model/nodeclaim.js';
import { bindPod, type Pod } from '../model/pod.js';
import type { Taint } from '../model/taints.js';
import { LABEL_ARCH, LABEL_CAPACITY_TYPE, LABEL_ZONE } from './catalog/types.js';
import { LABEL_NODE_INITIALIZED, LABEL_NODE_REGISTERED, LABEL_NODEPOOL } from './labels.js';
import { planProvisioning, type PoolSpec, type ProvisionPlan } from './plan.js';
import { FAKE_TYPES, nodePool, pod } from './upstream-karpenter.test-support.js';

const HOST = 'kubernetes.io/hostname';
const quantities = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'cpu' ? `${v}m` : String(v)]));

interface MachineOpts {
  type?: string;
  zone?: string;
  pool?: string;
  taints?: Taint[];
  startupTaints?: Taint[];
  deleting?: boolean;
}

function labelsOf(name: string, o: MachineOpts): Record<string, string> {
  const it = FAKE_TYPES.find((t) => t.name === (o.type ?? 'default-instance-type'))!;
  return { ...it.labels, [LABEL_NODEPOOL]: o.pool ?? 'default', [LABEL_ZONE]: o.zone ?? 'test-zone-1', [LABEL_CAPACITY_TYPE]: 'on-demand', [HOST]: name };
}

/** A launched NodeClaim (status filled by the cloud provider), with its Node once `node` is given. */
function claim(name: string, o: MachineOpts & { nodeName?: string } = {}): NodeClaim {
  const it = FAKE_TYPES.find((t) => t.name === (o.type ?? 'default-instance-type'))!;
  return compileNodeClaim(
    {
      metadata: { name, labels: labelsOf(name, o), ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
      spec: { taints: o.taints ?? [], startupTaints: o.startupTaints ?? [] },
      status: { providerID: `fake:///${name}`, capacity: quantities(it.capacity), allocatable: quantities(it.allocatable), ...(o.nodeName ? { nodeName: o.nodeName } : {}) },
    },
    0,
  );
}

const NOT_READY: Taint = { key: 'node.kubernetes.io/not-ready', value: '', effect: 'NoSchedule' };

/** The Node a claim registered as: registered; initialized when asked, else not Ready yet (tainted so, unless taints are given). */
function node(name: string, o: MachineOpts & { initialized?: boolean; registered?: boolean } = {}): Node {
  const it = FAKE_TYPES.find((t) => t.name === (o.type ?? 'default-instance-type'))!;
  const labels = { ...labelsOf(name, o), ...(o.registered === false ? {} : { [LABEL_NODE_REGISTERED]: 'true' }), ...(o.initialized ? { [LABEL_NODE_INITIALIZED]: 'true' } : {}) };
  return compileNode(
    {
      metadata: { name, labels, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
      spec: { providerID: `fake:///${name}`, taints: o.taints ?? (o.initialized ? [] : [NOT_READY]) },
      status: { capacity: quantities(it.capacity), allocatable: quantities(it.allocatable) },
    },
    0,
  );
}

interface State {
  claims?: NodeClaim[];
  nodes?: Node[];
  bound?: [Pod, string][];
  pending: Pod[];
  pools?: PoolSpec[];
  daemonSets?: Pod[];
}

function provision(s: State, cluster = new ClusterState()): ProvisionPlan {
  for (const n of s.nodes ?? []) cluster.addNode(n);
  for (const [p, n] of s.bound ?? []) cluster.addPod(bindPod(p, n));
  for (const p of s.pending) cluster.addPod(p);
  return planProvisioning({
    cluster,
    pools: s.pools ?? [nodePool()],
    instanceTypes: FAKE_TYPES,
    daemonSetPods: s.daemonSets ?? [],
    config: {},
    karpenterState: { nodeClaims: s.claims ?? [], nowMs: 0 },
  });
}

const placedOn = (plan: ProvisionPlan, p: Pod): string | undefined => plan.placements.find((x) => x.pod === p.key)?.node;

describe('Karpenter v1.14.1 In-Flight Nodes (scheduling/suite_test.go)', () => {
  it('should not launch a second node if there is an in-flight node that can support the pod', () => {
    const second = pod('second', {}, { cpu: '10m' });
    const plan = provision({ claims: [claim('default-abcde')], pending: [second] });
    assert.equal(placedOn(plan, second), 'default-abcde');
    assert.equal(plan.nodeClaims.length, 0);
  });

  it('should not launch a second node if there is an in-flight node that can support the pod (node selectors)', () => {
    const zoneIn = (zones: string[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_ZONE, operator: 'In' as const, values: zones }] }] } } } });
    const second = pod('second', zoneIn(['test-zone-1', 'test-zone-2']), { cpu: '10m' });
    const third = pod('third', zoneIn(['test-zone-1', 'test-zone-3']), { cpu: '10m' });
    const plan = provision({ claims: [claim('in-flight', { zone: 'test-zone-2' })], pending: [second, third] });
    assert.equal(placedOn(plan, second), 'in-flight');
    assert.notEqual(placedOn(plan, third), 'in-flight');
    assert.equal(plan.nodeClaims.length, 1);
  });

  it("should launch a second node if a pod won't fit on the existingNodes node", () => {
    // Upstream's first pod takes 1001m of a 2-cpu node; the default type here offers 3900m.
    const first = pod('first', {}, { cpu: '3' });
    const second = pod('second', {}, { cpu: '1' });
    const plan = provision({ claims: [claim('node1', { nodeName: 'node1' })], nodes: [node('node1')], bound: [[first, 'node1']], pending: [second] });
    assert.notEqual(placedOn(plan, second), 'node1');
    assert.equal(plan.nodeClaims.length, 1);
  });

  it("should launch a second node if a pod isn't compatible with the existingNodes node (node selector)", () => {
    const second = pod('second', { nodeSelector: { [LABEL_ARCH]: 'arm64' } });
    const plan = provision({ claims: [claim('node1')], pending: [second] });
    assert.equal(plan.nodeClaims[0]?.instanceType, 'arm-instance-type');
    assert.notEqual(placedOn(plan, second), 'node1');
  });

  it('should launch a second node if an in-flight node is terminating', () => {
    const second = pod('second', {}, { cpu: '10m' });
    const plan = provision({ claims: [claim('node1', { deleting: true })], pending: [second] });
    assert.equal(plan.nodeClaims.length, 1);
    assert.equal(placedOn(plan, second), plan.nodeClaims[0]!.name);
  });

  const spread = (key: string) => ({ topologySpreadConstraints: [{ maxSkew: 1, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { foo: 'bar' } } }] });

  it('should balance pods across zones with in-flight nodes', () => {
    // After the first loop: 4 pods over three in-flight nodes, skew 1, 1, 2.
    const zones = ['test-zone-1', 'test-zone-2', 'test-zone-3'];
    const names = zones.map((z, i) => `n${i}`);
    const claims = zones.map((zone, i) => claim(names[i]!, { zone, nodeName: names[i]! }));
    const nodes = zones.map((zone, i) => node(names[i]!, { zone }));
    const first = [0, 1, 2, 2].map((n, i): [Pod, string] => [pod(`first-${i}`, spread(LABEL_ZONE), { labels: { foo: 'bar' } }), names[n]!]);
    const pending = Array.from({ length: 5 }, (_, i) => pod(`second-${i}`, spread(LABEL_ZONE), { labels: { foo: 'bar' } }));
    const plan = provision({ claims, nodes, bound: first, pending });
    assert.equal(plan.nodeClaims.length, 0, 'no new node: the in-flight ones take the pods');
    const perNode = names.map((n) => first.filter(([, on]) => on === n).length + pending.filter((p) => placedOn(plan, p) === n).length);
    assert.deepEqual(perNode, [3, 3, 3]);
  });

  it('should balance pods across hostnames with in-flight nodes', () => {
    const names = ['n0', 'n1', 'n2', 'n3'];
    const claims = names.map((n) => claim(n, { nodeName: n }));
    const nodes = names.map((n) => node(n));
    const first = names.map((n, i): [Pod, string] => [pod(`first-${i}`, spread(HOST), { labels: { foo: 'bar' } }), n]);
    const pending = Array.from({ length: 5 }, (_, i) => pod(`second-${i}`, spread(HOST), { labels: { foo: 'bar' } }));
    const plan = provision({ claims, nodes, bound: first, pending });
    // New nodes rather than a second pod on an in-flight one: skew 1 on nine hostnames.
    assert.equal(plan.nodeClaims.length, 5);
    assert.ok(pending.every((p) => !names.includes(placedOn(plan, p) ?? '')));
  });
});

describe('Karpenter v1.14.1 In-Flight Nodes, Taints (scheduling/suite_test.go)', () => {
  const notReadyNoExecute: Taint = { key: 'node.kubernetes.io/not-ready', value: '', effect: 'NoExecute' };

  it('should assume pod will schedule to a node with ephemeral taint node.kubernetes.io/not-ready:NoExecute when the node is uninitialized', () => {
    const second = pod('second');
    const uninitialized = provision({ claims: [claim('node1', { nodeName: 'node1' })], nodes: [node('node1', { taints: [notReadyNoExecute] })], pending: [second] });
    assert.equal(placedOn(uninitialized, second), 'node1');
    assert.equal(uninitialized.nodeClaims.length, 0);
    const third = pod('third');
    const initialized = provision({ claims: [claim('node1', { nodeName: 'node1' })], nodes: [node('node1', { taints: [notReadyNoExecute], initialized: true })], pending: [third] });
    assert.notEqual(placedOn(initialized, third), 'node1');
    assert.equal(initialized.nodeClaims.length, 1);
  });

  it('should not assume pod will schedule to a tainted node', () => {
    const taint: Taint = { key: 'foo.com/taint', value: 'tainted', effect: 'NoSchedule' };
    const second = pod('second');
    const plan = provision({ claims: [claim('node1', { nodeName: 'node1' })], nodes: [node('node1', { taints: [taint], initialized: true })], pending: [second] });
    assert.notEqual(placedOn(plan, second), 'node1');
    assert.equal(plan.nodeClaims.length, 1);
  });

  it('should assume pod will schedule to a tainted node with a custom startup taint', () => {
    const startup: Taint = { key: 'foo.com/taint', value: 'tainted', effect: 'NoSchedule' };
    const notReady: Taint = { key: 'node.kubernetes.io/not-ready', value: '', effect: 'NoSchedule' };
    const second = pod('second');
    const plan = provision({ claims: [claim('node1', { nodeName: 'node1', startupTaints: [startup] })], nodes: [node('node1', { taints: [startup, notReady] })], pending: [second] });
    assert.equal(placedOn(plan, second), 'node1');
    assert.equal(plan.nodeClaims.length, 0);
  });

  it('should not assume pod will schedule to a node with startup taints after initialization', () => {
    const startup: Taint = { key: 'ignore-me', value: 'nothing-to-see-here', effect: 'NoSchedule' };
    const second = pod('second');
    const plan = provision({ claims: [claim('node1', { nodeName: 'node1', startupTaints: [startup] })], nodes: [node('node1', { taints: [startup], initialized: true })], pending: [second] });
    assert.notEqual(placedOn(plan, second), 'node1');
    assert.equal(plan.nodeClaims.length, 1);
  });
});

describe('Karpenter v1.14.1 deleting nodes', () => {
  it('should schedule all pods on one inflight node when node is in deleting state (provisioning/suite_test.go)', () => {
    // An unmanaged Node of the pool with three pods, deleted (a finalizer holds it).
    const old = node('old', { deleting: true, initialized: true });
    const bound = [0, 1, 2].map((i): [Pod, string] => [pod(`bound-${i}`), 'old']);
    const pending = [pod('new-0'), pod('new-1')];
    const plan = provision({ nodes: [old], bound, pending });
    assert.equal(plan.nodeClaims.length, 1);
    for (const p of [...bound.map(([p]) => p), ...pending]) assert.equal(placedOn(plan, p), plan.nodeClaims[0]!.name);
  });

  const deletingNode = () => ({ claims: [claim('node1', { nodeName: 'node1', type: 'small-instance-type', deleting: true })], nodes: [node('node1', { type: 'small-instance-type', initialized: true })] });

  it('should re-schedule pods from a deleting node when pods are active', () => {
    const p = pod('p', {}, { memory: '100M' });
    const plan = provision({ ...deletingNode(), bound: [[p, 'node1']], pending: [] });
    assert.equal(plan.nodeClaims.length, 1);
    assert.equal(plan.nodeClaims[0]!.instanceType, 'small-instance-type');
    assert.equal(placedOn(plan, p), plan.nodeClaims[0]!.name);
  });

  // Provisioner.Schedule adds a deleting node's reschedulable pods to the pending ones; they
  // still run there, so kube-scheduler's pass before the batch neither places nor makes room for them.
  it("a deleting node's pods are Karpenter's to place, not kube-scheduler's pass before the batch (s613-419)", () => {
    const onDeleting = pod('on-deleting', {}, { cpu: '2' });
    const pending = pod('pending', {}, { cpu: '2' });
    // 3900m on the ready node hold one of the two; kube-scheduler binds the pending pod there first.
    const plan = provision({ ...deletingNode(), nodes: [...deletingNode().nodes, node('ready', { initialized: true })], bound: [[onDeleting, 'node1']], pending: [pending] });
    assert.equal(placedOn(plan, pending), 'ready');
    assert.equal(placedOn(plan, onDeleting), plan.nodeClaims[0]?.name);
  });

  it("a deleting node's pod that fits nowhere stays bound to its node for the next batch (berth)", () => {
    const huge = pod('huge', {}, { cpu: '1000' });
    const cluster = new ClusterState();
    const plan = provision({ ...deletingNode(), bound: [[huge, 'node1']], pending: [] }, cluster);
    assert.equal(plan.unschedulable[0]?.pod, huge.key);
    assert.equal(cluster.getPod(huge.key)?.nodeName, 'node1');
  });

  it('should not re-schedule pods from a deleting node when pods are not active', () => {
    const p = { ...pod('p', {}, { memory: '100M' }), terminating: true };
    const plan = provision({ ...deletingNode(), bound: [[p, 'node1']], pending: [] });
    assert.equal(plan.nodeClaims.length, 0);
  });

  it('should not re-schedule pods from a deleting node when pods are owned by a DaemonSet', () => {
    const p = pod('p', {}, { memory: '100M', daemonSet: true });
    const plan = provision({ ...deletingNode(), bound: [[p, 'node1']], pending: [] });
    assert.equal(plan.nodeClaims.length, 0);
  });

  it('should reschedule pods from a deleting node when pods are not active and they are owned by a StatefulSet', () => {
    const base = pod('p', {}, { memory: '100M' });
    const p: Pod = { ...base, terminating: true, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'ss', uid: 'ss', controller: true }] };
    const plan = provision({ ...deletingNode(), bound: [[p, 'node1']], pending: [] });
    assert.equal(plan.nodeClaims.length, 1);
  });

  it("a node tainted karpenter.sh/disrupted:NoSchedule is marked for deletion: its pods move and it does not count against the NodePool's limits (berth)", () => {
    const disrupted: Taint = { key: 'karpenter.sh/disrupted', value: '', effect: 'NoSchedule' };
    const p = pod('p', {}, { cpu: '1' });
    // The limit leaves room for one default node besides nothing else: the disrupted one is not counted.
    const pools = [nodePool('default', { limits: { cpu: 4000 } })];
    const plan = provision({ claims: [claim('node1', { nodeName: 'node1' })], nodes: [node('node1', { initialized: true, taints: [disrupted] })], bound: [[p, 'node1']], pending: [], pools });
    assert.equal(plan.nodeClaims.length, 1);
    assert.equal(placedOn(plan, p), plan.nodeClaims[0]!.name);
  });
});

describe('Karpenter v1.14.1 in-flight capacity (berth)', () => {
  it('a NodeClaim not launched yet (no providerID) is not capacity', () => {
    const unlaunched = compileNodeClaim({ metadata: { name: 'pending-claim', labels: { [LABEL_NODEPOOL]: 'default' } } }, 0);
    const plan = provision({ claims: [unlaunched], pending: [pod('p', {}, { cpu: '10m' })] });
    assert.equal(plan.nodeClaims.length, 1);
  });

  it("an in-flight NodeClaim counts against its NodePool's limits", () => {
    const p = pod('p', { nodeSelector: { [LABEL_ARCH]: 'arm64' } }, { cpu: '1' });
    const pools = [nodePool('default', { limits: { cpu: 8000 } })];
    const plan = provision({ claims: [claim('node1')], pending: [p], pools });
    // 4 cpu in flight leave 4: the 16-cpu arm64 type is over the limit.
    assert.equal(plan.nodeClaims.length, 0);
    assert.equal(plan.unschedulable[0]?.pod, p.key);
    const withoutClaim = provision({ pending: [pod('q', { nodeSelector: { [LABEL_ARCH]: 'arm64' } }, { cpu: '1' })], pools: [nodePool('default', { limits: { cpu: 16000 } })] });
    assert.equal(withoutClaim.nodeClaims.length, 1);
  });

  it("DaemonSet pods expected on an in-flight node take its room (ExistingNode's remaining daemon resources)", () => {
    const ds = pod('ds', {}, { cpu: '3', daemonSet: true });
    const p = pod('p', {}, { cpu: '1' });
    const plan = provision({ claims: [claim('node1')], pending: [p], daemonSets: [ds] });
    // 3900m allocatable less the daemon's 3 cpu leaves 900m: the pod needs a new node.
    assert.notEqual(placedOn(plan, p), 'node1');
    const withoutDaemon = provision({ claims: [claim('node1')], pending: [pod('q', {}, { cpu: '1' })] });
    assert.equal(withoutDaemon.placements[0]?.node, 'node1');
  });

  // NewScheduler builds the NodePools' daemon overhead before the existing nodes, and
  // isDaemonPodCompatible adds its PreferNoSchedule toleration to the DaemonSet pod itself
  // (scheduler.go): from then on the daemon tolerates PreferNoSchedule taints on existing nodes too.
  it('a DaemonSet pod is expected on an in-flight node despite its PreferNoSchedule taint once a NodePool has instance types (s611-455)', () => {
    const spare: Taint = { key: 'spare', value: 'true', effect: 'PreferNoSchedule' };
    const ds = pod('ds', {}, { cpu: '3', daemonSet: true });
    const p = pod('p', {}, { cpu: '1' });
    const plan = provision({ claims: [claim('node1', { taints: [spare] })], pending: [p], daemonSets: [ds], pools: [nodePool('default', { taints: [spare] })] });
    // 3900m less the daemon's 3 cpu leaves 900m: the pod (relaxed to tolerate the taint) needs a new node.
    assert.notEqual(placedOn(plan, p), 'node1');
    assert.equal(plan.nodeClaims.length, 1);
    // With no NodePool that can launch anything, nothing adds the toleration: the daemon is not expected there.
    const noTypes = nodePool('default', { taints: [spare], requirements: [{ key: LABEL_ARCH, operator: 'In', values: ['s390x'] }] });
    const q = pod('q', {}, { cpu: '1' });
    const stuck = provision({ claims: [claim('node1', { taints: [spare] })], pending: [q], daemonSets: [ds], pools: [noTypes] });
    assert.equal(placedOn(stuck, q), 'node1');
  });

  it('a DaemonSet pod kube-scheduler binds to an uninitialized node is not reserved there a second time', () => {
    const dsTemplate = pod('ds', { tolerations: [{ operator: 'Exists' }] }, { cpu: '1', daemonSet: true });
    const dsOnNode = { ...pod('ds-node1', { tolerations: [{ operator: 'Exists' }] }, { cpu: '1', daemonSet: true }) };
    const p = pod('p', {}, { cpu: '2500m' });
    // 3900m allocatable: the daemon's 1 cpu once leaves room for 2500m, twice it would not.
    const plan = provision({ claims: [claim('node1', { nodeName: 'node1' })], nodes: [node('node1')], pending: [dsOnNode, p], daemonSets: [dsTemplate] });
    assert.equal(placedOn(plan, dsOnNode), 'node1');
    assert.equal(placedOn(plan, p), 'node1');
  });

  it('kube-scheduler cannot bind to an in-flight NodeClaim without a Node, and the pod waits for it', () => {
    const p = pod('p', {}, { cpu: '1' });
    const plan = provision({ claims: [claim('node1')], pending: [p] });
    assert.deepEqual(plan.placements, [{ pod: p.key, node: 'node1' }]);
    assert.equal(plan.costPerHour, 0);
  });

  // ExistingNode.CanAdd (existingnode.go) checks a pod's host ports only against the pods
  // bound to the node: an expected DaemonSet pod takes its room, not its ports.
  const port9100 = { containers: [{ name: 'c', ports: [{ containerPort: 9100, hostPort: 9100 }] }] };

  it("an expected DaemonSet pod's host port is not reserved on an in-flight node (ExistingNode's host port usage is its bound pods')", () => {
    const ds = pod('ds', port9100, { cpu: '100m', daemonSet: true });
    const p = pod('p', port9100, { cpu: '1' });
    const plan = provision({ claims: [claim('node1')], pending: [p], daemonSets: [ds] });
    assert.equal(placedOn(plan, p), 'node1');
    assert.equal(plan.nodeClaims.length, 0);
  });

  it("a running DaemonSet pod's host port on an uninitialized node keeps a pod with the same port off it", () => {
    const amd64Only = { ...port9100, nodeSelector: { [LABEL_ARCH]: 'amd64' }, tolerations: [{ operator: 'Exists' as const }] };
    const ds = pod('ds', amd64Only, { cpu: '100m', daemonSet: true });
    const running = pod('ds-node1', amd64Only, { cpu: '100m', daemonSet: true });
    const p = pod('p', port9100, { cpu: '1' });
    const plan = provision({ claims: [claim('node1', { nodeName: 'node1' })], nodes: [node('node1')], bound: [[running, 'node1']], pending: [p], daemonSets: [ds] });
    assert.notEqual(placedOn(plan, p), 'node1');
    // A new claim holds the daemon's port too, unless the daemon does not run on it (arm64).
    assert.equal(plan.nodeClaims[0]?.instanceType, 'arm-instance-type');
    assert.equal(placedOn(plan, p), plan.nodeClaims[0]?.name);
  });
});
