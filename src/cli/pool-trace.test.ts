import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { countGcs, type GcCounts, type TraceLine } from './pool-trace.js';

describe('the pool trace', () => {
  it("counts a GCProfiler's collections by kind, and their pauses in ms", () => {
    const into: GcCounts = { scavenges: 1, markCompacts: 0, pauseMs: 1 };
    countGcs(into, [
      { gcType: 'Scavenge', cost: 1500 },
      { gcType: 'MarkSweepCompact', cost: 20_000 },
      { gcType: 'IncrementalMarking', cost: 500 },
    ]);
    assert.deepEqual(into, { scavenges: 2, markCompacts: 1, pauseMs: 23 });
  });

  it("a check's workers trace each task with the thread's collections and memory so far and, with BERTH_POOL_TRACE_HEAP, the heap kept after it", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'berth-trace-')), 'trace.jsonl');
    const r = spawnSync(process.execPath, ['bin/berth.js', 'check', '-f', 'examples/kube-dns-required.yaml', '-o', 'json', '--jobs', '2'], { encoding: 'utf8', env: { ...process.env, BERTH_POOL_TRACE: file, BERTH_POOL_TRACE_HEAP: '1' } });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    const tasks = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TraceLine)
      .filter((l) => l.event === 'task');
    assert.ok(tasks.length > 0);
    for (const t of tasks) {
      assert.equal(typeof t['retainedHeapMb'], 'number');
      assert.ok((t['retainedHeapMb'] as number) > 0);
      assert.ok(t.gc && t.gc.scavenges >= 0 && t.gc.markCompacts >= 1, 'the full collection that measured the heap is counted in its line');
      const m = t.memoryMb!;
      assert.ok(m.heap >= m.used && m.used > 0 && m.rss > m.used, `the thread's heap within the process's memory: ${JSON.stringify(m)}`);
    }
  });
});
