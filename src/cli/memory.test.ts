import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { affordableWorkers, cgroupMemoryLimit, defaultHeapMb, MIN_WORKER_HEAP_MB, outOfMemoryMessage, OUT_OF_MEMORY_EXIT, userV8SizeMb, WORKER_HEAP_FLOOR_MB, WORKER_HEAP_PER_OBJECT_KB, workerHeapMb } from './memory.js';

const GB = 1024 ** 3;

test('the cgroup limit: v2 memory.max, else v1; none for max, unlimited or unreadable', () => {
  const files = (m: Record<string, string>) => (path: string) => m[path];
  assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory.max': '2147483648\n' })), 2 * GB);
  assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory.max': 'max\n' })), undefined);
  assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '1073741824\n' })), GB);
  assert.equal(cgroupMemoryLimit(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' })), undefined);
  assert.equal(cgroupMemoryLimit(files({})), undefined);
});

test("the launcher's heap: three quarters of the usable memory, unless the user set a limit", () => {
  assert.equal(defaultHeapMb(24 * GB), 18432);
  assert.equal(defaultHeapMb(GB), 768);
  assert.equal(userV8SizeMb(['--max-old-space-size=4000'], 'max-old-space-size'), 4000);
  assert.equal(userV8SizeMb(['--max_old_space_size', '300', '--max-old-space-size=500'], 'max-old-space-size'), 500, 'the last one wins, as in node');
  assert.equal(userV8SizeMb(['--max-semi-space-size=64', ''], 'max-old-space-size'), undefined);
  assert.equal(userV8SizeMb(['--max-semi-space-size=32', ''], 'max-semi-space-size'), 32);
});

test("workers share what the main thread's heap leaves, never below the minimum", () => {
  assert.deepEqual(workerHeapMb(2, undefined, { limit: 18 * GB, used: 2 * GB }), { sizedMb: 8192, shareMb: 8192 });
  assert.equal(workerHeapMb(64, undefined, { limit: 4 * GB, used: GB }).shareMb, MIN_WORKER_HEAP_MB);
});

test('as many workers as the main thread\'s limit has room for at their sized heaps, at least one', () => {
  assert.equal(affordableWorkers(105_229, { limit: 6 * GB, used: GB / 2 }), 2, '105,229 pods and nodes: 2,672 MB each in 5.5 GB');
  assert.equal(affordableWorkers(6_229, { limit: 6 * GB, used: GB / 2 }), 5, 'a small input: the 1 GB floor each');
  assert.equal(affordableWorkers(105_229, { limit: 2 * GB, used: GB / 2 }), 1);
});

test("a worker's heap is sized from the input's pods and nodes within its share: the floor for a small one, in proportion for a large one", () => {
  const heap = { limit: 18 * GB, used: GB };
  assert.equal(workerHeapMb(2, 6_229, heap).sizedMb, WORKER_HEAP_FLOOR_MB);
  assert.equal(workerHeapMb(2, 105_229, heap).sizedMb, Math.ceil((105_229 * WORKER_HEAP_PER_OBJECT_KB) / 1024));
  assert.equal(workerHeapMb(2, 105_229, heap).sizedMb, 2672);
  assert.deepEqual(workerHeapMb(2, 1_000_000, heap), { sizedMb: 8704, shareMb: 8704 }, 'never above the share');
});

test('the out-of-memory line names the heap, its limit, the input files and their size, and what to try', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-memory-'));
  const file = join(dir, 'cluster.yaml');
  writeFileSync(file, 'x'.repeat(3 * 1024 * 1024));
  assert.equal(
    outOfMemoryMessage('worker', 4096, ['check', `--cluster=${file}`, '-o', 'json', '--jobs', '2'], 24 * GB),
    `berth: out of memory: a worker thread's JavaScript heap reached its limit of 4,096 MB on 3 MB of input (${file}); try fewer workers (--jobs), a larger limit (NODE_OPTIONS=--max-old-space-size=MB; this machine has 24,576 MB), or a smaller input`,
  );
});

test('a worker thread that runs out of heap stops the pool with the one-line error, not the process', async () => {
  // In a node whose own heap is small, so that the worker's share is the minimum and fills fast.
  const script = `import { withPool } from ${JSON.stringify(new URL('./pool.ts', import.meta.url).href)};
    await withPool(new URL(${JSON.stringify(new URL('./oom-worker.test-support.ts', import.meta.url).href)}), {}, 1, 'test', (run) => run(0))
      .catch((e) => { process.stdout.write(JSON.stringify({ exitCode: e.exitCode, message: e.message })); });`;
  const file = join(mkdtempSync(join(tmpdir(), 'berth-memory-')), 'exhaust.mjs');
  writeFileSync(file, script);
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--max-old-space-size=300', '--import', 'tsx', file], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  const e = JSON.parse(out) as { exitCode: number; message: string };
  assert.equal(e.exitCode, OUT_OF_MEMORY_EXIT);
  assert.match(e.message, new RegExp(`^berth: out of memory: a worker thread's JavaScript heap reached its limit of \\d+ MB; try fewer workers \\(--jobs\\)`));
});

test("a worker has the heap limit the pool gives it, though the main thread's was set with --max-old-space-size, and once one outgrows it every task goes on with the share", async () => {
  // One worker, sized from an input of one object (the floor) under a main thread limit of 1,600 MB (its share, about 1,500 MB):
  // the second task outgrows it, and so would the two queued behind it: all three end with the share.
  const script = `import { withPool } from ${JSON.stringify(new URL('./pool.ts', import.meta.url).href)};
    const limits = await withPool(new URL(${JSON.stringify(new URL('./pool-heap.test-support.ts', import.meta.url).href)}), {}, 1, 'test', (run) => Promise.all([0, 1, 1, 1].map((big) => run(big * (${WORKER_HEAP_FLOOR_MB} + 100)))), 1);
    process.stdout.write(JSON.stringify(limits));`;
  const file = join(mkdtempSync(join(tmpdir(), 'berth-memory-')), 'limits.mjs');
  writeFileSync(file, script);
  const out = await new Promise<string>((resolve, reject) => execFile(process.execPath, ['--max-old-space-size=1600', '--import', 'tsx', file], (error, stdout) => (error ? reject(error) : resolve(stdout))));
  const [sized, ...roomy] = JSON.parse(out) as number[];
  assert.ok(sized! >= WORKER_HEAP_FLOOR_MB && sized! < WORKER_HEAP_FLOOR_MB + 100, `the sized worker's limit: ${sized} MB`);
  assert.equal(roomy.length, 3);
  for (const limit of roomy) assert.ok(limit > WORKER_HEAP_FLOOR_MB + 300 && limit < 1600 + 100, `the tasks that outgrew it ran with the share: ${roomy.join(', ')} MB`);
});
