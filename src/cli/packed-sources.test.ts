import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packSources, unpackSources } from './packed-sources.js';

test('packed sources are shared memory that every worker reads back to the same documents', () => {
  const sources = [{ name: 'a.yaml', validate: 'ignore' as const, documents: [{ index: 0, value: { kind: 'Node', metadata: { name: 'n1', labels: { a: 'b' } } } }] }, { name: 'b.yaml', documents: [] }];
  const packed = packSources(sources);
  assert.ok(packed instanceof SharedArrayBuffer);
  assert.deepEqual(unpackSources(packed), sources);
  assert.deepEqual(unpackSources(structuredClone(packed)), sources, 'what a worker receives: the same memory');
});
