// Nightly bad-input fuzzing of the berth CLI:
//   npm run fuzz -- --runs 100000 --seed 7 [--from I] [--jobs 2] [--max-minutes N] [--no-huge] [--only I]
// (SIGTERM or ^C stops it cleanly, with the summary and the next input to run: `--from` goes on
// from there, so a long run can be done in parts)
// Inputs come from fast-check's generator, seeded: input I of seed S is always the same
// case (`--only I` re-runs just that one). `--jobs N` runs N CLI workers side by side;
// an input identical to one already run (same command, arguments and text: about one
// in ten) is judged by the outcome it had, without running it again. Prints counts by
// command, exit code and error-message class, time per command, the slowest input, and
// the first failing input (also written to a folder, to reproduce it by hand).

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { CliRunner, messageClasses, problems, type Outcome } from './harness.js';
import { fuzzCase, type FuzzCase } from './inputs.js';

const { values } = parseArgs({
  options: {
    'max-minutes': { type: 'string', default: '0' },
    runs: { type: 'string', default: '1000' },
    from: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    jobs: { type: 'string', default: '1' },
    only: { type: 'string' },
    'no-huge': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const from = Number(values.from);
const seed = Number(values.seed);
const jobs = Math.max(1, Number(values.jobs));
const only = values.only === undefined ? undefined : Number(values.only);
// A time cap for shared machines: the run stops cleanly and reports how many it did.
const maxMs = Number(values['max-minutes']) * 60_000;
// Stopping by signal (kill -TERM, ^C) finishes the inputs in flight and prints the summary, like --max-minutes.
let stoppedBy = '';
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (stoppedBy = signal));

/**
 * Input `i` of the seed, generated lazily in blocks (a block's 10 MB inputs are the
 * only large values held): block b is fast-check's sample for seed*1,000,003+b.
 */
const BLOCK = 500;
const arbitrary = fuzzCase({ huge: !values['no-huge'] });
let block: { index: number; cases: FuzzCase[] } = { index: -1, cases: [] };
function caseAt(i: number): FuzzCase {
  const b = Math.floor(i / BLOCK);
  if (block.index !== b) block = { index: b, cases: fc.sample(arbitrary, { seed: seed * 1_000_003 + b, numRuns: BLOCK }) };
  return block.cases[i % BLOCK]!;
}

const keyOf = (c: FuzzCase) => {
  const h = createHash('sha256').update(`${c.command}\0${c.args.join('\0')}`);
  for (const f of c.files) h.update(`\0${f.name}\0`).update(f.text);
  return h.digest('hex');
};

const byCode = new Map<string, number>();
const classes = new Map<string, number>();
const msByCommand = new Map<string, number>();
const seen = new Map<string, Outcome>();
let slowest = { cpuMs: 0, damage: '' };
let done = 0;
let repeats = 0;
let failure: { index: number; c: FuzzCase; o: Outcome; problems: string[] } | undefined;
const started = Date.now();
const elapsed = () => Math.round((Date.now() - started) / 1000);
/** CPU seconds of the whole run so far: every thread (workers, generation, GC), user + system. */
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1e6);
};

function record(index: number, c: FuzzCase, o: Outcome, repeat: boolean): void {
  const key = `${c.command} exit ${o.code}`;
  byCode.set(key, (byCode.get(key) ?? 0) + 1);
  for (const m of messageClasses(o.stderr)) classes.set(m, (classes.get(m) ?? 0) + 1);
  if (!repeat) msByCommand.set(c.command, (msByCommand.get(c.command) ?? 0) + o.cpuMs);
  if (!repeat && o.cpuMs > slowest.cpuMs) slowest = { cpuMs: o.cpuMs, damage: `${c.command}: ${c.damage}` };
  const p = problems(c, o);
  if (p.length > 0 && (!failure || index < failure.index)) failure = { index, c, o, problems: p };
  if (++done % 1000 === 0) process.stderr.write(`${done}/${runs} inputs (${repeats} repeats), ${elapsed()} s, ${(done / ((Date.now() - started) / 1000)).toFixed(1)} inputs/s, ${cpuSeconds()} CPU s\n`);
}

const indexes = only !== undefined ? [only] : Array.from({ length: runs }, (_, i) => from + i);
let next = 0;
const inFlight = new Map<string, Promise<Outcome>>();
async function work(runner: CliRunner): Promise<void> {
  while (next < indexes.length && !failure && !stoppedBy && !(maxMs > 0 && Date.now() - started > maxMs)) {
    const index = indexes[next++]!;
    const c = caseAt(index);
    const key = keyOf(c);
    const earlier = seen.get(key) ?? inFlight.get(key);
    if (earlier) {
      repeats++;
      record(index, c, await earlier, true);
      continue;
    }
    const running = runner.run(c);
    inFlight.set(key, running);
    const o = await running;
    inFlight.delete(key);
    seen.set(key, { ...o, stderr: o.stderr.slice(0, 4096) });
    record(index, c, o, false);
  }
}

const runners = Array.from({ length: jobs }, () => new CliRunner());
try {
  await Promise.all(runners.map(work));
} finally {
  await Promise.all(runners.map((r) => r.close()));
}

const distinct = `${done - repeats} distinct`;
if (failure) {
  const dir = mkdtempSync(join(tmpdir(), `berth-fuzz-failure-${seed}-${failure.index}-`));
  mkdirSync(dir, { recursive: true });
  for (const f of failure.c.files) writeFileSync(join(dir, f.name), f.text);
  const command = `berth ${failure.c.command} ${failure.c.args.map((a) => a.replaceAll('{dir}', dir)).join(' ')}`;
  console.log(`FAIL at input ${failure.index} of seed ${seed} (${done} inputs judged, ${distinct}, ${elapsed()} s): ${failure.problems.join('; ')}`);
  console.log(`rerun: npm run fuzz -- --seed ${seed} --only ${failure.index}${values['no-huge'] ? ' --no-huge' : ''}\nby hand: ${command}\ndamage: ${failure.c.damage}\nstderr: ${failure.o.stderr.slice(0, 2000)}`);
  process.exitCode = 1;
} else {
  // Inputs are taken in order and the ones in flight finish, so the judged ones are from..from+done-1.
  const stopped = done < indexes.length ? ` (stopped by ${stoppedBy || '--max-minutes'} after ${done} of ${indexes.length}: inputs ${from}-${from + done - 1}; go on with --from ${from + done})` : '';
  console.log(`PASS: ${done} inputs (${distinct}; seed ${seed}${from ? `, from ${from}` : ''}, ${jobs} job(s)) in ${elapsed()} s, ${cpuSeconds()} CPU s, ${(done / Math.max(1, elapsed())).toFixed(1)} inputs/s, 0 failures${stopped}`);
}
console.log('\nby command and exit code:');
for (const [k, n] of [...byCode].sort()) console.log(`  ${String(n).padStart(7)}  ${k}`);
console.log(`\n${classes.size} distinct error-message classes:`);
for (const [k, n] of [...classes].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(7)}  ${k.slice(0, 160)}`);
console.log('\nCPU time by command (distinct inputs, worker threads, summed over workers):');
for (const [k, ms] of [...msByCommand].sort()) console.log(`  ${String(Math.round(ms / 1000)).padStart(7)} s  ${k}`);
console.log(`\nslowest input: ${Math.round(slowest.cpuMs)} ms of CPU (${slowest.damage})`);
