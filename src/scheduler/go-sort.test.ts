import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goSortSlice } from './go-sort.js';

interface Item {
  readonly key: number;
  readonly idx: number;
}

function items(n: number, keyOf: (i: number) => number): Item[] {
  return Array.from({ length: n }, (_, i) => ({ key: keyOf(i), idx: i }));
}

/** A rolling hash of the resulting order, to compare long permutations compactly. */
function orderHash(xs: readonly Item[]): number {
  let h = 0;
  for (const x of xs) h = (h * 31 + x.idx) % 2147483647;
  return h;
}

// Expected orders were produced by Go 1.26's sort.Slice on the same inputs.
const cases: { name: string; input: Item[]; hash: number; head?: string }[] = [
  { name: 'short slice with ties (insertion sort path)', input: items(20, (i) => (i * i) % 3), hash: 1854668380, head: '9,18,15,3,12,0,6,5,8,7,10,11,4,13,14,2,16,17,1,19' },
  { name: 'medium slice, ninther pivots', input: items(100, (i) => (i * i * 31 + 7 * i) % 7), hash: 488216079 },
  { name: 'many duplicates (partitionEqual)', input: items(300, (i) => (i * i * 17 + 5 * i) % 10), hash: 835978828 },
  { name: 'descending input with ties (reverse path)', input: items(60, (i) => Math.trunc((60 - i) / 4)), hash: 1885910218 },
  { name: 'two keys, long slice', input: items(1000, (i) => (i * i * 13 + 3 * i) % 2), hash: 745305246 },
  { name: 'organ pipe (repeated pattern breaking)', input: items(5000, (i) => (i < 5000 / 2 ? i : 5000 - i)), hash: 1148748929 },
  { name: 'sawtooth', input: items(1000, (i) => i % 50), hash: 1763836431 },
  { name: 'scattered keys', input: items(5000, (i) => (i * 7919) % 1000), hash: 1510219157 },
];

describe('goSortSlice', () => {
  for (const c of cases) {
    it(c.name, () => {
      const xs = [...c.input];
      goSortSlice(xs, (a, b) => a.key < b.key);
      for (let i = 1; i < xs.length; i++) assert.ok(xs[i - 1]!.key <= xs[i]!.key, 'sorted');
      if (c.head) assert.equal(xs.map((x) => x.idx).join(','), c.head);
      assert.equal(orderHash(xs), c.hash);
    });
  }

  it('sorts an empty slice', () => {
    const xs: number[] = [];
    goSortSlice(xs, (a, b) => a < b);
    assert.deepEqual(xs, []);
  });
});
