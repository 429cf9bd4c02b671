import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IntOrString } from '../../model/manifest.js';
import { resolveFenceposts, scaledValue } from './int-or-percent.js';

describe('scaledValue', () => {
  const cases: { name: string; v: IntOrString; total: number; up: boolean; want: number }[] = [
    { name: 'integer as is', v: 3, total: 10, up: true, want: 3 },
    { name: '25% of 10 rounded up', v: '25%', total: 10, up: true, want: 3 },
    { name: '25% of 10 rounded down', v: '25%', total: 10, up: false, want: 2 },
    { name: '33% of 3 up', v: '33%', total: 3, up: true, want: 1 },
    { name: '33% of 3 down', v: '33%', total: 3, up: false, want: 0 },
    { name: '100% of 7', v: '100%', total: 7, up: false, want: 7 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(scaledValue(c.v, c.total, c.up), c.want));
  it('rejects a string that is not a percentage', () => assert.throws(() => scaledValue('3', 10, true), /not a percentage/));
});

describe('resolveFenceposts', () => {
  const cases: { name: string; surge: IntOrString; unavailable: IntOrString; desired: number; want: [number, number] }[] = [
    { name: 'defaults 25%/25% of 4', surge: '25%', unavailable: '25%', desired: 4, want: [1, 1] },
    { name: 'defaults 25%/25% of 1', surge: '25%', unavailable: '25%', desired: 1, want: [1, 0] },
    { name: 'both rounding to 0 allow one unavailable', surge: '0%', unavailable: '10%', desired: 5, want: [0, 1] },
    { name: 'integers', surge: 2, unavailable: 1, desired: 10, want: [2, 1] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = resolveFenceposts(c.surge, c.unavailable, c.desired);
      assert.deepEqual([r.maxSurge, r.maxUnavailable], c.want);
    });
  }
});
