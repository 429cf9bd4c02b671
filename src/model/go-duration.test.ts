import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration } from './go-duration.js';

// Expected values are Go 1.26's time.ParseDuration answers for the same strings.
describe('parseGoDuration', () => {
  const ok: [string, bigint][] = [
    ['720h', 2_592_000_000_000_000n],
    ['1h30m', 5_400_000_000_000n],
    ['30s', 30_000_000_000n],
    ['0', 0n],
    ['+5s', 5_000_000_000n],
    ['-2m', -120_000_000_000n],
    ['1.5h', 5_400_000_000_000n],
    ['.5s', 500_000_000n],
    ['5.s', 5_000_000_000n],
    ['1µs', 1000n],
    ['1μs', 1000n],
    ['1us', 1000n],
    ['3ms', 3_000_000n],
    ['1h1h', 7_200_000_000_000n],
    ['5m0s', 300_000_000_000n],
    ['00012m', 720_000_000_000n],
    ['0.1ns', 0n],
    ['1.9ns', 1n],
    ['0.333333333333333333h', 1_199_999_999_999n],
    ['1.0000000000000000000000001s', 1_000_000_000n],
    ['123456789.123456789s', 123_456_789_123_456_789n],
    ['2562047h47m16.854775807s', 9_223_372_036_854_775_807n],
    ['9223372036854775807ns', 9_223_372_036_854_775_807n],
    ['-2562047h47m16.854775808s', -9_223_372_036_854_775_808n],
  ];
  for (const [text, nanos] of ok) it(text, () => assert.equal(parseGoDuration(text), nanos));

  const bad: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['-', 'time: invalid duration "-"'],
    ['.s', 'time: invalid duration ".s"'],
    ['h', 'time: invalid duration "h"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1hr', 'time: unknown unit "hr" in duration "1hr"'],
    ['1e3s', 'time: unknown unit "e" in duration "1e3s"'],
    ['1_0s', 'time: unknown unit "_" in duration "1_0s"'],
    ['2562047h47m16.854775808s', 'time: invalid duration "2562047h47m16.854775808s"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['9999999999999999999h', 'time: invalid duration "9999999999999999999h"'],
  ];
  for (const [text, message] of bad) it(`rejects ${JSON.stringify(text)}`, () => assert.throws(() => parseGoDuration(text), { message }));
});
