import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usePlainEnvironment } from './plain-env.js';

test('usePlainEnvironment: process.env becomes a plain object with the same variables', () => {
  const before = { ...process.env };
  usePlainEnvironment();
  assert.equal(Object.getPrototypeOf(process.env), Object.prototype);
  assert.deepEqual({ ...process.env }, before);
});
