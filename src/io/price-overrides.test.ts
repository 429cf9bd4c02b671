import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { applyPriceOverrides } from '../provisioner/catalog/prices.js';
import { formatDiagnostic } from './diagnostics.js';
import { loadPriceOverrides } from './price-overrides.js';

const TYPES = bundledInstanceTypes();
const HEAD = 'apiVersion: berth.dev/v1alpha1\nkind: PriceOverrides\nspec:\n';

function load(body: string) {
  return loadPriceOverrides({ name: 'prices.yaml', text: HEAD + body }, TYPES);
}

function errors(body: string): string[] {
  const r = load(body);
  assert.equal(r.ok, false);
  return r.ok ? [] : r.errors.map(formatDiagnostic);
}

function price(types: ReturnType<typeof applyPriceOverrides>, name: string, zone: string, ct: string): number {
  return types.find((t) => t.name === name)!.offerings.find((o) => o.zone === zone && o.capacityType === ct)!.price;
}

describe('price overrides', () => {
  it('a zone price beats a type-wide price, which beats a discount; discounts apply to the matching family and capacity type only', () => {
    const r = load(`  prices:
  - {instanceType: m5.large, capacityType: on-demand, price: 0.08}
  - {instanceType: m5.large, capacityType: on-demand, zone: us-west-2b, price: 0.07}
  discounts:
  - {name: savings-plan, percent: 25, instanceFamilies: [m5, c5]}
`);
    assert.ok(r.ok);
    const repriced = applyPriceOverrides(TYPES, r.overrides);
    assert.equal(price(repriced, 'm5.large', 'us-west-2a', 'on-demand'), 0.08);
    assert.equal(price(repriced, 'm5.large', 'us-west-2b', 'on-demand'), 0.07);
    assert.equal(price(repriced, 'm5.xlarge', 'us-west-2a', 'on-demand'), 0.192 * 0.75);
    assert.equal(price(repriced, 'm5.xlarge', 'us-west-2a', 'spot'), price(TYPES, 'm5.xlarge', 'us-west-2a', 'spot'));
    assert.equal(price(repriced, 'm6i.large', 'us-west-2a', 'on-demand'), 0.096);
    // Untouched types are the same objects (no needless rebuild).
    assert.equal(repriced.find((t) => t.name === 'm6i.large'), TYPES.find((t) => t.name === 'm6i.large'));
  });

  it('the first matching discount applies; discounts do not stack', () => {
    const r = load('  discounts:\n  - {name: ec2-plan, percent: 40, instanceTypes: [c5.large]}\n  - {name: compute-plan, percent: 20}\n');
    assert.ok(r.ok);
    const repriced = applyPriceOverrides(TYPES, r.overrides);
    assert.equal(price(repriced, 'c5.large', 'us-west-2a', 'on-demand'), 0.085 * 0.6);
    assert.equal(price(repriced, 'c5.xlarge', 'us-west-2a', 'on-demand'), 0.17 * 0.8);
  });

  it('names file, line, column and field of each mistake', () => {
    assert.deepEqual(errors('  prices:\n  - {instanceType: m5.lrage, capacityType: on-demand, price: 0.1}\n'), [
      'prices.yaml:5:20: PriceOverrides: spec.prices[0].instanceType: Not found: instance type "m5.lrage" is not in the catalog',
    ]);
    assert.match(errors('  prices:\n  - {instanceType: m5.large, capacityType: spot, zone: us-east-1a, price: 0.1}\n')[0]!, /^prices\.yaml:5:.*spec\.prices\[0\]\.zone: Not found: m5\.large has no spot offering in zone "us-east-1a"/);
    assert.match(errors('  prices:\n  - {instanceType: m5.large, capacityType: spot, price: -1}\n')[0]!, /^prices\.yaml:5:\d+: PriceOverrides: spec\.prices\[0\]\.price: /);
    assert.match(errors('  discounts:\n  - {name: x, percent: 120}\n')[0]!, /^prices\.yaml:5:\d+: PriceOverrides: spec\.discounts\[0\]\.percent: /);
    assert.match(errors('  discounts:\n  - {name: x, percent: 10, instanceFamilies: [m9]}\n')[0]!, /spec\.discounts\[0\]\.instanceFamilies\[0\]: Not found: no instance type of family "m9"/);
    assert.match(errors('  discount: []\n')[0]!, /^prices\.yaml:4:3: PriceOverrides: spec: .*discount/);
    assert.match(errors('  prices:\n  - {instanceType: m5.large, capacityType: spot, price: 1}\n  - {instanceType: m5.large, capacityType: spot, price: 2}\n')[0]!, /spec\.prices\[1\]: Duplicate value: m5\.large spot is priced twice/);
  });
});
