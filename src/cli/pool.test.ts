import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openPool } from './pool.js';

const ECHO = new URL('./pool-echo.test-support.ts', import.meta.url);

describe('the worker pool', () => {
  it('opened before its data: every task sees the data, read once per worker, its SharedArrayBuffer shared; results in task order', async () => {
    const pool = openPool<{ text: string; nested: { list: number[] }; counter: SharedArrayBuffer }>(ECHO, 2);
    const counter = new SharedArrayBuffer(4);
    const data = { text: 'dump', nested: { list: [1, 2, 3] }, counter };
    const results = await pool.run(data, 'testing', (run: (task: number) => Promise<{ task: number; text: string; sum: number; sameData: boolean }>) => Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(run)));
    assert.deepEqual(
      results.map((r) => [r.task, r.text, r.sum, r.sameData]),
      [0, 1, 2, 3, 4, 5, 6, 7].map((t) => [t, 'dump', 6 + t, true]),
    );
    assert.equal(new Int32Array(counter)[0], 8);
  });

  it('a JavaScript module (a built install) runs without the TypeScript loader, which wants a writable cache directory', async () => {
    const plain = await openPool(new URL('./pool-plain.test-support.mjs', import.meta.url), 1).run({}, 'testing', (run: (task: number) => Promise<boolean>) => run(0));
    const typescript = await openPool(new URL('./pool-echo.test-support.ts', import.meta.url), 1).run({ text: '', nested: { list: [] }, counter: new SharedArrayBuffer(4) }, 'testing', async (run: (task: number) => Promise<unknown>) => run(0));
    assert.equal(plain, false);
    assert.ok(typescript, 'a TypeScript module still loads (berth run from its sources)');
  });

  it("a module's prepare makes, once per worker, what its tasks get instead of the data (which the worker then lets go)", async () => {
    const results = await openPool(new URL('./pool-prepare.test-support.ts', import.meta.url), 1).run({ text: 'dump' }, 'testing', (run: (task: number) => Promise<{ task: number; length: number; calls: number; data: boolean }>) => Promise.all([0, 1, 2].map(run)));
    assert.deepEqual(results, [0, 1, 2].map((task) => ({ task, length: 4, calls: 1, data: false })));
  });

  it('closes without having run anything (an input that did not load), and closing twice is harmless', async () => {
    const pool = openPool(ECHO, 2);
    await pool.close();
    await pool.close();
  });
});
