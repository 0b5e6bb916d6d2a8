/**
 * Exact rationals as bigints: rounding one to a format, and writing a dyadic
 * one as an exact decimal.  The slow, obviously right route (like
 * fpsum.rounding.round_exact), for the numbers the reader types and for the
 * exact sums; the summation loops never come here.
 */
import { binade, pow2 } from "./bits.js";
import { overflowed, zeroIn } from "./rounding.js";

/** @typedef {import("./formats.js").Format} Format */

/**
 * The number of binary digits of n > 0.
 * @param {bigint} n
 * @returns {number}
 */
export function bitLength(n) {
  return n.toString(2).length;
}

/**
 * num / den (den > 0) rounded to `fmt`: to nearest, ties to even, then
 * overflow as the format does (+-inf, NaN in E4M3 and fnuz, +-maxFinite in
 * FP4 and FP6), as round_exact rounds a Fraction.  Exactly zero gives +0; a
 * negative value that rounds to zero gives -0 (+0 in fnuz, which has no -0);
 * subnormals are rounded on the grid of the smallest subnormal.
 * @param {bigint} num
 * @param {bigint} den
 * @param {Readonly<Format>} fmt
 * @returns {number}
 */
export function roundRational(num, den, fmt) {
  if (num === 0n) return 0;
  const negative = num < 0n;
  const n = negative ? -num : num;
  // e = floor(log2(n / den)): the bit lengths give it or one more
  let e = bitLength(n) - bitLength(den);
  if (e >= 0 ? n < den << BigInt(e) : n << BigInt(-e) < den) e -= 1;
  e = Math.max(e, fmt.emin);
  const k = e - fmt.precision + 1; // the gap in that binade is 2**k
  const scaledNum = k >= 0 ? n : n << BigInt(-k);
  const scaledDen = k >= 0 ? den << BigInt(k) : den;
  let count = scaledNum / scaledDen;
  const twice = 2n * (scaledNum - count * scaledDen);
  if (twice > scaledDen || (twice === scaledDen && (count & 1n) === 1n)) count += 1n;
  // count <= 2**p, exact in a double; the product is the rounded value (or beyond any format)
  const magnitude = count === 0n ? 0 : Number(count) * pow2(k);
  if (magnitude > fmt.maxFinite) return overflowed(fmt, negative);
  if (magnitude === 0) return negative ? zeroIn(fmt, -1) : 0;
  return negative ? -magnitude : magnitude;
}

/**
 * The finite double `x` as num / 2**1074 (every double is a multiple of 2**-1074).
 * @param {number} x
 * @returns {bigint}
 */
export function doubleToScaled(x) {
  if (x === 0) return 0n;
  const a = Math.abs(x);
  const e = Math.max(binade(a), -1022);
  const m = BigInt(a / pow2(e - 52)) << BigInt(e - 52 + 1074); // a / 2**(e - 52): the integer significand
  return x < 0 ? -m : m;
}

/**
 * The exact decimal of num / 2**scale (scale >= 0): every digit, no exponent,
 * no trailing zeros ("0.1000000000000000055511151231257827", "-3", "0").
 * @param {bigint} num
 * @param {number} scale
 * @returns {string}
 */
export function dyadicToDecimal(num, scale) {
  if (num === 0n) return "0";
  const negative = num < 0n;
  let n = negative ? -num : num;
  let s = scale;
  while (s > 0 && (n & 1n) === 0n) {
    n >>= 1n;
    s -= 1;
  }
  // n / 2**s = n * 5**s / 10**s
  const digits = (n * 5n ** BigInt(s)).toString();
  let text;
  if (s === 0) text = digits;
  else {
    const padded = digits.padStart(s + 1, "0");
    text = `${padded.slice(0, padded.length - s)}.${padded.slice(padded.length - s)}`;
  }
  return negative ? `-${text}` : text;
}
