// Replays every case the conformance runner shrank (conformance/regressions/*.json)
// against berth alone and checks it reproduces the stored kube-scheduler result.
// No Go needed: the oracle's answer is in the file.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runBerth } from './berth.js';
import { compareResults, formatMismatches } from './compare.js';
import { readRegressions } from './regressions.js';

const regressions = readRegressions();

test('the regressions folder holds cases', () => {
  assert.ok(regressions.length > 0, 'expected at least one conformance/regressions/*.json');
});

for (const { file, regression } of regressions) {
  test(`${file}: ${regression.description}`, () => {
    const { mismatches } = compareResults(regression.oracle, runBerth(regression.case));
    assert.equal(mismatches.length, 0, `berth differs from kube-scheduler:\n${formatMismatches(mismatches)}`);
  });
}
