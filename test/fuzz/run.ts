// Nightly bad-input fuzzing of the berth CLI:
//   npm run fuzz -- --runs 100000 --seed 7 [--no-huge]
// Prints counts by command, exit code and error-message class, the slowest input,
// and every failing input (fast-check's shrunk counterexample and its seed/path).

import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { CliRunner, messageClasses, problems } from './harness.js';
import { fuzzCase, type FuzzCase } from './inputs.js';

const { values } = parseArgs({ options: { 'max-minutes': { type: 'string', default: '0' }, runs: { type: 'string', default: '1000' }, seed: { type: 'string', default: '1' }, 'no-huge': { type: 'boolean', default: false } } });
const runs = Number(values.runs);
const seed = Number(values.seed);

const runner = new CliRunner();
const byCode = new Map<string, number>();
const classes = new Map<string, number>();
const msByCommand = new Map<string, number>();
let slowest = { ms: 0, damage: '' };
let done = 0;
const started = Date.now();
// A time cap for shared machines: the run stops cleanly and reports how many it did.
const maxMs = Number(values['max-minutes']) * 60_000;
const limit = maxMs > 0 ? { interruptAfterTimeLimit: maxMs, markInterruptAsFailure: false } : {};
try {
  await fc.assert(
    fc.asyncProperty(fuzzCase({ huge: !values['no-huge'] }), async (c: FuzzCase) => {
      const o = await runner.run(c);
      const key = `${c.command} exit ${o.code}`;
      byCode.set(key, (byCode.get(key) ?? 0) + 1);
      msByCommand.set(c.command, (msByCommand.get(c.command) ?? 0) + o.ms);
      for (const m of messageClasses(o.stderr)) classes.set(m, (classes.get(m) ?? 0) + 1);
      if (o.ms > slowest.ms) slowest = { ms: o.ms, damage: `${c.command}: ${c.damage}` };
      if (++done % 1000 === 0) process.stderr.write(`${done}/${runs} inputs, ${Math.round((Date.now() - started) / 1000)} s\n`);
      const p = problems(c, o);
      if (p.length > 0) throw new Error(`${p.join('; ')}\ncommand: ${c.command} ${c.args.join(' ')}\ndamage: ${c.damage}\nstderr: ${o.stderr.slice(0, 2000)}`);
    }),
    { numRuns: runs, seed, endOnFailure: true, ...limit },
  );
  console.log(`PASS: ${done} inputs (seed ${seed}) in ${Math.round((Date.now() - started) / 1000)} s, 0 failures`);
} catch (e) {
  const err = e as Error & { cause?: unknown };
  const header = err.message.split('\n').filter((l) => /^(Property failed|\{ seed:|Shrunk)/.test(l)).join('\n');
  console.log(`FAIL after ${done} inputs (seed ${seed}):\n${header}\n${err.cause instanceof Error ? err.cause.message : err.message}`);
  process.exitCode = 1;
} finally {
  await runner.close();
}
console.log('\nby command and exit code:');
for (const [k, n] of [...byCode].sort()) console.log(`  ${String(n).padStart(7)}  ${k}`);
console.log(`\n${classes.size} distinct error-message classes:`);
for (const [k, n] of [...classes].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(7)}  ${k.slice(0, 160)}`);
console.log('\ntotal time by command:');
for (const [k, ms] of [...msByCommand].sort()) console.log(`  ${String(Math.round(ms / 1000)).padStart(7)} s  ${k}`);
console.log(`\nslowest input: ${Math.round(slowest.ms)} ms (${slowest.damage})`);
