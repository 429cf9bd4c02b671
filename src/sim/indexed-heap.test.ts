import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { IndexedHeap } from './indexed-heap.js';

interface Item {
  heapPos: number;
  key: number;
  readonly id: number;
}

const byKeyThenId = (a: Item, b: Item) => a.key < b.key || (a.key === b.key && a.id < b.id);

describe('IndexedHeap', () => {
  it('pops in order', () => {
    const h = new IndexedHeap(byKeyThenId);
    for (const [id, key] of [5, 1, 4, 1, 3].entries()) h.push({ heapPos: -1, key, id });
    const out: number[] = [];
    for (let x = h.pop(); x; x = h.pop()) out.push(x.id);
    assert.deepEqual(out, [1, 3, 4, 2, 0]);
    assert.equal(h.size, 0);
  });

  it('matches a sorted list under pushes, pops, removals and key changes', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), key: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('pop' as const) }),
      fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('rekey' as const), pick: fc.nat(), key: fc.integer({ min: 0, max: 20 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const heap = new IndexedHeap(byKeyThenId);
        let model: Item[] = [];
        let nextId = 0;
        for (const o of ops) {
          if (o.kind === 'push') {
            const item = { heapPos: -1, key: o.key, id: nextId++ };
            heap.push(item);
            model.push(item);
          } else if (o.kind === 'pop') {
            const want = [...model].sort((a, b) => (byKeyThenId(a, b) ? -1 : 1))[0];
            const got = heap.pop();
            assert.equal(got, want);
            if (got) assert.equal(got.heapPos, -1);
            model = model.filter((m) => m !== want);
          } else if (model.length > 0) {
            const item = model[o.pick % model.length]!;
            if (o.kind === 'remove') {
              heap.remove(item);
              model = model.filter((m) => m !== item);
            } else {
              item.key = o.key;
              heap.fix(item);
            }
          }
          assert.equal(heap.size, model.length);
        }
      }),
    );
  });
});
