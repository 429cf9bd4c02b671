import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

// `--prices` and `--region` change what `berth provision` buys.

const tmp = mkdtempSync(join(tmpdir(), 'berth-prices-'));
const POD = join(tmp, 'pod.yaml');
writeFileSync(POD, 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}\n');
const POOL = 'examples/nodepools/default.yaml';

function provision(...args: string[]): { code: number; claim?: { instanceType: string; zone: string; capacityType: string; pricePerHour: number }; err: string } {
  const r = spawnSync(process.execPath, ['bin/berth.js', 'provision', '-f', POOL, '-f', POD, '-o', 'json', ...args], { encoding: 'utf8' });
  const claim = r.status === 0 ? (JSON.parse(r.stdout) as { nodeClaims: { instanceType: string; zone: string; capacityType: string; pricePerHour: number }[] }).nodeClaims[0] : undefined;
  return { code: r.status ?? -1, ...(claim ? { claim } : {}), err: r.stderr };
}

describe('provision --prices / --region', () => {
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a negotiated price makes another offering the cheapest', () => {
    const before = provision();
    assert.equal(before.code, 0, before.err);
    const prices = join(tmp, 'prices.yaml');
    writeFileSync(prices, 'apiVersion: berth.dev/v1alpha1\nkind: PriceOverrides\nspec:\n  prices:\n  - {instanceType: m6i.xlarge, capacityType: on-demand, zone: us-west-2c, price: 0.001}\n');
    const after_ = provision('--prices', prices);
    assert.equal(after_.code, 0, after_.err);
    assert.deepEqual(after_.claim && [after_.claim.instanceType, after_.claim.zone, after_.claim.capacityType, after_.claim.pricePerHour], ['m6i.xlarge', 'us-west-2c', 'on-demand', 0.001]);
    assert.notEqual(before.claim?.instanceType, 'm6i.xlarge');
  });

  it('a bad price file is refused with its position; --region picks the region\'s zones', () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: berth.dev/v1alpha1\nkind: PriceOverrides\nspec:\n  prices:\n  - {instanceType: m6i.xlarge, capacityType: reserved, price: 1}\n');
    const r = provision('--prices', bad);
    assert.equal(r.code, 2);
    assert.match(r.err, /bad\.yaml:5:\d+: PriceOverrides: spec\.prices\[0\]\.capacityType: /);
    const east = provision('--region', 'us-east-1');
    assert.equal(east.code, 0, east.err);
    assert.match(east.claim!.zone, /^us-east-1[a-f]$/);
    assert.equal(provision('--region', 'mars-1').code, 2);
  });
});
