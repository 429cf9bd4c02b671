// Cases from the descheduler v0.36 plugin and evictor tests, translated (named
// after the upstream case and file) and run with berth's defaults, i.e. without
// predictPlacement. Upstream's test nodes: BuildTestNode(name, milliCPU, memory,
// pods); its pods: BuildTestPod(name, milliCPU, memory, node), owned by a ReplicaSet.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterState } from '../cluster/state.js';
import type { PodManifest, PodSpecManifest } from '../model/manifest.js';
import { compileNode } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import { deschedule } from './deschedule.js';
import { notEvictable } from './deschedule/evictor.js';
import { singleProfilePolicy, type EvictorArgs, type StrategyArgs, type StrategyName } from '../model/descheduler-policy.js';

let order = 0;
const NOW = Date.parse('2026-01-01T12:00:00Z');
function node(name: string, milli: number, mem: number, pods: number, labels: Record<string, string> = {}, extra: { unschedulable?: boolean; taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[] } = {}) {
  return compileNode(
    { metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: { unschedulable: extra.unschedulable ?? false, taints: extra.taints ?? [] }, status: { allocatable: { cpu: `${milli}m`, memory: String(mem), pods: String(pods) } } },
    order++,
  );
}
function pod(name: string, milli: number, nodeName: string, o: { labels?: Record<string, string>; spec?: Partial<PodSpecManifest>; owner?: string | null; ownerKind?: string; priority?: number; ns?: string; annotations?: Record<string, string>; image?: string; status?: PodManifest['status']; created?: string } = {}): Pod {
  const owner = o.owner === undefined ? 'rs' : o.owner;
  return compilePod(
    {
      metadata: {
        name,
        namespace: o.ns ?? 'ns1',
        labels: o.labels ?? {},
        annotations: o.annotations ?? {},
        ownerReferences: owner === null ? [] : [{ apiVersion: 'apps/v1', kind: o.ownerKind ?? 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }],
        ...(o.created ? { creationTimestamp: o.created } : {}),
      },
      spec: { nodeName, priority: o.priority ?? 0, containers: [{ name: 'c', image: o.image ?? 'img', resources: { requests: milli > 0 ? { cpu: `${milli}m` } : {} } }], ...o.spec },
      status: { phase: 'Running', ...o.status },
    },
    { order: order++ },
  );
}
function run<K extends StrategyName>(nodes: ReturnType<typeof node>[], pods: Pod[], name: K, args: StrategyArgs[K], evictor: EvictorArgs = {}, limits: { maxNoOfPodsToEvictPerNode?: number; maxNoOfPodsToEvictPerNamespace?: number; maxNoOfPodsToEvictTotal?: number } = {}, nowMs = NOW) {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod(p);
  return deschedule({ cluster: c, policy: singleProfilePolicy({ [name]: args } as never, { evictor, ...limits }), nowMs });
}
const count = (r: ReturnType<typeof run>) => r.evictions.length;
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from);

const zone = (z: string) => ({ zone: z });
const spreadOn = (maxSkew: number, when: 'DoNotSchedule' | 'ScheduleAnyway' = 'DoNotSchedule'): Partial<PodSpecManifest> => ({
  topologySpreadConstraints: [{ maxSkew, topologyKey: 'zone', whenUnsatisfiable: when, labelSelector: { matchLabels: { foo: 'bar' } } }],
});
const TS = 'topologyspreadconstraint_test.go';
const tsArgs: StrategyArgs['RemovePodsViolatingTopologySpreadConstraint'] = { constraints: ['DoNotSchedule'] };
function spreadPods(groups: { count: number; node: string; constrained?: boolean; maxSkew?: number; spec?: Partial<PodSpecManifest> }[]): Pod[] {
  let n = 0;
  return groups.flatMap((g) => range(g.count).map(() => pod(`pod-${n++}`, 100, g.node, { labels: { foo: 'bar' }, spec: { ...(g.constrained ? spreadOn(g.maxSkew ?? 1) : {}), ...g.spec } })));
}

describe('upstream: RemovePodsViolatingTopologySpreadConstraint', () => {
  const two = () => [node('n1', 2000, 3000, 10, zone('zoneA')), node('n2', 2000, 3000, 10, zone('zoneB'))];
  const three = () => [...two(), node('n3', 2000, 3000, 10, zone('zoneC'))];
  it(`upstream: "2 domains, sizes [2,1], maxSkew=1, move 0 pods" (${TS})`, () => {
    assert.equal(count(run(two(), spreadPods([{ count: 1, node: 'n1', constrained: true }, { count: 1, node: 'n1' }, { count: 1, node: 'n2' }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 0);
  });
  it(`upstream: "2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2]" (${TS})`, () => {
    assert.equal(count(run(two(), spreadPods([{ count: 1, node: 'n1', constrained: true }, { count: 2, node: 'n1' }, { count: 1, node: 'n2' }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 1);
  });
  it(`upstream: "2 domains, sizes [4,0], maxSkew=1, move 2 pods to achieve [2,2]" (${TS})`, () => {
    assert.equal(count(run(two(), spreadPods([{ count: 1, node: 'n1', constrained: true }, { count: 3, node: 'n1' }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 2);
  });
  it(`upstream: "3 domains, sizes [0, 1, 100], maxSkew=1, move 66 pods to get [34, 33, 34]" (${TS})`, () => {
    assert.equal(count(run(three(), spreadPods([{ count: 1, node: 'n2', constrained: true }, { count: 100, node: 'n3' }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 66);
  });
  it(`upstream: "4 domains, sizes [0, 1, 3, 5], should move 3 to get [2, 2, 3, 2]" (${TS})`, () => {
    const nodes = [...three(), node('n4', 2000, 3000, 10, zone('zoneD'))];
    assert.equal(count(run(nodes, spreadPods([{ count: 1, node: 'n2', constrained: true }, { count: 3, node: 'n3' }, { count: 5, node: 'n4' }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 3);
  });
  it(`upstream: "2 domains size [2 6], maxSkew=2, should move 1 to get [3 5]" (${TS})`, () => {
    assert.equal(count(run(two(), spreadPods([{ count: 1, node: 'n1', constrained: true, maxSkew: 2 }, { count: 1, node: 'n1' }, { count: 6, node: 'n2' }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 1);
  });
  it(`upstream: "3 domains size [8 7 0], maxSkew=1, should move 5 to get [5 5 5]" (${TS})`, () => {
    assert.equal(count(run(three(), spreadPods([{ count: 8, node: 'n1', constrained: true }, { count: 7, node: 'n2', constrained: true }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 5);
  });
  it(`upstream: "3 domains size [5 5 5], maxSkew=1, should move 0 to retain [5 5 5]" (${TS})`, () => {
    assert.equal(count(run(three(), spreadPods([{ count: 5, node: 'n1', constrained: true }, { count: 5, node: 'n2', constrained: true }, { count: 5, node: 'n3', constrained: true }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 0);
  });
  it(`upstream: "2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (soft constraints)" (${TS})`, () => {
    const soft = { ...spreadOn(1, 'ScheduleAnyway') };
    const pods = spreadPods([{ count: 1, node: 'n1', spec: soft }, { count: 2, node: 'n1' }, { count: 1, node: 'n2' }]);
    assert.equal(count(run(two(), pods, 'RemovePodsViolatingTopologySpreadConstraint', { constraints: ['ScheduleAnyway'] })), 1);
  });
  it(`upstream: "2 domains size [2 6], maxSkew=2, can't move any because node1 does not have enough CPU" (${TS})`, () => {
    const nodes = [node('n1', 200, 3000, 10, zone('zoneA')), node('n2', 2000, 3000, 10, zone('zoneB'))];
    assert.equal(count(run(nodes, spreadPods([{ count: 1, node: 'n1', constrained: true, maxSkew: 2 }, { count: 1, node: 'n1' }, { count: 6, node: 'n2' }]), 'RemovePodsViolatingTopologySpreadConstraint', tsArgs)), 0);
  });
});

const RD = 'removeduplicates_test.go';
describe('upstream: RemoveDuplicates', () => {
  const nodes = () => [node('n1', 2000, 3000, 10), node('n2', 2000, 3000, 10)];
  it(`upstream: "Three pods in the \`dev\` Namespace, bound to same ReplicaSet. 1 should be evicted." shape: 3 duplicates on one of two nodes, ceil(3/2)=2 kept (${RD})`, () => {
    const pods = range(3, 1).map((i) => pod(`p${i}`, 100, 'n1'));
    assert.equal(count(run(nodes(), pods, 'RemoveDuplicates', {})), 1);
  });
  it(`upstream: "Three Pods in the \`test\` Namespace, different ownerrefs or different images, none evicted" shape (${RD})`, () => {
    const pods = [pod('p1', 100, 'n1', { image: 'a' }), pod('p2', 100, 'n1', { image: 'b' }), pod('p3', 100, 'n1', { owner: 'other' })];
    assert.equal(count(run(nodes(), pods, 'RemoveDuplicates', {})), 0);
  });
  it(`upstream: target nodes are the union over the duplicates' specs: a duplicate that tolerates a tainted node widens the targets (${RD})`, () => {
    const tainted = node('n3', 2000, 3000, 10, {}, { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] });
    const tol: Partial<PodSpecManifest> = { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }] };
    // Six pods on n1, the first (the reference, not a duplicate) without the toleration: the union is 3 nodes, ceil(6/3) = 2 kept, 4 evicted.
    const pods = [pod('p0', 100, 'n1'), ...range(5, 1).map((i) => pod(`p${i}`, 100, 'n1', { spec: tol }))];
    // The toleration does not change the duplicate key (owner + images), so all six are one group.
    assert.equal(count(run([...nodes(), tainted], pods, 'RemoveDuplicates', {})), 4);
  });
  it(`upstream: "Three pods ... excludeOwnerKinds ReplicaSet, none evicted" shape (${RD})`, () => {
    const pods = range(3, 1).map((i) => pod(`p${i}`, 100, 'n1'));
    assert.equal(count(run(nodes(), pods, 'RemoveDuplicates', { excludeOwnerKinds: ['ReplicaSet'] })), 0);
  });
});

const LNU = 'lownodeutilization_test.go';
describe('upstream: LowNodeUtilization', () => {
  it(`upstream: "without priorities" shape: n1 overutilized, n3 underutilized, pods move until n1 is under target (${LNU})`, () => {
    const nodes = [node('n1', 4000, 3000, 9), node('n2', 4000, 3000, 10), node('n3', 4000, 3000, 10)];
    const pods = [...range(8, 1).map((i) => pod(`p${i}`, 400, 'n1')), pod('p9', 400, 'n2')];
    // n1: cpu 80%, pods 8/9; targets 50%: cpu needs 3 evictions, pods (ceiling 4 of 9) needs 4.
    const r = run(nodes, pods, 'LowNodeUtilization', { thresholds: { cpu: 30, pods: 30 }, targetThresholds: { cpu: 50, pods: 50 } });
    assert.equal(count(r), 4);
  });
  it(`upstream: a cordoned overutilized node is still a source; a cordoned underutilized node is no destination (${LNU})`, () => {
    const nodes = [node('n1', 4000, 3000, 100, {}, { unschedulable: true }), node('n2', 4000, 3000, 100), node('n3', 4000, 3000, 100, {}, { unschedulable: true })];
    const pods = range(8, 1).map((i) => pod(`p${i}`, 400, 'n1'));
    const r = run(nodes, pods, 'LowNodeUtilization', { thresholds: { cpu: 30 }, targetThresholds: { cpu: 50 } });
    assert.equal(count(r), 3);
    assert.ok(r.evictions.every((e) => e.node === 'n1'));
  });
  it(`upstream: usage equal to the threshold is underutilized (${LNU})`, () => {
    const nodes = [node('n1', 1000, 3000, 100), node('n2', 1000, 3000, 100)];
    const pods = [pod('a', 700, 'n1'), pod('b', 300, 'n2')];
    assert.equal(count(run(nodes, pods, 'LowNodeUtilization', { thresholds: { cpu: 30 }, targetThresholds: { cpu: 50 } })), 1);
  });
});

const HNU = 'highnodeutilization_test.go';
describe('upstream: HighNodeUtilization', () => {
  it(`upstream: "no node below threshold usage" shape (${HNU})`, () => {
    const nodes = [node('n1', 1000, 3000, 10), node('n2', 1000, 3000, 10)];
    assert.equal(count(run(nodes, [pod('a', 500, 'n1'), pod('b', 500, 'n2')], 'HighNodeUtilization', { thresholds: { cpu: 20 } })), 0);
  });
  it(`upstream: "evict pods from node with lowest usage" shape: the underutilized node is emptied (${HNU})`, () => {
    const nodes = [node('n1', 4000, 3000, 10), node('n2', 4000, 3000, 10), node('n3', 4000, 3000, 10)];
    const pods = [pod('a', 400, 'n1'), pod('b', 2000, 'n2'), pod('c', 2000, 'n3')];
    const r = run(nodes, pods, 'HighNodeUtilization', { thresholds: { cpu: 20 } });
    assert.deepEqual(r.evictions.map((e) => e.pod), ['ns1/a']);
  });
  it(`upstream: a cordoned underutilized node is drained too (${HNU})`, () => {
    const nodes = [node('n1', 4000, 3000, 10, {}, { unschedulable: true }), node('n2', 4000, 3000, 10)];
    const r = run(nodes, [pod('a', 400, 'n1'), pod('b', 2000, 'n2')], 'HighNodeUtilization', { thresholds: { cpu: 20 } });
    assert.deepEqual(r.evictions.map((e) => e.pod), ['ns1/a']);
  });
  it(`upstream: evictionModes OnlyThresholdingResources leaves pods without a request for the thresholded resource (${HNU})`, () => {
    const nodes = [node('n1', 4000, 3000, 10), node('n2', 4000, 3000, 10)];
    const r = run(nodes, [pod('a', 0, 'n1'), pod('b', 2000, 'n2')], 'HighNodeUtilization', { thresholds: { cpu: 20 }, evictionModes: ['OnlyThresholdingResources'] });
    assert.equal(count(r), 0);
  });
});

const AA = 'pod_antiaffinity_test.go';
describe('upstream: RemovePodsViolatingInterPodAntiAffinity', () => {
  const anti: Partial<PodSpecManifest> = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { foo: 'bar' } }, topologyKey: 'region' }] } } };
  it(`upstream: "Maximum pods to evict - 3" shape: every pod holding a violated term goes, each freeing the next (${AA})`, () => {
    const nodes = [node('n1', 2000, 3000, 10, { region: 'main' }), node('n2', 2000, 3000, 10, { region: 'main' })];
    const pods = [pod('p1', 100, 'n1', { labels: { foo: 'bar' }, spec: anti }), pod('p2', 100, 'n1', { labels: { foo: 'bar' }, spec: anti }), pod('p3', 100, 'n1', { labels: { foo: 'bar' }, spec: anti })];
    // p1 conflicts with p2 and goes; p2 still conflicts with p3 and goes; p3 is then alone.
    assert.equal(count(run(nodes, pods, 'RemovePodsViolatingInterPodAntiAffinity', {})), 2);
  });
  it(`upstream: evicts even when no other node could take the pod (${AA})`, () => {
    const nodes = [node('n1', 2000, 3000, 10, { region: 'main' })];
    const pods = [pod('p1', 100, 'n1', { labels: { foo: 'bar' }, spec: anti }), pod('p2', 100, 'n1', { labels: { foo: 'bar' } })];
    assert.equal(count(run(nodes, pods, 'RemovePodsViolatingInterPodAntiAffinity', {})), 1);
  });
  it(`upstream: "Evict only 1 pod after sorting" shape: the lower-priority pod goes first (${AA})`, () => {
    const nodes = [node('n1', 2000, 3000, 10, { region: 'main' })];
    const pods = [pod('hi', 100, 'n1', { labels: { foo: 'bar' }, spec: anti, priority: 100 }), pod('lo', 100, 'n1', { labels: { foo: 'bar' }, spec: anti, priority: 0 })];
    assert.deepEqual(run(nodes, pods, 'RemovePodsViolatingInterPodAntiAffinity', {}).evictions.map((e) => e.pod), ['ns1/lo']);
  });
});

const NA = 'node_affinity_test.go';
describe('upstream: RemovePodsViolatingNodeAffinity', () => {
  const required: Partial<PodSpecManifest> = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/desiredNode', operator: 'In', values: ['yes'] }] }] } } } };
  const args: StrategyArgs['RemovePodsViolatingNodeAffinity'] = { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution'] };
  it(`upstream: "Pod is correctly scheduled on node, no eviction expected" (${NA})`, () => {
    const nodes = [node('n1', 2000, 3000, 10, { 'kubernetes.io/desiredNode': 'yes' }), node('n2', 2000, 3000, 10)];
    assert.equal(count(run(nodes, [pod('p', 100, 'n1', { spec: required })], 'RemovePodsViolatingNodeAffinity', args)), 0);
  });
  it(`upstream: "Pod is scheduled on node without matching labels, another schedulable node available, should be evicted" (${NA})`, () => {
    const nodes = [node('n1', 2000, 3000, 10), node('n2', 2000, 3000, 10, { 'kubernetes.io/desiredNode': 'yes' })];
    assert.equal(count(run(nodes, [pod('p', 100, 'n1', { spec: required })], 'RemovePodsViolatingNodeAffinity', args)), 1);
  });
  it(`upstream: "Pod is scheduled on node without matching labels, but no node where pod fits is available, should not evict" (${NA})`, () => {
    const nodes = [node('n1', 2000, 3000, 10), node('n2', 10, 3000, 10, { 'kubernetes.io/desiredNode': 'yes' })];
    assert.equal(count(run(nodes, [pod('p', 100, 'n1', { spec: required })], 'RemovePodsViolatingNodeAffinity', args)), 0);
  });
  it(`upstream: a pod with only a nodeSelector is left alone (${NA})`, () => {
    const nodes = [node('n1', 2000, 3000, 10), node('n2', 2000, 3000, 10, { 'kubernetes.io/desiredNode': 'yes' })];
    assert.equal(count(run(nodes, [pod('p', 100, 'n1', { spec: { nodeSelector: { 'kubernetes.io/desiredNode': 'yes' } } })], 'RemovePodsViolatingNodeAffinity', args)), 0);
  });
});

const NT = 'node_taint_test.go';
describe('upstream: RemovePodsViolatingNodeTaints', () => {
  const tainted = () => node('n1', 2000, 3000, 10, {}, { taints: [{ key: 'testTaint', value: 'test', effect: 'NoSchedule' }] });
  const tol: Partial<PodSpecManifest> = { tolerations: [{ key: 'testTaint', operator: 'Equal', value: 'test', effect: 'NoSchedule' }] };
  it(`upstream: "Pods not tolerating node taint should be evicted" (${NT})`, () => {
    assert.equal(count(run([tainted(), node('n2', 2000, 3000, 10)], [pod('a', 100, 'n1'), pod('b', 100, 'n1', { spec: tol })], 'RemovePodsViolatingNodeTaints', {})), 1);
  });
  it(`upstream: "Critical and non critical pods, pods not tolerating node taint can't be evicted because of evictSystemCriticalPods" shape (${NT})`, () => {
    assert.equal(count(run([tainted()], [pod('a', 100, 'n1', { priority: 2_000_000_000 })], 'RemovePodsViolatingNodeTaints', {})), 0);
  });
  it(`upstream: "Pods not tolerating excluded node taints (by key) should not be evicted" (${NT})`, () => {
    assert.equal(count(run([tainted()], [pod('a', 100, 'n1')], 'RemovePodsViolatingNodeTaints', { excludedTaints: ['testTaint'] })), 0);
  });
  it(`upstream: "Pods not tolerating PreferNoSchedule node taint should not be evicted when not enabled" (${NT})`, () => {
    const soft = node('n1', 2000, 3000, 10, {}, { taints: [{ key: 'k', value: 'v', effect: 'PreferNoSchedule' }] });
    assert.equal(count(run([soft], [pod('a', 100, 'n1')], 'RemovePodsViolatingNodeTaints', {})), 0);
    assert.equal(count(run([soft], [pod('a', 100, 'n1')], 'RemovePodsViolatingNodeTaints', { includePreferNoSchedule: true })), 1);
  });
  it(`upstream: "Pods not tolerating node taint should be evicted, with maxNoOfPodsToEvictPerNode 1" shape (${NT})`, () => {
    assert.equal(count(run([tainted()], [pod('a', 100, 'n1'), pod('b', 100, 'n1')], 'RemovePodsViolatingNodeTaints', {}, {}, { maxNoOfPodsToEvictPerNode: 1 })), 1);
  });
});

const DE = 'defaultevictor_test.go';
describe('upstream: DefaultEvictor', () => {
  const cases: { name: string; pod: Pod; args?: EvictorArgs; evictable: boolean }[] = [
    { name: 'Normal pod eviction with no ownerRefs', pod: pod('p', 0, 'n1', { owner: null }), evictable: false },
    { name: 'Normal pod eviction with no ownerRefs and descheduler.alpha.kubernetes.io/evict annotation', pod: pod('p', 0, 'n1', { owner: null, annotations: { 'descheduler.alpha.kubernetes.io/evict': 'true' } }), evictable: true },
    { name: 'Normal pod eviction with normal ownerRefs', pod: pod('p', 0, 'n1'), evictable: true },
    { name: 'Pod not evicted because it is bound to a PV and ignorePvcPods = true', pod: pod('p', 0, 'n1', { spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] } }), args: { ignorePvcPods: true }, evictable: false },
    { name: 'Pod is evicted because it is bound to a PV and ignorePvcPods = false', pod: pod('p', 0, 'n1', { spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] } }), evictable: true },
    { name: 'Pod not evicted because it has local storage', pod: pod('p', 0, 'n1', { spec: { volumes: [{ name: 'v', emptyDir: {} }] } }), evictable: false },
    { name: 'Pod is evicted because it has local storage and evictLocalStoragePods = true', pod: pod('p', 0, 'n1', { spec: { volumes: [{ name: 'v', emptyDir: {} }] } }), args: { evictLocalStoragePods: true }, evictable: true },
    { name: 'Pod not evicted becasued it is part of a daemonSet', pod: { ...pod('p', 0, 'n1'), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true }] }, evictable: false },
    { name: 'Pod not evicted becasued it is a mirror poddsa', pod: pod('p', 0, 'n1', { annotations: { 'kubernetes.io/config.mirror': 'x' } }), evictable: false },
    { name: 'Pod not evicted becasued it has system critical priority', pod: pod('p', 0, 'n1', { priority: 2_000_000_000 }), evictable: false },
    { name: 'Pod is evicted becasued it has system critical priority, but evictSystemCriticalPods = true', pod: pod('p', 0, 'n1', { priority: 2_000_000_000 }), args: { evictSystemCriticalPods: true }, evictable: true },
    { name: 'Pod not evicted because it has a priority higher than the configured priority threshold', pod: pod('p', 0, 'n1', { priority: 100 }), args: { priorityThreshold: 50 }, evictable: false },
    { name: 'Pod is evicted because it has a priority higher than the configured priority threshold, but evictSystemCriticalPods = true', pod: pod('p', 0, 'n1', { priority: 100 }), args: { priorityThreshold: 50, evictSystemCriticalPods: true }, evictable: true },
    { name: 'Pod with no ownerRefs is evicted when it is Failed and evictFailedBarePods = true', pod: { ...pod('p', 0, 'n1', { owner: null }), phase: 'Failed' }, args: { evictFailedBarePods: true }, evictable: true },
    { name: 'Pod with no ownerRefs is not evicted when it is Running and evictFailedBarePods = true', pod: pod('p', 0, 'n1', { owner: null }), args: { evictFailedBarePods: true }, evictable: false },
    { name: 'Pod not evicted because of the prefer-no-eviction annotation with noEvictionPolicy Mandatory', pod: pod('p', 0, 'n1', { annotations: { 'descheduler.alpha.kubernetes.io/prefer-no-eviction': '' } }), args: { noEvictionPolicy: 'Mandatory' }, evictable: false },
    { name: 'Pod evicted despite the prefer-no-eviction annotation with noEvictionPolicy Preferred', pod: pod('p', 0, 'n1', { annotations: { 'descheduler.alpha.kubernetes.io/prefer-no-eviction': '' } }), args: { noEvictionPolicy: 'Preferred' }, evictable: true },
    { name: 'podProtections defaultDisabled PodsWithLocalStorage lets a local-storage pod go', pod: pod('p', 0, 'n1', { spec: { volumes: [{ name: 'v', emptyDir: {} }] } }), args: { podProtections: { defaultDisabled: ['PodsWithLocalStorage'] } }, evictable: true },
    { name: 'podProtections extraEnabled PodsWithPVC protects a PVC pod', pod: pod('p', 0, 'n1', { spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] } }), args: { podProtections: { extraEnabled: ['PodsWithPVC'] } }, evictable: false },
  ];
  for (const tc of cases) {
    it(`upstream: "${tc.name}" (${DE})`, () => {
      const why = notEvictable(tc.pod, tc.args);
      assert.equal(why === undefined, tc.evictable, why);
    });
  }
});

const TMR = 'toomanyrestarts_test.go';
describe('upstream: RemovePodsHavingTooManyRestarts', () => {
  // pod-i: init container 5*i restarts, two containers 10*i each; pod-6 a DaemonSet pod, pod-7 with local storage, pod-8 a mirror pod.
  const restarts = (i: number, waiting?: string) => ({
    initContainerStatuses: [{ restartCount: 5 * i }],
    containerStatuses: [{ restartCount: 10 * i, ...(waiting ? { state: { waiting: { reason: waiting } } } : {}) }, { restartCount: 10 * i }],
  });
  const pods = (waiting?: string, phase = 'Running') =>
    range(10).map((i) =>
      pod(`pod-${i}`, 100, 'node1', {
        ...(i === 6 ? { ownerKind: 'DaemonSet' } : {}),
        ...(i === 7 ? { spec: { volumes: [{ name: 'v', emptyDir: {} }] } } : {}),
        ...(i === 8 ? { annotations: { 'kubernetes.io/config.mirror': 'x' } } : {}),
        status: { phase, ...restarts(i, waiting) },
      }),
    );
  const nodes = () => [node('node1', 2000, 3000, 10)];
  const cases: { name: string; args: StrategyArgs['RemovePodsHavingTooManyRestarts']; want: number; limits?: Parameters<typeof run>[5]; waiting?: string; phase?: string }[] = [
    { name: 'All pods have total restarts under threshold, no pod evictions', args: { podRestartThreshold: 10000, includingInitContainers: true }, want: 0 },
    { name: 'Some pods have total restarts bigger than threshold', args: { podRestartThreshold: 1, includingInitContainers: true }, want: 6 },
    { name: 'Nine pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions', args: { podRestartThreshold: 25, includingInitContainers: true }, want: 6 },
    { name: 'Nine pods have total restarts equals threshold(includingInitContainers=false), 5 pod evictions', args: { podRestartThreshold: 25, includingInitContainers: false }, want: 5 },
    { name: 'Five pods have total restarts bigger than threshold(includingInitContainers=true), but only 1 pod eviction', args: { podRestartThreshold: 5 * 25 + 1, includingInitContainers: true }, want: 1 },
    { name: 'All pods have total restarts equals threshold(maxPodsToEvictPerNode=3), 3 pod evictions', args: { podRestartThreshold: 1, includingInitContainers: true }, want: 3, limits: { maxNoOfPodsToEvictPerNode: 3 } },
    { name: 'All pods have total restarts equals threshold(maxNoOfPodsToEvictPerNamespace=3), 3 pod evictions', args: { podRestartThreshold: 1, includingInitContainers: true }, want: 3, limits: { maxNoOfPodsToEvictPerNamespace: 3 } },
    { name: 'pods are in CrashLoopBackOff with states=CrashLoopBackOff, 3 pod evictions', args: { podRestartThreshold: 1, includingInitContainers: true, states: ['CrashLoopBackOff'] }, want: 3, limits: { maxNoOfPodsToEvictPerNode: 3 }, waiting: 'CrashLoopBackOff' },
    { name: 'pods without CrashLoopBackOff with states=CrashLoopBackOff, 0 pod evictions', args: { podRestartThreshold: 1, includingInitContainers: true, states: ['CrashLoopBackOff'] }, want: 0, limits: { maxNoOfPodsToEvictPerNode: 3 } },
    { name: 'pods pending with state=Running, 0 pod evictions', args: { podRestartThreshold: 1, includingInitContainers: true, states: ['Running'] }, want: 0, limits: { maxNoOfPodsToEvictPerNode: 3 }, phase: 'Pending' },
  ];
  for (const c of cases) {
    it(`upstream: "${c.name}" (${TMR})`, () => {
      assert.equal(count(run(nodes(), pods(c.waiting, c.phase ?? 'Running'), 'RemovePodsHavingTooManyRestarts', c.args, {}, c.limits ?? {})), c.want);
    });
  }
});

const PLT = 'pod_lifetime_test.go';
describe('upstream: PodLifeTime', () => {
  const nodes = () => [node('n1', 2000, 3000, 10)];
  const old = '2026-01-01T10:00:00Z';
  const fresh = '2026-01-01T11:59:30Z';
  it(`upstream: "2 Oldest pods should be evicted when maxPodsToEvictPerNode and maxPodsToEvictPerNamespace are not set" (${PLT})`, () => {
    const pods = [pod('p1', 100, 'n1', { created: old }), pod('p2', 100, 'n1', { created: old }), pod('p3', 100, 'n1', { created: fresh })];
    assert.equal(count(run(nodes(), pods, 'PodLifeTime', { maxPodLifeTimeSeconds: 600 })), 2);
  });
  it(`upstream: "1 Oldest pod should be evicted when maxPodsToEvictTotal is set to 1" (${PLT})`, () => {
    const pods = [pod('p1', 100, 'n1', { created: '2026-01-01T09:00:00Z' }), pod('p2', 100, 'n1', { created: old })];
    assert.deepEqual(run(nodes(), pods, 'PodLifeTime', { maxPodLifeTimeSeconds: 600 }, {}, { maxNoOfPodsToEvictTotal: 1 }).evictions.map((e) => e.pod), ['ns1/p1']);
  });
  it(`upstream: "No pod should be evicted since pod terminating" (${PLT})`, () => {
    const p = { ...pod('p1', 100, 'n1', { created: old }), terminating: true };
    assert.equal(count(run(nodes(), [p], 'PodLifeTime', { maxPodLifeTimeSeconds: 600 })), 0);
  });
  it(`upstream: "1 pod with container status CrashLoopBackOff should be evicted" (${PLT})`, () => {
    const pods = [pod('p1', 100, 'n1', { created: fresh, status: { containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }] } }), pod('p2', 100, 'n1', { created: fresh })];
    assert.equal(count(run(nodes(), pods, 'PodLifeTime', { states: ['CrashLoopBackOff'] })), 1);
  });
  it(`upstream: "1 pod with init container status CreateContainerError should not be evicted without includingInitContainers" (${PLT})`, () => {
    const pods = [pod('p1', 100, 'n1', { created: fresh, status: { initContainerStatuses: [{ state: { waiting: { reason: 'CreateContainerError' } } }] } })];
    assert.equal(count(run(nodes(), pods, 'PodLifeTime', { states: ['CreateContainerError'] })), 0);
    assert.equal(count(run(nodes(), pods, 'PodLifeTime', { states: ['CreateContainerError'], includingInitContainers: true })), 1);
  });
  it(`upstream: "1 pod with pod status reason NodeLost should be evicted" (${PLT})`, () => {
    const pods = [pod('p1', 100, 'n1', { created: fresh, status: { reason: 'NodeLost' } })];
    assert.equal(count(run(nodes(), pods, 'PodLifeTime', { states: ['NodeLost'] })), 1);
  });
  it(`upstream: "1 pod with ImagePullBackOff status should be ignored when States filter is ContainerCreating" (${PLT})`, () => {
    const pods = [pod('p1', 100, 'n1', { created: fresh, status: { containerStatuses: [{ state: { waiting: { reason: 'ImagePullBackOff' } } }] } })];
    assert.equal(count(run(nodes(), pods, 'PodLifeTime', { states: ['ContainerCreating'] })), 0);
  });
});

const RFP = 'failedpods_test.go';
describe('upstream: RemoveFailedPods', () => {
  const nodes = () => [node('node1', 2000, 3000, 10)];
  const failed = (name: string, status: PodManifest['status'], o: { ownerKind?: string } = {}) => pod(name, 1, 'node1', { status: { phase: 'Failed', ...status }, created: '2026-01-01T11:59:59Z', ...o });
  const terminated = (t: { reason?: string; exitCode?: number }) => ({ containerStatuses: [{ state: { terminated: t } }] });
  const cases: { name: string; pods: Pod[]; args: StrategyArgs['RemoveFailedPods']; want: number; nodes?: ReturnType<typeof node>[]; evictor?: EvictorArgs }[] = [
    { name: '1 container terminated with reason NodeAffinity, 1 eviction', pods: [failed('p1', terminated({ reason: 'NodeAffinity' }))], args: {}, want: 1 },
    { name: '1 container terminated with exitCode 1, 1 eviction', pods: [failed('p1', terminated({ exitCode: 1 }))], args: { exitCodes: [1] }, want: 1 },
    { name: '1 container terminated with exitCode 1, expected exitCode 2, 0 eviction', pods: [failed('p1', terminated({ exitCode: 1 }))], args: { exitCodes: [2] }, want: 0 },
    { name: 'include reason=CreateContainerConfigError, 1 container terminated with reason NodeAffinity, 0 eviction', pods: [failed('p1', terminated({ reason: 'NodeAffinity' }))], args: { reasons: ['CreateContainerConfigError'] }, want: 0 },
    { name: 'include init container=false, 1 init container waiting with reason CreateContainerConfigError, 0 eviction', pods: [failed('p1', { initContainerStatuses: [{ state: { waiting: { reason: 'CreateContainerConfigError' } } }] })], args: { reasons: ['CreateContainerConfigError'] }, want: 0 },
    { name: 'lifetime 1 hour, 1 container terminated with reason NodeAffinity, 0 eviction', pods: [failed('p1', terminated({ reason: 'NodeAffinity' }))], args: { minPodLifetimeSeconds: 3600 }, want: 0 },
    { name: 'excluded owner kind=ReplicaSet, 1 init container terminated with owner kind=ReplicaSet, 0 eviction', pods: [failed('p1', terminated({ reason: 'NodeAffinity' }))], args: { excludeOwnerKinds: ['ReplicaSet'] }, want: 0 },
    { name: 'excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 eviction', pods: [failed('p1', terminated({ reason: 'NodeAffinity' }))], args: { excludeOwnerKinds: ['DaemonSet'] }, want: 1 },
    { name: '1 container terminated with reason ShutDown, 0 evictions', pods: [failed('p1', { reason: 'Shutdown' })], args: {}, want: 0, evictor: { nodeFit: true } },
    { name: 'include reason=Shutdown, 2 containers terminated with reason ShutDown, 2 evictions', pods: [failed('p1', { reason: 'Shutdown' }), failed('p2', { reason: 'Shutdown' })], args: { reasons: ['Shutdown'] }, want: 2 },
  ];
  for (const c of cases) {
    it(`upstream: "${c.name}" (${RFP})`, () => {
      assert.equal(count(run(c.nodes ?? nodes(), c.pods, 'RemoveFailedPods', c.args, c.evictor ?? {})), c.want);
    });
  }
});

describe('upstream: DefaultEvictor minPodAge', () => {
  it(`upstream: a pod started less than minPodAge ago stays, an older one may go (${DE})`, () => {
    const started = (t: string) => pod('p', 0, 'n1', { status: { startTime: t } });
    assert.match(notEvictable(started('2026-01-01T11:59:00Z'), { minPodAgeMs: 5 * 60_000 }, undefined, NOW) ?? '', /minPodAge/);
    assert.equal(notEvictable(started('2026-01-01T11:00:00Z'), { minPodAgeMs: 5 * 60_000 }, undefined, NOW), undefined);
    assert.match(notEvictable(pod('p', 0, 'n1'), { minPodAgeMs: 1 }, undefined, NOW) ?? '', /minPodAge/);
  });
});
