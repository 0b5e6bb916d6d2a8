/**
 * Powers of two and the binade of a double, read from its bits.
 *
 * Shared by the rounding and the exact sums.  The bits are read through one
 * Float64Array and a Uint32Array over the same 8 bytes (no allocation), in
 * the machine's byte order, which is detected once.
 */

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
F64[0] = 1;
/** Index of the high 32 bits (sign, exponent, top of the significand) in U32. */
const HIGH = U32[1] === 0x3ff00000 ? 1 : 0;

/** 2**k for k = -1074 ... 1023, each exact (built by doubling and halving). */
const POWERS = new Float64Array(1074 + 1024);
{
  let p = 1;
  for (let k = 0; k <= 1023; k += 1, p *= 2) POWERS[k + 1074] = p;
  p = 1;
  for (let k = 0; k >= -1074; k -= 1, p /= 2) POWERS[k + 1074] = p;
}

/**
 * 2**k, exact; 0 below -1074 and Infinity above 1023 (like 2 ** k, but exact on every engine).
 * @param {number} k an integer
 * @returns {number}
 */
export function pow2(k) {
  if (k < -1074) return 0;
  if (k > 1023) return Infinity;
  return POWERS[k + 1074];
}

/**
 * floor(log2(a)) for a finite a > 0 that is a normal double: its unbiased exponent.
 * Subnormal doubles (below 2**-1022) give -1023; callers clamp to a format's
 * emin, which is -1022 or more, so that is never used as it is.
 * @param {number} a
 * @returns {number}
 */
export function binade(a) {
  F64[0] = a;
  return ((U32[HIGH] >>> 20) & 0x7ff) - 1023;
}
