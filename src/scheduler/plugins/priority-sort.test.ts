import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { buildPlugin, mkPod } from '../../../test/fixtures/plugin-harness.js';
import type { QueuedPod, QueueSortPlugin } from '../framework.js';
import { newPrioritySort, PRIORITY_SORT } from './priority-sort.js';

const queued = (priority: number, timestamp: number, seq = 0): QueuedPod => ({ pod: mkPod(`p${priority}-${timestamp}-${seq}`, { priority }), timestamp, seq });

describe('PrioritySort (TestLess)', () => {
  const cases = [
    { name: 'p1.priority less than p2.priority', a: queued(0, 1), b: queued(100, 1), want: false },
    { name: 'p1.priority greater than p2.priority', a: queued(100, 1), b: queued(0, 1), want: true },
    { name: 'equal priority. p1 is added to schedulingQ earlier than p2', a: queued(100, 1), b: queued(100, 2), want: true },
    { name: 'equal priority. p2 is added to schedulingQ earlier than p1', a: queued(100, 2), b: queued(100, 1), want: false },
    { name: 'equal priority and timestamp: input order breaks the tie', a: queued(100, 1, 0), b: queued(100, 1, 1), want: true },
    { name: 'a pod is not less than itself', a: queued(100, 1, 0), b: queued(100, 1, 0), want: false },
    { name: 'higher priority wins even when queued later', a: queued(1000, 9), b: queued(100, 1), want: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<QueueSortPlugin>(newPrioritySort);
      assert.equal(plugin.name, PRIORITY_SORT);
      assert.equal(plugin.less(c.a, c.b), c.want);
    });
  }
});
