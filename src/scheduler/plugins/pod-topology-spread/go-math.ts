// Float helpers that reproduce Go's math package bit for bit where V8 differs.
//
// V8's Math.log follows fdlibm's e_log.c, while Go's math.Log uses a shorter
// rewrite of the same FreeBSD algorithm; the two disagree in the last bit for a
// few inputs (log(14) is one). PodTopologySpread feeds log(size+2) into scores
// that are rounded to integers, so berth evaluates the logarithm the way Go does.

// Polynomial coefficients and the split of ln 2 from FreeBSD's e_log.c, as Go uses them.
const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
const L1 = 6.666666666666735130e-1;
const L2 = 3.999999999940941908e-1;
const L3 = 2.857142874366239149e-1;
const L4 = 2.222219843214978396e-1;
const L5 = 1.818357216161805012e-1;
const L6 = 1.531383769920937332e-1;
const L7 = 1.479819860511658591e-1;

const scratch = new DataView(new ArrayBuffer(8));

/** Splits a finite positive x into frac * 2^exp with frac in [0.5, 1) (Go's math.Frexp). */
function frexp(x: number): [number, number] {
  let exp = 0;
  // Scale subnormals into the normal range so the exponent bits are meaningful.
  if (x < 2.2250738585072014e-308) {
    x *= 2 ** 52;
    exp = -52;
  }
  scratch.setFloat64(0, x);
  const hi = scratch.getUint32(0);
  exp += ((hi >>> 20) & 0x7ff) - 1022;
  // Force the biased exponent to 1022 so the fraction lands in [0.5, 1).
  scratch.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  return [scratch.getFloat64(0), exp];
}

/**
 * Go's math.Log (the portable implementation; amd64's assembly agrees with it on
 * normal numbers, which is all spreading needs: its arguments are counts + 2).
 */
export function goLog(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x < 0) return NaN;
  if (x === 0) return -Infinity;
  let [f1, ki] = frexp(x);
  if (f1 < Math.SQRT2 / 2) {
    f1 *= 2;
    ki--;
  }
  const f = f1 - 1;
  const k = ki;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
  const t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
  const r = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f);
}

/** Go's math.Round: halves round away from zero (Math.round sends -2.5 to -2). */
export function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}
