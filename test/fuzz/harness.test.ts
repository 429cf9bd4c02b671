import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CliRunner } from './harness.js';
import type { FuzzCase } from './inputs.js';
import { currentThreadId, threadCpuMs } from './thread-cpu.js';

const scripted = (budgetMs: number, stallMs = 60_000) =>
  new CliRunner({ entry: new URL('./scripted-worker.test-support.mjs', import.meta.url), budgetOf: () => budgetMs, stallMs });
const input = (...argv: string[]): FuzzCase => ({ command: argv[0] as FuzzCase['command'], args: argv.slice(1), files: [], damage: 'none' });

describe('the fuzzer budget is CPU time of the worker', () => {
  const runners: CliRunner[] = [];
  after(() => Promise.all(runners.map((r) => r.close())));
  const runner = (budgetMs: number, stallMs?: number) => (runners.push(scripted(budgetMs, stallMs)), runners.at(-1)!);

  it('an input held up 1.5 s of wall time but using no CPU passes a 300 ms budget (a loaded machine does not decide)', async () => {
    const o = await runner(300).run(input('sleep', '1500'));
    assert.equal(o.code, 0);
    assert.ok(o.ms >= 1500, `wall ${o.ms} ms`);
    assert.ok(o.cpuMs < 300, `cpu ${o.cpuMs} ms`);
  });

  it('an input burning CPU is stopped once it has used its budget', async () => {
    const r = runner(300);
    const o = await r.run(input('spin'));
    assert.equal(o.code, 'hang');
    assert.ok(o.cpuMs > 300, `cpu ${o.cpuMs} ms`);
    // The worker was replaced: the next input runs.
    assert.equal((await r.run(input('sleep', '10'))).code, 0);
  });

  it('an input that waits forever without CPU is stopped after the stall time', async () => {
    const o = await runner(60_000, 500).run(input('idle'));
    assert.equal(o.code, 'hang');
    assert.ok(o.ms >= 500 && o.ms < 30_000, `wall ${o.ms} ms`);
  });
});

describe('threadCpuMs', () => {
  it("counts this thread's own CPU", () => {
    const tid = currentThreadId();
    const before = threadCpuMs(tid);
    const until = performance.now() + 200;
    let spins = 0;
    while (performance.now() < until) spins++;
    assert.ok(spins > 0);
    assert.ok(threadCpuMs(tid) - before > 0);
  });
});
