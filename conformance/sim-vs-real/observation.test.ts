import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compare, turningPoints, type Observation } from './observation.js';

describe('turningPoints', () => {
  it('keeps the ends and where the direction changes', () => {
    assert.deepEqual(turningPoints([3, 5, 6, 4, 3, 1, 0]), [3, 6, 0]);
    assert.deepEqual(turningPoints([5, 4, 2, 1, 0]), [5, 0]);
    assert.deepEqual(turningPoints([4]), [4]);
  });
});

describe('compare: replicaSets', () => {
  const obs = (seq: number[]): Observation => ({ phases: [], replicaSets: { w1: [seq] } });
  it('a scale-down in fewer steps is the same sequence (one sync saw two pods become available)', () => {
    assert.deepEqual(compare(obs([4, 2, 0]), obs([4, 2, 1, 0])), []);
  });
  it('a different turn is a difference', () => {
    assert.equal(compare(obs([3, 5, 0]), obs([3, 6, 0])).length, 1);
    assert.equal(compare(obs([4, 0]), obs([4, 1])).length, 1);
  });
});
