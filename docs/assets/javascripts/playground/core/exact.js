/**
 * Exact sums, the reference every method is measured against, and the
 * errors `fpsum sum` reports (fpsum.cli._exact_and_errors) and the stall
 * step `fpsum race` reports (fpsum.race).
 *
 * An exact sum of finite doubles is an integer over 2**1074.  It is added up
 * in 32-bit limbs held in a Float64Array (each limb takes a signed sum of
 * 32-bit pieces, exact up to 2**20 of them before the carries are
 * propagated), and put together as a bigint once at the end.
 */
import { binade, pow2 } from "./bits.js";
import { getFormat } from "./formats.js";
import { doubleToScaled, roundRational } from "./rational.js";

/** @typedef {import("./formats.js").Format} Format */

/**
 * @typedef {object} ExactSum
 * @property {number} value the exact sum rounded to a double (nearest, ties to even), as fpsum's
 *   `exact`: NaN if any value is NaN or the values hold both +inf and -inf, +-inf if they hold one of them
 * @property {bigint | null} numerator the exact sum is numerator / 2**scale; null when a value is NaN or inf
 * @property {number} scale always 1074
 */

export const SCALE = 1074;
const LIMBS = 70; // 32-bit limbs from 2**-1074 up to beyond 2**1024 * 2**24
const CARRY_EVERY = 1 << 20;
const TWO32 = 2 ** 32;
const FP64 = getFormat("fp64");

/**
 * The exact sum of `values` (see ExactSum for NaN and inf; -0 counts as 0;
 * an empty array or an exact zero gives +0).
 * @param {Float64Array} values
 * @returns {ExactSum}
 */
export function exactTotal(values) {
  let positiveInf = false;
  let negativeInf = false;
  for (let i = 0; i < values.length; i += 1) {
    const x = values[i];
    if (Number.isNaN(x)) return { value: NaN, numerator: null, scale: SCALE };
    if (x === Infinity) positiveInf = true;
    else if (x === -Infinity) negativeInf = true;
  }
  if (positiveInf || negativeInf) {
    return { value: positiveInf && negativeInf ? NaN : positiveInf ? Infinity : -Infinity, numerator: null, scale: SCALE };
  }
  const numerator = exactScaledSum(values);
  return { value: roundRational(numerator, 1n << BigInt(SCALE), FP64), numerator, scale: SCALE };
}

/**
 * The exact sum of finite doubles, times 2**1074, as a bigint.
 * @param {Float64Array} values
 * @returns {bigint}
 */
export function exactScaledSum(values) {
  const acc = new Float64Array(LIMBS);
  for (let i = 0; i < values.length; i += 1) {
    const x = values[i];
    if (x === 0) continue;
    const a = Math.abs(x);
    const e = Math.max(binade(a), -1022);
    const m = a / pow2(e - 52); // the integer significand (exact: a power of two divides it)
    const shift = e - 52 + SCALE; // the bit of m's last digit
    const k = shift >>> 5;
    const o = shift & 31;
    const t = pow2(32 - o);
    const low = m % t;
    const rest = (m - low) / t; // below 2**52
    const middle = rest % TWO32;
    const pieces0 = low * pow2(o);
    const pieces2 = (rest - middle) / TWO32;
    if (x > 0) {
      acc[k] += pieces0;
      acc[k + 1] += middle;
      acc[k + 2] += pieces2;
    } else {
      acc[k] -= pieces0;
      acc[k + 1] -= middle;
      acc[k + 2] -= pieces2;
    }
    if ((i + 1) % CARRY_EVERY === 0) carry(acc);
  }
  let total = 0n;
  for (let k = LIMBS - 1; k >= 0; k -= 1) total = (total << 32n) + BigInt(acc[k]);
  return total;
}

/** Propagate carries so that every limb but the last lies in [0, 2**32). @param {Float64Array} acc */
function carry(acc) {
  for (let k = 0; k < acc.length - 1; k += 1) {
    const limb = acc[k];
    const over = Math.floor(limb / TWO32);
    acc[k] = limb - over * TWO32;
    acc[k + 1] += over;
  }
}

/**
 * |result - exact| as a bigint over 2**1074, for a finite result and a finite exact sum.
 * @param {number} result @param {bigint} numerator
 * @returns {bigint}
 */
function errorScaled(result, numerator) {
  const d = doubleToScaled(result) - numerator;
  return d < 0n ? -d : d;
}

/**
 * fpsum's `abs_error`: |result - exact| computed exactly, rounded to a double.
 * NaN if the exact sum is NaN, or the result is NaN; +inf for an infinite
 * result when the exact sum is finite; with an infinite exact sum, 0 if the
 * result is that infinity, else NaN.
 * @param {number} result
 * @param {ExactSum} exact
 * @returns {number}
 */
export function absoluteError(result, exact) {
  const special = specialError(result, exact);
  if (special !== null) return special;
  const num = /** @type {bigint} */ (exact.numerator);
  return roundRational(errorScaled(result, num), 1n << BigInt(SCALE), FP64);
}

/**
 * fpsum's `rel_error`: |result - exact| / |exact| computed exactly, rounded
 * once to a double; for an exact sum of 0 it is 0 if the result is 0 and
 * +inf otherwise.  NaN, inf as absoluteError.
 * @param {number} result
 * @param {ExactSum} exact
 * @returns {number}
 */
export function relativeError(result, exact) {
  const special = specialError(result, exact);
  if (special !== null) return special;
  const num = /** @type {bigint} */ (exact.numerator);
  const error = errorScaled(result, num);
  if (num === 0n) return error === 0n ? 0 : Infinity;
  return roundRational(error, num < 0n ? -num : num, FP64);
}

/**
 * The error in ulps: |result - exact| / g, computed exactly and rounded to a
 * double, where g is the gap of `format` at the exact sum rounded to a double
 * (fpsum's Format.ulp of fpsum's `exact`: 2**(max(e, emin) - p + 1) in its
 * binade e; the smallest subnormal at 0).  `fpsum sum` does not print it;
 * multiply its abs_error by 1 / g for the same number.  NaN and inf as
 * absoluteError (and NaN where the exact sum lies beyond the doubles).
 * @param {number} result
 * @param {ExactSum} exact
 * @param {string} format
 * @returns {number}
 */
export function ulpError(result, exact, format) {
  const fmt = getFormat(format);
  const special = specialError(result, exact);
  if (special !== null) return special;
  if (!Number.isFinite(exact.value)) return NaN;
  const num = /** @type {bigint} */ (exact.numerator);
  const v = Math.abs(exact.value);
  const gapExponent = (v === 0 ? fmt.emin : Math.max(binade(v), fmt.emin)) - fmt.precision + 1;
  const den = SCALE + gapExponent; // |result - exact| / 2**gapExponent = error / 2**(SCALE + gapExponent)
  const error = errorScaled(result, num);
  return den >= 0 ? roundRational(error, 1n << BigInt(den), FP64) : roundRational(error << BigInt(-den), 1n, FP64);
}

/**
 * The error for the cases without a finite exact sum and a finite result, or null.
 * @param {number} result @param {ExactSum} exact
 * @returns {number | null}
 */
function specialError(result, exact) {
  if (exact.numerator === null) {
    if (Number.isNaN(exact.value)) return NaN;
    return result === exact.value ? 0 : NaN;
  }
  if (Number.isNaN(result)) return NaN;
  if (!Number.isFinite(result)) return Infinity;
  return null;
}

/**
 * Where the sum stalled, as fpsum.race reports it for a method's running
 * totals (`stalled_after`): the count of inputs after which the running
 * total never changed again although what was still to come (the exact sum
 * of all inputs minus that of the first ones, each rounded to a double, then
 * subtracted in doubles) was worth more than `format`'s ulp of the final
 * total.  null if it never stalled, if only the last total has the final
 * value, if the final total is NaN or inf (overflow, not a stall), or if a
 * value is NaN or inf.
 * @param {Float64Array} running
 * @param {Float64Array} values
 * @param {string} format
 * @returns {number | null}
 */
export function stallStep(running, values, format) {
  const fmt = getFormat(format);
  const n = running.length;
  const last = running[n - 1];
  if (!Number.isFinite(last)) return null;
  for (let i = 0; i < values.length; i += 1) if (!Number.isFinite(values[i])) return null;
  let firstFinal = n - 1;
  while (firstFinal > 0 && running[firstFinal - 1] === last) firstFinal -= 1;
  if (firstFinal >= n - 1) return null;
  const total = roundRational(exactScaledSum(values), 1n << BigInt(SCALE), FP64);
  const before = roundRational(exactScaledSum(values.subarray(0, firstFinal + 1)), 1n << BigInt(SCALE), FP64);
  const stillToCome = total - before;
  return Math.abs(stillToCome) > ulpOf(last, fmt) ? firstFinal + 1 : null;
}

/** @param {number} value finite @param {Readonly<Format>} fmt @returns {number} Format.ulp */
function ulpOf(value, fmt) {
  if (value === 0) return fmt.smallestSubnormal;
  return pow2(Math.max(binade(Math.abs(value)), fmt.emin) - fmt.precision + 1);
}

