// Karpenter v1.14.1's own provisioning test cases (pkg/controllers/provisioning/suite_test.go,
// scheduling/suite_test.go, scheduling/topology_test.go), translated: each test is named after
// the upstream `It` and checks what it checks. They run against a catalog shaped like
// Karpenter's fake cloud provider (upstream-karpenter.test-support.ts). The fake's `size` label
// is spelled karpenter.k8s.aws/instance-size here, a key berth knows as well-known.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import type { PodSpecManifest } from '../model/manifest.js';
import type { Pod } from '../model/pod.js';
import type { Taint } from '../model/taints.js';
import { LABEL_ARCH, LABEL_INSTANCE_SIZE, LABEL_INSTANCE_TYPE, LABEL_OS, LABEL_ZONE, makeInstanceType } from './catalog/types.js';
import { CAPACITY, FAKE_TYPES, GI, nodePool, pod } from './upstream-karpenter.test-support.js';
import { planProvisioning, type PoolSpec, type ProvisionPlan } from './plan.js';

const HOST = 'kubernetes.io/hostname';

const hostPort = (port: number): Partial<PodSpecManifest> => ({ containers: [{ name: 'c', ports: [{ containerPort: port, hostPort: port }] }] });
const nodeRequirement = (key: string, operator: 'In' | 'NotIn', values: string[]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator, values }] }] } } },
});

function provision(pods: Pod[], opts: { pools?: PoolSpec[]; daemonSets?: Pod[]; preferencePolicy?: 'Respect' | 'Ignore' } = {}): ProvisionPlan {
  const cluster = new ClusterState();
  for (const p of pods) cluster.addPod(p);
  const policy = opts.preferencePolicy ? { preferencePolicy: opts.preferencePolicy } : {};
  return planProvisioning({ cluster, pools: opts.pools ?? [nodePool()], instanceTypes: FAKE_TYPES, daemonSetPods: opts.daemonSets ?? [], config: {}, ...policy });
}

/** The claim a pod was planned onto (ExpectScheduled), failing when it stayed pending. */
function claimOf(plan: ProvisionPlan, p: Pod) {
  const node = plan.placements.find((x) => x.pod === p.key)?.node;
  const claim = plan.nodeClaims.find((c) => c.name === node);
  assert.ok(claim, `${p.key} is not scheduled: ${plan.unschedulable.find((u) => u.pod === p.key)?.message ?? ''}`);
  return claim;
}

function notScheduled(plan: ProvisionPlan, p: Pod): void {
  assert.ok(plan.unschedulable.some((u) => u.pod === p.key), `${p.key} was scheduled`);
}

/** The capacity (cpu cores, memory GiB) of the type a pod's claim launches. */
function launchedCapacity(plan: ProvisionPlan, p: Pod): [number, number] {
  const c = CAPACITY.get(claimOf(plan, p).instanceType)!;
  return [c.cpu! / 1000, c.memory! / GI];
}

const ds2 = (name: string, spec: Partial<PodSpecManifest> = {}) => pod(name, spec, { cpu: '2', memory: '2Gi', daemonSet: true });
const pod1 = (name: string, spec: Partial<PodSpecManifest> = {}) => pod(name, spec, { cpu: '1', memory: '1Gi' });
const preferNoSchedule: Taint = { key: 'foo', value: 'bar', effect: 'PreferNoSchedule' };

describe('upstream Karpenter: DaemonSets (provisioning/suite_test.go)', () => {
  it('upstream: "should account for daemonsets" (suite_test.go)', () => {
    const p = pod1('p');
    assert.deepEqual(launchedCapacity(provision([p], { daemonSets: [ds2('ds')] }), p), [4, 4]);
  });

  it('upstream: "should account for daemonset hostports" (suite_test.go)', () => {
    const p = pod1('p', hostPort(8080));
    const plan = provision([p], { daemonSets: [pod('ds', hostPort(8080), { cpu: '2', memory: '2Gi', daemonSet: true })] });
    notScheduled(plan, p);
    assert.equal(plan.nodeClaims.length, 0);
  });

  it('upstream: "should not schedule if daemonset overhead is too large" (suite_test.go)', () => {
    const p = pod('p');
    notScheduled(provision([p], { daemonSets: [pod('ds', {}, { cpu: '10000', memory: '10000Gi', daemonSet: true })] }), p);
  });

  it('upstream: "should ignore daemonsets without matching tolerations" (suite_test.go)', () => {
    const p = pod1('p', { tolerations: [{ operator: 'Exists' }] });
    const pools = [nodePool('default', { taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] })];
    assert.deepEqual(launchedCapacity(provision([p], { pools, daemonSets: [ds2('ds')] }), p), [2, 2]);
  });

  it('upstream: "should ignore daemonsets with an invalid selector" (suite_test.go)', () => {
    const p = pod1('p');
    assert.deepEqual(launchedCapacity(provision([p], { daemonSets: [ds2('ds', { nodeSelector: { node: 'invalid' } })] }), p), [2, 2]);
  });

  it('upstream: "should ignore daemonsets when no instance types meet the daemonset requirements" (suite_test.go)', () => {
    const p = pod1('p');
    const ds = ds2('ds', nodeRequirement(LABEL_INSTANCE_TYPE, 'In', ['non-existent-instance-type']));
    assert.deepEqual(launchedCapacity(provision([p], { daemonSets: [ds] }), p), [2, 2]);
  });

  it('upstream: "should account for daemonsets with a custom label nodeSelector that matches the nodepool" (suite_test.go)', () => {
    const p = pod1('p');
    const pools = [nodePool('default', { labels: { purpose: 'monitoring' } })];
    assert.deepEqual(launchedCapacity(provision([p], { pools, daemonSets: [ds2('ds', { nodeSelector: { purpose: 'monitoring' } })] }), p), [4, 4]);
  });

  it('upstream: "should filter out daemonsets based on instance type requirements" (suite_test.go)', () => {
    const p = pod1('p');
    const small = pod('ds-small', nodeRequirement(LABEL_INSTANCE_SIZE, 'In', ['small']), { cpu: '1', daemonSet: true });
    const large = pod('ds-large', nodeRequirement(LABEL_INSTANCE_SIZE, 'In', ['large']), { cpu: '10', daemonSet: true });
    assert.deepEqual(launchedCapacity(provision([p], { daemonSets: [small, large] }), p), [4, 4]);
  });

  it('upstream: "should account daemonsets with NotIn operator and unspecified key" (suite_test.go)', () => {
    const p = pod1('p', nodeRequirement(LABEL_ZONE, 'In', ['test-zone-2']));
    assert.deepEqual(launchedCapacity(provision([p], { daemonSets: [ds2('ds', nodeRequirement('foo', 'NotIn', ['bar']))] }), p), [4, 4]);
  });

  it('upstream: "should consider a daemonset schedulable with multiple node affinity terms" (suite_test.go)', () => {
    const p = pod1('p');
    const terms = [{ matchExpressions: [{ key: 'foo', operator: 'In' as const, values: ['voo'] }] }, { matchExpressions: [{ key: 'foo', operator: 'In' as const, values: ['bar'] }] }];
    const ds = ds2('ds', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
    assert.deepEqual(launchedCapacity(provision([p], { pools: [nodePool('default', { labels: { foo: 'bar' } })], daemonSets: [ds] }), p), [4, 4]);
  });

  it('upstream: "should consider a daemonset schedulable with an incompatible node affinity preference" (suite_test.go)', () => {
    const p = pod1('p');
    const preference = { matchExpressions: [{ key: 'node', operator: 'In' as const, values: ['invalid'] }] };
    const ds = ds2('ds', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference }] } } });
    assert.deepEqual(launchedCapacity(provision([p], { daemonSets: [ds] }), p), [4, 4]);
  });

  it('upstream: "should consider a daemonset schedulable with a PreferNoSchedule taint" (suite_test.go)', () => {
    const p = pod1('p');
    const pools = [nodePool('default', { taints: [{ key: 'test', value: '', effect: 'PreferNoSchedule' }] })];
    assert.deepEqual(launchedCapacity(provision([p], { pools, daemonSets: [ds2('ds')] }), p), [4, 4]);
  });

  it('upstream: "should not account for daemonset hostports when daemonset would not schedule on selected node" (suite_test.go)', () => {
    const large = pod('ds-large', { ...nodeRequirement(LABEL_INSTANCE_SIZE, 'In', ['large']), ...hostPort(8080) }, { cpu: '4', memory: '4Gi', daemonSet: true });
    const small = pod('ds-small', { ...nodeRequirement(LABEL_INSTANCE_SIZE, 'In', ['small']), ...hostPort(8081) }, { cpu: '2', memory: '2Gi', daemonSet: true });
    const p = pod1('p', { ...nodeRequirement(LABEL_INSTANCE_SIZE, 'In', ['small']), ...hostPort(8080) });
    const plan = provision([p], { daemonSets: [large, small] });
    assert.deepEqual(launchedCapacity(plan, p), [4, 4]);
  });
});

describe('upstream Karpenter: PreferNoSchedule taints (provisioning/suite_test.go)', () => {
  it('upstream: "should tolerate PreferNoSchedule taint only after trying to relax Affinity terms" (suite_test.go)', () => {
    const preferences = [
      { weight: 1, preference: { matchExpressions: [{ key: LABEL_ZONE, operator: 'In' as const, values: ['invalid'] }] } },
      { weight: 1, preference: { matchExpressions: [{ key: LABEL_INSTANCE_TYPE, operator: 'In' as const, values: ['invalid'] }] } },
    ];
    const p = pod('p', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferences } } });
    const plan = provision([p], { pools: [nodePool('default', { taints: [preferNoSchedule] })] });
    assert.equal(claimOf(plan, p).nodePool, 'default');
  });

  it('upstream: "should not match NodePool with PreferNoSchedule taint when other NodePool match" (suite_test.go)', () => {
    const p = pod('p');
    const plan = provision([p], { pools: [nodePool('tainted', { taints: [preferNoSchedule] }), nodePool('plain')] });
    assert.equal(claimOf(plan, p).nodePool, 'plain');
  });

  it('a pod that tolerates nothing stays pending when the only NodePool has a NoSchedule taint (the relaxation adds PreferNoSchedule only)', () => {
    const p = pod('p');
    notScheduled(provision([p], { pools: [nodePool('default', { taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }, preferNoSchedule] })] }), p);
  });
});

describe('upstream Karpenter: the queue (scheduling/topology_test.go)', () => {
  const affinityTo = (labels: Record<string, string>, topologyKey = HOST) => ({
    affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey }] } },
  });

  it('upstream: "should handle multiple dependent affinities" (topology_test.go), in the order that needs the queue', () => {
    const db = { type: 'db', spread: 'spread' };
    const web = { type: 'web', spread: 'spread' };
    const cache = { type: 'cache', spread: 'spread' };
    const ui = { type: 'ui', spread: 'spread' };
    // Created (so queued) ui first: each pod comes before the one it needs, and only the retry places them.
    const pods = [pod('ui', affinityTo(cache), { labels: ui }), pod('cache', affinityTo(web), { labels: cache }), pod('web', affinityTo(db), { labels: web }), pod('db', {}, { labels: db })];
    const plan = provision(pods);
    for (const p of pods) claimOf(plan, p);
    assert.equal(plan.nodeClaims.length, 1);
  });

  it('upstream: "should fail to schedule pods with unsatisfiable dependencies" (topology_test.go)', () => {
    const p = pod('db', affinityTo({ type: 'web', spread: 'spread' }), { labels: { type: 'db', spread: 'spread' } });
    notScheduled(provision([p]), p);
  });

  it('upstream: "should respect pod affinity (hostname)" (topology_test.go)', () => {
    const labels = { test: 'test' };
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: HOST, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: labels } }] };
    const aff = { security: 's2' };
    const spreaders = Array.from({ length: 10 }, (_, i) => pod(`spread-${i}`, spread, { labels }));
    const affPod1 = pod('aff-1', {}, { labels: aff });
    const affPod2 = pod('aff-2', affinityTo(aff));
    const plan = provision([...spreaders, affPod1, affPod2]);
    assert.equal(claimOf(plan, affPod1).name, claimOf(plan, affPod2).name);
  });

  it('upstream: "should support pod affinity with zone topology (constrained target)" (topology_test.go)', () => {
    const aff = { security: 's2' };
    const affPods = Array.from({ length: 10 }, (_, i) => pod(`aff-${i}`, affinityTo(aff, LABEL_ZONE)));
    const target = pod('target', nodeRequirement(LABEL_ZONE, 'In', ['test-zone-1']), { labels: aff });
    const plan = provision([...affPods, target]);
    for (const p of [...affPods, target]) assert.equal(claimOf(plan, p).zone, 'test-zone-1');
  });

  it('upstream: "should support pod affinity with zone topology (unconstrained target)" (topology_test.go): the target keeps its claim\'s zone open, so the dependents wait for the next batch', () => {
    const aff = { security: 's2' };
    const affPods = Array.from({ length: 10 }, (_, i) => pod(`aff-${i}`, affinityTo(aff, LABEL_ZONE)));
    const target = pod('target', {}, { labels: aff });
    const plan = provision([...affPods, target]);
    claimOf(plan, target);
    for (const p of affPods) notScheduled(plan, p);
  });
});

describe('upstream Karpenter: preferencePolicy Ignore (provisioning/suite_test.go)', () => {
  it('upstream: "should ignore node affinity preferences" (suite_test.go)', () => {
    const zone1Pod = pod('zone1', { nodeSelector: { [LABEL_ZONE]: 'test-zone-1' } }, { labels: { app: 'foo' }, cpu: '2' });
    const zone2Pods = [0, 1].map((i) => pod(`zone2-${i}`, { nodeSelector: { [LABEL_ZONE]: 'test-zone-2' } }, { labels: { app: 'bar' }, cpu: '3' }));
    const preference = { matchExpressions: [{ key: LABEL_ZONE, operator: 'In' as const, values: ['test-zone-2'] }] };
    const affinityPod = pod('aff', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference }] } } }, { labels: { app: 'baz' }, cpu: '1' });
    const plan = provision([zone1Pod, ...zone2Pods, affinityPod], { preferencePolicy: 'Ignore' });
    for (const p of zone2Pods) claimOf(plan, p);
    assert.equal(claimOf(plan, affinityPod).name, claimOf(plan, zone1Pod).name);
    assert.notEqual(claimOf(plan, affinityPod).name, claimOf(plan, zone2Pods[0]!).name);
  });

  it('with Respect (the default) the same preference takes the pod to test-zone-2', () => {
    const zone1Pod = pod('zone1', { nodeSelector: { [LABEL_ZONE]: 'test-zone-1' } }, { labels: { app: 'foo' }, cpu: '2' });
    const preference = { matchExpressions: [{ key: LABEL_ZONE, operator: 'In' as const, values: ['test-zone-2'] }] };
    const affinityPod = pod('aff', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference }] } } }, { labels: { app: 'baz' }, cpu: '1' });
    assert.equal(claimOf(provision([zone1Pod, affinityPod]), affinityPod).zone, 'test-zone-2');
  });

  it('upstream: "should ignore topologySpreadConstraint preferences" (suite_test.go), hostname key: ScheduleAnyway spread does not keep pods apart', () => {
    const labels = { app: 'foo' };
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: HOST, whenUnsatisfiable: 'ScheduleAnyway' as const, labelSelector: { matchLabels: labels } }] };
    const pods = (prefix: string) => [0, 1, 2, 3, 4].map((i) => pod(`${prefix}-${i}`, spread, { labels }));
    assert.equal(provision(pods('p'), { preferencePolicy: 'Ignore' }).nodeClaims.length, 1);
    // Respected, the preference keeps them on separate nodes.
    assert.equal(provision(pods('q')).nodeClaims.length, 5);
  });
});

describe('upstream Karpenter: minValuesPolicy (provisioning/suite_test.go, "with instance type requirements")', () => {
  // Two spot-only arm64 types; the pools name capacity type spot (berth's pools default to on-demand, as the AWS provider does).
  const spotType = (name: string, zone: string) =>
    makeInstanceType({
      name,
      labels: { [LABEL_INSTANCE_TYPE]: name, [LABEL_ARCH]: 'arm64', [LABEL_OS]: 'linux' },
      capacity: { cpu: 4000, memory: 4 * GI, pods: 5 },
      overhead: { kubeReserved: { cpu: 100, memory: 10 * 2 ** 20 }, systemReserved: {}, evictionThreshold: {} },
      offerings: [{ zone, capacityType: 'spot', price: 0.52, available: true }],
    });
  const types = [spotType('instance-type-1', 'test-zone-1-spot'), spotType('instance-type-2', 'test-zone-2-spot')];
  const names = ['instance-type-1', 'instance-type-2', 'instance-type-3'];
  const spot = { key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['spot'] };
  const withMinValues = nodePool('default', { weight: 100, requirements: [spot, { key: LABEL_INSTANCE_TYPE, operator: 'In', values: names, minValues: 3 }] });
  const withoutMinValues = nodePool('fallback', { weight: 10, requirements: [spot, { key: LABEL_INSTANCE_TYPE, operator: 'In', values: names }] });

  function run(pools: PoolSpec[], minValuesPolicy: 'Strict' | 'BestEffort') {
    const p = pod('p', {}, { cpu: '900m', memory: `${Math.round(0.9 * 1024)}Mi` });
    const cluster = new ClusterState();
    cluster.addPod(p);
    return { p, plan: planProvisioning({ cluster, pools, instanceTypes: types, daemonSetPods: [], config: {}, minValuesPolicy }) };
  }

  it('upstream: "should not schedule when minValues requirement is not met" (suite_test.go, Strict)', () => {
    const { p, plan } = run([withMinValues], 'Strict');
    notScheduled(plan, p);
  });

  it('upstream: "should schedule even when minValues requirement is not met" (suite_test.go, BestEffort)', () => {
    const { p, plan } = run([withMinValues], 'BestEffort');
    const claim = claimOf(plan, p);
    assert.equal(claim.instanceType, 'instance-type-1');
    assert.equal(claim.annotations['karpenter.sh/nodeclaim-min-values-relaxed'], 'true');
    assert.deepEqual(
      claim.requirements.find((r) => r.key === LABEL_INSTANCE_TYPE),
      { key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['instance-type-1', 'instance-type-2'], minValues: 2 },
    );
  });

  it('upstream: "should relax minValues before falling back to other nodepools" (suite_test.go, BestEffort)', () => {
    const { p, plan } = run([withMinValues, withoutMinValues], 'BestEffort');
    const claim = claimOf(plan, p);
    assert.equal(claim.nodePool, 'default');
    assert.equal(claim.annotations['karpenter.sh/nodeclaim-min-values-relaxed'], 'true');
  });

  it('a claim whose minValues held is annotated "false"', () => {
    const { plan } = run([withoutMinValues], 'BestEffort');
    assert.equal(plan.nodeClaims[0]!.annotations['karpenter.sh/nodeclaim-min-values-relaxed'], 'false');
  });
});

describe('upstream Karpenter: undecided labels on planned claims (scheduling/topology_test.go)', () => {
  const CT = 'karpenter.sh/capacity-type';
  const labels = { test: 'test' };
  // Karpenter's Topology suite runs with a NodePool that allows every capacity type.
  const anyCapacity = (extra: Partial<PoolSpec> = {}) => nodePool('default', { requirements: [{ key: CT, operator: 'Exists', values: [] }], ...extra });
  const spreadOn = (topologyKey: string, maxSkew = 1, extra: Record<string, unknown> = {}) => ({
    topologySpreadConstraints: [{ maxSkew, topologyKey, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: labels }, ...extra }],
  });
  const many = (n: number, prefix: string, spec: Partial<PodSpecManifest>, opts: Parameters<typeof pod>[2] = { labels }) => Array.from({ length: n }, (_, i) => pod(`${prefix}-${i}`, spec, opts));

  /** The value of `key` on the node a claim launches as. */
  function labelOf(plan: ProvisionPlan, p: Pod, key: string): string | undefined {
    const c = claimOf(plan, p);
    if (key === LABEL_ZONE) return c.zone;
    if (key === CT) return c.capacityType;
    if (key === HOST) return c.name;
    return c.labels[key] ?? FAKE_TYPES.find((t) => t.name === c.instanceType)?.labels[key];
  }

  /** ExpectSkew: the number of scheduled pods per domain of `key`, sorted. */
  function skew(plan: ProvisionPlan, pods: readonly Pod[], key: string): number[] {
    const counts = new Map<string, number>();
    for (const p of pods) {
      if (!plan.placements.some((x) => x.pod === p.key)) continue;
      const v = labelOf(plan, p, key);
      if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    return [...counts.values()].sort((a, b) => a - b);
  }

  it('upstream: "should balance pods across capacity types" (topology_test.go)', () => {
    const pods = many(4, 'p', spreadOn(CT));
    assert.deepEqual(skew(provision(pods, { pools: [anyCapacity()] }), pods, CT), [2, 2]);
  });

  it('upstream: "should respect NodePool capacity type constraints" (topology_test.go)', () => {
    const pods = many(4, 'p', spreadOn(CT));
    const pools = [nodePool('default', { requirements: [{ key: CT, operator: 'In', values: ['spot', 'on-demand'] }] })];
    assert.deepEqual(skew(provision(pods, { pools }), pods, CT), [2, 2]);
  });

  it('upstream: "should balance pods across NodePool requirements" (topology_test.go)', () => {
    const key = 'capacity.spread.4-1';
    const spot = nodePool('spot', { requirements: [{ key: CT, operator: 'In', values: ['spot'] }, { key, operator: 'In', values: ['2', '3', '4', '5'] }] });
    const onDemand = nodePool('on-demand', { requirements: [{ key: CT, operator: 'In', values: ['on-demand'] }, { key, operator: 'In', values: ['1'] }] });
    const pods = many(20, 'p', spreadOn(key));
    const plan = provision(pods, { pools: [spot, onDemand] });
    for (const p of pods) claimOf(plan, p);
    assert.deepEqual(skew(plan, pods, key), [4, 4, 4, 4, 4]);
    assert.deepEqual(skew(plan, pods, CT), [4, 16]);
  });

  // A label only the NodePools name: "foo" on a plain pool, "bar" on a tainted one the pods do not tolerate.
  const key = 'fake-label';
  const plain = anyCapacity({ requirements: [{ key: CT, operator: 'Exists', values: [] }, { key, operator: 'In', values: ['foo'] }] });
  const tainted = nodePool('tainted', { requirements: [{ key: CT, operator: 'Exists', values: [] }, { key, operator: 'In', values: ['bar'] }], taints: [{ key: 'taint-key', value: 'taint-value', effect: 'NoSchedule' }] });

  it('upstream: "should balance pods across a label when discovered from the nodepool (NodeTaintsPolicy=ignore)" (topology_test.go)', () => {
    const pods = many(2, 'p', spreadOn(key, 1, { nodeTaintsPolicy: 'Ignore' }));
    assert.deepEqual(skew(provision(pods, { pools: [plain, tainted] }), pods, key), [1]);
  });

  it('upstream: "should balance pods across a label when discovered from the nodepool (NodeTaintsPolicy=honor)" (topology_test.go)', () => {
    const pods = many(2, 'p', spreadOn(key, 1, { nodeTaintsPolicy: 'Honor' }));
    assert.deepEqual(skew(provision(pods, { pools: [plain, tainted] }), pods, key), [2]);
  });

  it('upstream: "should limit spread options by nodeSelector" (topology_test.go, Combined Capacity Type Topology and Node Affinity)', () => {
    const anyway = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: CT, whenUnsatisfiable: 'ScheduleAnyway' as const, labelSelector: { matchLabels: labels } }] };
    const pods = [...many(5, 'spot', { ...anyway, nodeSelector: { [CT]: 'spot' } }), ...many(5, 'od', { ...anyway, nodeSelector: { [CT]: 'on-demand' } })];
    assert.deepEqual(skew(provision(pods, { pools: [anyCapacity()] }), pods, CT), [5, 5]);
  });

  it('upstream: "should spread pods while respecting both constraints" (topology_test.go, Combined Zonal and Capacity Type Topology), first batch', () => {
    const spec = { topologySpreadConstraints: [...spreadOn(CT).topologySpreadConstraints, ...spreadOn(LABEL_ZONE).topologySpreadConstraints] };
    const pods = many(2, 'p', spec);
    const plan = provision(pods, { pools: [anyCapacity()] });
    for (const p of pods) claimOf(plan, p);
    assert.ok(skew(plan, pods, CT).every((n) => n <= 1));
    assert.ok(skew(plan, pods, LABEL_ZONE).every((n) => n <= 1));
  });

  it('upstream: "should balance pods across nodes" (topology_test.go, Hostname)', () => {
    const pods = many(4, 'p', spreadOn(HOST));
    assert.deepEqual(skew(provision(pods, { pools: [anyCapacity()] }), pods, HOST), [1, 1, 1, 1]);
  });

  it('upstream: "balance multiple deployments with hostname topology spread & varying arch" (topology_test.go)', () => {
    const spreadPod = (name: string, app: string, arch: string) =>
      pod(name, { ...nodeRequirement('kubernetes.io/arch', 'In', [arch]), topologySpreadConstraints: [{ maxSkew: 1, topologyKey: HOST, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }] }, { labels: { app } });
    const pods = [spreadPod('a1', 'app1', 'amd64'), spreadPod('a2', 'app1', 'amd64'), spreadPod('b1', 'app2', 'arm64'), spreadPod('b2', 'app2', 'arm64')];
    const plan = provision(pods, { pools: [anyCapacity()] });
    for (const p of pods) claimOf(plan, p);
    assert.equal(plan.nodeClaims.length, 4);
  });

  it('upstream: "should respect pod affinity (arch)" (topology_test.go)', () => {
    const aff = { security: 's2' };
    const tsc = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: HOST, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: aff } }] };
    const p1 = pod('aff-1', { ...tsc, nodeSelector: { 'kubernetes.io/arch': 'arm64' } }, { labels: aff, cpu: '2' });
    const p2 = pod('aff-2', { ...tsc, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: aff }, topologyKey: 'kubernetes.io/arch' }] } } }, { labels: aff, cpu: '1' });
    const plan = provision([p1, p2], { pools: [anyCapacity()] });
    assert.equal(labelOf(plan, p1, 'kubernetes.io/arch'), labelOf(plan, p2, 'kubernetes.io/arch'));
    assert.notEqual(claimOf(plan, p1).name, claimOf(plan, p2).name);
  });
});
