import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMergePatch, composeMergePatches } from './patches.js';

describe('JSON merge patches', () => {
  // The examples of RFC 7386 appendix A, a selection.
  const rfc: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of rfc) it(`upstream: RFC 7386 ${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () => assert.deepEqual(applyMergePatch(target, patch), want));

  it('composing two patches of one object applies like applying both in turn', () => {
    const target = { spec: { replicas: 2, template: { spec: { containers: [1] } } } };
    const a = { spec: { replicas: 3 } };
    const b = { spec: { template: { spec: { affinity: { x: 1 } } } } };
    assert.deepEqual(applyMergePatch(target, composeMergePatches(a, b)), applyMergePatch(applyMergePatch(target, a), b));
  });
});
