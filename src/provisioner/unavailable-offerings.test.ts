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

test('apply: one marked copy while the same offerings stay cached (re-marked or not), a new one when an offering comes or expires', () => {
  const cache = new UnavailableOfferings(1000);
  const [a, b] = [first.offerings[0]!, first.offerings[1]!];
  cache.mark(first.name, a, 0);
  const marked = cache.apply(types, 100);
  assert.equal(cache.apply(types, 200), marked, 'same offerings cached: the same array, so pool templates derived from it are reused');
  cache.mark(first.name, a, 300);
  assert.equal(cache.apply(types, 400), marked, 're-marking an offering that is still cached changes nothing');
  cache.mark(first.name, b, 500);
  const both = cache.apply(types, 600);
  assert.notEqual(both, marked);
  assert.deepEqual(both[0]!.offerings.slice(0, 2).map((o) => o.available), [false, false]);
  // a expires at 1300, b at 1500.
  const onlyB = cache.apply(types, 1300);
  assert.notEqual(onlyB, both);
  assert.deepEqual(onlyB[0]!.offerings.slice(0, 2).map((o) => o.available), [a.available, false]);
  assert.notEqual(cache.apply(types.slice(), 1400), onlyB, 'another catalog array: answered afresh');
});
