/**
 * One addition of a summation, taken apart: the running total, the input,
 * their exact sum, the two values of the format around it and the gap
 * between them, the rounded result and what the rounding lost.
 *
 * The steps are those of methods.js (the same loop, replayed up to the step
 * asked for), for the four methods with one running total: naive, wide
 * (the accumulator's format), kahan and neumaier.
 */
import { InputError } from "./errors.js";
import { accumulatorFor, getFormat } from "./formats.js";
import { dyadicToDecimal, doubleToScaled, roundRational } from "./rational.js";
import { nextDown, nextUp, rounderFor, roundToFormat } from "./rounding.js";
import { SCALE } from "./exact.js";

/** @typedef {import("./formats.js").Format} Format */

/**
 * @typedef {object} TraceStep
 * @property {number} step the step, 1-based (0 for isLost)
 * @property {number} total the running total before the addition
 * @property {number} input what is added to it (for kahan the corrected input y = x - c)
 * @property {number} value the step's input x itself
 * @property {string} exactSum total + input, exact, as a decimal ("NaN", "Infinity", "-Infinity" if not finite)
 * @property {number} below the largest value of the format <= the exact sum (the result if not finite)
 * @property {number} above the smallest value of the format >= the exact sum: equal to below when the sum
 *   is representable; beyond the largest finite value, +-inf, or NaN in a format without infinity (E4M3, fnuz,
 *   FP4, FP6: no value of the format lies there)
 * @property {number} gap above - below (0 when the sum is representable; inf or NaN beyond the largest value)
 * @property {number} result the rounded sum, the new running total
 * @property {number} lost exact sum - result, exactly (it is a double); NaN when the result or the sum is not finite
 * @property {boolean} swallowed the input was not zero and the result is the total: all of the input was lost
 * @property {number} [compensation] kahan and neumaier: the compensation c after the step
 * @property {number} [corrected] neumaier: the running result fl(s + c) after the step
 */

const TRACED = Object.freeze(["naive", "wide", "kahan", "neumaier"]);
const DOUBLE = getFormat("fp64");

/**
 * The addition total + input rounded to `fmt` (nearest, ties to even), taken apart.
 * @param {number} total a value of fmt
 * @param {number} input a value of fmt
 * @param {Readonly<Format>} fmt
 * @param {number} step
 * @param {number} value
 * @returns {TraceStep}
 */
function takeApart(total, input, fmt, step, value) {
  const result = roundToFormat(total + input, fmt);
  const swallowed = input !== 0 && result === total && Number.isFinite(total);
  if (!Number.isFinite(total) || !Number.isFinite(input)) {
    const sum = total + input;
    return { step, total, input, value, exactSum: String(sum), below: result, above: result, gap: NaN, result, lost: NaN, swallowed };
  }
  const exact = doubleToScaled(total) + doubleToScaled(input);
  const den = 1n << BigInt(SCALE);
  const exactSum = dyadicToDecimal(exact, SCALE);
  const nearest = roundRational(exact, den, fmt);
  let below = nearest;
  let above = nearest;
  if (!Number.isFinite(nearest) || Math.abs(nearest) === fmt.maxFinite) {
    const overflowed = fmt.overflow === "inf" ? Infinity : NaN; // NaN: no value of the format is that large
    if (exact > doubleToScaled(fmt.maxFinite)) [below, above] = [fmt.maxFinite, overflowed];
    else if (exact < -doubleToScaled(fmt.maxFinite)) [below, above] = [-overflowed, -fmt.maxFinite];
  }
  if (Number.isFinite(below) && Number.isFinite(above) && below === above) {
    const at = doubleToScaled(nearest);
    if (at < exact) above = nextUp(nearest, fmt);
    else if (at > exact) below = nextDown(nearest, fmt);
  }
  const lost = Number.isFinite(result) ? roundRational(exact - doubleToScaled(result), den, DOUBLE) : NaN;
  return { step, total, input, value, exactSum, below, above, gap: above - below, result, lost, swallowed };
}

/**
 * Step k (1-based) of `method` on `values` (values of `format`), taken apart.
 *
 * naive and wide: step 1 is 0 + x1 (the method starts from x1 itself, so the
 * result is x1, -0 included); step k > 1 is s + xk.  kahan: the addition
 * t = s + y of the corrected input y = xk - c, with the new compensation.
 * neumaier: s + xk, with the new compensation and corrected result.
 * @param {string} method naive, wide, kahan or neumaier
 * @param {Float64Array} values
 * @param {string} format
 * @param {number} k 1 to values.length
 * @param {object} [_options] accepted as the interface has it, and unused: the traced methods have no options
 * @returns {TraceStep}
 * @throws {InputError} another method, an unknown format, k out of range
 */
export function traceStep(method, values, format, k, _options) {
  const fmt = getFormat(format);
  checkMethod(method);
  if (!Number.isSafeInteger(k) || k < 1 || k > values.length) {
    throw new InputError(`step must be a whole number from 1 to ${values.length}, got ${k}`);
  }
  return /** @type {TraceStep} */ (replay(method, values, fmt, (step) => step === k));
}

/**
 * The first step at which `method` swallowed a nonzero input whole (the
 * result equals the total), or null if none did.
 * @param {string} method naive, wide, kahan or neumaier
 * @param {Float64Array} values
 * @param {string} format
 * @param {object} [_options] accepted as the interface has it, and unused
 * @returns {number | null}
 * @throws {InputError} another method, an unknown format
 */
export function firstLostStep(method, values, format, _options) {
  const fmt = getFormat(format);
  checkMethod(method);
  const step = replay(method, values, fmt, (_, total, addend, result) => addend !== 0 && result === total && Number.isFinite(total));
  return step === null ? null : step.step;
}

/**
 * One addition total + input in `format`, taken apart (step 0).  Both are
 * first rounded to the format (their fields show the rounded values).
 * @param {number} total
 * @param {number} input
 * @param {string} format
 * @returns {TraceStep}
 */
export function isLost(total, input, format) {
  const fmt = getFormat(format);
  const t = roundToFormat(total, fmt);
  const x = roundToFormat(input, fmt);
  return takeApart(t, x, fmt, 0, x);
}

/** @param {string} method */
function checkMethod(method) {
  if (!TRACED.includes(method)) {
    throw new InputError(`steps are traced for ${TRACED.join(", ")}, not ${JSON.stringify(method)}`);
  }
}

/**
 * Run the method's loop until `wanted(step, total, addend, result)` is true
 * for a step's main addition, and return that step taken apart (null if no
 * step is wanted).  Only that step is taken apart, so a late step costs one
 * pass of the loop.
 * @param {string} method @param {Float64Array} v @param {Readonly<Format>} fmt
 * @param {(step: number, total: number, addend: number, result: number) => boolean} wanted
 * @returns {TraceStep | null}
 */
function replay(method, v, fmt, wanted) {
  const work = method === "wide" ? accumulatorFor(fmt) : fmt;
  const r = rounderFor(work);
  let s = 0;
  let c = 0;
  for (let i = 0; i < v.length; i += 1) {
    const x = v[i];
    const step = i + 1;
    if (method === "naive" || method === "wide") {
      // the method starts from x1 itself: step 1 is shown as 0 + x1 with x1 (even -0) as its result
      const total = i === 0 ? 0 : s;
      const result = i === 0 ? x : r.round(s + x);
      if (wanted(step, total, x, result)) return { ...takeApart(total, x, work, step, x), result };
      s = result;
    } else if (method === "kahan") {
      const y = r.round(x - c);
      const t = r.round(s + y);
      const nextC = r.round(r.round(t - s) - y);
      if (wanted(step, s, y, t)) return { ...takeApart(s, y, work, step, x), compensation: nextC };
      c = nextC;
      s = t;
    } else {
      const after = r.round(s + x);
      const lost = Math.abs(s) >= Math.abs(x) ? r.round(r.round(s - after) + x) : r.round(r.round(x - after) + s);
      const nextC = r.round(c + lost);
      if (wanted(step, s, x, after)) {
        return { ...takeApart(s, x, work, step, x), compensation: nextC, corrected: r.round(after + nextC) };
      }
      c = nextC;
      s = after;
    }
  }
  return null;
}
