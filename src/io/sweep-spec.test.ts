import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { inputOf, nodesYaml, webDeployment } from '../analyze/test-input.js';
import { cellCount, loadSweep, MAX_SWEEP_CELLS, sweepJsonSchema } from './sweep-spec.js';

const input = inputOf(nodesYaml(3, ['us-west-2b', 'us-west-2a']), webDeployment({ replicas: 2 }));

const POOL = `{metadata: {name: default}, spec: {template: {spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}], nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}}`;

const sweep = (spec: string) => `apiVersion: berth.dev/v1alpha1
kind: Sweep
metadata: {name: web}
spec:
${spec}`;

function errorsOf(spec: string): string[] {
  const r = loadSweep({ name: 'sweep.yaml', text: sweep(spec) }, input);
  assert.ok(!r.ok, 'expected errors');
  return r.errors.map((e) => `${e.line}:${e.field ?? ''}: ${e.message}`);
}

describe('loadSweep', () => {
  it('targets every node in input order and every zone sorted when none are named; seeds default to [0]', () => {
    const r = loadSweep({ name: 'sweep.yaml', text: sweep('  scenarios: [{baseline: {}}, {nodeLoss: {}}, {zoneLoss: null}]\n') }, input);
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    assert.deepEqual(r.sweep.seeds, [0]);
    assert.deepEqual(r.sweep.scenarios, [{ type: 'baseline' }, { type: 'node-loss', targets: ['node-1', 'node-2', 'node-3'] }, { type: 'zone-loss', targets: ['us-west-2a', 'us-west-2b'] }]);
    assert.equal(cellCount(r.sweep), 6);
  });

  it('reads replica and NodePool axes; cells are their product × seeds × targets', () => {
    const r = loadSweep(
      {
        name: 'sweep.yaml',
        text: sweep(`  seeds: [1, 2]
  scenarios: [{nodeLoss: {nodes: [node-2]}}]
  parameters:
  - replicas: {workload: web, values: [1, 2, 3]}
  - nodePools: [{name: a, nodePools: [${POOL}]}, {name: b, nodePools: [${POOL}]}]
`),
      },
      input,
    );
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    assert.deepEqual(r.sweep.axes.map((a) => a.label), ['replicas Deployment/default/web', 'nodePools']);
    const pools = r.sweep.axes[1]!;
    assert.ok(pools.type === 'nodePools');
    assert.deepEqual(pools.variants.map((v) => [v.name, v.pools.map((p) => p.name)]), [['a', ['default']], ['b', ['default']]]);
    assert.equal(cellCount(r.sweep), 3 * 2 * 2 * 1);
  });

  it('refuses undeclared fields at their line, as every berth.dev kind does', () => {
    assert.deepEqual(errorsOf('  scenarios: [{nodeLoss: {}}]\n  seed: [1]\n'), ['6:spec: Unrecognized key: "seed"']);
  });

  it('refuses a scenario or parameter with two kinds, or none', () => {
    assert.deepEqual(errorsOf('  scenarios:\n  - {nodeLoss: {}, zoneLoss: {}}\n'), ['6:spec.scenarios[0]: Invalid value: a scenario has exactly one of baseline, nodeLoss, zoneLoss, spotInterruption, capacityLoss, found nodeLoss, zoneLoss']);
    assert.deepEqual(errorsOf('  scenarios: [{baseline: {}}]\n  parameters:\n  - {}\n'), ['7:spec.parameters[0]: Invalid value: a parameter has exactly one of replicas, nodePools, found none']);
  });

  it('refuses names the input does not have: nodes, zones, workloads, kinds that do not scale', () => {
    assert.deepEqual(errorsOf('  scenarios:\n  - nodeLoss: {nodes: [node-1, node-9]}\n  - zoneLoss: {zones: [eu-1a]}\n'), [
      '6:spec.scenarios[0].nodeLoss.nodes[1]: Not found: "node-9": no node of that name in the input',
      '7:spec.scenarios[1].zoneLoss.zones[0]: Not found: "eu-1a": no zone (topology.kubernetes.io/zone of a node) of that name in the input',
    ]);
    assert.deepEqual(errorsOf('  scenarios: [{baseline: {}}]\n  parameters:\n  - replicas: {workload: shop/web, values: [1]}\n  - replicas: {workload: DaemonSet/default/agent, values: [1]}\n'), [
      '7:spec.parameters[0].replicas.workload: Not found: no Deployment shop/web in the input',
      '8:spec.parameters[1].replicas.workload: Unsupported value: "DaemonSet": supported kinds: Deployment, StatefulSet, ReplicaSet',
    ]);
  });

  it("refuses a variant's invalid NodePool at its field, a nameless one, and a variant name twice", () => {
    const bad = POOL.replace('operator: In', 'operator: Within');
    const errors = errorsOf(`  scenarios: [{baseline: {}}]
  parameters:
  - nodePools:
    - {name: a, nodePools: [${bad}]}
    - {name: a, nodePools: [${POOL.replace('{name: default}', '{}')}]}
`);
    assert.equal(errors.length, 3, errors.join('\n'));
    assert.match(errors[0]!, /^8:spec\.parameters\[0\]\.nodePools\[0\]\.nodePools\[0\]\.spec\.template\.spec\.requirements\[0\]\.operator: /);
    assert.equal(errors[1], '9:spec.parameters[0].nodePools[1].name: Duplicate value: "a"');
    assert.match(errors[2]!, /^9:spec\.parameters\[0\]\.nodePools\[1\]\.nodePools\[0\]\.metadata\.name: Required value/);
  });

  it(`refuses a matrix of more than ${MAX_SWEEP_CELLS} cells`, () => {
    const seeds = Array.from({ length: 1000 }, (_, i) => i).join(', ');
    const values = Array.from({ length: 100 }, (_, i) => i).join(', ');
    const errors = errorsOf(`  seeds: [${seeds}]\n  scenarios: [{nodeLoss: {}}]\n  parameters: [{replicas: {workload: web, values: [${values}]}}]\n`);
    assert.deepEqual(errors, [`4:spec: Invalid value: the matrix has 300000 cells (a simulation each); at most ${MAX_SWEEP_CELLS}`]);
  });
});

describe('sweepJsonSchema', () => {
  it('docs/sweep.schema.json is what the validator exports (run npm run scenario-schema after a change)', () => {
    assert.deepEqual(JSON.parse(readFileSync('docs/sweep.schema.json', 'utf8')), sweepJsonSchema());
  });
});
