import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterState } from '../cluster/state.js';
import { compileNodePool } from '../model/nodepool.js';
import { compilePod, type Pod } from '../model/pod.js';
import { provisionInBatches } from './batches.js';
import { bundledInstanceTypes } from './catalog/catalog.js';

const TYPES = bundledInstanceTypes();
const app = { app: 'web' };

function pool(limits: Record<string, string>, startupTaints: { key: string; effect: string }[] = []) {
  return compileNodePool({
    metadata: { name: 'default' },
    spec: {
      limits,
      template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }], startupTaints } },
    },
  });
}

function webPod(i: number, antiAffinity = true): Pod {
  const affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: app } }] } };
  return compilePod(
    { metadata: { name: `web-${i}`, namespace: 'default', labels: app }, spec: { ...(antiAffinity ? { affinity } : {}), containers: [{ name: 'c', resources: { requests: { cpu: '500m', memory: '512Mi' } } }] } },
    { order: i },
  );
}

function run(pods: Pod[], np: ReturnType<typeof pool>, maxBatches?: number, daemonSetPods: Pod[] = []) {
  const cluster = new ClusterState();
  for (const p of pods) cluster.addPod(p);
  return { plan: provisionInBatches({ cluster, pools: [np], instanceTypes: TYPES, daemonSetPods, config: {}, ...(maxBatches === undefined ? {} : { maxBatches }) }), cluster };
}

describe('provisioning in batches', () => {
  const pods = () => Array.from({ length: 6 }, (_, i) => webPod(i));

  it('one batch: each claim reserves the largest type it could be, so limits: {cpu: 200} leave 4 of 6 anti-affine pods pending', () => {
    const { plan } = run(pods(), pool({ cpu: '200' }), 1);
    assert.equal(plan.batches, 1);
    assert.equal(plan.nodeClaims.length, 2);
    assert.equal(plan.unschedulable.length, 4);
  });

  it('to the fixed point: the launched nodes spend the limits, later batches place the rest, claim names continue', () => {
    const { plan, cluster } = run(pods(), pool({ cpu: '200' }));
    assert.deepEqual(plan.unschedulable, []);
    assert.equal(plan.nodeClaims.length, 6);
    assert.equal(new Set(plan.nodeClaims.map((c) => c.name)).size, 6);
    assert.ok(plan.batches > 1);
    // A launched node carries the chosen offering's labels.
    const first = plan.nodeClaims[0]!;
    assert.equal(cluster.nodeInfo(first.name)!.node.labels['topology.kubernetes.io/zone'], first.zone);
    assert.equal(cluster.nodeInfo(first.name)!.node.labels['node.kubernetes.io/instance-type'], first.instanceType);
  });

  it("a launched node carries its claim's custom labels: a rack In [r1, r2] the pods left open is resolved as Karpenter's NodeClaim labels resolve it", () => {
    const np = compileNodePool({
      metadata: { name: 'default' },
      spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [{ key: 'example.com/rack', operator: 'In', values: ['r2', 'r1'] }] } } },
    });
    const { plan, cluster } = run([webPod(0, false)], np);
    const claim = plan.nodeClaims[0]!;
    assert.equal(claim.labels['example.com/rack'], 'r1');
    assert.equal(cluster.nodeInfo(claim.name)!.node.labels['example.com/rack'], 'r1');
  });

  it('stops when the limits are spent: the pods left are pending with the limit reason', () => {
    const { plan } = run(pods(), pool({ cpu: '4' }));
    assert.ok(plan.nodeClaims.length < 6);
    assert.ok(plan.unschedulable.length > 0);
    assert.match(plan.unschedulable[0]!.message, /exceed limits|exhausted/);
  });

  it('a launched node is initialized (no startup taint) and runs its DaemonSet pods before the next batch', () => {
    const ds = compilePod(
      { metadata: { name: 'agent', namespace: 'kube-system', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds', controller: true }] }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] } },
      { order: 100 },
    );
    const { plan, cluster } = run([webPod(0, false)], pool({}, [{ key: 'example.com/booting', effect: 'NoSchedule' }]), undefined, [ds]);
    assert.equal(plan.batches, 2);
    const node = plan.nodeClaims[0]!.name;
    assert.deepEqual(cluster.nodeInfo(node)!.node.taints, []);
    assert.ok(cluster.nodeInfo(node)!.pods.some((p) => p.name === `agent-${node}`));
  });
});

// Translated from Karpenter v1.14.1 pkg/controllers/provisioning/suite_test.go (Context "Labels"):
// upstream reads the Node the claim launched as; here it is the node a batch launches.
describe('provisioning in batches with --optimize cost', () => {
  it("reports every batch's optimization: faithful $/h and lower bounds add up over the batches", () => {
    const cluster = new ClusterState();
    for (let i = 0; i < 6; i++) cluster.addPod(webPod(i));
    const solved: string[] = [];
    const lpSolver = { name: 'fixed', solve: (lp: string) => (solved.push(lp), { status: 'Optimal', objective: 0.25 }) };
    const plan = provisionInBatches({ cluster, pools: [pool({ cpu: '200' })], instanceTypes: TYPES, daemonSetPods: [], config: {}, optimize: 'cost', lpSolver });
    assert.ok(plan.batches > 2, `${plan.batches} batches`);
    const o = plan.optimization!;
    // A pool with limits is not repacked: the faithful plan is the plan, over all its batches.
    assert.equal(o.repacked, false);
    assert.equal(o.faithfulCostPerHour, plan.costPerHour);
    assert.equal(o.lowerBound?.costPerHour, 0.25 * solved.length);
    assert.equal(solved.length, plan.batches - 1, 'the last batch places nothing and solves nothing');
  });
});

describe('Karpenter v1.14.1 Provisioning, Labels (provisioning/suite_test.go), on the node a batch launches', () => {
  const launchOne = (template: Record<string, unknown>) => {
    const np = compileNodePool({ metadata: { name: 'default' }, spec: { template: { ...template, spec: { requirements: [], nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, ...(template['spec'] as object) } } } });
    const { plan, cluster } = run([webPod(0, false)], np);
    assert.equal(plan.batches, 2);
    return cluster.nodeInfo(plan.nodeClaims[0]!.name)!.node.labels;
  };

  it('should label nodes', () => {
    const labels = launchOne({
      metadata: { labels: { 'test-key-1': 'test-value-1' } },
      spec: {
        requirements: [
          { key: 'test-key-2', operator: 'In', values: ['test-value-2'] },
          { key: 'test-key-3', operator: 'NotIn', values: ['test-value-3'] },
          { key: 'test-key-4', operator: 'Lt', values: ['4'] },
          { key: 'test-key-5', operator: 'Gt', values: ['5'] },
          { key: 'test-key-6', operator: 'Exists' },
          { key: 'test-key-7', operator: 'DoesNotExist' },
        ],
      },
    });
    assert.equal(labels['karpenter.sh/nodepool'], 'default');
    assert.equal(labels['test-key-1'], 'test-value-1');
    assert.equal(labels['test-key-2'], 'test-value-2');
    assert.ok('test-key-3' in labels && labels['test-key-3'] !== 'test-value-3');
    assert.ok('test-key-4' in labels && labels['test-key-4'] !== 'test-value-4');
    assert.ok('test-key-5' in labels && labels['test-key-5'] !== 'test-value-5');
    assert.ok('test-key-6' in labels);
    assert.ok(!('test-key-7' in labels));
  });

  it('should not label nodes with well-known labels from requirements', () => {
    const labels = launchOne({
      spec: {
        requirements: [
          { key: 'foo', operator: 'In', values: ['bar'] },
          { key: 'node.kubernetes.io/windows-build', operator: 'NotIn', values: ['test-value'] },
        ],
      },
    });
    assert.notEqual(labels['node.kubernetes.io/windows-build'], 'test-value');
    assert.equal(labels['foo'], 'bar');
  });
});
