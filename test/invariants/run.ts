// Nightly invariant run over random simulations:
//   npm run invariants -- --runs 10000 [--seed S]
// Every scenario runs with the invariant checker attached; every fifth runs twice
// and must give a byte-identical event log. Prints counts and the first failing
// scenario's text (replayable with `berth simulate`).

import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { runWithInvariants, scenarioArb, scenarioText } from './scenarios.js';

const { values } = parseArgs({ options: { 'max-minutes': { type: 'string', default: '0' }, runs: { type: 'string', default: '1000' }, seed: { type: 'string', default: '1' } } });
const runs = Number(values.runs);
const seed = Number(values.seed);
let done = 0;
let events = 0;
let replayed = 0;
const started = Date.now();
// A time cap for shared machines: the run stops cleanly and reports how many it did.
const maxMs = Number(values['max-minutes']) * 60_000;
const limit = maxMs > 0 ? { interruptAfterTimeLimit: maxMs, markInterruptAsFailure: false } : {};
try {
  fc.assert(
    fc.property(scenarioArb, (p) => {
      const text = scenarioText(p);
      const a = runWithInvariants(text);
      events += a.events;
      if (a.violations.length > 0) throw new Error(`${a.violations.length} violation(s): ${JSON.stringify(a.violations.slice(0, 5))}\n--- scenario ---\n${text}`);
      if (done % 5 === 0) {
        replayed++;
        if (runWithInvariants(text).log !== a.log) throw new Error(`same seed, different event log\n--- scenario ---\n${text}`);
      }
      if (++done % 500 === 0) process.stderr.write(`${done}/${runs} scenarios, ${Math.round((Date.now() - started) / 1000)} s\n`);
    }),
    { numRuns: runs, seed, ...limit },
  );
  console.log(`PASS: ${done} scenarios (seed ${seed}), ${events} events, ${replayed} replayed for determinism, 0 violations, ${Math.round((Date.now() - started) / 1000)} s`);
} catch (e) {
  const err = e as Error & { cause?: unknown };
  console.log(`FAIL after ${done} scenarios (seed ${seed}):\n${err.message.split('\n').filter((l) => /^(Property failed|\{ seed:|Shrunk)/.test(l)).join('\n')}\n${err.cause instanceof Error ? err.cause.message : err.message}`);
  process.exitCode = 1;
}
