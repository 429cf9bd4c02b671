import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Verdict } from './judge.js';
import { laterAgreement, realRunWithRetries } from './real-runs.js';

const agree: Verdict = { agrees: true, choicesFollowed: 0, differences: [] };
const differ: Verdict = { agrees: false, choicesFollowed: 0, differences: [{ dimension: 'placement', phase: 'rollout w1', real: {}, sim: {} }] };

/** A real side whose successive runs give these verdicts; counts the runs asked for. */
function realRuns(...verdicts: Verdict[]) {
  const side = { asked: 0, again: async () => verdicts[side.asked++]! };
  return side;
}

describe('laterAgreement (--real-runs)', () => {
  it('is the number of the first further real run that agrees, and runs no more after it', async () => {
    const side = realRuns(differ, agree, agree);
    assert.equal(await laterAgreement(4, side.again), 3);
    assert.equal(side.asked, 2);
  });
  it('is undefined when every further run disagrees too, after runs 2…R and no more', async () => {
    const side = realRuns(differ, differ, differ);
    const seen: number[] = [];
    assert.equal(await laterAgreement(3, side.again, (_, run) => seen.push(run)), undefined);
    assert.equal(side.asked, 2);
    assert.deepEqual(seen, [2, 3]);
  });
  it('asks for no further run with --real-runs 1', async () => {
    const side = realRuns(agree);
    assert.equal(await laterAgreement(1, side.again), undefined);
    assert.equal(side.asked, 0);
  });
});

describe('realRunWithRetries (infrastructure failures)', () => {
  /** A real side whose successive runs fail with these messages, then finish. */
  const failing = (...messages: string[]) => {
    const side = { runs: 0, recovered: [] as string[], run: async () => (side.runs++ < messages.length ? Promise.reject(new Error(messages[side.runs - 1])) : 'observed'), recover: async (e: string, n: number) => void side.recovered.push(`${n}: ${e}`) };
    return side;
  };
  it('a run that finishes is the observation, with no recovery', async () => {
    const side = failing();
    assert.deepEqual(await realRunWithRetries(2, side.run, side.recover), { observation: 'observed' });
    assert.deepEqual(side.recovered, []);
  });
  it('a failed run is recovered from (the cluster restarted) and run again', async () => {
    const side = failing('timed out after 150s waiting for the cluster to settle');
    assert.deepEqual(await realRunWithRetries(2, side.run, side.recover), { observation: 'observed' });
    assert.deepEqual(side.recovered, ['1: timed out after 150s waiting for the cluster to settle']);
  });
  it('failing every try is an infrastructure failure with the last message, never an observation to judge', async () => {
    const side = failing('first', 'second', 'third');
    assert.deepEqual(await realRunWithRetries(2, side.run, side.recover), { infrastructureFailure: 'second' });
    assert.equal(side.runs, 2);
    assert.deepEqual(side.recovered, ['1: first']);
  });
});
