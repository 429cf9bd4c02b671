import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CriticalPaths } from './critical-paths.js';

type Step = [value: string, num: number];

describe('CriticalPaths', () => {
  const cases: { name: string; steps: Step[]; want: Step[] }[] = [
    { name: 'empty: both entries hold MaxInt32', steps: [], want: [['', 2147483647], ['', 2147483647]] },
    { name: 'keeps the two smallest of several domains', steps: [['z1', 3], ['z2', 1], ['z3', 2], ['z4', 5]], want: [['z2', 1], ['z3', 2]] },
    { name: 'ties keep the first domain seen', steps: [['z1', 1], ['z2', 1], ['z3', 1]], want: [['z1', 1], ['z2', 1]] },
    { name: 'an update of the minimum above the second swaps them', steps: [['z1', 1], ['z2', 2], ['z1', 3]], want: [['z2', 2], ['z1', 3]] },
    { name: 'an update of the second below the first swaps them', steps: [['z1', 1], ['z2', 2], ['z2', 0]], want: [['z2', 0], ['z1', 1]] },
    { name: 'an untracked domain dropping below the minimum takes first place', steps: [['z1', 2], ['z2', 3], ['z3', 4], ['z3', 1]], want: [['z3', 1], ['z1', 2]] },
    { name: 'an untracked domain between the two replaces the second', steps: [['z1', 1], ['z2', 4], ['z3', 5], ['z3', 2]], want: [['z1', 1], ['z3', 2]] },
    { name: 'an untracked domain growing changes nothing', steps: [['z1', 1], ['z2', 2], ['z3', 3], ['z3', 9]], want: [['z1', 1], ['z2', 2]] },
    // The initial entries carry the value "", so a domain named "" updates the first entry in place.
    { name: 'a domain with the empty value overwrites the first initial entry', steps: [['', 4]], want: [['', 4], ['', 2147483647]] },
    { name: 'the empty value stays in the first entry when a smaller domain arrives later', steps: [['', 4], ['z1', 1]], want: [['z1', 1], ['', 4]] },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const p = CriticalPaths.empty();
      for (const [v, n] of tc.steps) p.update(v, n);
      assert.deepEqual(p.entries().map((e) => [e.topologyValue, e.matchNum]), tc.want);
      assert.equal(p.minMatchNum, tc.want[0]![1]);
    });
  }

  it('clone is independent', () => {
    const p = CriticalPaths.empty();
    p.update('z1', 1);
    const c = p.clone();
    c.update('z1', 5);
    assert.equal(p.minMatchNum, 1);
    assert.equal(c.minMatchNum, 5);
  });
});
