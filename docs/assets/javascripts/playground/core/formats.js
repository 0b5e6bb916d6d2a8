/**
 * The floating-point formats of the model, each described once, as plain data.
 *
 * The same eleven formats as `fpsum.formats.FORMATS`, in its order and under
 * its names.  A format is defined by its precision p (hidden bit included),
 * the exponent of its smallest normal binade (emin), of its largest (emax),
 * its largest finite value, what overflow becomes and whether it has -0:
 * +-inf for the IEEE-style formats; NaN for E4M3 ("fn": finite and NaN only,
 * so 448 is the largest value and there is no infinity) and for the "fnuz"
 * FP8 formats, which have no -0 either; +-maxFinite for FP4 and FP6, which
 * have neither infinity nor NaN (they saturate).  Every other number is
 * derived from those, so a format cannot disagree with itself.
 */
import { InputError } from "./errors.js";

/**
 * @typedef {object} Format
 * @property {string} name short name, as `fpsum --format` spells it ("fp16")
 * @property {string} label how the site writes it ("FP16")
 * @property {number} bits storage width
 * @property {number} precision significand precision p, hidden bit included
 * @property {number} emin exponent of the smallest normal value, 2**emin
 * @property {number} emax exponent of the largest binade
 * @property {number} maxFinite largest finite value
 * @property {"inf" | "nan" | "saturate"} overflow what a result beyond maxFinite rounds to: +-inf, NaN,
 *   or +-maxFinite (a format without NaN, to which rounding NaN is an error)
 * @property {boolean} signedZero whether -0 exists (not in the fnuz formats: every zero is +0)
 * @property {number} unitRoundoff u = 2**-p
 * @property {number} smallestNormal 2**emin
 * @property {number} smallestSubnormal 2**(emin - p + 1), the finest gap
 */

/**
 * An IEEE-style format: infinities, emin = 1 - emax, all-ones significand finite.
 * @param {string} name @param {string} label @param {number} bits
 * @param {number} precision @param {number} emax
 * @returns {Readonly<Format>}
 */
function ieee(name, label, bits, precision, emax) {
  return define(name, label, bits, precision, 1 - emax, emax, (2 - 2 ** (1 - precision)) * 2 ** emax, "inf");
}

/**
 * @param {string} name @param {string} label @param {number} bits @param {number} precision
 * @param {number} emin @param {number} emax @param {number} maxFinite
 * @param {"inf" | "nan" | "saturate"} overflow @param {boolean} [signedZero] whether -0 exists (default true)
 * @returns {Readonly<Format>}
 */
function define(name, label, bits, precision, emin, emax, maxFinite, overflow, signedZero = true) {
  return Object.freeze({
    name, label, bits, precision, emin, emax, maxFinite, overflow, signedZero,
    unitRoundoff: 2 ** -precision,
    smallestNormal: 2 ** emin,
    smallestSubnormal: 2 ** (emin - precision + 1),
  });
}

/** @type {readonly Readonly<Format>[]} */
export const FORMATS = Object.freeze([
  ieee("fp16", "FP16", 16, 11, 15),
  ieee("bf16", "BF16", 16, 8, 127),
  ieee("fp32", "FP32", 32, 24, 127),
  ieee("fp64", "FP64", 64, 53, 1023),
  // OCP E4M3: exponent bias 7, so emin = -6 and the top binade 2**8 is
  // usable, but its all-ones significand is NaN: 1.75 * 2**8 = 448 is the
  // largest value and overflow has nowhere to go but NaN.
  define("e4m3", "FP8 E4M3", 8, 4, -6, 8, 448, "nan"),
  ieee("e5m2", "FP8 E5M2", 8, 3, 15),
  // The "fnuz" FP8 formats (AMD MI300): exponent bias one more than OCP's, no
  // infinity, and the code of -0 is their one NaN, so every zero is +0.
  define("e4m3fnuz", "FP8 E4M3FNUZ", 8, 4, -7, 7, 240, "nan", false),
  define("e5m2fnuz", "FP8 E5M2FNUZ", 8, 3, -15, 15, 57344, "nan", false),
  // OCP MX FP6 and FP4 element formats: no code for infinity or NaN, so a
  // result beyond the largest value saturates to it.
  define("e3m2", "FP6 E3M2", 6, 3, -2, 4, 28, "saturate"),
  define("e2m3", "FP6 E2M3", 6, 4, 0, 2, 7.5, "saturate"),
  define("e2m1", "FP4 E2M1", 4, 2, 0, 2, 6, "saturate"),
]);

/** @type {Map<string, Readonly<Format>>} */
const BY_NAME = new Map(FORMATS.map((f) => [f.name, f]));

/**
 * Look a format up by its short name, case-insensitively (as fpsum's get_format does).
 * @param {string} name
 * @returns {Readonly<Format>}
 * @throws {InputError} for any other name, listing the known ones
 */
export function getFormat(name) {
  const found = BY_NAME.get(String(name).toLowerCase());
  if (found === undefined) {
    throw new InputError(`unknown format ${JSON.stringify(name)} (known: ${FORMATS.map((f) => f.name).join(", ")})`);
  }
  return found;
}

/**
 * The accumulator of the `wide` method: FP32 below 32 bits, else FP64
 * (fpsum.formats.accumulator_for).  Every value of `fmt`, NaN, +-inf and -0
 * included, converts to it exactly.
 * @param {Readonly<Format>} fmt
 * @returns {Readonly<Format>}
 */
export function accumulatorFor(fmt) {
  return getFormat(fmt.bits < 32 ? "fp32" : "fp64");
}
