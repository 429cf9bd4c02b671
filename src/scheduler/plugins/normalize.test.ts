import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { defaultNormalizeScore, normalizeToMax } from './normalize.js';

describe('defaultNormalizeScore (TestDefaultNormalizeScore)', () => {
  const cases = [
    { reverse: false, scores: [1, 2, 3, 4], want: [25, 50, 75, 100] },
    { reverse: true, scores: [1, 2, 3, 4], want: [75, 50, 25, 0] },
    { reverse: false, scores: [1000, 10, 20, 30], want: [100, 1, 2, 3] },
    { reverse: true, scores: [1000, 10, 20, 30], want: [0, 99, 98, 97] },
    { reverse: false, scores: [1, 1, 1, 1], want: [100, 100, 100, 100] },
    { reverse: false, scores: [1000, 1, 1, 1], want: [100, 0, 0, 0] },
    { reverse: true, scores: [0, 1, 1, 1], want: [100, 0, 0, 0] },
    { reverse: false, scores: [0, 0, 0, 0], want: [0, 0, 0, 0] },
    { reverse: true, scores: [0, 0, 0, 0], want: [100, 100, 100, 100] },
  ];
  for (const c of cases) {
    it(`${c.reverse ? 'reverse ' : ''}[${c.scores.join(',')}]`, () => {
      const scores = c.scores.map((score, i) => ({ name: `n${i}`, score }));
      defaultNormalizeScore(100, c.reverse, scores);
      assert.deepEqual(scores.map((s) => s.score), c.want);
    });
  }

  it('normalizeToMax scales to MaxNodeScore', () => {
    const scores = [{ name: 'a', score: 3 }, { name: 'b', score: 6 }];
    normalizeToMax(false)(undefined, undefined, scores);
    assert.deepEqual(scores.map((s) => s.score), [50, 100]);
  });
});
