import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterState } from '../cluster/state.js';
import type { PodSpecManifest } from '../model/manifest.js';
import { compileNode } from '../model/node.js';
import { compilePdb } from '../model/pdb.js';
import { compilePod, type Pod } from '../model/pod.js';
import { deschedule, type DeschedulerPolicy } from './deschedule.js';
import { notEvictable } from './deschedule/evictor.js';
import { singleProfilePolicy } from '../model/descheduler-policy.js';

let order = 0;
interface NodeOpts { cpu?: string; zone?: string; labels?: Record<string, string>; unschedulable?: boolean }
function node(name: string, o: NodeOpts = {}) {
  const labels = { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': o.zone ?? 'a', ...o.labels };
  return compileNode({ metadata: { name, labels }, spec: { unschedulable: o.unschedulable ?? false }, status: { allocatable: { cpu: o.cpu ?? '4', memory: '16Gi', pods: '110' } } }, order++);
}
interface PodOpts { app?: string; cpu?: string; priority?: number; owner?: string | null; spec?: Partial<PodSpecManifest>; annotations?: Record<string, string> }
function pod(name: string, nodeName: string, o: PodOpts = {}): Pod {
  const app = o.app ?? 'web';
  const owner = o.owner === undefined ? `${app}-rs` : o.owner;
  return compilePod(
    {
      metadata: {
        name,
        namespace: 'default',
        labels: { app },
        annotations: o.annotations ?? {},
        ownerReferences: owner === null ? [] : [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }],
      },
      spec: { nodeName, priority: o.priority ?? 0, containers: [{ name: 'c', image: 'img', resources: { requests: { cpu: o.cpu ?? '500m' } } }], ...o.spec },
      status: { phase: 'Running' },
    },
    { order: order++ },
  );
}
function cluster(nodes: ReturnType<typeof node>[], pods: Pod[]): ClusterState {
  const c = new ClusterState();
  for (const n of nodes) c.addNode(n);
  for (const p of pods) c.addPod(p);
  return c;
}
// berth's predictPlacement option: the upstream defaults are in deschedule.upstream.test.ts.
const policy = (strategies: Parameters<typeof singleProfilePolicy>[0], extra: Parameters<typeof singleProfilePolicy>[1] = {}): DeschedulerPolicy => singleProfilePolicy(strategies, { predictPlacement: true, ...extra });
const moves = (r: ReturnType<typeof deschedule>) => r.evictions.map((e) => `${e.pod}:${e.node}->${e.predictedNode}`);
const skips = (r: ReturnType<typeof deschedule>) => r.skipped.map((s) => `${s.pod}: ${s.why}`);

const requiredAnti = (app: string): Partial<PodSpecManifest> => ({
  affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' }] } },
});
const zoneSpread = (when: 'DoNotSchedule' | 'ScheduleAnyway'): Partial<PodSpecManifest> => ({
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: when, labelSelector: { matchLabels: { app: 'web' } } }],
});

describe('RemovePodsViolatingInterPodAntiAffinity', () => {
  const strategies = { RemovePodsViolatingInterPodAntiAffinity: {} };
  it('moves one of two pods that repel each other to a free node', () => {
    const c = cluster([node('n1'), node('n2')], [pod('a', 'n1', { spec: requiredAnti('web') }), pod('b', 'n1', { spec: requiredAnti('web') })]);
    assert.deepEqual(moves(deschedule({ cluster: c, policy: policy(strategies) })), ['default/a:n1->n2']);
  });
  it('upstream would evict, berth does not: no other node can take it', () => {
    const c = cluster([node('n1')], [pod('a', 'n1', { spec: requiredAnti('web') }), pod('b', 'n1', { spec: requiredAnti('web') })]);
    const r = deschedule({ cluster: c, policy: policy(strategies) });
    assert.deepEqual(r.evictions, []);
    assert.match(skips(r)[0]!, /^default\/a: no better placement now: the replacement would not schedule \(0\/1 nodes are available/);
  });
  it('never evicts a pod to make room for a lower-priority one: the lower-priority pod it repels moves instead', () => {
    const c = cluster([node('n1'), node('n2')], [pod('vip', 'n1', { app: 'vip', priority: 100, spec: requiredAnti('batch') }), pod('batch', 'n1', { app: 'batch', priority: 1 })]);
    const r = deschedule({ cluster: c, policy: policy(strategies) });
    assert.deepEqual(moves(r), ['default/batch:n1->n2']);
    assert.match(r.evictions[0]!.reason, /default\/batch has the lower priority, so it is the one moved/);
  });
  it('leaves both when the lower-priority pod may not be evicted', () => {
    const c = cluster([node('n1'), node('n2')], [pod('vip', 'n1', { app: 'vip', priority: 100, spec: requiredAnti('batch') }), pod('batch', 'n1', { app: 'batch', priority: 1, owner: null })]);
    const r = deschedule({ cluster: c, policy: policy(strategies) });
    assert.deepEqual(r.evictions, []);
    assert.deepEqual(skips(r), ['default/vip: it would make room for default/batch, of lower priority (1 < 100), which may not be evicted']);
  });
  it('respects a PDB that allows no disruption', () => {
    const c = cluster([node('n1'), node('n2')], [pod('a', 'n1', { spec: requiredAnti('web') }), pod('b', 'n1', { spec: requiredAnti('web') })]);
    c.pdbs.push(compilePdb({ metadata: { name: 'web', namespace: 'default' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } }));
    const r = deschedule({ cluster: c, policy: policy(strategies) });
    assert.deepEqual(r.evictions, []);
    assert.deepEqual(skips(r), ['default/a: PodDisruptionBudget default/web allows no more disruptions', 'default/b: PodDisruptionBudget default/web allows no more disruptions']);
  });
});

describe('RemovePodsViolatingNodeAffinity', () => {
  const ssd: Partial<PodSpecManifest> = { nodeSelector: { disk: 'ssd' } };
  it('evicts a pod whose node lost the label it requires, towards a node that has it', () => {
    const c = cluster([node('n1'), node('n2', { labels: { disk: 'ssd' } })], [pod('a', 'n1', { spec: ssd })]);
    const r = deschedule({ cluster: c, policy: policy({ RemovePodsViolatingNodeAffinity: { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution'] } }) });
    assert.deepEqual(moves(r), ['default/a:n1->n2']);
    assert.match(r.evictions[0]!.reason, /no longer matches the pod's required node affinity/);
  });
  it('upstream would evict, berth does not: the only matching node is full', () => {
    const c = cluster([node('n1'), node('n2', { cpu: '1', labels: { disk: 'ssd' } })], [pod('a', 'n1', { spec: ssd, cpu: '2' })]);
    const r = deschedule({ cluster: c, policy: policy({ RemovePodsViolatingNodeAffinity: { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution'] } }) });
    assert.deepEqual(r.evictions, []);
    assert.match(skips(r)[0]!, /Insufficient cpu/);
  });
  const preferB: Partial<PodSpecManifest> = {
    affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['b'] }] } }] } },
  };
  it('preferred affinity only as an option', () => {
    const c = () => cluster([node('n1'), node('n2', { zone: 'b' })], [pod('a', 'n1', { spec: preferB })]);
    assert.deepEqual(moves(deschedule({ cluster: c(), policy: policy({ RemovePodsViolatingNodeAffinity: { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution'] } }) })), []);
    const both = { nodeAffinityType: ['requiredDuringSchedulingIgnoredDuringExecution', 'preferredDuringSchedulingIgnoredDuringExecution'] as const };
    assert.deepEqual(moves(deschedule({ cluster: c(), policy: policy({ RemovePodsViolatingNodeAffinity: { nodeAffinityType: [...both.nodeAffinityType] } }) })), ['default/a:n1->n2']);
  });
});

describe('RemoveDuplicates', () => {
  it('the kube-dns case: two replicas stacked on one node, a node returns, one moves', () => {
    const c = cluster([node('n1'), node('n3', { zone: 'b' })], [pod('dns-1', 'n1', { app: 'dns' }), pod('dns-2', 'n1', { app: 'dns' })]);
    const r = deschedule({ cluster: c, policy: policy({ RemoveDuplicates: {} }) });
    assert.deepEqual(moves(r), ['default/dns-2:n1->n3']);
    assert.match(r.evictions[0]!.reason, /2 pods of default\/ReplicaSet\/dns-rs \[img\] share node n1; 2 nodes could host them, at most 1 per node/);
  });
  it('evicts the lower-priority duplicate, never the higher one', () => {
    const c = cluster([node('n1'), node('n2')], [pod('hi', 'n1', { priority: 100 }), pod('lo', 'n1', { priority: 1 })]);
    assert.deepEqual(moves(deschedule({ cluster: c, policy: policy({ RemoveDuplicates: {} }) })), ['default/lo:n1->n2']);
  });
  it('upstream would evict, berth does not: the other node cannot fit it, so it would come back', () => {
    const c = cluster([node('n1'), node('n2', { cpu: '100m' })], [pod('a', 'n1'), pod('b', 'n1')]);
    const r = deschedule({ cluster: c, policy: policy({ RemoveDuplicates: {} }) });
    assert.deepEqual(r.evictions, []);
    assert.match(skips(r)[0]!, /no better placement now: the scheduler would put the replacement back on the same node/);
  });
  it('does not move a pod where it would only swap the imbalance', () => {
    // n1 holds 2, n2 (larger, so the scheduler prefers it) holds 1, n3 cannot take it: moving to n2 would give 1/2.
    const c = cluster([node('n1'), node('n2', { cpu: '8' }), node('n3', { cpu: '100m' })], [pod('a', 'n1'), pod('b', 'n1'), pod('c', 'n2')]);
    const r = deschedule({ cluster: c, policy: policy({ RemoveDuplicates: {} }) });
    assert.deepEqual(r.evictions, []);
    assert.match(skips(r)[0]!, /where it would hold 2 of them while n1 keeps 1/);
  });
  it('honours maxNoOfPodsToEvictPerNode', () => {
    const c = cluster([node('n1'), node('n2'), node('n3')], [pod('a', 'n1'), pod('b', 'n1'), pod('c', 'n1')]);
    const r = deschedule({ cluster: c, policy: policy({ RemoveDuplicates: {} }, { maxNoOfPodsToEvictPerNode: 1 }) });
    assert.equal(r.evictions.length, 1);
    assert.match(skips(r)[0]!, /maxNoOfPodsToEvictPerNode \(1\) reached on n1/);
  });
  it('leaves the pods of a node that is not Ready', () => {
    const lost = { ...node('n1'), taints: [{ key: 'node.kubernetes.io/unreachable', value: '', effect: 'NoSchedule' as const }] };
    const c = cluster([lost, node('n2'), node('n3')], [pod('a', 'n1'), pod('b', 'n1')]);
    assert.deepEqual(deschedule({ cluster: c, policy: policy({ RemoveDuplicates: {} }) }), { evictions: [], skipped: [] });
  });
  it('namespaces: include and exclude choose which pods a strategy looks at', () => {
    const build = () => cluster([node('n1'), node('n2')], [pod('a', 'n1'), pod('b', 'n1')]);
    assert.deepEqual(deschedule({ cluster: build(), policy: policy({ RemoveDuplicates: { namespaces: { exclude: ['default'] } } }) }).evictions, []);
    assert.deepEqual(deschedule({ cluster: build(), policy: policy({ RemoveDuplicates: { namespaces: { include: ['kube-system'] } } }) }).evictions, []);
    assert.equal(deschedule({ cluster: build(), policy: policy({ RemoveDuplicates: { namespaces: { include: ['default'] } } }) }).evictions.length, 1);
  });
  it('excludeOwnerKinds leaves those pods alone', () => {
    const c = cluster([node('n1'), node('n2')], [pod('a', 'n1'), pod('b', 'n1')]);
    assert.deepEqual(deschedule({ cluster: c, policy: policy({ RemoveDuplicates: { excludeOwnerKinds: ['ReplicaSet'] } }) }).evictions, []);
  });
  it('is deterministic: the same input gives the same evictions', () => {
    const build = () => cluster([node('n1'), node('n2'), node('n3')], [pod('a', 'n1'), pod('b', 'n1'), pod('c', 'n1'), pod('d', 'n1')]);
    const r1 = deschedule({ cluster: build(), policy: policy({ RemoveDuplicates: {} }), seed: 7 });
    const r2 = deschedule({ cluster: build(), policy: policy({ RemoveDuplicates: {} }), seed: 7 });
    assert.deepEqual(r1, r2);
    assert.equal(r1.evictions.length, 2);
  });
});

describe('RemovePodsViolatingTopologySpreadConstraint', () => {
  const nodes = () => [node('a1', { zone: 'a' }), node('b1', { zone: 'b' })];
  it('moves pods out of the crowded zone only until the skew is within maxSkew', () => {
    const c = cluster(nodes(), ['p1', 'p2', 'p3'].map((n) => pod(n, 'a1', { spec: zoneSpread('DoNotSchedule') })));
    const r = deschedule({ cluster: c, policy: policy({ RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule'] } }) });
    assert.deepEqual(moves(r), ['default/p3:a1->b1']);
  });
  it('soft constraints only when asked for', () => {
    const c = () => cluster(nodes(), ['p1', 'p2', 'p3'].map((n) => pod(n, 'a1', { spec: zoneSpread('ScheduleAnyway') })));
    assert.deepEqual(deschedule({ cluster: c(), policy: policy({ RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule'] } }) }).evictions, []);
    const r = deschedule({ cluster: c(), policy: policy({ RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule', 'ScheduleAnyway'] } }) });
    assert.deepEqual(moves(r), ['default/p3:a1->b1']);
  });
  it('the emptier zone has no room: with topologyBalanceNodeFit off, upstream would evict, berth does not', () => {
    const c = cluster([node('a1', { zone: 'a' }), node('b1', { zone: 'b', cpu: '100m' })], ['p1', 'p2', 'p3'].map((n) => pod(n, 'a1', { spec: zoneSpread('DoNotSchedule') })));
    const r = deschedule({ cluster: c, policy: policy({ RemovePodsViolatingTopologySpreadConstraint: { constraints: ['DoNotSchedule'], topologyBalanceNodeFit: false } }) });
    assert.deepEqual(r.evictions, []);
    assert.match(skips(r)[0]!, /would not schedule/);
  });
});

describe('LowNodeUtilization', () => {
  const args = { thresholds: { cpu: 20 }, targetThresholds: { cpu: 50 } };
  it('moves pods, lowest priority first, from an overutilized node to an underutilized one until under target', () => {
    const c = cluster([node('n1'), node('n2')], [pod('hi', 'n1', { cpu: '1', priority: 10, app: 'x' }), pod('lo', 'n1', { cpu: '1', app: 'y' }), pod('mid', 'n1', { cpu: '1', priority: 5, app: 'z' })]);
    const r = deschedule({ cluster: c, policy: policy({ LowNodeUtilization: args }) });
    assert.deepEqual(moves(r), ['default/lo:n1->n2']);
    assert.match(r.evictions[0]!.reason, /node n1 is overutilized \(cpu 75%, memory 0%, pods 3%\) against targetThresholds/);
  });
  it('upstream would evict, berth does not: the pod may not run on the underutilized node', () => {
    const pinned: Partial<PodSpecManifest> = { nodeSelector: { 'kubernetes.io/hostname': 'n1' } };
    const c = cluster([node('n1'), node('n2')], ['a', 'b', 'c'].map((n) => pod(n, 'n1', { cpu: '1', app: n, spec: pinned })));
    const r = deschedule({ cluster: c, policy: policy({ LowNodeUtilization: args }) });
    assert.deepEqual(r.evictions, []);
    assert.equal(r.skipped.length, 3);
  });
  it('upstream would move the pod back and forth, berth does not: it overloads whichever node it is on', () => {
    // A bare pod (never evicted) keeps n1 a little busier, so the scheduler prefers n2.
    const c = cluster([node('n1', { cpu: '1' }), node('n2', { cpu: '1' })], [pod('a', 'n1', { cpu: '625m' }), pod('bare', 'n1', { cpu: '100m', owner: null, app: 'bare' })]);
    const r = deschedule({ cluster: c, policy: policy({ LowNodeUtilization: { thresholds: { cpu: 30 }, targetThresholds: { cpu: 60 } } }) });
    assert.deepEqual(r.evictions, []);
    assert.match(skips(r)[0]!, /on n2, where cpu would rise above its target threshold/);
  });
  it('numberOfNodes: acts only with more underutilized nodes than that', () => {
    const build = () => cluster([node('n1'), node('n2')], ['a', 'b', 'c'].map((n) => pod(n, 'n1', { cpu: '1', app: n })));
    assert.deepEqual(deschedule({ cluster: build(), policy: policy({ LowNodeUtilization: { ...args, numberOfNodes: 1 } }) }).evictions, []);
    assert.equal(deschedule({ cluster: build(), policy: policy({ LowNodeUtilization: { ...args, numberOfNodes: 0 } }) }).evictions.length, 1);
  });
  it('does nothing without an underutilized node', () => {
    const c = cluster([node('n1'), node('n2')], [pod('a', 'n1', { cpu: '3', app: 'a' }), pod('b', 'n2', { cpu: '1', app: 'b' })]);
    assert.deepEqual(deschedule({ cluster: c, policy: policy({ LowNodeUtilization: args }) }), { evictions: [], skipped: [] });
  });
});

describe('HighNodeUtilization', () => {
  const build = () => cluster([node('n1'), node('n2')], [pod('small', 'n1', { cpu: '200m', app: 'a' }), pod('big', 'n2', { cpu: '2', app: 'b' })]);
  const args = { thresholds: { cpu: 20 } };
  it('upstream would evict, berth does not: with LeastAllocated scoring the pod would come straight back', () => {
    const r = deschedule({ cluster: build(), policy: policy({ HighNodeUtilization: args }) });
    assert.deepEqual(r.evictions, []);
    assert.match(skips(r)[0]!, /back on the same node/);
  });
  it('compacts onto the used node when the scheduler scores MostAllocated', () => {
    const scheduler = { profiles: [{ pluginConfig: [{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated' } } }] }] };
    const r = deschedule({ cluster: build(), policy: policy({ HighNodeUtilization: args }), scheduler });
    assert.deepEqual(moves(r), ['default/small:n1->n2']);
  });
});

describe('evictor', () => {
  const base = pod('p', 'n1');
  const cases: { name: string; pod: Pod; args?: Parameters<typeof notEvictable>[1]; want: RegExp | undefined }[] = [
    { name: 'a ReplicaSet pod', pod: base, want: undefined },
    { name: 'no owner', pod: pod('bare', 'n1', { owner: null }), want: /no owner/ },
    { name: 'DaemonSet pod', pod: { ...base, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true }] }, want: /DaemonSet/ },
    { name: 'mirror pod', pod: pod('m', 'n1', { annotations: { 'kubernetes.io/config.mirror': 'x' } }), want: /mirror/ },
    { name: 'static pod', pod: pod('s', 'n1', { annotations: { 'kubernetes.io/config.source': 'file' } }), want: /static/ },
    { name: 'system critical', pod: pod('c', 'n1', { priority: 2_000_000_000 }), want: /system critical priority/ },
    { name: 'system critical allowed', pod: pod('c', 'n1', { priority: 2_000_000_000 }), args: { evictSystemCriticalPods: true }, want: undefined },
    { name: 'priority threshold', pod: pod('t', 'n1', { priority: 1000 }), args: { priorityThreshold: 1000 }, want: /priority threshold 1000/ },
    { name: 'local storage', pod: pod('l', 'n1', { spec: { volumes: [{ name: 'tmp', emptyDir: {} }] } }), want: /local storage/ },
    { name: 'local storage allowed', pod: pod('l', 'n1', { spec: { volumes: [{ name: 'tmp', emptyDir: {} }] } }), args: { evictLocalStoragePods: true }, want: undefined },
    { name: 'PVC pods with ignorePvcPods', pod: pod('v', 'n1', { spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }] } }), args: { ignorePvcPods: true }, want: /PersistentVolumeClaim/ },
    { name: 'the evict annotation overrides', pod: pod('o', 'n1', { owner: null, annotations: { 'descheduler.alpha.kubernetes.io/evict': '' } }), want: undefined },
    { name: 'terminating', pod: { ...base, terminating: true }, want: /terminating/ },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = notEvictable(tc.pod, tc.args);
      if (tc.want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', tc.want);
    });
  }
});
