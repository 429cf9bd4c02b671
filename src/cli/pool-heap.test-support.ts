// A pool worker (cli/pool.ts) that fills its heap to `fillMb` MB, then reports its heap limit in MB.

import { getHeapStatistics } from 'node:v8';

export default function heapLimitMb(fillMb: number): number {
  const kept: number[][] = [];
  while (getHeapStatistics().used_heap_size < fillMb * 2 ** 20) kept.push(new Array(1e5).fill(kept.length));
  return Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
}
