import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LayeredMap } from './layered-map.js';

test('LayeredMap reads through to its base until written, and never writes the base', () => {
  const base = new Map([
    ['a', 1],
    ['b', 2],
  ]);
  const m = new LayeredMap(base);
  assert.equal(m.get('a'), 1);
  assert.equal(m.has('c'), false);
  m.set('a', 10).set('c', 3);
  assert.equal(m.delete('b'), true);
  assert.equal(m.delete('b'), false);
  assert.equal(m.delete('zz'), false);
  assert.deepEqual([m.get('a'), m.get('b'), m.get('c'), m.has('b'), m.has('c')], [10, undefined, 3, false, true]);
  m.set('b', 4);
  assert.equal(m.get('b'), 4);
  assert.deepEqual([...base], [
    ['a', 1],
    ['b', 2],
  ]);
});

test('two LayeredMaps over one base do not see each other', () => {
  const base = new Map([['a', 1]]);
  const x = new LayeredMap(base);
  const y = new LayeredMap(base);
  x.delete('a');
  y.set('a', 5);
  assert.deepEqual([x.has('a'), y.get('a'), base.get('a')], [false, 5, 1]);
});
