import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  formatResource,
  milliValue,
  nanosToMilli,
  nanosToWhole,
  parseGoInt64,
  parseQuantity,
  QuantityError,
  quantityNanos,
  resourceValue,
  wholeValue,
} from './quantity.js';

// Expected numbers were produced by apimachinery v0.37.2 itself: each input
// decoded with Quantity.UnmarshalJSON, then MilliValue() and Value().
describe('milliValue and wholeValue match Quantity.MilliValue/Value', () => {
  const cases: { name: string; in: string | number; milli: number; whole: number }[] = [
    { name: 'nano', in: '1n', milli: 1, whole: 1 },
    { name: 'micro', in: '1u', milli: 1, whole: 1 },
    { name: 'milli', in: '1m', milli: 1, whole: 1 },
    { name: 'no suffix', in: '1', milli: 1000, whole: 1 },
    { name: 'kilo', in: '1k', milli: 1_000_000, whole: 1000 },
    { name: 'mega', in: '1M', milli: 1e9, whole: 1e6 },
    { name: 'giga', in: '1G', milli: 1e12, whole: 1e9 },
    { name: 'tera', in: '1T', milli: 1e15, whole: 1e12 },
    { name: 'kibi', in: '1Ki', milli: 1_024_000, whole: 1024 },
    { name: 'mebi', in: '1Mi', milli: 1_048_576_000, whole: 1_048_576 },
    { name: 'gibi', in: '1Gi', milli: 1_073_741_824_000, whole: 1_073_741_824 },
    { name: 'tebi', in: '1Ti', milli: 1_099_511_627_776_000, whole: 1_099_511_627_776 },
    { name: 'exponent e', in: '1e3', milli: 1_000_000, whole: 1000 },
    { name: 'exponent E', in: '1E3', milli: 1_000_000, whole: 1000 },
    { name: 'exponent with +', in: '1e+3', milli: 1_000_000, whole: 1000 },
    { name: 'negative exponent', in: '1e-3', milli: 1, whole: 1 },
    { name: 'negative exponent E', in: '1E-3', milli: 1, whole: 1 },
    { name: 'fraction with exponent', in: '1.5e2', milli: 150_000, whole: 150 },
    { name: 'fraction with exponent 2', in: '1.2e3', milli: 1_200_000, whole: 1200 },
    { name: 'sub-nano exponent rounds up to 1n', in: '0.5e-9', milli: 1, whole: 1 },
    { name: 'tiny exponent', in: '1e-50', milli: 1, whole: 1 },
    { name: 'zero with a huge exponent', in: '0e9999', milli: 0, whole: 0 },
    { name: 'explicit plus', in: '+1', milli: 1000, whole: 1 },
    { name: 'trailing dot', in: '1.', milli: 1000, whole: 1 },
    { name: 'leading dot', in: '.5', milli: 500, whole: 1 },
    { name: 'trailing dot before suffix', in: '1.G', milli: 1e12, whole: 1e9 },
    { name: '0.1m cpu is one millicore', in: '0.1m', milli: 1, whole: 1 },
    { name: '1.5 rounds up to 2 whole units', in: '1.5', milli: 1500, whole: 2 },
    { name: '2.5m rounds up to 3m', in: '2.5m', milli: 3, whole: 1 },
    { name: '1.0005 rounds up to 1001m', in: '1.0005', milli: 1001, whole: 2 },
    { name: 'fractional binary', in: '0.5Mi', milli: 524_288_000, whole: 524_288 },
    { name: 'fractional binary with remainder', in: '0.1Gi', milli: 107_374_182_400, whole: 107_374_183 },
    { name: 'fractional Ki', in: '100.035Ki', milli: 102_435_840, whole: 102_436 },
    { name: 'beyond nano rounds up', in: '3.001n', milli: 1, whole: 1 },
    { name: 'ten decimals', in: '0.0000000001', milli: 1, whole: 1 },
    { name: 'leading zeros', in: '00012', milli: 12_000, whole: 12 },
    { name: 'negative', in: '-1', milli: -1000, whole: -1 },
    { name: 'negative rounds away from zero', in: '-1.5', milli: -1500, whole: -2 },
    { name: 'tiny negative stays negative', in: '-0.1m', milli: -1, whole: -1 },
    { name: 'trailing space is trimmed (UnmarshalJSON)', in: '1 ', milli: 1000, whole: 1 },
    { name: 'leading space is trimmed', in: ' 1', milli: 1000, whole: 1 },
    { name: 'ideographic space is trimmed', in: '1\u3000', milli: 1000, whole: 1 },
    // ParseQuantity reads a number without digits as zero on its int64 path.
    { name: 'lone dot is zero', in: '.', milli: 0, whole: 0 },
    { name: 'lone minus is zero', in: '-', milli: 0, whole: 0 },
    { name: 'lone plus is zero', in: '+', milli: 0, whole: 0 },
    { name: 'bare Gi is zero', in: 'Gi', milli: 0, whole: 0 },
    { name: 'bare Ti is zero', in: 'Ti', milli: 0, whole: 0 },
    { name: 'bare m is zero', in: 'm', milli: 0, whole: 0 },
    { name: 'bare e3 is zero', in: 'e3', milli: 0, whole: 0 },
    { name: 'dot Gi is zero', in: '.Gi', milli: 0, whole: 0 },
    // YAML numbers arrive as JS numbers.
    { name: 'number 0.5', in: 0.5, milli: 500, whole: 1 },
    { name: 'number 0.1', in: 0.1, milli: 100, whole: 1 },
    { name: 'number 2', in: 2, milli: 2000, whole: 2 },
    { name: 'number 1e-7', in: 1e-7, milli: 1, whole: 1 },
    { name: 'number 1e3', in: 1e3, milli: 1_000_000, whole: 1000 },
    { name: 'number -0', in: -0, milli: 0, whole: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(milliValue(c.in), c.milli, 'milli');
      assert.equal(wholeValue(c.in), c.whole, 'whole');
    });
  }
});

describe('quantityNanos holds the value in nano-units like Quantity', () => {
  const cases: { name: string; in: string; nanos: bigint }[] = [
    { name: 'peta', in: '1P', nanos: 10n ** 24n },
    { name: 'exa', in: '1E', nanos: 10n ** 27n },
    { name: 'pebi', in: '1Pi', nanos: (1n << 50n) * 10n ** 9n },
    { name: 'exbi', in: '3Ei', nanos: 3n * (1n << 60n) * 10n ** 9n },
    { name: 'twelve exa', in: '12E', nanos: 12n * 10n ** 27n },
    { name: 'rounded up at nano', in: '1.1E-9', nanos: 2n },
    { name: 'below one nano becomes one nano', in: '0.0000000005', nanos: 1n },
    { name: 'negative rounds away from zero', in: '-3.001n', nanos: -4n },
    { name: 'exponent kept as int32 like upstream', in: '1e4294967296', nanos: 10n ** 9n },
  ];
  for (const c of cases) it(c.name, () => assert.equal(quantityNanos(c.in), c.nanos));

  it('parseQuantity is the same amount over 10^9', () => {
    assert.deepEqual(parseQuantity('1.5Ki'), { num: 1536n * 10n ** 9n, den: 10n ** 9n });
  });
});

describe('invalid quantities are rejected with QuantityError', () => {
  const cases: { name: string; in: string | number; message?: RegExp }[] = [
    { name: 'empty', in: '', message: /empty/ },
    { name: 'only spaces', in: '   ', message: /empty/ },
    { name: 'two dots', in: '1.2.3', message: /unknown suffix "\.3"/ },
    { name: 'Gb is not a suffix', in: '1Gb', message: /unknown suffix "Gb"/ },
    { name: 'inner space', in: '1 Gi', message: /unknown suffix " Gi"/ },
    { name: 'letters', in: 'abc', message: /no digits/ },
    { name: 'double sign', in: '--1', message: /no digits/ },
    { name: 'exponent without digits', in: '1e', message: /unknown suffix "e"/ },
    { name: 'exponent sign without digits', in: '1E+' },
    { name: 'exponent minus without digits', in: '1e-' },
    { name: 'fractional exponent', in: '1e3.5' },
    { name: 'double e', in: '1ee3' },
    { name: 'lowercase ki', in: '1ki' },
    { name: 'i alone', in: '1i' },
    { name: 'mi', in: '1mi' },
    { name: 'digits after a binary suffix', in: '1Ki3' },
    { name: 'exponent beyond int64', in: '1e9223372036854775808' },
    // Without digits ParseQuantity only survives on its int64 path.
    { name: 'bare Pi (big-decimal path)', in: 'Pi', message: /no digits/ },
    { name: 'bare Ei (big-decimal path)', in: 'Ei', message: /no digits/ },
    { name: 'bare e-10 (below nano scale)', in: 'e-10', message: /no digits/ },
    // JSON escapes control characters, so UnmarshalJSON's TrimSpace never sees them.
    { name: 'tab is not trimmed', in: '1\t' },
    { name: 'newline is not trimmed', in: '\n1' },
    { name: 'byte order mark is not space', in: '\ufeff1' },
    { name: 'NaN', in: Number.NaN },
    { name: 'Infinity', in: Number.POSITIVE_INFINITY },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(() => quantityNanos(c.in), (e: unknown) => e instanceof QuantityError && (c.message === undefined || c.message.test(e.message)));
    });
  }

  it('results beyond safe integers are refused, not rounded', () => {
    assert.throws(() => wholeValue('1Ei'), (e: unknown) => e instanceof QuantityError && /too large/.test(e.message));
    assert.throws(() => milliValue('1P'), (e: unknown) => e instanceof QuantityError && /too large/.test(e.message));
    assert.throws(() => quantityNanos('1e100'), (e: unknown) => e instanceof QuantityError && /too large/.test(e.message));
  });
});

describe('resourceValue and nano conversions', () => {
  it('cpu is in millicores, everything else in whole units', () => {
    assert.equal(resourceValue('cpu', '250m'), 250);
    assert.equal(resourceValue('memory', '1.5'), 2);
    assert.equal(resourceValue('nvidia.com/gpu', 2), 2);
  });
  it('sums are exact before rounding: 0.5m + 0.5m is 1m', () => {
    const sum = quantityNanos('0.5m') + quantityNanos('0.5m');
    assert.equal(nanosToMilli(sum), 1);
    assert.equal(milliValue('0.5m') * 2, 2);
  });
  it('whole units round away from zero', () => {
    assert.equal(nanosToWhole(1n), 1);
    assert.equal(nanosToWhole(-1n), -1);
    assert.equal(nanosToWhole(0n), 0);
  });
});

describe('parseGoInt64 (strconv.ParseInt base 10, 64 bits)', () => {
  const cases: { in: string; want: bigint | undefined }[] = [
    { in: '5', want: 5n },
    { in: '+5', want: 5n },
    { in: '-5', want: -5n },
    { in: '007', want: 7n },
    { in: '9223372036854775807', want: 9223372036854775807n },
    { in: '9223372036854775808', want: undefined },
    { in: '-9223372036854775808', want: -9223372036854775808n },
    { in: '5.0', want: undefined },
    { in: ' 5', want: undefined },
    { in: '', want: undefined },
    { in: '1_000', want: undefined },
    { in: '0x10', want: undefined },
  ];
  for (const c of cases) it(JSON.stringify(c.in), () => assert.equal(parseGoInt64(c.in), c.want));
});

describe('formatResource', () => {
  const cases: { name: string; resource: string; value: number; want: string }[] = [
    { name: 'whole cores', resource: 'cpu', value: 2000, want: '2' },
    { name: 'millicores', resource: 'cpu', value: 1500, want: '1500m' },
    { name: 'zero cpu', resource: 'cpu', value: 0, want: '0' },
    { name: 'memory in Gi', resource: 'memory', value: 3 * 2 ** 30, want: '3Gi' },
    { name: 'memory in Ki', resource: 'memory', value: 1536 * 1024, want: '1536Ki' },
    { name: 'memory with half a Ki', resource: 'memory', value: 1536, want: '1536' },
    { name: 'memory not a multiple of 1024', resource: 'memory', value: 1000, want: '1000' },
    { name: 'zero memory', resource: 'memory', value: 0, want: '0' },
    { name: 'hugepages', resource: 'hugepages-2Mi', value: 2 * 2 ** 20, want: '2Mi' },
    { name: 'counts', resource: 'pods', value: 110, want: '110' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(formatResource(c.resource, c.value), c.want));
});

describe('properties', () => {
  it('formatResource output parses back to the same value', () => {
    const resource = fc.constantFrom('cpu', 'memory', 'ephemeral-storage', 'hugepages-2Mi', 'pods', 'example.com/foo');
    fc.assert(
      fc.property(resource, fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (name, value) => {
        assert.equal(resourceValue(name, formatResource(name, value)), value);
      }),
      { numRuns: 2000 },
    );
  });

  it('a decimal string and the same value scaled by a suffix agree', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.constantFrom(['m', -3], ['', 0], ['k', 3], ['M', 6]), (n, [suffix, exp]) => {
        const plain = exp >= 0 ? `${n}${'0'.repeat(exp)}` : `${n}e${exp}`;
        assert.equal(quantityNanos(`${n}${suffix}`), quantityNanos(plain));
      }),
    );
  });

  it('rounding is monotone: a larger quantity never converts to less', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), (a, d) => {
        assert.ok(nanosToMilli(a + d) >= nanosToMilli(a));
        assert.ok(nanosToWhole(a + d) >= nanosToWhole(a));
      }),
    );
  });
});
