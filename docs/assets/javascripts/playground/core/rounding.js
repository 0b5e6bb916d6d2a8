/**
 * Rounding to a format: one double, the sum of two values, and the
 * stochastic rounding of a sum, each as `fpsum.rounding` does it.
 *
 * Values of every format are held in doubles (a Float64Array for many), which
 * hold every value of every format exactly, NaN, +-inf and -0 included.
 */
import { binade, pow2 } from "./bits.js";
import { InputError } from "./errors.js";

/** @typedef {import("./formats.js").Format} Format */

/**
 * Round a double to `fmt`: to nearest, ties to even, then overflow as the
 * format does (fpsum.rounding.to_format, and round_exact on a float).
 *
 * NaN stays NaN, except in the saturating FP4 and FP6 formats, which have
 * none: there it is an InputError.  +-inf stays +-inf, except in the
 * formats without infinity: NaN in E4M3 and the fnuz formats, +-maxFinite in
 * FP4 and FP6.  -0 stays -0, and a negative value that rounds to zero is
 * -0, except in the fnuz formats, whose every zero is +0.  Subnormals: below
 * 2**emin the gap stays that of the lowest binade, so values there round to
 * multiples of the smallest subnormal.  Overflow: a value that rounds (with
 * the exponent unbounded) above `fmt.maxFinite` becomes +-inf (NaN in E4M3
 * and fnuz, +-maxFinite in FP4 and FP6); for IEEE formats that happens from
 * maxFinite + ulp/2 up, the tie going to the even neighbour, 2**(emax+1).
 * FP64 returns `x` itself.
 *
 * How: in the binade of |x|, 2**e <= |x| < 2**(e+1) (e no lower than emin),
 * the format's values are the multiples of q = 2**(e - p + 1).  The double
 * `big` = 1.5 * 2**(e - p + 53) has gap q, and x + big stays in its binade,
 * so the double addition rounds x to a multiple of q, to nearest with ties to
 * the even multiple (big / q is even); subtracting big again is exact.
 *
 * @param {number} x
 * @param {Readonly<Format>} fmt
 * @returns {number}
 */
export function roundToFormat(x, fmt) {
  if (fmt.precision === 53) return x;
  const a = Math.abs(x);
  if (!(a < pow2(fmt.emax + 1))) {
    // NaN, an infinity, or a magnitude that can only round above the largest value
    return Number.isNaN(x) ? nanIn(fmt) : overflowed(fmt, x < 0);
  }
  if (a === 0) return zeroIn(fmt, x);
  // --8<-- [start:round_to_format]
  const e = Math.max(binade(a), fmt.emin);
  const big = 1.5 * pow2(e - fmt.precision + 53);
  const r = (x + big) - big;
  // --8<-- [end:round_to_format]
  if (r === 0) return zeroIn(fmt, x);
  if (Math.abs(r) > fmt.maxFinite) return overflowed(fmt, r < 0);
  return r;
}

/**
 * What a result beyond `fmt.maxFinite` becomes: +-inf, NaN (E4M3, fnuz) or +-maxFinite (FP4, FP6).
 * @param {Readonly<Format>} fmt @param {boolean} negative
 * @returns {number}
 */
export function overflowed(fmt, negative) {
  if (fmt.overflow === "nan") return NaN;
  const top = fmt.overflow === "saturate" ? fmt.maxFinite : Infinity;
  return negative ? -top : top;
}

/**
 * NaN rounded to `fmt`: NaN, or an InputError in a format without NaN (FP4, FP6), as fpsum raises.
 * @param {Readonly<Format>} fmt
 * @returns {number}
 * @throws {InputError} if `fmt` has no NaN
 */
export function nanIn(fmt) {
  if (fmt.overflow === "saturate") throw new InputError(`${fmt.label} has no NaN: NaN cannot be rounded to it`);
  return NaN;
}

/**
 * A zero result with the sign of `x` (-0 for a negative x), or +0 in a format without -0 (fnuz).
 * @param {Readonly<Format>} fmt @param {number} x
 * @returns {number}
 */
export function zeroIn(fmt, x) {
  return fmt.signedZero && (x < 0 || Object.is(x, -0)) ? -0 : 0;
}

/**
 * Rounds doubles to one format exactly as {@link roundToFormat} does,
 * faster: for the summation loops (`rounderFor(fmt).round(x)`).
 *
 * FP64 is the identity and FP32 is Math.fround (IEEE's own rounding to
 * binary32: ties to even, subnormals, overflow to +-inf).  For the other
 * formats a normal x is rounded to p bits by Veltkamp's splitting:
 * t = x * (2**(53 - p) + 1), then t - (t - x), three double operations
 * and no exponent to find.  In binary arithmetic rounding to nearest with
 * ties to even, that is x rounded to nearest on p bits with ties to even
 * (a property of Veltkamp's splitting in binary; the tests check it on every tie
 * they draw), as long as t does not overflow (|x| below about
 * 2**(971 + p)).  Two cases are taken apart: |x| below 2**emin (zeros and
 * the subnormal grid), rounded on the grid as roundToFormat does, the sign
 * of x kept on a zero where the format has -0; and a result that is NaN (x
 * NaN or +-inf, or t beyond the doubles) or beyond maxFinite, where NaN
 * stays NaN (an InputError in FP4 and FP6) and everything else has
 * overflowed as roundToFormat says.
 *
 * One class for every format, so that the loops' calls of `round` always
 * reach the same function (which the JavaScript engine then inlines).
 */
export class Rounder {
  /** @param {Readonly<Format>} fmt */
  constructor(fmt) {
    this.fmt = fmt;
    this.identity = fmt.precision === 53;
    this.single = fmt.name === "fp32";
    this.signedZero = fmt.signedZero;
    // The numbers live in a Float64Array: object fields would be stored as small integers for one
    // format and as doubles for another, and the engine's code for `round` would then differ by format.
    this.k = Float64Array.of(
      pow2(53 - fmt.precision) + 1, // SPLIT: Veltkamp's constant
      fmt.maxFinite, // MAX
      pow2(fmt.emin), // LOWEST: below it, the subnormal grid
      1.5 * pow2(fmt.emin - fmt.precision + 53), // BIG: roundToFormat's constant for that grid
      pow2(fmt.emax), // TOP: roundNear remembers binades below it ...
      Infinity, // LOW: ... the remembered binade [LOW, HIGH) ...
      -Infinity, // HIGH
      0.5, // CACHED: ... and its constant
    );
  }

  /**
   * @param {number} x
   * @returns {number} x rounded to the format
   */
  round(x) {
    if (this.identity) return x;
    if (this.single) return Math.fround(x);
    const k = this.k;
    if (Math.abs(x) < k[2]) {
      const r = (x + k[3]) - k[3];
      return r !== 0 ? r : this.signedZero ? x * 0 : 0;
    }
    const t = x * k[0];
    const r = t - (t - x);
    if (Math.abs(r) <= k[1]) return r;
    // What is left overflows, or is NaN: x NaN, x +-inf, t beyond the doubles or r beyond maxFinite
    return x !== x ? nanIn(this.fmt) : overflowed(this.fmt, x < 0);
  }

  /**
   * The same rounding as {@link Rounder#round}, quicker for a running sum
   * that stays in one binade: the last normal binade below the top one that
   * it rounded in is remembered, and a value in it is rounded by
   * roundToFormat's two additions alone (no zero, subnormal or overflow can
   * arise there).  Anything else goes to `round`, and its binade is
   * remembered if it is such a binade.
   * @param {number} x
   * @returns {number} x rounded to the format
   */
  roundNear(x) {
    const k = this.k;
    const a = Math.abs(x);
    if (a >= k[5] && a < k[6]) return (x + k[7]) - k[7];
    if (!this.identity && !this.single && a >= k[2] && a < k[4]) {
      const e = binade(a);
      k[5] = pow2(e);
      k[6] = 2 * k[5];
      k[7] = 1.5 * pow2(e - this.fmt.precision + 53);
    }
    return this.round(x);
  }
}

/**
 * A {@link Rounder} for `fmt`.
 * @param {Readonly<Format>} fmt
 * @returns {Rounder}
 */
export function rounderFor(fmt) {
  return new Rounder(fmt);
}

/**
 * `a + b` rounded once to `fmt`, nearest with ties to even, for values `a`
 * and `b` of `fmt` (fpsum.rounding.add_rounded, and the dtypes' own
 * addition the methods use).
 *
 * IEEE special cases: NaN in, NaN out; inf + -inf is NaN; an infinity
 * passes through (NaN in E4M3); overflow as roundToFormat says; an exact
 * zero sum is +0 unless both are -0 (and the format has -0); a tiny
 * negative sum that underflows is -0 (+0 in fnuz).
 *
 * Why the double sum is enough.  For FP16, E4M3 and E5M2 every sum of two
 * values fits in a double (at most emax - emin + p + 1 <= 41 bits), so one
 * rounding happens.  For BF16 and FP32 (p <= 24) the double sum is rounded
 * only when it needs more than 53 bits, that is when the exponents of a and
 * b differ by more than 52 - p >= 28 (with |a| >= |b|, a normal: subnormal
 * sums are short).  Then |b| < 2**(ea + p - 52), at most an eighth of the
 * distance 2**(ea - p - 1) from a to its nearest midpoint, so the exact sum
 * and its double both lie strictly between the midpoints around a and both
 * round to a: rounding the double gives the correctly rounded sum.
 * FP64 is the double sum itself.
 *
 * @param {number} a
 * @param {number} b
 * @param {Readonly<Format>} fmt
 * @returns {number}
 */
export function addRounded(a, b, fmt) {
  return roundToFormat(a + b, fmt);
}

/**
 * The gap between `value` (a value of `fmt`) and the next value away from 0
 * (fpsum's Format.ulp): 2**(max(e, emin) - p + 1) in the binade e of |value|;
 * the smallest subnormal for 0 and -0.  NaN for NaN and +-inf (fpsum raises).
 * @param {number} value
 * @param {Readonly<Format>} fmt
 * @returns {number}
 */
export function ulp(value, fmt) {
  if (!Number.isFinite(value)) return NaN;
  if (value === 0) return fmt.smallestSubnormal;
  return pow2(Math.max(binade(Math.abs(value)), fmt.emin) - fmt.precision + 1);
}

/**
 * The next value of `fmt` above `v` (a value of `fmt`), aiming at
 * +maxFinite as fpsum's `_neighbour` does (numpy's nextafter towards it):
 * maxFinite stays put, -inf gives -maxFinite, +inf gives maxFinite, NaN
 * stays NaN, +-0 give the smallest subnormal, and the step from the smallest
 * negative subnormal gives -0 (+0 in the fnuz formats, which have no -0).
 * @param {number} v
 * @param {Readonly<Format>} fmt
 * @returns {number}
 */
export function nextUp(v, fmt) {
  if (Number.isNaN(v)) return NaN;
  if (v >= fmt.maxFinite) return v === Infinity ? fmt.maxFinite : v;
  if (v === -Infinity) return -fmt.maxFinite;
  if (v === 0) return fmt.smallestSubnormal;
  if (fmt.precision === 53) return nextUpDouble(v);
  if (v > 0) return v + ulp(v, fmt);
  const a = -v;
  // towards zero from a power of two (above the subnormals) the gap is half the gap away
  const step = binadeStart(a) === a && a > fmt.smallestNormal ? ulp(v, fmt) / 2 : ulp(v, fmt);
  const r = v + step;
  return r === 0 ? zeroIn(fmt, -1) : r;
}

/**
 * The next value of `fmt` below `v`, aiming at -maxFinite: nextUp mirrored.
 * @param {number} v
 * @param {Readonly<Format>} fmt
 * @returns {number}
 */
export function nextDown(v, fmt) {
  const r = -nextUp(-v, fmt);
  return r === 0 && !fmt.signedZero ? 0 : r;
}

/** @param {number} a a positive finite double @returns {number} 2**floor(log2 a) */
function binadeStart(a) {
  return pow2(binade(a));
}

/**
 * The next double above a finite nonzero `v` below Number.MAX_VALUE.
 * @param {number} v
 * @returns {number}
 */
function nextUpDouble(v) {
  const a = Math.abs(v);
  const e = Math.max(binade(a), -1022);
  const gap = pow2(e - 52);
  if (v > 0) return v + gap;
  const step = binadeStart(a) === a && a > 2 ** -1022 ? gap / 2 : gap;
  const r = v + step;
  return r === 0 ? -0 : r;
}

/**
 * The error of the double addition: `a + b - hi` exactly, where `hi` is
 * the double `a + b` (Knuth's TwoSum).  0 where `hi` is +-inf or NaN.
 * @param {number} a @param {number} b @param {number} hi
 * @returns {number}
 */
export function twoSumError(a, b, hi) {
  if (!Number.isFinite(hi)) return 0;
  const bVirtual = hi - a;
  return (a - (hi - bVirtual)) + (b - bVirtual);
}

/**
 * `a + b` rounded stochastically to `fmt` with the uniform draw `draw` in
 * [0, 1), operation for operation as fpsum.rounding.stochastic_round does
 * it (so the same doubles come out, including its rounding of the covered
 * fraction).
 *
 * The exact sum v lies between neighbours d <= v <= u of the format; the
 * result is u when draw < (v - d) / (u - d), else d.  A representable sum
 * comes back unchanged.  Beyond the largest finite value the sum overflows
 * as with rounding to nearest (+-inf, NaN in E4M3 and fnuz, +-maxFinite in
 * FP4 and FP6), whatever the draw; NaN in gives NaN; an exact zero sum is +0
 * (-0 if both are -0, where the format has -0).
 *
 * @param {number} a a value of `fmt`
 * @param {number} b a value of `fmt`
 * @param {Readonly<Format>} fmt
 * @param {number} draw uniform in [0, 1)
 * @param {Rounder} [rounder] a Rounder for `fmt`, for speed (the same rounding as without)
 * @returns {number}
 */
export function stochasticRound(a, b, fmt, draw, rounder) {
  const hi = a + b;
  const lo = twoSumError(a, b, hi);
  const nearest = rounder === undefined ? roundToFormat(hi, fmt) : rounder.round(hi);
  if (Math.abs(hi) > fmt.maxFinite) return nearest;
  const above = Number.isFinite(nearest) ? (nearest - hi) - lo : 0;
  const down = above > 0 ? nextDown(nearest, fmt) : nearest;
  const up = above < 0 ? nextUp(nearest, fmt) : nearest;
  const gap = up - down;
  const covered = gap > 0 ? ((hi - down) + lo) / gap : 0;
  return draw < covered ? up : down;
}
