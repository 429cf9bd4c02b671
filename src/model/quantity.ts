// Kubernetes resource quantities, parsed exactly (as a rational of bigints) and
// converted once to the integers the scheduler works in: CPU in millicores,
// everything else in whole units (bytes, counts). Conversion rounds up, as
// resource.Quantity's MilliValue()/Value() do.

export class QuantityError extends Error {}

const binarySuffixes: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

const decimalSuffixes: Record<string, number> = {
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

/** An exact quantity: numerator / denominator, denominator > 0. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

const numberPattern = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/;

/** Parses a Kubernetes quantity string ("100m", "1.5Gi", "1e3", "2") into an exact rational. */
export function parseQuantity(input: string | number): Rational {
  const text = typeof input === 'number' ? numberToString(input) : input;
  const match = numberPattern.exec(text);
  if (text === '' || !match) throw new QuantityError(`invalid quantity ${JSON.stringify(input)}`);
  const [, sign = '', whole = '', frac = '', suffix = ''] = match;
  if (whole === '' && frac === '') throw new QuantityError(`invalid quantity ${JSON.stringify(input)}: no digits`);
  let num = BigInt((whole || '0') + frac);
  let den = 10n ** BigInt(frac.length);
  if (sign === '-') num = -num;

  const binary = binarySuffixes[suffix];
  if (binary !== undefined) {
    num *= binary;
  } else {
    let exponent = decimalSuffixes[suffix];
    if (exponent === undefined) {
      const exp = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
      if (!exp) throw new QuantityError(`invalid quantity ${JSON.stringify(input)}: unknown suffix ${JSON.stringify(suffix)}`);
      exponent = Number(exp[1]);
      if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 100) {
        throw new QuantityError(`invalid quantity ${JSON.stringify(input)}: exponent out of range`);
      }
    }
    if (exponent >= 0) num *= 10n ** BigInt(exponent);
    else den *= 10n ** BigInt(-exponent);
  }
  return { num, den };
}

function numberToString(n: number): string {
  if (!Number.isFinite(n)) throw new QuantityError(`invalid quantity ${n}`);
  // JSON/YAML numbers: 0.5 → "0.5", 1e21 → "1e+21", both accepted by the grammar above.
  return String(n);
}

function ceilDiv(num: bigint, den: bigint): bigint {
  const q = num / den;
  return num % den !== 0n && num > 0n ? q + 1n : q;
}

function toSafeNumber(v: bigint, input: string | number): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new QuantityError(`quantity ${JSON.stringify(input)} is too large`);
  }
  return Number(v);
}

/** Value in thousandths, rounded up (Quantity.MilliValue). */
export function milliValue(input: string | number): number {
  const q = parseQuantity(input);
  return toSafeNumber(ceilDiv(q.num * 1000n, q.den), input);
}

/** Value in whole units, rounded up (Quantity.Value). */
export function wholeValue(input: string | number): number {
  const q = parseQuantity(input);
  return toSafeNumber(ceilDiv(q.num, q.den), input);
}

/** The scheduler's integer for a resource: millicores for cpu, whole units for anything else. */
export function resourceValue(resourceName: string, input: string | number): number {
  return resourceName === 'cpu' ? milliValue(input) : wholeValue(input);
}

/** Renders an integer resource amount for humans (cpu as cores or millicores, memory in binary units). */
export function formatResource(resourceName: string, value: number): string {
  if (resourceName === 'cpu') return value % 1000 === 0 ? String(value / 1000) : `${value}m`;
  if (resourceName === 'memory' || resourceName === 'ephemeral-storage' || resourceName.startsWith('hugepages-')) {
    for (const [suffix, factor] of Object.entries(binarySuffixes).reverse()) {
      const f = Number(factor);
      if (value !== 0 && value % f === 0) return `${value / f}${suffix}`;
    }
  }
  return String(value);
}
