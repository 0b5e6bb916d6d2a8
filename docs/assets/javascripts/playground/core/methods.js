/**
 * Summation methods, every operation rounded to the working format, each
 * exactly as `fpsum.methods` computes it (the same operations in the same
 * order, so the same bits).
 *
 * Inputs are values of the format held in a Float64Array.  `runMethod`
 * returns the final sum (`fpsum.methods.total`) and, on request, the running
 * totals (`fpsum.methods.running_totals`): entry i is what the method gives
 * for the first i + 1 inputs.  NaN and overflow follow the format: an FP16
 * sum of large values reaches inf and stays there (until an -inf makes it
 * NaN), an E4M3 one becomes NaN, an FP4 or FP6 one stops at the largest value.
 */
import { InputError } from "./errors.js";
import { accumulatorFor, getFormat } from "./formats.js";
import { rounderFor, stochasticRound } from "./rounding.js";
import { Pcg64 } from "./rng.js";

/** @typedef {import("./formats.js").Format} Format */
/** @typedef {import("./rounding.js").Rounder} Rounder */

/** The methods, as `fpsum sum --method` spells them. */
export const METHODS = Object.freeze(["naive", "wide", "kahan", "neumaier", "pairwise", "blocked", "stochastic"]);
/** fpsum.blocked.DEFAULT_BLOCK */
export const DEFAULT_BLOCK = 128;
/** fpsum.stochastic_sum.ROUNDING_STREAM: stochastic rounding's draws come from PCG64 seeded with [this, seed]. */
export const ROUNDING_STREAM = 0x5352;

/**
 * @typedef {object} MethodOptions
 * @property {number} [block] block size of `blocked` (default 128), a whole number >= 1
 * @property {number} [srSeed] seed of `stochastic` (default 0), a whole number >= 0
 * @property {boolean} [running] also return every running total
 */

/**
 * The method's result on `values` (values of `format`), and its running totals if asked.
 *
 * `total` is fpsum's `total(method, ...)`, `running` (a new Float64Array of
 * the same length, or null) is `running_totals(method, ...)`.  For `wide`
 * both are in the accumulator (FP32 below 32 bits, FP64 for FP32 and FP64),
 * not rounded back to the format.
 *
 * @param {string} method
 * @param {Float64Array} values
 * @param {string} format
 * @param {MethodOptions} [options]
 * @returns {{total: number, running: Float64Array | null}}
 * @throws {InputError} unknown method or format, no values, a bad block size or seed
 */
export function runMethod(method, values, format, options = {}) {
  const fmt = getFormat(format);
  if (values.length < 1) throw new InputError("a sum needs at least one input");
  const block = options.block ?? DEFAULT_BLOCK;
  if (!Number.isSafeInteger(block) || block < 1) throw new InputError(`block size must be a whole number of at least 1, got ${block}`);
  const seed = options.srSeed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new InputError(`sr_seed must be a whole number, not negative, got ${seed}`);
  const out = options.running ? new Float64Array(values.length) : null;
  const rounder = rounderFor(fmt);
  /** @type {number} */
  let total;
  switch (method) {
    case "naive": total = naive(values, rounder, out); break;
    case "wide": total = naive(values, rounderFor(accumulatorFor(fmt)), out); break;
    case "kahan": total = kahan(values, rounder, out); break;
    case "neumaier": total = neumaier(values, rounder, out); break;
    case "pairwise":
      total = pairwise(values, rounder);
      if (out) pairwiseRunning(values, rounder, out);
      break;
    case "blocked":
      total = blocked(values, rounder, block);
      if (out) blockedRunning(values, rounder, block, out);
      break;
    case "stochastic": total = stochastic(values, fmt, seed, out); break;
    default: throw new InputError(`unknown method ${JSON.stringify(method)} (known: ${METHODS.join(", ")})`);
  }
  return { total, running: out };
}

/**
 * Left to right, s = fl(s + x), starting from the first input (numpy's
 * add.accumulate), so a lone -0 stays -0.  (Rounded by Rounder.roundNear:
 * a running sum stays in a binade for long stretches.)  NaN and inf propagate as IEEE
 * says (inf + -inf is NaN).  Also the `wide` method, with the accumulator's rounding.
 * @param {Float64Array} v @param {Rounder} r @param {Float64Array | null} out
 * @returns {number}
 */
function naive(v, r, out) {
  let s = v[0];
  const n = v.length;
  if (out) {
    out[0] = s;
    for (let i = 1; i < n; i += 1) out[i] = s = r.roundNear(s + v[i]);
  } else {
    for (let i = 1; i < n; i += 1) s = r.roundNear(s + v[i]);
  }
  return s;
}

/**
 * Kahan's compensated summation, every operation rounded, from s = c = +0:
 * y = x - c; t = s + y; c = (t - s) - y; s = t.  Once an inf enters, c
 * becomes NaN (inf - inf) and so does the sum, as on hardware.
 * @param {Float64Array} v @param {Rounder} r @param {Float64Array | null} out
 * @returns {number}
 */
function kahan(v, r, out) {
  let s = 0;
  let c = 0;
  const n = v.length;
  for (let i = 0; i < n; i += 1) {
    const y = r.round(v[i] - c);
    const t = r.round(s + y);
    // Where |s| >= |y|, t - s and then (t - s) - y are exact in the format (Dekker's Fast2Sum: the
    // latter is minus the rounding error of s + y), so the doubles are the rounded values; inf and NaN
    // come out as the rounding gives them (E4M3 has no inf for t to be).  In FP4 and FP6, where t may be
    // cut to the largest value, they are exact too: tests/model/test_playground_arith.py checks every pair.
    c = Math.abs(s) >= Math.abs(y) ? (t - s) - y : r.round(r.round(t - s) - y);
    s = t;
    if (out) out[i] = s;
  }
  return s;
}

/**
 * Neumaier's improved Kahan-Babuska summation as fpsum computes it: s is the
 * naive sum from +0; each step's loss is (big - s_new) + small, where big is
 * s_old if |s_old| >= |x| (else x) and small the other; c is the naive sum of
 * the losses from +0; entry i is fl(s + c).  NaN compares false, so a NaN
 * s_old counts as the smaller; infinities make c NaN, as with Kahan.
 * @param {Float64Array} v @param {Rounder} r @param {Float64Array | null} out
 * @returns {number}
 */
function neumaier(v, r, out) {
  let s = 0;
  let c = 0;
  const n = v.length;
  for (let i = 0; i < n; i += 1) {
    const x = v[i];
    const after = r.round(s + x);
    // (big - after) + small is the rounding error of big + small, exact in the format (Fast2Sum, as
    // |big| >= |small|; in FP4 and FP6 too, as for Kahan), so no rounding is needed; NaN and inf come out
    // as the rounding gives them
    const lost = Math.abs(s) >= Math.abs(x) ? (s - after) + x : (x - after) + s;
    c = r.round(c + lost);
    s = after;
    if (out) out[i] = r.round(s + c);
  }
  return r.round(s + c);
}

/**
 * The largest power of two strictly below n >= 2: the size of the left part
 * of a pairwise sum (fpsum.pairwise.pairwise_split).
 * @param {number} n
 * @returns {number}
 */
export function pairwiseSplit(n) {
  let p = 1;
  while (p * 2 < n) p *= 2;
  return p;
}

/**
 * Pairwise sum, as fpsum.pairwise.pairwise_sum: a power-of-two count is a
 * balanced tree added a level at a time (pairs, pairs of pairs, ...); any
 * other n is (balanced sum of the first pairwiseSplit(n)) + (pairwise sum of
 * the rest).  NaN and inf propagate up the tree; -0 + -0 stays -0.
 * @param {Float64Array} v @param {Rounder} r
 * @returns {number}
 */
function pairwise(v, r) {
  const n = v.length;
  let top = 1; // the largest part: the highest power of two <= n
  while (top * 2 <= n) top *= 2;
  const scratch = new Float64Array(Math.max(1, top >> 1));
  // the parts, left to right: balanced blocks of decreasing powers of two
  const parts = [];
  let start = 0;
  let rest = n;
  while (rest > 0) {
    const size = rest & (rest - 1) ? pairwiseSplit(rest) : rest;
    parts.push(balanced(v, start, size, r, scratch));
    start += size;
    rest -= size;
  }
  // (a + (b + (c + ...))): each part is the left operand of the sum of those after it
  let sum = parts[parts.length - 1];
  for (let k = parts.length - 2; k >= 0; k -= 1) sum = r.round(parts[k] + sum);
  return sum;
}

/**
 * The balanced tree sum of v[start .. start + size), size a power of two,
 * one level at a time: level 1 is fl(v[2j] + v[2j+1]), and so on.
 * @param {Float64Array} v @param {number} start @param {number} size
 * @param {Rounder} r @param {Float64Array} scratch at least size / 2 long
 * @returns {number}
 */
function balanced(v, start, size, r, scratch) {
  if (size === 1) return v[start];
  let half = size >> 1;
  for (let j = 0; j < half; j += 1) scratch[j] = r.round(v[start + 2 * j] + v[start + 2 * j + 1]);
  while (half > 1) {
    half >>= 1;
    for (let j = 0; j < half; j += 1) scratch[j] = r.round(scratch[2 * j] + scratch[2 * j + 1]);
  }
  return scratch[0];
}

/**
 * The pairwise sum of every prefix, as fpsum.pairwise.pairwise_running: in
 * every aligned block of 2**(L+1) inputs, the entries of the right half get
 * the balanced sum of the left half added, level by level from the pairs up.
 * @param {Float64Array} v @param {Rounder} r @param {Float64Array} out
 */
function pairwiseRunning(v, r, out) {
  const n = v.length;
  let size = 1;
  while (size < n) size *= 2;
  const running = new Float64Array(size); // padded with +0, as fpsum pads; the padding is never kept
  running.set(v);
  const level = Float64Array.from(running); // level[j]: the balanced sum of the j-th aligned block of `half`
  for (let half = 1, blocks = size; half < size; half *= 2, blocks /= 2) {
    for (let b = 0; b < size; b += 2 * half) {
      const left = level[b / half];
      const end = Math.min(b + 2 * half, n); // entries from n on are padding, never kept
      for (let j = b + half; j < end; j += 1) running[j] = r.round(running[j] + left);
    }
    // the next level in place: entry j from entries 2j and 2j + 1, which no earlier j overwrote
    for (let j = 0; j < blocks / 2; j += 1) level[j] = r.round(level[2 * j] + level[2 * j + 1]);
  }
  out.set(running.subarray(0, n));
}

/**
 * Blocked sum, as fpsum.blocked.blocked_sum: the naive sum of each block of
 * `block` inputs (each from its first input; the last block may be shorter),
 * then the naive sum of the block sums.  NaN, inf and -0 as in naive.
 * @param {Float64Array} v @param {Rounder} r @param {number} block
 * @returns {number}
 */
function blocked(v, r, block) {
  const n = v.length;
  let total = 0;
  for (let b = 0; b < n; b += block) {
    const end = Math.min(n, b + block);
    let s = v[b];
    for (let i = b + 1; i < end; i += 1) s = r.round(s + v[i]);
    total = b === 0 ? s : r.round(total + s);
  }
  return total;
}

/**
 * Blocked running totals, as fpsum.blocked.blocked_running: entry i in
 * block 0 is the naive partial sum; in block k >= 1 it is
 * fl(naive sum of the sums of blocks 0..k-1 + partial sum of block k).
 * @param {Float64Array} v @param {Rounder} r @param {number} block @param {Float64Array} out
 */
function blockedRunning(v, r, block, out) {
  const n = v.length;
  let before = 0;
  for (let b = 0; b < n; b += block) {
    const end = Math.min(n, b + block);
    let s = v[b];
    out[b] = b === 0 ? s : r.round(before + s);
    for (let i = b + 1; i < end; i += 1) {
      s = r.round(s + v[i]);
      out[i] = b === 0 ? s : r.round(before + s);
    }
    // the block's sum, padded with -0 as fpsum pads the last block: x + -0 is x
    before = b === 0 ? s : r.round(before + s);
  }
}

/**
 * Naive summation with stochastic rounding from +0, s = SR(s + x), one
 * uniform draw per addition from PCG64 seeded with [ROUNDING_STREAM, seed]
 * (fpsum.stochastic_sum.stochastic_running: its draws for trial 0 are the
 * stream's doubles in order).  See rounding.stochasticRound for NaN,
 * overflow and -0.
 * @param {Float64Array} v @param {Readonly<Format>} fmt @param {number} seed @param {Float64Array | null} out
 * @returns {number}
 */
function stochastic(v, fmt, seed, out) {
  const rng = new Pcg64([ROUNDING_STREAM, seed]);
  const rounder = rounderFor(fmt);
  let s = 0;
  const n = v.length;
  for (let i = 0; i < n; i += 1) {
    s = stochasticRound(s, v[i], fmt, rng.random(), rounder);
    if (out) out[i] = s;
  }
  return s;
}
