// The playground's speed, measured where it runs: element-additions per second of each method on
// 2**20 inputs next to a plain double-precision loop over the same inputs, in the same engine.
// bench.js runs it in node; scripts/playground_speed.py (make bench) runs it in chromium, the
// reader's engine. It uses nothing of node's, so the browser imports it as a module as it is.
import { drawInputs, METHODS, runMethod } from "../../docs/assets/javascripts/playground/core/index.js";

/**
 * @typedef {{method: string, seconds: number, additionsPerSecond: number, ofPlain: number}} SpeedRow
 * @typedef {{format: string, inputs: string, n: number, running: boolean, rows: SpeedRow[]}} Speed
 */

/** @type {number[]} */
const results = [];

/**
 * The best seconds of one call of `run`: one warm-up call, then samples for at least `budgetMs` (one at
 * least). A sample repeats the call for 20 ms or more: a browser's clock ticks coarsely (0.1 ms in
 * chromium), and a plain loop over 2**20 doubles takes about half a millisecond.
 * @param {() => number} run returns a value that depends on the whole sum
 * @param {number} budgetMs
 * @returns {number}
 */
function best(run, budgetMs) {
  let sink = run();
  let fastest = Infinity;
  const start = performance.now();
  do {
    let calls = 0;
    const t0 = performance.now();
    let t1 = t0;
    while (t1 - t0 < 20) {
      sink += run();
      calls += 1;
      t1 = performance.now();
    }
    fastest = Math.min(fastest, (t1 - t0) / 1000 / calls);
  } while (performance.now() - start < budgetMs);
  results.push(sink); // kept, so no engine could drop the calls as work without effect
  return fastest;
}

/**
 * Time every method of the playground, twice over (the best of both: an engine's first optimisation of a
 * loop shared by two methods may not be its last), and the plain loop.
 * @param {{format?: string, inputs?: string, n?: number, running?: boolean, budgetMs?: number}} [options]
 *   running: keep the running totals, as the page does when it draws them
 * @returns {Speed}
 */
export function measureSpeed(options = {}) {
  const format = options.format ?? "fp16";
  const inputs = options.inputs ?? "uniform";
  const n = options.n ?? 1 << 20;
  const running = options.running ?? false;
  const budgetMs = options.budgetMs ?? 500;
  const values = drawInputs(inputs, n, 0, format);
  const plain = best(() => {
    let s = 0;
    for (let i = 0; i < values.length; i += 1) s += values[i];
    return s;
  }, budgetMs);
  /** @type {Map<string, number>} */
  const fastest = new Map();
  for (let round = 0; round < 2; round += 1) {
    for (const method of METHODS) {
      const seconds = best(() => runMethod(method, values, format, { running }).total, budgetMs);
      fastest.set(method, Math.min(seconds, fastest.get(method) ?? Infinity));
    }
  }
  /** @type {SpeedRow[]} */
  const rows = [{ method: "plain double loop", seconds: plain, additionsPerSecond: n / plain, ofPlain: 1 }];
  for (const [method, seconds] of fastest) {
    rows.push({ method, seconds, additionsPerSecond: n / seconds, ofPlain: plain / seconds });
  }
  return { format, inputs, n, running, rows };
}
