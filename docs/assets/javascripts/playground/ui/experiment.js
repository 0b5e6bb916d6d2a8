/**
 * One experiment run to its end: the inputs, each method's result and running totals, the exact
 * total, and what the chart draws. Pure arithmetic on the core; it runs in the page or in a worker.
 *
 * `steps(experiment)` is a generator that does the work one method at a time and yields after
 * each piece, so a caller on the page's own thread can let the page breathe between pieces;
 * it returns the `Outcome`.
 */

import {
  InputError, drawInputs, exactTotal, formatShortest, getFormat, parseNumbers, relativeError, runMethod, stallStep, ulp, ulpError,
} from "../core/index.js";
import { CONSTANT, srSeedOf } from "./state.js";

/** How many evenly spaced steps the chart draws at most. */
export const SAMPLES = 400;

/**
 * @typedef {object} MethodResult
 * @property {string} method
 * @property {number} total        the method's result, as fpsum's `total` gives it
 * @property {string} shown        `total` as the shortest decimal that round-trips it
 * @property {number} relError     relative error against the exact total
 * @property {number} ulps         error in ulps, as the core computes it
 * @property {number | null} stall after how many inputs the method's running total stalled
 * @property {Float64Array} sampled its running total at each of the chart's steps
 * @property {Float64Array} errors  its error there, in ulps of the format at the exact running total
 */

/**
 * @typedef {object} Outcome
 * @property {Float64Array} values   the inputs, in the format
 * @property {number} exact          the exact total, rounded to double
 * @property {string} exactShown
 * @property {Float64Array} steps    the chart's steps (1-based counts of inputs added)
 * @property {Float64Array} exactSampled  the exact running total at those steps (to double precision)
 * @property {MethodResult[]} results
 */

/**
 * The inputs of `experiment`: drawn, or the reader's numbers rounded to the format.
 * Throws the core's InputError on bad numbers.
 * @param {import("./state.js").Experiment} experiment
 * @returns {Float64Array}
 */
export function inputsOf(experiment) {
  if (experiment.x !== null) return parseNumbers(experiment.x, experiment.format);
  /** @type {{c?: number}} */
  const options = {};
  if (experiment.inputs === CONSTANT) {
    const c = parseNumbers(experiment.c, experiment.format);
    if (c.length !== 1) throw new InputError(`the constant c must be one number, not "${experiment.c}"`);
    options.c = c[0]; // rounded as fpsum sum rounds the decimal: exactly, once
  }
  return drawInputs(experiment.inputs, experiment.n, experiment.seed, experiment.format, options);
}

/**
 * The chart's steps for `n` inputs: 1, n, and evenly spaced counts between, at most SAMPLES.
 * @param {number} n
 * @returns {Float64Array}
 */
export function sampleSteps(n) {
  const count = Math.min(n, SAMPLES);
  const at = new Float64Array(count);
  for (let j = 0; j < count; j++) at[j] = count === 1 ? n : Math.round(1 + ((n - 1) * j) / (count - 1));
  return at;
}

/**
 * The running sum of `values` at each of `steps`, in double-double arithmetic (Knuth's two-sum),
 * rounded to double: a reference line for the chart, far finer than a pixel.
 * @param {Float64Array} values
 * @param {Float64Array} at
 * @returns {Float64Array}
 */
export function exactRunning(values, at) {
  const out = new Float64Array(at.length);
  let hi = 0;
  let lo = 0;
  let j = 0;
  for (let i = 0; i < values.length && j < at.length; i++) {
    const x = values[i];
    const s = hi + x;
    const back = s - hi;
    lo += (hi - (s - back)) + (x - back);
    hi = s;
    while (j < at.length && at[j] === i + 1) out[j++] = hi + lo;
  }
  return out;
}

/**
 * The work of `experiment`, one piece at a time; yields a fraction done after each piece.
 * @param {import("./state.js").Experiment} experiment
 * @returns {Generator<number, Outcome, void>}
 */
export function* steps(experiment) {
  const values = inputsOf(experiment);
  const total = experiment.methods.length + 1;
  yield 1 / total;
  const exact = exactTotal(values);
  const fmt = getFormat(experiment.format);
  const sampleAt = sampleSteps(values.length);
  const exactSampled = exactRunning(values, sampleAt);
  /** @type {MethodResult[]} */
  const results = [];
  const options = { block: experiment.block, srSeed: srSeedOf(experiment), running: true };
  for (const method of experiment.methods) {
    const run = runMethod(method, values, experiment.format, options);
    const running = run.running || new Float64Array([run.total]);
    const sampled = new Float64Array(sampleAt.length);
    const errors = new Float64Array(sampleAt.length);
    for (let j = 0; j < sampleAt.length; j++) {
      sampled[j] = running[sampleAt[j] - 1];
      errors[j] = Math.abs(sampled[j] - exactSampled[j]) / ulp(exactSampled[j], fmt); // for drawing only
    }
    results.push({
      method, total: run.total, shown: formatShortest(run.total), relError: relativeError(run.total, exact),
      ulps: ulpError(run.total, exact, experiment.format), stall: stallStep(running, values, experiment.format),
      sampled, errors,
    });
    yield (results.length + 1) / total;
  }
  return { values, exact: exact.value, exactShown: formatShortest(exact.value), steps: sampleAt, exactSampled, results };
}

/**
 * Run `experiment` to its end at once (in a worker, or in a test).
 * @param {import("./state.js").Experiment} experiment
 * @param {(done: number) => void} [progress]
 * @returns {Outcome}
 */
export function runAll(experiment, progress) {
  const work = steps(experiment);
  for (;;) {
    const next = work.next();
    if (next.done) return next.value;
    if (progress) progress(next.value);
  }
}
