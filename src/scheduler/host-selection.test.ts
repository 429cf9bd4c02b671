import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { numFeasibleNodesToFind, selectHost } from './scheduler.js';

// schedule_one.go numFeasibleNodesToFind: below 100 nodes all of them; else
// percentage (adaptive 50 - n/125, at least 5, when 0) of n, at least 100.
describe('numFeasibleNodesToFind', () => {
  const cases: { name: string; pct: number; nodes: number; want: number }[] = [
    { name: '50 nodes: all', pct: 0, nodes: 50, want: 50 },
    { name: '99 nodes: all', pct: 0, nodes: 99, want: 99 },
    { name: '100 nodes: 50% is 50, raised to 100', pct: 0, nodes: 100, want: 100 },
    { name: '1000 nodes: 42%', pct: 0, nodes: 1000, want: 420 },
    { name: '5000 nodes: 10%', pct: 0, nodes: 5000, want: 500 },
    { name: '6250 nodes: adaptive floor 5%, 312.5 truncated', pct: 0, nodes: 6250, want: 312 },
    { name: '10000 nodes: floor 5%', pct: 0, nodes: 10000, want: 500 },
    { name: 'explicit 10% of 100 is raised to 100', pct: 10, nodes: 100, want: 100 },
    { name: 'explicit 30% of 1000', pct: 30, nodes: 1000, want: 300 },
    { name: 'explicit 100%', pct: 100, nodes: 1000, want: 1000 },
    { name: 'explicit 50% of 199 truncates to 99, raised to 100', pct: 50, nodes: 199, want: 100 },
    { name: 'explicit 1% of 50000', pct: 1, nodes: 50000, want: 500 },
    { name: 'explicit percentage ignored below 100 nodes', pct: 10, nodes: 80, want: 80 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(numFeasibleNodesToFind(c.pct, c.nodes), c.want));
});

/**
 * NewSortedScoredNodes + Pop: container/heap Init (down() from n/2-1 to 0 with
 * Less = higher total) then the root. Ties go to whichever node the sift leaves
 * on top, not simply the first or the last. The answers below were worked by hand
 * from heap.go and agree with Go's container/heap run on the same inputs.
 */
describe('selectHost reproduces container/heap tie-breaking', () => {
  const cases: { name: string; totals: number[]; want: number }[] = [
    // n=5: down(1): children 3 (7), 4 (9); 9 is not above 9, stop. down(0): children 1 (9), 2 (9);
    // right is not above left so j=1; 9 > 5, swap; then at 1 the children are 7 and 9 (index 4);
    // 9 > 5, swap. Root: original index 1.
    { name: '[5,9,9,7,9] → index 1', totals: [5, 9, 9, 7, 9], want: 1 },
    { name: 'all equal → index 0', totals: [1, 1, 1, 1], want: 0 },
    { name: 'two equal → index 0', totals: [3, 3], want: 0 },
    { name: 'one node', totals: [0], want: 0 },
    { name: '[2,5,5] → index 1', totals: [2, 5, 5], want: 1 },
    { name: '[7,1,7,1,7,1,7] → index 0 (root already maximal)', totals: [7, 1, 7, 1, 7, 1, 7], want: 0 },
    // down(3) pulls index 7 up; down(1) then brings it to the root past index 5's equal score.
    { name: '[1,2,3,4,5,6,6,6] → index 7', totals: [1, 2, 3, 4, 5, 6, 6, 6], want: 7 },
    { name: '[1,9,2,9,3,9] → index 1', totals: [1, 9, 2, 9, 3, 9], want: 1 },
    { name: '[10,20,30,30,20,10] → index 3', totals: [10, 20, 30, 30, 20, 10], want: 3 },
    { name: 'unique max anywhere wins', totals: [4, 2, 8, 1, 3], want: 2 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(selectHost(c.totals), c.want));

  it('does not reorder its input', () => {
    const input = [5, 9, 9, 7, 9];
    selectHost(input);
    assert.deepEqual(input, [5, 9, 9, 7, 9]);
  });

  it('always picks a node with the highest total', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 30 }), (totals) => {
        assert.equal(totals[selectHost(totals)], Math.max(...totals));
      }),
    );
  });
});
