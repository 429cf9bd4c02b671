import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledInstanceTypes } from './catalog/catalog.js';
import { UnavailableOfferings } from './unavailable-offerings.js';

const types = bundledInstanceTypes().slice(0, 3);
const first = types[0]!;

test('apply: the same array while no offering is unavailable, a marked copy while one is, the same array again once it expired', () => {
  const cache = new UnavailableOfferings(1000);
  assert.equal(cache.apply(types, 0), types);
  cache.mark(first.name, first.offerings[0]!, 0);
  const marked = cache.apply(types, 500);
  assert.notEqual(marked, types);
  assert.equal(marked[0]!.offerings[0]!.available, false);
  assert.equal(marked[1], types[1]);
  assert.equal(cache.apply(types, 1000), types);
  assert.equal(cache.isUnavailable(first.name, first.offerings[0]!, 1000), false);
});
