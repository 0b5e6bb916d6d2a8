/**
 * The experiment, and the URL that holds it (issue 26's contract):
 * `playground.html?format=F&methods=naive,kahan&inputs=KIND&n=N&seed=S` for drawn inputs,
 * `&x=v1,v2,...` for the reader's own numbers (then `inputs`, `n` and `seed` are not used),
 * and the options as the model names them: `block=` (blocked summation's block size) and
 * `sr_seed=` (stochastic rounding's seed; by default the seed of the inputs, as
 * `fpsum race` has it, or 0 for the reader's numbers, as `fpsum sum` has it).
 */

import { CONSTANT, DEFAULT_BLOCK, FORMATS, INPUT_KINDS, METHODS } from "../core/index.js";
import { grouped } from "./dom.js";

export { CONSTANT, DEFAULT_BLOCK };
export const MAX_N = 2 ** 20;
/** The race figures' methods (fpsum.race.RACE_METHODS): what a fresh page races. */
export const DEFAULT_METHODS = Object.freeze(["naive", "wide", "kahan", "pairwise"]);

/**
 * @typedef {object} Experiment
 * @property {string} format     a format name as fpsum spells it
 * @property {string[]} methods  method names as fpsum spells them, in METHODS' order
 * @property {string} inputs     an input kind (used when `x` is null)
 * @property {number} n          how many inputs to draw, 1 to MAX_N
 * @property {number} seed       the inputs' seed
 * @property {string | null} x   the reader's own numbers as written (comma or space separated), or null
 * @property {number} block      blocked summation's block size
 * @property {number | null} srSeed  stochastic rounding's seed, or null for the default
 * @property {string} c          the constant of the kind "constant", as written (a decimal)
 */

/** The kinds of input the form offers: the model's, and n copies of one constant. */
export const KINDS = Object.freeze([...INPUT_KINDS, CONSTANT]);

/** @returns {Experiment} */
export function defaults() {
  return { format: "fp16", methods: [...DEFAULT_METHODS], inputs: "uniform", n: 8192, seed: 0, x: null,
    block: DEFAULT_BLOCK, srSeed: null, c: "0.3" };
}

/**
 * The seed stochastic rounding uses in `experiment`.
 * @param {Experiment} experiment
 * @returns {number}
 */
export function srSeedOf(experiment) {
  if (experiment.srSeed !== null) return experiment.srSeed;
  return experiment.x === null ? experiment.seed : 0;
}

/**
 * A whole number from `text` between `low` and `high`, or a message saying what is wrong.
 * Digits may be grouped by commas in threes (`8,192`) or written with a decimal exponent
 * (`1e3`, `2.5e3`) as long as the value is whole; a sign, a fraction (`2.5`, `1e-3`), an
 * exponent with a fraction (`1e3.5`) or anything else is refused.
 * @param {string} name  the parameter, as the reader sees it
 * @param {string} text
 * @param {number} low
 * @param {number} high
 * @returns {number | string}
 */
export function wholeNumber(name, text, low, high) {
  const trimmed = text.trim();
  const wrong = `${name} must be a whole number from ${grouped(low)} to ${grouped(high)}, not "${text}"`;
  let value = NaN;
  if (/^\d+$/.test(trimmed) || /^\d{1,3}(,\d{3})+$/.test(trimmed)) value = Number(trimmed.replace(/,/g, ""));
  else if (/^\d+(\.\d+)?e\d+$/i.test(trimmed)) value = Number(trimmed);
  if (!Number.isInteger(value)) return wrong;
  if (value < low || value > high) return `${name} must be from ${grouped(low)} to ${grouped(high)}, not ${trimmed}`;
  return value;
}

/**
 * `text` with the plus sign of each exponent put back where a link's "+" arrived as a space
 * (`1e 5` from `x=1e+5`): a number never ends in "e", so such a space is no separator.
 * @param {string} text
 * @returns {string}
 */
export function exponentPlus(text) {
  return text.replace(/(\d\.?[eE]) (?=\d)/g, "$1+");
}

/**
 * The experiment a query string asks for, and a message for each parameter that is wrong
 * (that parameter then keeps its default).
 * @param {string} search  `location.search`, with or without its "?"
 * @returns {{experiment: Experiment, problems: string[]}}
 */
export function fromQuery(search) {
  const query = new URLSearchParams(search);
  const experiment = defaults();
  /** @type {string[]} */
  const problems = [];
  const format = query.get("format");
  if (format !== null) {
    if (FORMATS.some((f) => f.name === format)) experiment.format = format;
    else problems.push(`format "${format}" is not one of ${FORMATS.map((f) => f.name).join(", ")}`);
  }
  const methods = query.get("methods");
  if (methods !== null) {
    const asked = methods.split(",").map((m) => m.trim()).filter(Boolean);
    const unknown = asked.filter((m) => !METHODS.includes(m));
    if (unknown.length) problems.push(`unknown method "${unknown[0]}" (methods: ${METHODS.join(", ")})`);
    const known = METHODS.filter((m) => asked.includes(m));
    if (known.length) experiment.methods = known;
    else if (!unknown.length) problems.push("methods= names no method");
  }
  const inputs = query.get("inputs");
  if (inputs !== null) {
    if (KINDS.includes(inputs)) experiment.inputs = inputs;
    else problems.push(`inputs "${inputs}" is not one of ${KINDS.join(", ")}`);
  }
  /** @type {Array<[string, "n" | "seed" | "block" | "srSeed", number, number]>} */
  const numbers = [["n", "n", 1, MAX_N], ["seed", "seed", 0, 2 ** 32 - 1], ["block", "block", 1, MAX_N],
    ["sr_seed", "srSeed", 0, 2 ** 32 - 1]];
  for (const [name, key, low, high] of numbers) {
    const text = query.get(name);
    if (text === null) continue;
    const value = wholeNumber(name, text, low, high);
    if (typeof value === "string") problems.push(value);
    else experiment[key] = value;
  }
  const c = query.get("c");
  if (c !== null) experiment.c = exponentPlus(c);
  const x = query.get("x");
  if (x !== null) experiment.x = exponentPlus(x);
  return { experiment, problems };
}

/**
 * The query string (with its "?") that holds `experiment`: the drawn inputs' parameters, or `x`.
 * @param {Experiment} experiment
 * @returns {string}
 */
export function toQuery(experiment) {
  /** @type {Array<[string, string]>} */
  const pairs = [["format", experiment.format], ["methods", experiment.methods.join(",")]];
  if (experiment.x === null) {
    pairs.push(["inputs", experiment.inputs], ["n", String(experiment.n)], ["seed", String(experiment.seed)]);
    if (experiment.inputs === CONSTANT) pairs.push(["c", experiment.c.trim()]);
  } else {
    pairs.push(["x", experiment.x.trim().split(/[\s,]+/).join(",")]);
  }
  if (experiment.methods.includes("blocked")) pairs.push(["block", String(experiment.block)]);
  if (experiment.methods.includes("stochastic") && experiment.srSeed !== null) {
    pairs.push(["sr_seed", String(experiment.srSeed)]);
  }
  // Commas stay readable in a link: URLSearchParams would write them %2C.
  return "?" + pairs.map(([k, v]) => `${k}=${encodeURIComponent(v).replace(/%2C/g, ",")}`).join("&");
}
