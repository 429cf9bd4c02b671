import { test } from 'node:test';
import assert from 'node:assert/strict';
import { throughput } from './throughput.js';

test('counts pods per complete 1-second window and ignores the partial last one', () => {
  // 3 pods in [0,1) s, 1 in [1,2) s, 5 in [2,3) s, 2 in the partial window [3,3.5) s.
  const done = [10, 500, 900, 1500, 2000, 2100, 2200, 2300, 2999, 3100, 3400];
  const t = throughput(done, 3.5);
  assert.equal(t.windows, 3);
  assert.equal(t.p50, 3);
  assert.equal(t.p90, 5);
  assert.equal(t.mean, 11 / 3.5);
});

test('a phase shorter than one second has a mean but no window percentiles', () => {
  const t = throughput([100, 200], 0.4);
  assert.equal(t.mean, 5);
  assert.equal(t.p50, null);
  assert.equal(t.p90, null);
});
