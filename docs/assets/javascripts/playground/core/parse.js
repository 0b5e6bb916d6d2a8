/**
 * The reader's own numbers, read as `fpsum sum` reads them
 * (fpsum.cli.read_numbers and parse_number): each token an exact decimal
 * (never through a double), rounded once to the format, to nearest with ties
 * to even.
 *
 * Tokens: a decimal with optional sign, fraction and exponent ("0.1",
 * "-.5", "3.", "1e-3", "2.5E+4"), a ratio of whole numbers ("1/3"), digits
 * optionally grouped by single underscores ("1_000"), as Python's Fraction
 * reads them; and inf, infinity, nan with an optional sign, in any case
 * (leading "+" signs are dropped first, as fpsum does).  "-0" (any zero
 * written with a minus) is -0 (+0 in fnuz); inf is +-inf (NaN in E4M3 and
 * fnuz, +-maxFinite in FP4 and FP6); nan is NaN (an error in FP4 and FP6,
 * which have none).
 * Separators: commas (the playground's addition; `fpsum sum` takes
 * whitespace only) and the whitespace Python's str.split() knows.  Python
 * also reads digits of other scripts (Arabic-Indic, ...); these are
 * refused here.
 */
import { InputError } from "./errors.js";
import { getFormat } from "./formats.js";
import { roundRational } from "./rational.js";
import { nanIn, nextDown, nextUp, overflowed, roundToFormat, zeroIn } from "./rounding.js";

/** The most numbers parseNumbers reads. */
export const MAX_NUMBERS = 100000;

// Python's str.split() separators (its whitespace, control characters \x1c-\x1f included), and the comma
// eslint-disable-next-line no-control-regex
const SEPARATORS = /[,\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
const LINE_BREAK = /\r\n|\r|\n/;
const DIGITS = String.raw`\d+(?:_\d+)*`;
const RATIONAL = new RegExp(
  String.raw`^([-+]?)(?=\d|\.\d)(${DIGITS})?(?:/(${DIGITS})|(?:\.(${DIGITS})?)?(?:[eE]([-+]?${DIGITS}))?)$`);
const SPECIAL = new Map([["inf", Infinity], ["-inf", -Infinity], ["infinity", Infinity], ["-infinity", -Infinity],
  ["nan", NaN], ["-nan", NaN]]);
/** Beyond 10**LIMIT any value overflows every format; below 10**-LIMIT it rounds to zero in every format. */
const LIMIT = 400;

/**
 * Every number in `text`, rounded to `format`.
 * @param {string} text
 * @param {string} format
 * @returns {Float64Array}
 * @throws {InputError} a token that is not a number (naming it, its line and its place), no numbers, or more than MAX_NUMBERS
 */
export function parseNumbers(text, format) {
  const fmt = getFormat(format);
  /** @type {Map<string, number>} */
  const seen = new Map();
  const out = [];
  const lines = text.split(LINE_BREAK);
  for (let line = 0; line < lines.length; line += 1) {
    for (const token of lines[line].split(SEPARATORS)) {
      if (token === "") continue;
      let value = seen.get(token);
      if (value === undefined) {
        const where = `line ${line + 1}, number ${out.length + 1}`;
        let parsed;
        try {
          parsed = parseToken(token, fmt);
        } catch (error) {
          throw error instanceof InputError ? new InputError(`${where}: ${error.message}`) : error;
        }
        if (parsed === null) {
          const shown = token.length > 40 ? `${token.slice(0, 40)}...` : token;
          throw new InputError(`${where}: ${JSON.stringify(shown)} is not a number`);
        }
        value = parsed;
        seen.set(token, value);
      }
      if (out.length >= MAX_NUMBERS) throw new InputError(`more than ${MAX_NUMBERS} numbers (the playground's limit)`);
      out.push(value);
    }
  }
  if (out.length === 0) throw new InputError("no numbers to sum");
  return Float64Array.from(out);
}

/**
 * One token rounded to `fmt`, or null if it is not a number.
 * @param {string} token
 * @param {Readonly<import("./formats.js").Format>} fmt
 * @returns {number | null}
 * @throws {InputError} for nan in a format without NaN (FP4, FP6)
 */
export function parseToken(token, fmt) {
  const special = SPECIAL.get(token.toLowerCase().replace(/^\++/, ""));
  if (special !== undefined) {
    return Number.isNaN(special) ? nanIn(fmt) : overflowed(fmt, special < 0);
  }
  const m = RATIONAL.exec(token);
  if (m === null) return null;
  const [, sign, whole = "", denominator, fraction = "", exponent] = m;
  const clean = (/** @type {string} */ s) => s.replaceAll("_", "");
  if (denominator === undefined) {
    const quick = viaDouble(clean(token), whole.length + fraction.length, fmt);
    if (quick !== null) return quick;
  }
  let num = BigInt(clean(whole) || "0");
  let den = 1n;
  if (denominator !== undefined) {
    den = BigInt(clean(denominator));
    if (den === 0n) return null; // Python: ZeroDivisionError, which fpsum reports as not a number
  } else {
    const digits = clean(fraction);
    num = BigInt(clean(whole) + digits || "0");
    const power = (exponent === undefined ? 0 : Number(clean(exponent))) - digits.length;
    if (num !== 0n && Math.abs(power) > LIMIT) {
      // 10**power times a number of num's digits: decide without the huge power when it is out of every range
      const size = num.toString().length + power; // 10**(size - 1) <= value < 10**size
      if (size - 1 > LIMIT) return overflowed(fmt, sign === "-");
      if (size < -LIMIT) return sign === "-" ? zeroIn(fmt, -1) : 0;
    }
    if (power >= 0) num *= 10n ** BigInt(power);
    else den = 10n ** BigInt(-power);
  }
  if (num === 0n) return sign === "-" ? zeroIn(fmt, -1) : 0;
  return roundRational(sign === "-" ? -num : num, den, fmt);
}

/** Decimals of at most this many digits are read through a double (see viaDouble). */
const QUICK_DIGITS = 20;

/**
 * A short decimal rounded to `fmt` through the double nearest to it, when
 * that is provably the same as rounding the decimal itself; else null.
 *
 * JavaScript reads a decimal of at most 20 digits as the nearest double d
 * (ECMAScript requires it).  Rounding to nearest is monotonic, so for
 * any value m that is a double, d lies on the same side of m as the
 * decimal, or on m.  The format's rounding changes only at its midpoints,
 * which are doubles for p <= 52 (so is the overflow threshold, the midpoint
 * maxFinite + ulp/2): unless d is one, the format rounds d as it rounds
 * the decimal.  FP64 is d itself.  A d that is 0 or +-inf (the decimal
 * under- or overflowed the doubles) is left to the exact route.
 * @param {string} text the decimal without underscores
 * @param {number} digits how many digits it has
 * @param {Readonly<import("./formats.js").Format>} fmt
 * @returns {number | null}
 */
function viaDouble(text, digits, fmt) {
  if (digits > QUICK_DIGITS) return null;
  const d = Number(text);
  if (!Number.isFinite(d) || d === 0) return null;
  if (fmt.precision === 53) return d;
  const r = roundToFormat(d, fmt);
  if (r === d) return r;
  if (!Number.isFinite(r) || Math.abs(r) === fmt.maxFinite) return null; // near overflow: the exact route
  const other = d > r ? nextUp(r, fmt) : nextDown(r, fmt);
  return d === (r + other) / 2 ? null : r; // the mean of two neighbours is exact in a double
}
