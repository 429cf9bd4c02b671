import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

// `berth provision --optimize cost` end to end: the CLI loads HiGHS, the report survives the
// batch loop, and the table shows it.

const tmp = mkdtempSync(join(tmpdir(), 'berth-optimize-'));
const PODS = join(tmp, 'pods.yaml');
const deployment = (name: string, replicas: number, cpu: string, memory: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}}\nspec:\n  replicas: ${replicas}\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec:\n      containers:\n      - {name: c, image: i, resources: {requests: {cpu: ${cpu}, memory: ${memory}}}}\n`;
writeFileSync(PODS, `${deployment('web', 30, '700m', '1536Mi')}---\n${deployment('api', 7, '2300m', '3Gi')}`);

function provision(...args: string[]) {
  return spawnSync(process.execPath, ['bin/berth.js', 'provision', '-f', 'examples/nodepools/default.yaml', '-f', PODS, ...args], { encoding: 'utf8' });
}

describe('provision --optimize cost', () => {
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('reports the faithful $/h and the LP lower bound beside the plan, in JSON and in the table', () => {
    const json = provision('--optimize', 'cost', '-o', 'json');
    assert.equal(json.status, 0, json.stderr);
    const plan = JSON.parse(json.stdout) as { costPerHour: number; unschedulable: unknown[]; optimization?: { objective: string; faithfulCostPerHour: number; violations: unknown[]; lowerBound?: { costPerHour?: number; method: string } } };
    const o = plan.optimization;
    assert.ok(o, 'the optimization report is in the output');
    assert.equal(o.objective, 'cost');
    assert.deepEqual(plan.unschedulable, []);
    assert.ok(plan.costPerHour <= o.faithfulCostPerHour, `${plan.costPerHour} vs faithful ${o.faithfulCostPerHour}`);
    assert.ok(o.lowerBound?.costPerHour !== undefined && o.lowerBound.costPerHour > 0 && o.lowerBound.costPerHour <= plan.costPerHour, JSON.stringify(o.lowerBound));
    assert.match(o.lowerBound.method, /HiGHS/);

    const table = provision('--optimize', 'cost');
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /\nKarpenter-faithful plan: \d+\.\d{4} \$\/h/);
    assert.match(table.stdout, /\nlower bound: \d+\.\d{4} \$\/h \(LP relaxation \(HiGHS/);
  });

  it('an unknown objective is refused before anything is read', () => {
    const r = provision('--optimize', 'speed');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--optimize.*must be cost/);
  });
});
