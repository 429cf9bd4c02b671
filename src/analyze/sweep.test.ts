import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSweep, type SweepSpec } from '../io/sweep-spec.js';
import type { LoadedInput } from '../io/load.js';
import { capacityLossCheck, nodeLossCheck, spotInterruptionCheck } from './checks/loss.js';
import { shardCells, summarize, sweepCells, sweepRunner, type CellResult } from './sweep.js';
import { contextOf, fileText, inputOf, nodesYaml, REQUIRED_HOSTNAME_ANTI, webDeployment } from './test-input.js';

function specOf(input: LoadedInput, spec: string): SweepSpec {
  const r = loadSweep({ name: 'sweep.yaml', text: `apiVersion: berth.dev/v1alpha1\nkind: Sweep\nmetadata: {name: t}\nspec:\n${spec}` }, input);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  return r.sweep;
}

const input = inputOf(nodesYaml(3), webDeployment({ replicas: 2, affinity: REQUIRED_HOSTNAME_ANTI }));

describe('sweepCells and shardCells', () => {
  const spec = specOf(input, '  seeds: [0, 7]\n  scenarios: [{baseline: {}}, {zoneLoss: {zones: [us-west-2c, us-west-2a]}}]\n  parameters: [{replicas: {workload: web, values: [1, 3]}}]\n');

  it('enumerates parameter values outermost, then seeds, scenarios and targets as written', () => {
    const cells = sweepCells(spec);
    assert.deepEqual(
      cells.map((c) => `${c.index}:${c.values.join()}:${c.seed}:${c.scenario}${c.target ? `@${c.target}` : ''}`),
      ['0:0:0:baseline', '1:0:0:zone-loss@us-west-2c', '2:0:0:zone-loss@us-west-2a', '3:0:7:baseline', '4:0:7:zone-loss@us-west-2c', '5:0:7:zone-loss@us-west-2a',
        '6:1:0:baseline', '7:1:0:zone-loss@us-west-2c', '8:1:0:zone-loss@us-west-2a', '9:1:7:baseline', '10:1:7:zone-loss@us-west-2c', '11:1:7:zone-loss@us-west-2a'],
    );
  });

  it('splits the cells into disjoint shards that together are every cell, for any count', () => {
    const cells = sweepCells(spec);
    for (let n = 1; n <= 13; n++) {
      const shards = Array.from({ length: n }, (_, i) => shardCells(cells, i, n));
      assert.deepEqual(shards.flat().map((c) => c.index).sort((a, b) => a - b), cells.map((c) => c.index), `n=${n}`);
      shards.forEach((s, i) => assert.ok(s.every((c) => c.index % n === i)));
      // A pure function of the cells: asked again, the same shard.
      assert.deepEqual(shardCells(sweepCells(spec), n - 1, n), shards[n - 1]);
    }
  });

  it('refuses a shard outside its count', () => {
    assert.throws(() => shardCells([], 3, 3), /3\/3 is not a shard/);
    assert.throws(() => shardCells([], 0, 0), /0\/0 is not a shard/);
  });
});

describe('sweepRunner', () => {
  it("judges a node loss as the node-loss check does, with the replica count of the cell's parameter", () => {
    const spec = specOf(input, '  scenarios: [{nodeLoss: {}}]\n  parameters: [{replicas: {workload: web, values: [1, 2]}}]\n');
    const run = sweepRunner(contextOf(input), spec);
    const results = sweepCells(spec).map(run);
    const one = results.filter((r) => r.parameters['replicas Deployment/default/web'] === 1);
    const two = results.filter((r) => r.parameters['replicas Deployment/default/web'] === 2);
    // Nodes that run no replica are not simulated.
    assert.deepEqual(one.map((r) => r.simulated).sort(), [false, false, true]);
    assert.deepEqual(two.map((r) => r.simulated).sort(), [false, true, true]);
    // One replica lost with its node: the check's warning; two on two nodes: one comes back elsewhere.
    const lost = one.find((r) => r.simulated)!;
    assert.equal(lost.verdict, 'warning');
    assert.deepEqual(lost.workloads?.map((w) => [w.workload, w.readyBefore, w.readyMin]), [['Deployment/default/web', 1, 0]]);
    assert.ok(two.every((r) => r.verdict === 'ok'), JSON.stringify(two));
    assert.ok(two.filter((r) => r.simulated).every((r) => typeof r.workloads?.[0]?.recoveredAfterS === 'number'));
    const finding = nodeLossCheck.run(contextOf(inputOf(nodesYaml(3), webDeployment({ replicas: 1, affinity: REQUIRED_HOSTNAME_ANTI }))));
    assert.deepEqual(finding.map((f) => [f.object, f.severity]), [['Deployment/default/web', lost.verdict]]);
    assert.match(finding[0]!.message, new RegExp(`node ${lost.target}`));
  });

  it("replaces the input's NodePool of a variant's name: a pool that can launch nothing leaves pods pending", () => {
    const small = inputOf(
      nodesYaml(1, ['us-west-2a'], '1'),
      webDeployment({ replicas: 3 }),
      `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec: {template: {spec: {requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}], nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}
`,
    );
    const pool = (family: string) => `{metadata: {name: default}, spec: {template: {spec: {requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [${family}]}], nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}}`;
    const spec = specOf(small, `  scenarios: [{baseline: {}}]\n  parameters: [{nodePools: [{name: as-is, nodePools: [${pool('m5')}]}, {name: none, nodePools: [${pool('x9')}]}]}]\n`);
    const results = sweepCells(spec).map(sweepRunner(contextOf(small, true), spec));
    assert.deepEqual(results.map((r) => [r.parameters['nodePools'], r.verdict, (r.pendingAtEnd ?? 0) > 0, (r.costPerHour ?? 0) > 0]), [
      ['as-is', 'ok', false, true],
      ['none', 'warning', true, false],
    ]);
  });
});

describe('spotInterruption and capacityLoss', () => {
  // Karpenter's spot example (test/check-corpus/karpenter-spot): inflate on two spot m5.xlarge nodes in us-west-2a, NodePool on.
  const spot = inputOf(...['nodepool', 'inflate', 'cluster'].map((f) => fileText(`test/check-corpus/karpenter-spot/${f}.yaml`)));

  it("targets every spot pool (or offering pool) of the input by default, and refuses one it does not have at the pool's line", () => {
    const spec = specOf(spot, '  scenarios: [{spotInterruption: {}}, {capacityLoss: {}}]\n');
    assert.deepEqual(spec.scenarios, [
      { type: 'spot-interruption', targets: ['m5.xlarge/us-west-2a'] },
      { type: 'capacity-loss', targets: ['m5.xlarge/us-west-2a'] },
    ]);
    const r = loadSweep({ name: 'sweep.yaml', text: 'apiVersion: berth.dev/v1alpha1\nkind: Sweep\nmetadata: {name: t}\nspec:\n  scenarios:\n  - spotInterruption: {pools: [m5.large/us-west-2a]}\n' }, spot);
    assert.ok(!r.ok);
    assert.match(r.errors[0]!.message, /Not found: "m5.large\/us-west-2a": no spot pool/);
    assert.equal(r.errors[0]!.line, 6);
  });

  it('judges a spot wave as the spot-interruption check does: with the provisioner off the reclaimed replicas stay down', () => {
    const spec = specOf(spot, '  scenarios: [{spotInterruption: {}}]\n');
    const [wave] = sweepCells(spec).map(sweepRunner(contextOf(spot), spec));
    const findings = spotInterruptionCheck.run(contextOf(spot));
    assert.deepEqual(findings.map((f) => [f.object, f.severity]), [['Deployment/default/inflate', 'warning']]);
    assert.equal(wave!.verdict, 'warning');
    assert.deepEqual(wave!.workloads?.map((w) => [w.workload, w.recoveredAfterS]), [['Deployment/default/inflate', null]]);
  });

  it('with the provisioner on, a spot wave and a capacity loss recover on launched capacity: ok cells with their recovery times (the check gives advice only)', () => {
    const spec = specOf(spot, '  scenarios: [{spotInterruption: {}}, {capacityLoss: {}}]\n');
    const [wave, capacity] = sweepCells(spec).map(sweepRunner(contextOf(spot, true), spec));
    assert.deepEqual(spotInterruptionCheck.run(contextOf(spot, true)).map((f) => f.severity), ['info']);
    // The node loss alone needs a launch as well, so the capacity-loss check reports nothing; the cell still shows the run.
    assert.deepEqual(capacityLossCheck.run(contextOf(spot, true)), []);
    for (const cell of [wave!, capacity!]) {
      assert.equal(cell.verdict, 'ok', JSON.stringify(cell));
      assert.ok(cell.workloads!.every((w) => w.readyMin < w.readyBefore && typeof w.recoveredAfterS === 'number'), JSON.stringify(cell));
      assert.ok(cell.costPerHour! > 0);
    }
  });
});

describe('summarize', () => {
  const cell = (i: number, scenario: CellResult['scenario'], verdict: CellResult['verdict'], recovered: number | null, parameters = {}): CellResult => ({
    cell: i,
    scenario,
    target: `n${i}`,
    seed: 0,
    parameters,
    verdict,
    simulated: true,
    costPerHour: i / 10,
    workloads: [{ workload: 'Deployment/default/web', replicas: 2, readyBefore: 2, readyMin: 1, recoveredAfterS: recovered, belowBudgetS: 0, severity: verdict }],
  });

  it('sums cells up per scenario and parameters, in order of their first cell, with the worst cell and the slowest recovery', () => {
    const rows = summarize([cell(0, 'node-loss', 'ok', 30), cell(1, 'node-loss', 'warning', 90), cell(2, 'zone-loss', 'warning', null), cell(3, 'node-loss', 'error', 10, { p: 1 }), cell(4, 'node-loss', 'warning', 60)]);
    assert.deepEqual(
      rows.map((r) => [r.scenario, r.parameters, r.cells, r.counts.ok, r.counts.warning, r.counts.error, r.worst, r.slowestRecoveryS, r.maxCostPerHour]),
      [
        ['node-loss', '', 3, 1, 2, 0, 'warning n1 seed 0', 90, 0.4],
        ['zone-loss', '', 1, 0, 1, 0, 'warning n2 seed 0', null, 0.2],
        ['node-loss', 'p=1', 1, 0, 0, 1, 'error n3 seed 0', 10, 0.3],
      ],
    );
  });
});
