// Go's time.ParseDuration, for the duration strings Kubernetes APIs carry
// ("720h", "1h30m", "1.5s"). The result is exact: nanoseconds as a bigint, with
// Go's overflow rule (at most 2^63-1 ns, about 292 years) and Go's messages.

const UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NANOS = (1n << 63n) - 1n;
const OVERFLOW = 1n << 63n;

export class DurationError extends Error {}

function fail(message: string, orig: string): never {
  throw new DurationError(`time: ${message} ${JSON.stringify(orig)}`);
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** Parses a Go duration string into nanoseconds; throws DurationError with Go's message. */
export function parseGoDuration(orig: string): bigint {
  let s = orig;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') fail('invalid duration', orig);
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) fail('invalid duration', orig);
    let i = 0;
    let whole = 0n;
    while (isDigit(s[i])) {
      whole = whole * 10n + BigInt(s.charCodeAt(i) - 48);
      if (whole > OVERFLOW) fail('invalid duration', orig);
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // The fraction keeps at most the digits that fit in 63 bits, as Go's leadingFraction does.
    let frac = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflowed = false;
      while (isDigit(s[j])) {
        if (!overflowed) {
          const next = frac * 10n + BigInt(s.charCodeAt(j) - 48);
          if (frac > MAX_NANOS / 10n || next > OVERFLOW) overflowed = true;
          else {
            frac = next;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) fail('invalid duration', orig);
    let u = 0;
    while (u < s.length && !(s[u] === '.' || isDigit(s[u]))) u++;
    if (u === 0) fail('missing unit in duration', orig);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS[unitName];
    if (unit === undefined) fail(`unknown unit ${JSON.stringify(unitName)} in duration`, orig);
    if (whole > OVERFLOW / unit) fail('invalid duration', orig);
    let v = whole * unit;
    if (frac > 0n) {
      // Go converts the fraction through float64 (exact to the nanosecond for fractions of an hour).
      v += BigInt(Math.trunc(Number(frac) * (Number(unit) / scale)));
      if (v > OVERFLOW) fail('invalid duration', orig);
    }
    total += v;
    if (total > OVERFLOW) fail('invalid duration', orig);
  }
  if (neg) return -total;
  if (total > MAX_NANOS) fail('invalid duration', orig);
  return total;
}

export const NANOS_PER_SECOND = 1_000_000_000n;
