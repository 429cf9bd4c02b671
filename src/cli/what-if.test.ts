import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';

const DIR = new URL('../../test/fixtures/what-if/', import.meta.url).pathname;

function cli(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, ['bin/berth.js', ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('berth what-if', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'berth-what-if-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('prints the comparison table and writes an SVG plot with one line per variant', () => {
    const svg = join(tmp, 'plot.svg');
    const csv = join(tmp, 'load.csv');
    writeFileSync(csv, 'time,web\n0m,6\n40m,3\n');
    const r = cli(['what-if', `${DIR}scale-down.yaml`, '--variants', `${DIR}variants.yaml`, '--load-curve', csv, '--plot', svg]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^VARIANT\s+POLICY\s+AFTER\s+BUDGETS\s+TOTAL \$/);
    assert.match(r.out, /\nnever\s+WhenEmptyOrUnderutilized\s+Never\s+10%/);
    assert.match(r.out, /\nwhen-empty\s+WhenEmpty\s+30s\s+10%/);
    const plot = readFileSync(svg, 'utf8');
    assert.match(plot, /^<svg /);
    assert.match(plot, /never/);
    assert.match(plot, /when-empty/);
  });

  it('--jobs 2 runs the variants on two worker threads with the same output as --jobs 1', () => {
    const one = cli(['what-if', `${DIR}scale-down.yaml`, '--variants', `${DIR}variants.yaml`, '-o', 'json', '--jobs', '1']);
    const two = cli(['what-if', `${DIR}scale-down.yaml`, '--variants', `${DIR}variants.yaml`, '-o', 'json', '--jobs', '2']);
    assert.equal(one.code, 0, one.err);
    assert.equal(two.code, 0, two.err);
    assert.equal(two.out, one.out);
    assert.deepEqual((JSON.parse(two.out) as { variants: { name: string }[] }).variants.map((v) => v.name), ['never', 'when-empty']);
  });

  it('-o json carries the $/h series; bad input is refused with its position', () => {
    const r = cli(['what-if', `${DIR}scale-down.yaml`, '--variants', `${DIR}variants.yaml`, '-o', 'json', '--sample', '30m']);
    assert.equal(r.code, 0, r.err);
    const doc = JSON.parse(r.out) as { variants: { name: string; costSeries: unknown[] }[] };
    assert.deepEqual(doc.variants.map((v) => [v.name, v.costSeries.length]), [['never', 3], ['when-empty', 3]]);
    const bad = join(tmp, 'bad.csv');
    writeFileSync(bad, 'time,nope\n');
    const e = cli(['what-if', `${DIR}scale-down.yaml`, '--variants', `${DIR}variants.yaml`, '--load-curve', bad]);
    assert.equal(e.code, 2);
    assert.match(e.err, /bad\.csv:1:6: nope: Not found: no Deployment default\/nope/);
  });

  it('a variant with optimize: cost runs berth\'s cost step past Karpenter\'s fixed point, and says so in the JSON', () => {
    const variants = join(tmp, 'optimize.yaml');
    writeFileSync(variants, 'apiVersion: berth.dev/v1alpha1\nkind: DisruptionVariants\nspec:\n  variants:\n  - {name: karpenter, disruption: {budgets: [{nodes: "100%"}]}}\n  - {name: cost, disruption: {budgets: [{nodes: "100%"}]}, optimize: cost}\n');
    const r = cli(['what-if', `${DIR}spread-fixed-point.yaml`, '--variants', variants, '-o', 'json', '--jobs', '1']);
    assert.equal(r.code, 0, r.err);
    const doc = JSON.parse(r.out) as { variants: { name: string; optimize?: string; finalCostPerHour: number }[] };
    assert.deepEqual(doc.variants.map((v) => [v.name, v.optimize, v.finalCostPerHour]), [['karpenter', undefined, 1.152], ['cost', 'cost', 0.768]]);
    const table = cli(['what-if', `${DIR}spread-fixed-point.yaml`, '--variants', variants, '--jobs', '2']);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /\nkarpenter\s+WhenEmptyOrUnderutilized\s+0s/);
    assert.match(table.out, /\ncost\s+WhenEmptyOrUnderutilized \+optimize cost\s+0s/);
  });
});
