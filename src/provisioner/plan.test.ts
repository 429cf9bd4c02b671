import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ClusterState } from '../cluster/state.js';
import type { PodManifest, PodSpecManifest } from '../model/manifest.js';
import { compileNode } from '../model/node.js';
import { compilePod, type Pod } from '../model/pod.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import { scheduleAll } from '../scheduler/run.js';
import { bundledInstanceTypes } from './catalog/catalog.js';
import { planProvisioning, type PoolSpec, type ProvisionPlan } from './plan.js';

const TYPES = bundledInstanceTypes();
const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

const generalPool: PoolSpec = {
  name: 'default',
  weight: 0,
  labels: {},
  requirements: [
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m', 'c', 'r'] },
  ],
  taints: [],
  limits: {},
};

let order = 0;
function pod(name: string, spec: Partial<PodSpecManifest> = {}, labels: Record<string, string> = {}, cpu = '1', memory = '2Gi'): Pod {
  const m: PodManifest = {
    metadata: { name, namespace: 'default', labels },
    spec: { ...spec, containers: [{ name: 'c', resources: { requests: { cpu, memory } } }] },
  };
  return compilePod(m, { order: order++ });
}

function existingNode(name: string, zone: string) {
  return compileNode({ metadata: { name, labels: { [ZONE]: zone, [HOST]: name } }, status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } } }, order++);
}

function plan(pods: Pod[], opts: { nodes?: ReturnType<typeof existingNode>[]; pools?: PoolSpec[]; settleSelected?: boolean } = {}): { plan: ProvisionPlan; cluster: ClusterState } {
  const cluster = new ClusterState();
  for (const n of opts.nodes ?? []) cluster.addNode(n);
  for (const p of pods) cluster.addPod(p);
  const settle = opts.settleSelected ? { settleSelected: true } : {};
  return { plan: planProvisioning({ cluster, pools: opts.pools ?? [generalPool], instanceTypes: TYPES, daemonSetPods: [], config: {}, ...settle }), cluster };
}

const app = { app: 'apiserver' };
const antiHost = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: HOST, labelSelector: { matchLabels: app } }] } } };
const spread = (key: string, extra: { minDomains?: number } = {}) => ({ maxSkew: 1, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: app }, ...extra });

function nodeOf(p: ProvisionPlan, podKey: string): string {
  return p.placements.find((x) => x.pod === podKey)?.node ?? '';
}

describe('provisioning plan', () => {
  it("a pod kube-scheduler fails with an error (a legacy invalid value in its spread selector: reason SchedulerError) is not provisioned for, as Karpenter's IsProvisionable wants reason Unschedulable", () => {
    const legacy = { topologySpreadConstraints: [{ ...spread(ZONE), labelSelector: { matchExpressions: [{ key: 'app', operator: 'In' as const, values: ["bad value!"] }] } }] };
    const { plan: p } = plan([pod('legacy', legacy, app), pod('fine')], { nodes: [existingNode('full', 'us-west-2a')] });
    const legacyEntry = p.unschedulable.find((u) => u.pod === 'default/legacy');
    assert.match(legacyEntry?.message ?? '', /^running PreFilter plugin "PodTopologySpread": .*Invalid value: "bad value!"/);
    assert.ok(p.nodeClaims.every((c) => !c.pods.includes('default/legacy')));
    assert.equal(nodeOf(p, 'default/fine'), 'full');
  });

  it('apiserver with required hostname anti-affinity: exactly two new claims, all three replicas on distinct nodes', () => {
    const running = { ...pod('apiserver-0', antiHost, app), nodeName: 'cp-1' };
    const { plan: p } = plan([running, pod('apiserver-1', antiHost, app), pod('apiserver-2', antiHost, app)], { nodes: [existingNode('cp-1', 'us-west-2a')] });
    assert.equal(p.nodeClaims.length, 2);
    assert.deepEqual(p.unschedulable, []);
    const nodes = new Set(['cp-1', nodeOf(p, 'default/apiserver-1'), nodeOf(p, 'default/apiserver-2')]);
    assert.equal(nodes.size, 3);
  });

  it('apiserver with hostname+zone spread only: replicas stack on the existing node, no claim (as kube-scheduler does)', () => {
    const spec = { topologySpreadConstraints: [spread(HOST), spread(ZONE)] };
    const running = { ...pod('apiserver-0', spec, app), nodeName: 'cp-1' };
    const { plan: p } = plan([running, pod('apiserver-1', spec, app), pod('apiserver-2', spec, app)], { nodes: [existingNode('cp-1', 'us-west-2a')] });
    assert.deepEqual(p.nodeClaims, []);
    assert.deepEqual([nodeOf(p, 'default/apiserver-1'), nodeOf(p, 'default/apiserver-2')], ['cp-1', 'cp-1']);
  });

  it('apiserver with minDomains 3: two claims in two other zones', () => {
    const spec = { topologySpreadConstraints: [spread(HOST, { minDomains: 3 }), spread(ZONE, { minDomains: 3 })] };
    const running = { ...pod('apiserver-0', spec, app), nodeName: 'cp-1' };
    const { plan: p } = plan([running, pod('apiserver-1', spec, app), pod('apiserver-2', spec, app)], { nodes: [existingNode('cp-1', 'us-west-2a')] });
    assert.equal(p.nodeClaims.length, 2);
    const zones = new Set(['us-west-2a', ...p.nodeClaims.map((c) => c.zone)]);
    assert.equal(zones.size, 3);
  });

  it('zone spread over three pods from zero nodes: one claim in each of three zones', () => {
    const spec = { topologySpreadConstraints: [spread(ZONE)] };
    const { plan: p } = plan([pod('a', spec, app), pod('b', spec, app), pod('c', spec, app)]);
    assert.equal(p.nodeClaims.length, 3);
    assert.equal(new Set(p.nodeClaims.map((c) => c.zone)).size, 3);
  });

  it('anti-affinity with the node limit exhausted: the pod stays pending with the reason', () => {
    const limited: PoolSpec = { ...generalPool, limits: { nodes: 1 } };
    const { plan: p } = plan([pod('apiserver-1', antiHost, app), pod('apiserver-2', antiHost, app)], { pools: [limited] });
    assert.equal(p.nodeClaims.length, 1);
    assert.equal(p.unschedulable.length, 1);
    assert.match(p.unschedulable[0]!.message, /node limits have been exhausted for nodepool/);
  });

  it('a pod no NodePool can serve names each pool and why', () => {
    const { plan: p } = plan([pod('arm', { nodeSelector: { 'kubernetes.io/arch': 'arm64' } })]);
    assert.deepEqual(p.nodeClaims, []);
    assert.match(p.unschedulable[0]!.message, /^could not schedule pod: nodepool "default": .*kubernetes\.io\/arch/);
  });

  it("pods alike in cpu, memory and creation time are planned in UID order (Karpenter's queue tie-break), not in the order they are listed", () => {
    const created = '2026-06-01T10:00:00Z';
    const alike = (name: string, uid: string) => compilePod({ metadata: { name, namespace: 'default', uid, creationTimestamp: created }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '3', memory: '2Gi' } } }] } }, { order: order++ });
    const cluster = new ClusterState();
    cluster.addNode(existingNode('room-for-one', 'us-west-2a'));
    for (const p of [alike('listed-first', 'uid-b'), alike('listed-second', 'uid-a')]) cluster.addPod(p);
    const p = planProvisioning({ cluster, pools: [generalPool], instanceTypes: TYPES, daemonSetPods: [], config: {}, existingNodesAsKarpenter: true });
    assert.equal(nodeOf(p, 'default/listed-second'), 'room-for-one');
    assert.deepEqual(p.nodeClaims.map((c) => c.pods), [['default/listed-first']]);
  });

  it("existing nodes are tried initialized first, then by name (Karpenter's sortExistingNodes), not by name alone", () => {
    const plan = (uninitializedNodes?: ReadonlySet<string>) => {
      const cluster = new ClusterState();
      for (const name of ['a-launching', 'b-ready', 'c-ready']) cluster.addNode(existingNode(name, 'us-west-2a'));
      cluster.addPod(pod('mover'));
      return planProvisioning({ cluster, pools: [generalPool], instanceTypes: TYPES, daemonSetPods: [], config: {}, existingNodesAsKarpenter: true, ...(uninitializedNodes ? { uninitializedNodes } : {}) });
    };
    assert.equal(nodeOf(plan(), 'default/mover'), 'a-launching');
    assert.equal(nodeOf(plan(new Set(['a-launching'])), 'default/mover'), 'b-ready');
    assert.equal(nodeOf(plan(new Set(['a-launching', 'b-ready', 'c-ready'])), 'default/mover'), 'a-launching');
  });

  it('plans the pending pods the caller names, without looking for others (a removal simulation names its moving pods)', () => {
    const cluster = new ClusterState();
    for (const p of [pod('named', {}, {}, '1'), pod('other', {}, {}, '1')]) cluster.addPod(p);
    const p = planProvisioning({ cluster, pools: [generalPool], instanceTypes: TYPES, daemonSetPods: [], config: {}, existingNodesAsKarpenter: true, pending: [cluster.getPod('default/named')!] });
    assert.deepEqual(p.nodeClaims.flatMap((c) => c.pods), ['default/named']);
  });

  it('a profile without NodeResourcesFit puts a pod on an existing node without room for it, as its filters allow', () => {
    const planned = (config: SchedulerConfig) => {
      const cluster = new ClusterState();
      cluster.addNode(existingNode('full', 'us-west-2a'));
      cluster.addPod({ ...pod('filler', {}, {}, '3'), nodeName: 'full' });
      cluster.addPod(pod('mover', {}, {}, '3'));
      return nodeOf(planProvisioning({ cluster, pools: [generalPool], instanceTypes: TYPES, daemonSetPods: [], config, existingNodesAsKarpenter: true }), 'default/mover');
    };
    assert.equal(planned({ profiles: [{ schedulerName: 'default-scheduler', plugins: { multiPoint: { disabled: [{ name: 'NodeResourcesFit' }] } } }] }), 'full');
    assert.notEqual(planned({}), 'full');
  });

  it("a larger pod is planned before a smaller one of higher priority, as Karpenter's queue orders by size alone", () => {
    const cluster = new ClusterState();
    cluster.addNode(existingNode('room-for-3-cpu', 'us-west-2a'));
    cluster.addPod({ ...pod('filler'), nodeName: 'room-for-3-cpu' });
    cluster.addPod(pod('urgent', { priority: 1000 }));
    cluster.addPod(pod('large', {}, {}, '3'));
    const p = planProvisioning({ cluster, pools: [generalPool], instanceTypes: TYPES, daemonSetPods: [], config: {}, existingNodesAsKarpenter: true });
    assert.equal(nodeOf(p, 'default/large'), 'room-for-3-cpu');
    assert.deepEqual(p.nodeClaims.map((c) => c.pods), [['default/urgent']]);
  });

  it('packs mixed pod sizes onto fewer, cheaper nodes than one node per pod', () => {
    const pods = Array.from({ length: 12 }, (_, i) => pod(`p${i}`, {}, {}, i % 3 === 0 ? '2' : '500m', i % 2 === 0 ? '4Gi' : '1Gi'));
    const { plan: p } = plan(pods);
    assert.deepEqual(p.unschedulable, []);
    assert.ok(p.nodeClaims.length < pods.length, `${p.nodeClaims.length} claims for ${pods.length} pods`);
    const onePerPod = pods.reduce((sum, x) => {
      const alone = planProvisioning({ cluster: clusterWith([x]), pools: [generalPool], instanceTypes: TYPES, daemonSetPods: [], config: {} });
      return sum + alone.costPerHour;
    }, 0);
    assert.ok(p.costPerHour < onePerPod, `${p.costPerHour} $/h packed vs ${onePerPod} $/h one per pod`);
  });

  it('preferred anti-affinity is honoured with a node per replica, and relaxed when the pool allows only one node', () => {
    const preferred = { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: HOST, labelSelector: { matchLabels: app } } }] } } };
    const honoured = plan([pod('dns-0', preferred, app), pod('dns-1', preferred, app)]).plan;
    assert.equal(honoured.nodeClaims.length, 2);
    const relaxed = plan([pod('dns-0', preferred, app), pod('dns-1', preferred, app)], { pools: [{ ...generalPool, limits: { nodes: 1 } }] }).plan;
    assert.equal(relaxed.nodeClaims.length, 1);
    assert.deepEqual(relaxed.unschedulable, []);
    assert.equal(relaxed.nodeClaims[0]!.pods.length, 2);
  });

  it('the highest-weight NodePool that can take the pod wins, even when a lower-weight one is cheaper', () => {
    const big: PoolSpec = { ...generalPool, name: 'big', weight: 50, requirements: [{ key: 'karpenter.k8s.aws/instance-size', operator: 'In', values: ['4xlarge'] }] };
    const { plan: p } = plan([pod('x')], { pools: [generalPool, big] });
    assert.equal(p.nodeClaims[0]!.nodePool, 'big');
    assert.match(p.nodeClaims[0]!.instanceType, /\.4xlarge$/);
  });

  it('DaemonSet overhead is reserved on every new node it would run on', () => {
    const daemon = compilePod({ metadata: { name: 'ds', namespace: 'kube-system' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } }, { order: order++ });
    const cluster = new ClusterState();
    cluster.addPod(pod('x', {}, {}, '1500m', '1Gi'));
    const withDaemon = planProvisioning({ cluster, pools: [generalPool], instanceTypes: TYPES, daemonSetPods: [daemon], config: {} });
    const alone = plan([pod('y', {}, {}, '1500m', '1Gi')]).plan;
    const cpuOf = (name: string) => TYPES.find((t) => t.name === name)!.allocatable.cpu!;
    assert.ok(cpuOf(alone.nodeClaims[0]!.instanceType) >= 1500);
    // 1.5 + 1 cpu no longer fits a 2-vCPU type.
    assert.ok(cpuOf(withDaemon.nodeClaims[0]!.instanceType) >= 2500, withDaemon.nodeClaims[0]!.instanceType);
  });

  it('a pod that does not tolerate the pool taint gets a precise reason', () => {
    const tainted: PoolSpec = { ...generalPool, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] };
    const { plan: p } = plan([pod('x')], { pools: [tainted] });
    assert.match(p.unschedulable[0]!.message, /did not tolerate taint dedicated=gpu:NoSchedule/);
  });

  it('a claim keeps its zone open until a pod needs one: a later pod with a zone selector joins it under a one-node limit', () => {
    const oneNode: PoolSpec = { ...generalPool, limits: { nodes: 1 } };
    const { plan: p } = plan([pod('free'), pod('in-c', { nodeSelector: { [ZONE]: 'us-west-2c' } })], { pools: [oneNode] });
    assert.deepEqual(p.unschedulable, []);
    assert.equal(p.nodeClaims.length, 1);
    assert.equal(p.nodeClaims[0]!.zone, 'us-west-2c');
    assert.deepEqual([...p.nodeClaims[0]!.pods].sort(), ['default/free', 'default/in-c']);
  });

  it('a claim nothing pins launches the cheapest offering over every zone', () => {
    const spot: PoolSpec = { ...generalPool, requirements: [...generalPool.requirements, { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] };
    const { plan: p } = plan([pod('x')], { pools: [spot] });
    const c = p.nodeClaims[0]!;
    const prices = TYPES.find((t) => t.name === c.instanceType)!.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.price);
    assert.equal(new Set(prices).size > 1, true, 'spot prices differ by zone');
    assert.equal(c.pricePerHour, Math.min(...prices));
  });

  it('zone-spread pods settle the least-populated zone, ties to the first zone in order', () => {
    const spec = { topologySpreadConstraints: [spread(ZONE)] };
    const { plan: p } = plan([pod('a', spec, app), pod('b', spec, app), pod('c', spec, app), pod('d', spec, app), pod('e', spec, app)]);
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'e'].map((n) => p.nodeClaims.find((c) => c.name === nodeOf(p, `default/${n}`))!.zone),
      ['us-west-2a', 'us-west-2b', 'us-west-2c', 'us-west-2d', 'us-west-2a'],
    );
  });

  it("a pod another pod's zone anti-affinity selects settles its claim's zone, so the term sees it", () => {
    const web = { app: 'web' };
    const awayFromWeb = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: ZONE, labelSelector: { matchLabels: web } }] } } };
    const { plan: p } = plan([pod('web', {}, web, '2'), pod('other', awayFromWeb, {}, '1')]);
    assert.deepEqual(p.unschedulable, []);
    const zoneOf = (k: string) => p.nodeClaims.find((c) => c.name === nodeOf(p, k))!.zone;
    assert.notEqual(zoneOf('default/web'), zoneOf('default/other'));
  });

  it('with settleSelected, after the plan is applied, kube-scheduler accepts every pod on its planned node and no required constraint breaks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ anti: fc.boolean(), zoneSpread: fc.boolean(), cpu: fc.integer({ min: 100, max: 3000 }), group: fc.constantFrom('a', 'b') }), { minLength: 1, maxLength: 10 }),
        (specs) => {
          const pods = specs.map((s, i) => {
            const labels = { app: s.group };
            const spec: Partial<PodSpecManifest> = {
              ...(s.anti ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: HOST, labelSelector: { matchLabels: labels } }] } } } : {}),
              ...(s.zoneSpread ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: labels } }] } : {}),
            };
            return pod(`q${i}`, spec, labels, `${s.cpu}m`, '1Gi');
          });
          const { plan: p, cluster } = plan(pods, { settleSelected: true });
          // Launch the planned nodes with their chosen instance types, then let the scheduler place the pods afresh.
          const real = new ClusterState();
          for (const c of p.nodeClaims) {
            const it = TYPES.find((t) => t.name === c.instanceType)!;
            real.addNode(compileNode({ metadata: { name: c.name, labels: { ...it.labels, [ZONE]: c.zone, [HOST]: c.name } }, status: { allocatable: Object.fromEntries(Object.entries(it.allocatable).map(([k, v]) => [k, k === 'cpu' ? `${v}m` : String(v)])) } }, order++));
          }
          // Each pod is nominated to its planned node (kube-scheduler tries a nominated node
          // first); they arrive in the planner's order.
          p.placements.forEach((x, i) => real.addPod({ ...cluster.getPod(x.pod)!, nodeName: '', nominatedNodeName: x.node, creation: i }));
          const report = scheduleAll(real, {});
          assert.deepEqual(report.unschedulable, [], 'every planned pod schedules on the planned nodes');
          assert.deepEqual(Object.fromEntries(report.placements.map((x) => [x.pod, x.node])), Object.fromEntries(p.placements.map((x) => [x.pod, x.node])));
          for (const info of real.nodeInfos()) {
            assert.ok((info.requested.cpu ?? 0) <= (info.node.allocatable.cpu ?? 0));
            for (const x of info.pods) {
              for (const term of x.requiredAntiAffinity) {
                assert.ok(!info.pods.some((y) => y.key !== x.key && term.selector.matches(y.labels)), `${x.key} shares ${info.node.name}`);
              }
            }
          }
        },
      ),
      { numRuns: 40, seed: 11 },
    );
  });
  it('a claim carries the NodeClaim Karpenter would create: template labels, final requirements without the hostname, at most 60 instance types, cheapest first among them', () => {
    const pool: PoolSpec = { ...generalPool, labels: { team: 'web' } };
    const { plan: p } = plan([pod('x', { nodeSelector: { [ZONE]: 'us-west-2b' } })], { pools: [pool] });
    const claim = p.nodeClaims[0]!;
    assert.deepEqual(claim.labels, { team: 'web', 'karpenter.sh/nodepool': 'default' });
    const byKey = new Map(claim.requirements.map((r) => [r.key, r]));
    assert.equal(byKey.has(HOST), false);
    assert.deepEqual(byKey.get(ZONE)!.values, ['us-west-2b']);
    const types = byKey.get('node.kubernetes.io/instance-type')!.values;
    assert.ok(types.length > 0 && types.length <= 60);
    assert.ok(types.includes(claim.instanceType));
    assert.deepEqual(byKey.get('karpenter.sh/capacity-type')!.values, ['on-demand']);
  });
});

function clusterWith(pods: Pod[]): ClusterState {
  const c = new ClusterState();
  for (const p of pods) c.addPod(p);
  return c;
}
