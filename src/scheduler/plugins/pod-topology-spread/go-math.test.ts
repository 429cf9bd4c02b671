import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { goLog, goRound } from './go-math.js';

describe('goLog', () => {
  // Expected values printed by Go (strconv.FormatFloat(math.Log(x), 'g', -1, 64)).
  const cases: { name: string; x: number; want: number }[] = [
    { name: 'log 3 (one domain + 2)', x: 3, want: 1.0986122886681096 },
    { name: 'log 4', x: 4, want: 1.3862943611198906 },
    { name: 'log 5', x: 5, want: 1.6094379124341003 },
    { name: 'log 12', x: 12, want: 2.4849066497880004 },
    { name: 'log 14, where V8 Math.log is one ulp lower', x: 14, want: 2.639057329615259 },
    { name: 'log 176, where V8 Math.log is one ulp lower', x: 176, want: 5.170483995038152 },
    { name: 'log 185, where V8 Math.log is one ulp higher', x: 185, want: 5.220355825078324 },
    { name: 'log 220, where V8 Math.log is one ulp higher', x: 220, want: 5.393627546352361 },
    { name: 'log 1 is 0', x: 1, want: 0 },
    { name: 'log 0 is -Inf', x: 0, want: -Infinity },
    { name: 'log +Inf is +Inf', x: Infinity, want: Infinity },
  ];
  for (const tc of cases) {
    it(tc.name, () => assert.equal(goLog(tc.x), tc.want));
  }
  it('log of a negative number is NaN', () => assert.ok(Number.isNaN(goLog(-1))));
});

describe('goRound', () => {
  const cases: { name: string; x: number; want: number }[] = [
    { name: 'half rounds up for positives', x: 2.5, want: 3 },
    { name: 'half rounds away from zero for negatives', x: -2.5, want: -3 },
    { name: 'below half rounds down', x: 6.4999, want: 6 },
    { name: 'integers stay', x: 7, want: 7 },
  ];
  for (const tc of cases) {
    it(tc.name, () => assert.equal(goRound(tc.x), tc.want));
  }
});
