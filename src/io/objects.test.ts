import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dropNulls } from './objects.js';

describe('dropNulls', () => {
  test('null fields go at every level; null list items stay', () => {
    const v = { a: null, b: { c: null, d: 1 }, e: [null, { f: null }], g: 'x' };
    assert.deepEqual(dropNulls(v), { b: { d: 1 }, e: [null, {}], g: 'x' });
  });

  test('a value without null fields is returned as it is, and a copy shares the branches without one', () => {
    const clean = { a: { b: [1, { c: 'x' }] }, d: true };
    assert.equal(dropNulls(clean), clean);
    const mixed = { keep: { x: 1 }, drop: { y: null } };
    const out = dropNulls(mixed) as typeof mixed;
    assert.equal(out.keep, mixed.keep);
    assert.deepEqual(out.drop, {});
  });

  test('the field order is kept', () => {
    assert.deepEqual(Object.keys(dropNulls({ z: 1, a: null, m: { n: null }, b: 2 }) as object), ['z', 'm', 'b']);
  });

  test('a __proto__ key stays an own field of the copy', () => {
    const v = JSON.parse('{"__proto__": {"x": 1}, "n": null}') as Record<string, unknown>;
    const out = dropNulls(v) as Record<string, unknown>;
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });

  test('a null deep down is found in one walk (not one per level)', () => {
    let v: unknown = { n: null };
    for (let i = 0; i < 200; i++) v = { x: v };
    let out = dropNulls(v);
    for (let i = 0; i < 200; i++) out = (out as { x: unknown }).x;
    assert.deepEqual(out, {});
  });
});
