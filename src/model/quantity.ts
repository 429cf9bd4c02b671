// Kubernetes resource quantities, parsed the way apimachinery's ParseQuantity
// reads them and held as a Quantity holds them: a whole number of nano-units,
// rounded away from zero (so "0.1n" is 1n). Conversion to the integers the
// scheduler works in (CPU in millicores, everything else in whole units) rounds
// the same way, as Quantity.MilliValue()/Value() do. Sums must be taken on the
// nano-unit values and converted once (component-helpers adds Quantities, not
// their rounded values).

export class QuantityError extends Error {}

const binaryExponents: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const decimalExponents: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** Letters that may start a suffix; anything else after the number must be an exponent's sign or digits. */
const SUFFIX_LETTERS = 'eEinumkKMGTP';
const NANOS_PER_UNIT = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;
/** Nano-unit magnitudes past this are far beyond any safe integer result; refusing them early keeps bigints small. */
const MAX_DECIMAL_SHIFT = 60;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Quantity.UnmarshalJSON trims the raw JSON text with strings.TrimSpace. Control
 * characters and U+2028/U+2029 reach it JSON-escaped ("\\t"), so only the
 * whitespace that JSON carries verbatim is stripped.
 */
const GO_SPACE = ' \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';
const surroundingSpace = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');

/** An exact quantity: numerator / denominator, denominator > 0. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function invalid(input: string | number, why: string): QuantityError {
  return new QuantityError(`invalid quantity ${JSON.stringify(input)}: ${why}`);
}

/** strconv.ParseInt(s, 10, 64): optional sign, decimal digits, int64 range. */
export function parseGoInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

interface Scanned {
  readonly negative: boolean;
  readonly whole: string;
  readonly frac: string;
  readonly suffix: string;
}

/**
 * Splits a quantity like parseQuantityString does: sign, digits, optional
 * "." and digits (either run may be empty, so "." and "Gi" read as zero),
 * then suffix letters, an optional sign and digits, which must end the string.
 */
function scan(text: string): Scanned | undefined {
  let pos = 0;
  let negative = false;
  if (text[0] === '-' || text[0] === '+') {
    negative = text[0] === '-';
    pos++;
  }
  const wholeStart = pos;
  while (isDigit(text[pos])) pos++;
  const whole = text.slice(wholeStart, pos);
  let frac = '';
  if (text[pos] === '.') {
    const fracStart = ++pos;
    while (isDigit(text[pos])) pos++;
    frac = text.slice(fracStart, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && SUFFIX_LETTERS.includes(text[pos]!)) pos++;
  if (text[pos] === '+' || text[pos] === '-') pos++;
  while (isDigit(text[pos])) pos++;
  if (pos !== text.length) return undefined;
  return { negative, whole, frac, suffix: text.slice(suffixStart) };
}

type Suffix = { readonly base: 2 | 10; readonly exponent: number };

/** quantitySuffixer.interpret: the SI tables, then e/E followed by an int64 exponent (kept as int32, as upstream does). */
function interpretSuffix(suffix: string): Suffix | undefined {
  const dec = decimalExponents[suffix];
  if (dec !== undefined) return { base: 10, exponent: dec };
  const bin = binaryExponents[suffix];
  if (bin !== undefined) return { base: 2, exponent: bin };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const parsed = parseGoInt64(suffix.slice(1));
    if (parsed === undefined) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)) };
  }
  return undefined;
}

/**
 * A number with no digits at all ("Gi", ".", "-", "m") reads as zero only when
 * ParseQuantity takes its int64 fast path; the big-decimal path then fails to
 * parse the empty numeral. The fast path needs a decimal scale of at least
 * nano, or a binary suffix with enough int64 precision left (up to Ti).
 */
function zeroFitsInt64Path(suffix: Suffix): boolean {
  if (suffix.base === 10) return suffix.exponent >= -9;
  return 15 - 1 - Math.trunc((suffix.exponent * 3) / 10) - 1 >= 0;
}

/** Ceiling of num / den for non-negative num and positive den. */
function ceilDiv(num: bigint, den: bigint): bigint {
  const q = num / den;
  return num % den === 0n ? q : q + 1n;
}

/**
 * Parses a quantity ("100m", "1.5Gi", "1e3", 2, 0.5) into nano-units, rounded
 * away from zero. Strings are trimmed of surrounding whitespace first, as the
 * API server does when it decodes a manifest.
 */
export function quantityNanos(input: string | number): bigint {
  const text = typeof input === 'number' ? numberToString(input) : input.replace(surroundingSpace, '');
  if (text === '') throw invalid(input, 'empty');
  const scanned = scan(text);
  const suffix = scanned && interpretSuffix(scanned.suffix);
  if (!scanned || !suffix) {
    const numeral = /^[+-]?([0-9]*)(?:\.([0-9]*))?/.exec(text)!;
    if (!numeral[1] && !numeral[2]) throw invalid(input, 'no digits');
    throw invalid(input, `unknown suffix ${JSON.stringify(text.slice(numeral[0].length))}`);
  }

  if (scanned.whole === '' && scanned.frac === '' && !zeroFitsInt64Path(suffix)) throw invalid(input, 'no digits');
  const digits = (scanned.whole + scanned.frac).replace(/^0+/, '');
  const mantissa = digits === '' ? 0n : BigInt(digits);
  let magnitude: bigint;
  if (mantissa === 0n) {
    magnitude = 0n;
  } else if (suffix.base === 2) {
    magnitude = ceilDiv((mantissa << BigInt(suffix.exponent)) * NANOS_PER_UNIT, 10n ** BigInt(scanned.frac.length));
  } else {
    const shift = suffix.exponent - scanned.frac.length + 9;
    if (shift > MAX_DECIMAL_SHIFT) throw new QuantityError(`quantity ${JSON.stringify(input)} is too large`);
    if (shift >= 0) magnitude = mantissa * 10n ** BigInt(shift);
    // Anything below one nano-unit rounds up to exactly one.
    else if (-shift > digits.length) magnitude = 1n;
    else magnitude = ceilDiv(mantissa, 10n ** BigInt(-shift));
  }
  return scanned.negative ? -magnitude : magnitude;
}

/** The quantity as Quantity holds it: nano-units over 10^9. */
export function parseQuantity(input: string | number): Rational {
  return { num: quantityNanos(input), den: NANOS_PER_UNIT };
}

function numberToString(n: number): string {
  if (!Number.isFinite(n)) throw new QuantityError(`invalid quantity ${n}`);
  // JSON/YAML numbers: 0.5 → "0.5", 1e21 → "1e+21", both accepted by the grammar above.
  return String(n);
}

/** nanos / unit rounded away from zero, as int64Amount.AsScaledInt64 does. */
function scaleDown(nanos: bigint, unit: bigint, what: string): number {
  const magnitude = ceilDiv(nanos < 0n ? -nanos : nanos, unit);
  if (magnitude > BigInt(Number.MAX_SAFE_INTEGER)) throw new QuantityError(`quantity ${what} is too large`);
  return nanos < 0n ? -Number(magnitude) : Number(magnitude);
}

/** Nano-units as thousandths, rounded away from zero (Quantity.MilliValue). */
export function nanosToMilli(nanos: bigint): number {
  return scaleDown(nanos, NANOS_PER_MILLI, `${nanos}n`);
}

/** Nano-units as whole units, rounded away from zero (Quantity.Value). */
export function nanosToWhole(nanos: bigint): number {
  return scaleDown(nanos, NANOS_PER_UNIT, `${nanos}n`);
}

/** The scheduler's integer for an amount in nano-units: millicores for cpu, whole units for anything else. */
export function nanosToResourceValue(resourceName: string, nanos: bigint): number {
  return resourceName === 'cpu' ? nanosToMilli(nanos) : nanosToWhole(nanos);
}

/** Value in thousandths, rounded up (Quantity.MilliValue). */
export function milliValue(input: string | number): number {
  return scaleDown(quantityNanos(input), NANOS_PER_MILLI, JSON.stringify(input));
}

/** Value in whole units, rounded up (Quantity.Value). */
export function wholeValue(input: string | number): number {
  return scaleDown(quantityNanos(input), NANOS_PER_UNIT, JSON.stringify(input));
}

/** The scheduler's integer for a resource: millicores for cpu, whole units for anything else. */
export function resourceValue(resourceName: string, input: string | number): number {
  return resourceName === 'cpu' ? milliValue(input) : wholeValue(input);
}

/** Renders an integer resource amount for humans (cpu as cores or millicores, memory in binary units). */
export function formatResource(resourceName: string, value: number): string {
  if (resourceName === 'cpu') return value % 1000 === 0 ? String(value / 1000) : `${value}m`;
  if (resourceName === 'memory' || resourceName === 'ephemeral-storage' || resourceName.startsWith('hugepages-')) {
    for (const [suffix, exponent] of Object.entries(binaryExponents).reverse()) {
      const f = 2 ** exponent;
      if (value !== 0 && value % f === 0) return `${value / f}${suffix}`;
    }
  }
  return String(value);
}
