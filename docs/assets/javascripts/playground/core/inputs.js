/**
 * Seeded input vectors, as fpsum.inputs.make_inputs draws them.
 *
 * Every kind draws doubles from NumPy's PCG64 stream for the seed (rng.js
 * reproduces it bit for bit) and rounds each once to the format; the
 * stored values are the inputs, and their exact sum is the reference.
 * No NaN, inf or -0 is ever produced: a tiny negative draw that rounds to
 * -0 becomes +0, as fpsum adds +0 to every rounded value.
 */
import { InputError } from "./errors.js";
import { getFormat } from "./formats.js";
import { roundToFormat } from "./rounding.js";
import { Pcg64 } from "./rng.js";

/** The kinds, as `fpsum race --inputs` spells them. */
export const INPUT_KINDS = Object.freeze(["uniform", "ones", "normal", "squares", "exp", "symmetric"]);
/** The playground's own kind besides fpsum's: n copies of one constant. */
export const CONSTANT = "constant";
/** The most inputs drawn at once (the playground's n goes up to 2**20). */
export const MAX_DRAWN = 1 << 24;

/**
 * Whether drawInputs(kind, ...) is, by construction, bit for bit what fpsum
 * draws.  False for "exp" only: fpsum computes numpy's exp(-3U), and
 * Math.exp is another implementation of exp, which may differ from it in the
 * last bit of a double.  After rounding to a format of p bits, the stored
 * value differs only when exp(-3U) lies within a double ulp or two of a
 * rounding boundary of the format: about once in 2**(52 - p) draws for p up
 * to 24 (never seen in the tests, 25,003 draws per format), but in FP64 the
 * stored value is the double itself, and about one draw in nine differs in
 * its last bit (2,701 of 25,003 in the tests).  "normal" is true: its rare tail and wedge steps call log1p and
 * exp, whose JavaScript and C library versions agree on every value the
 * tests draw, and the wedge's comparison would differ only if a uniform
 * landed exactly on the last bit where they disagree.  "constant" is true
 * (`fpsum sum` on n copies of c gives the same values); an unknown kind is false.
 * @param {string} kind
 * @returns {boolean}
 */
export function inputsMatchFpsum(kind) {
  return (INPUT_KINDS.includes(kind) || kind === CONSTANT) && kind !== "exp";
}

/**
 * The n inputs fpsum draws for kind, seed and format
 * (make_inputs(kind, n, fmt, seed)): uniform in [0, 1) (a draw just below 1
 * may round to 1 in a narrow format); ones; normal (standard normal, both
 * signs); squares (U**2); exp (exp(-3U), in (e**-3, 1]); symmetric
 * (2U - 1, uniform on [-1, 1)).  Also "constant": n copies of options.c
 * (default 1) rounded to the format, drawing nothing (a rounded -0 stays -0,
 * NaN and inf as they round).
 * @param {string} kind
 * @param {number} n a whole number, 1 to 2**24
 * @param {number} seed a whole number >= 0 (below 2**53)
 * @param {string} format
 * @param {{c?: number}} [options]
 * @returns {Float64Array}
 * @throws {InputError} unknown kind or format, bad n or seed
 */
export function drawInputs(kind, n, seed, format, options = {}) {
  const fmt = getFormat(format);
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_DRAWN) throw new InputError(`n must be a whole number from 1 to ${MAX_DRAWN}, got ${n}`);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new InputError(`seed must be a whole number, not negative, got ${seed}`);
  const out = new Float64Array(n);
  if (kind === CONSTANT) return out.fill(roundToFormat(options.c ?? 1, fmt));
  if (!INPUT_KINDS.includes(kind)) throw new InputError(`unknown input kind ${JSON.stringify(kind)} (known: ${[...INPUT_KINDS, CONSTANT].join(", ")})`);
  const rng = new Pcg64(seed);
  for (let i = 0; i < n; i += 1) {
    let drawn = 1;
    switch (kind) {
      case "uniform": drawn = rng.random(); break;
      case "normal": drawn = rng.standardNormal(); break;
      case "squares": { const u = rng.random(); drawn = u * u; break; } // numpy's ** 2 is the product
      case "exp": drawn = Math.exp(-3 * rng.random()); break;
      case "symmetric": drawn = 2 * rng.random() - 1; break; // exact: 2U is a multiple of 2**-52 below 2
      default: break; // ones
    }
    out[i] = roundToFormat(drawn, fmt) + 0; // + 0 turns -0 into +0 and changes nothing else
  }
  return out;
}
