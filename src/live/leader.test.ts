import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextBackoff } from './kube.js';
import { leaseAction, microTime } from './leader.js';

const T = Date.parse('2026-12-03T08:00:00Z');

test('lease decisions: create, renew, wait while held, take over once expired or released', () => {
  assert.equal(leaseAction(undefined, 'a', T), 'create');
  assert.equal(leaseAction({ holderIdentity: 'a', renewTime: new Date(T - 60_000).toISOString(), leaseDurationSeconds: 15 }, 'a', T), 'renew');
  const heldByB = { holderIdentity: 'b', renewTime: microTime(T - 14_999), leaseDurationSeconds: 15 };
  assert.equal(leaseAction(heldByB, 'a', T), 'wait');
  assert.equal(leaseAction(heldByB, 'a', T + 1), 'takeover');
  assert.equal(leaseAction({ holderIdentity: '', renewTime: microTime(T), leaseDurationSeconds: 15 }, 'a', T), 'takeover', 'released');
});

test('lease times are written with microseconds', () => {
  assert.equal(microTime(Date.parse('2026-12-03T08:00:01.234Z')), '2026-12-03T08:00:01.234000Z');
});

test('informer retries back off exponentially up to 30 s', () => {
  const delays = [0];
  for (let i = 0; i < 9; i++) delays.push(nextBackoff(delays.at(-1)!));
  assert.deepEqual(delays.slice(1), [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});
