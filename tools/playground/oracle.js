// The playground's arithmetic as a command for the Python tests (tests/model/test_playground_arith.py).
//
// Reads one JSON request on standard input, {"cases": [case, ...]}, and prints {"results": [...]}, one
// result per case, in order.  Arrays of doubles travel as base64 of their little-endian float64 bytes, so
// every bit (NaN, -0, subnormals) arrives as it is.  A case that throws an InputError gets
// {"error": message}.  Cases ("op"):
//   round      {format, x}                  -> {y}       roundToFormat of each x
//   add        {format, a, b}               -> {y}       addRounded of each pair
//   stochastic {format, a, b, draws}        -> {y}       stochasticRound of each pair with its draw
//   random     {seed, count}                -> {y}       NumPy's Generator.random() stream for the seed
//   normal     {seed, count}                -> {y}       Generator.standard_normal()
//   inputs     {kind, n, seed, format, c?}  -> {y}       drawInputs
//   sums       {format, methods, n, trials, values? | kind + seed, block?, sr_seed?, running?}
//              -> {totals: {method: b64}, running?: {method: b64}}  each trial (row) summed on its own
//   parse      {format, text}               -> {y} or {error}
//   exact      {values, results, format}    -> {value, abs, rel, ulps} (results: b64 of the results to measure)
//   round_seq  {format, x}                  -> {y, z}    a Rounder's round, and another's roundNear, on each x in turn
//   stall      {values, method, format}     -> {stall}   stallStep of the method's running totals
//   trace      {method, format, values, k}  -> the step's fields (doubles as b64 of one value each)
//   first_lost {method, format, values}     -> {step}
//   is_lost    {total, input, format}       -> the fields
import { readFileSync } from "node:fs";
import * as core from "../../docs/assets/javascripts/playground/core/index.js";
import { rounderFor, stochasticRound } from "../../docs/assets/javascripts/playground/core/rounding.js";
import { Pcg64 } from "../../docs/assets/javascripts/playground/core/rng.js";
import { getFormat } from "../../docs/assets/javascripts/playground/core/formats.js";

/** @param {string} text @returns {Float64Array} */
function decode(text) {
  const bytes = Buffer.from(text, "base64");
  const out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** @param {Float64Array | number[]} values @returns {string} */
function encode(values) {
  const array = values instanceof Float64Array ? values : Float64Array.from(values);
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");
}

/**
 * @param {Record<string, any>} c
 * @returns {Record<string, unknown>}
 */
function run(c) {
  switch (c.op) {
    case "round": {
      const fmt = getFormat(c.format);
      return { y: encode(decode(c.x).map((x) => core.roundToFormat(x, fmt))) };
    }
    case "add": {
      const fmt = getFormat(c.format);
      const a = decode(c.a);
      const b = decode(c.b);
      return { y: encode(a.map((x, i) => core.addRounded(x, b[i], fmt))) };
    }
    case "stochastic": {
      const fmt = getFormat(c.format);
      const a = decode(c.a);
      const b = decode(c.b);
      const draws = decode(c.draws);
      return { y: encode(a.map((x, i) => stochasticRound(x, b[i], fmt, draws[i]))) };
    }
    case "random":
    case "normal": {
      const rng = new Pcg64(c.seed);
      const out = new Float64Array(c.count);
      for (let i = 0; i < out.length; i += 1) out[i] = c.op === "random" ? rng.random() : rng.standardNormal();
      return { y: encode(out) };
    }
    case "inputs":
      return { y: encode(core.drawInputs(c.kind, c.n, c.seed, c.format, c.c === undefined ? {} : { c: c.c })) };
    case "sums": {
      const n = c.n;
      const values = c.values === undefined ? core.drawInputs(c.kind, n * c.trials, c.seed, c.format) : decode(c.values);
      /** @type {Record<string, string>} */
      const totals = {};
      /** @type {Record<string, string>} */
      const running = {};
      for (const method of c.methods) {
        const t = new Float64Array(c.trials);
        const r = c.running ? new Float64Array(n * c.trials) : null;
        for (let row = 0; row < c.trials; row += 1) {
          const result = core.runMethod(method, values.subarray(row * n, (row + 1) * n), c.format,
            { block: c.block, srSeed: c.sr_seed, running: Boolean(c.running) });
          t[row] = result.total;
          if (r && result.running) r.set(result.running, row * n);
        }
        totals[method] = encode(t);
        if (r) running[method] = encode(r);
      }
      return c.running ? { totals, running } : { totals };
    }
    case "parse":
      return { y: encode(core.parseNumbers(c.text, c.format)) };
    case "exact": {
      const exact = core.exactTotal(decode(c.values));
      const results = decode(c.results);
      return {
        value: encode([exact.value]),
        abs: encode(results.map((r) => core.absoluteError(r, exact))),
        rel: encode(results.map((r) => core.relativeError(r, exact))),
        ulps: encode(results.map((r) => core.ulpError(r, exact, c.format))),
      };
    }
    case "stall": {
      const values = decode(c.values);
      const running = /** @type {Float64Array} */ (core.runMethod(c.method, values, c.format, { running: true }).running);
      return { stall: core.stallStep(running, values, c.format) };
    }
    case "round_seq": {
      const rounder = rounderFor(getFormat(c.format));
      const near = rounderFor(getFormat(c.format));
      const x = decode(c.x);
      return { y: encode(x.map((v) => rounder.round(v))), z: encode(x.map((v) => near.roundNear(v))) };
    }
    case "trace":
      return fields(core.traceStep(c.method, decode(c.values), c.format, c.k));
    case "first_lost":
      return { step: core.firstLostStep(c.method, decode(c.values), c.format) };
    case "is_lost":
      return fields(core.isLost(decode(c.total)[0], decode(c.input)[0], c.format));
    default:
      throw new Error(`unknown op ${c.op}`);
  }
}

/** @param {Record<string, unknown>} step @returns {Record<string, unknown>} */
function fields(step) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, value] of Object.entries(step)) out[key] = typeof value === "number" ? encode([value]) : value;
  return out;
}

const request = JSON.parse(readFileSync(0, "utf8"));
const results = request.cases.map((/** @type {Record<string, any>} */ c) => {
  try {
    return run(c);
  } catch (error) {
    if (error instanceof core.InputError) return { error: error.message };
    throw error;
  }
});
process.stdout.write(JSON.stringify({ results }));
