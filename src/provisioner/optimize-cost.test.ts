import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INSTANCE_TYPES, loadCase, planCase } from '../../conformance/karpenter-berth.js';
import { provisioningCase } from '../../bench/provisioning.js';
import { loadHighsSolver } from '../cli/highs.js';
import { packGroups } from './cost-packing.js';
import { checkLaunchedPlan } from './plan-check.js';
import { poolTemplate, planProvisioning } from './plan.js';
import { lowerBoundModel } from './cost-bound.js';
import { Framework } from '../scheduler/framework.js';
import { buildFramework } from '../scheduler/profile.js';
import { Status } from '../scheduler/status.js';
import { Scheduler } from '../scheduler/scheduler.js';

function bench(pods: number) {
  const loaded = loadCase(provisioningCase(pods));
  if ('error' in loaded) throw new Error(loaded.error);
  return loaded;
}

test('--optimize cost: cheaper than the faithful plan on the provisioning bench case, every pod placed, no violation, above the LP bound', async () => {
  const faithful = planCase(bench(400));
  const loaded = bench(400);
  const lpSolver = await loadHighsSolver();
  const plan = planProvisioning({ cluster: loaded.cluster, pools: loaded.pools, instanceTypes: INSTANCE_TYPES, daemonSetPods: loaded.daemonSetPods, config: {}, seed: 0, optimize: 'cost', lpSolver });
  const o = plan.optimization!;
  assert.equal(o.repacked, true);
  assert.deepEqual(o.violations, []);
  assert.equal(o.faithfulCostPerHour, faithful.costPerHour);
  assert.ok(plan.costPerHour < faithful.costPerHour * 0.95, `${plan.costPerHour} vs ${faithful.costPerHour}`);
  assert.equal(plan.unschedulable.length, 0);
  assert.equal(plan.placements.length, 400);
  assert.equal(new Set(plan.nodeClaims.flatMap((c) => c.pods)).size, 400);
  const bound = o.lowerBound!.costPerHour!;
  assert.ok(bound > 0 && bound <= plan.costPerHour, `bound ${bound}, plan ${plan.costPerHour}`);
  // Every placement agrees with its claim, and the hostname anti-affinity pods are one per node.
  const nodeOf = new Map(plan.placements.map((p) => [p.pod, p.node]));
  for (const c of plan.nodeClaims) for (const pod of c.pods) assert.equal(nodeOf.get(pod), c.name);
  for (const c of plan.nodeClaims) assert.ok(c.pods.filter((p) => Number(p.split('-').pop()) % 40 === 2).length <= 1, c.name);
});

test('--optimize cost falls back to the faithful plan when the launched repacked plan fails a filter, and puts the cluster back as the faithful plan leaves it', async () => {
  const faithfulLoaded = bench(400);
  const faithful = planProvisioning({ cluster: faithfulLoaded.cluster, pools: faithfulLoaded.pools, instanceTypes: INSTANCE_TYPES, daemonSetPods: faithfulLoaded.daemonSetPods, config: {}, seed: 0 });
  const faithfulNodes = new Set(faithful.nodeClaims.map((c) => c.name));
  // A filter that refuses every node the repacking launches: claim names (pool-NNNN) past the faithful claims'.
  const repackedName = (name: string) => /-\d{4}$/.test(name) && !faithfulNodes.has(name);
  const runFilterPlugins = Framework.prototype.runFilterPlugins;
  Framework.prototype.runFilterPlugins = function (this: Framework, state, pod, nodeInfo) {
    return repackedName(nodeInfo.node.name) ? Status.unschedulable('refused by the test') : runFilterPlugins.call(this, state, pod, nodeInfo);
  };
  const loaded = bench(400);
  let plan;
  try {
    plan = planProvisioning({ cluster: loaded.cluster, pools: loaded.pools, instanceTypes: INSTANCE_TYPES, daemonSetPods: loaded.daemonSetPods, config: {}, seed: 0, optimize: 'cost', lpSolver: await loadHighsSolver() });
  } finally {
    Framework.prototype.runFilterPlugins = runFilterPlugins;
  }
  const o = plan.optimization!;
  assert.equal(o.repacked, false);
  assert.ok(o.violations.length > 0 && o.violations.every((v) => v.reason === 'refused by the test' && repackedName(v.node)), JSON.stringify(o.violations.slice(0, 2)));
  assert.deepEqual(plan.nodeClaims, faithful.nodeClaims);
  assert.deepEqual(plan.placements, faithful.placements);
  assert.equal(plan.costPerHour, faithful.costPerHour);
  const state = (c: typeof loaded.cluster) => c.nodeInfos().map((n) => [n.node, n.pods.map((p) => p.key).sort()]);
  assert.deepEqual(state(loaded.cluster), state(faithfulLoaded.cluster));
});

function launch(pods: number, swapArmClaimTo?: string) {
  const loaded = bench(pods);
  const plan = planProvisioning({ cluster: loaded.cluster, pools: loaded.pools, instanceTypes: INSTANCE_TYPES, daemonSetPods: loaded.daemonSetPods, config: {}, seed: 0 });
  const pool = poolTemplate(loaded.pools[0]!, INSTANCE_TYPES, loaded.daemonSetPods);
  const armClaim = plan.nodeClaims.find((c) => c.pods.some((p) => Number(p.split('-').pop()) % 4 === 3))!;
  const claims = plan.nodeClaims.map((c, i) => ({ name: c.name, pool, instanceType: pool.instanceTypes.find((t) => t.name === (c === armClaim && swapArmClaimTo ? swapArmClaimTo : c.instanceType))!, zone: c.zone, capacityType: c.capacityType as 'spot', creation: i }));
  const framework = new Scheduler(loaded.cluster, (h) => buildFramework({}, {}, h)).framework;
  return { violations: checkLaunchedPlan(loaded.cluster, framework, claims), armClaim };
}

test('checkLaunchedPlan: the Karpenter-faithful plan launched as planned has no violation', () => {
  assert.deepEqual(launch(200).violations, []);
});

test('checkLaunchedPlan: an arm64-only pod on an amd64 type is a violation (node affinity and Karpenter requirements)', () => {
  const { violations, armClaim } = launch(200, 'c5a.8xlarge');
  assert.ok(violations.length > 0);
  assert.ok(violations.every((v) => v.node === armClaim.name));
  assert.ok(violations.some((v) => /incompatible requirements/.test(v.reason)));
  assert.ok(violations.some((v) => /node affinity/i.test(v.reason)), JSON.stringify(violations.slice(0, 3)));
});

test('packGroups: a one-per-node group goes one to a node, and a node never holds two groups that conflict', () => {
  const offers = [{ price: 1, alloc: [8, 8] }, { price: 0.3, alloc: [2, 2] }];
  const groups = [
    { count: 3, req: [1, 1], offers: new Set([0, 1]), selfConflict: true, conflicts: new Set([1]) },
    { count: 10, req: [1, 1], offers: new Set([0, 1]), selfConflict: false, conflicts: new Set([0]) },
  ];
  const nodes = packGroups(offers, groups);
  for (const n of nodes) {
    assert.ok((n.groups.get(0) ?? 0) <= 1);
    assert.ok(!(n.groups.has(0) && n.groups.has(1)));
  }
  assert.equal(nodes.reduce((s, n) => s + (n.groups.get(0) ?? 0), 0), 3);
  assert.equal(nodes.reduce((s, n) => s + (n.groups.get(1) ?? 0), 0), 10);
});

test('lowerBoundModel: one row per group, resource rows per offer, a one-per-node row for a self-selecting anti-affinity group', () => {
  const loaded = bench(40);
  const pool = poolTemplate(loaded.pools[0]!, INSTANCE_TYPES, loaded.daemonSetPods);
  const model = lowerBoundModel([...loaded.cluster.pods()], [pool]);
  assert.match(model.lp!, /^Minimize\n obj: /);
  assert.match(model.lp!, /\n s\d+_\d+: x\d+_\d+ - y\d+ <= 0/);
  assert.ok(model.rows > 0 && model.variables > 0);
  assert.deepEqual(lowerBoundModel([], [pool]), { variables: 0, rows: 0 });
});
