import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchWindow } from './batch-window.js';

test('a batch closes after the idle time without new pods', () => {
  const w = new BatchWindow(1_000, 10_000);
  assert.equal(w.isOpen, false);
  w.touch(0);
  w.touch(500);
  assert.equal(w.closesAt(), 1_500);
  assert.equal(w.closeIfDue(1_499), false);
  assert.equal(w.closeIfDue(1_500), true);
  assert.equal(w.isOpen, false);
  assert.equal(w.closeIfDue(5_000), false, 'a closed window is never due');
});

test('a batch closes at the maximum even while pods keep arriving', () => {
  const w = new BatchWindow(1_000, 10_000);
  for (let t = 0; t <= 9_900; t += 900) w.touch(t);
  assert.equal(w.closesAt(), 10_000);
  assert.equal(w.closeIfDue(10_000), true);
  w.touch(12_000);
  assert.equal(w.closesAt(), 13_000, 'the next window starts afresh');
});
