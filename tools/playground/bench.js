// Speed of the playground's summation methods: element-additions per second on 2**20 inputs,
// next to a plain double-precision loop (the goals of issue 26: naive and pairwise at least 20 % of
// the plain loop, kahan and neumaier at least 5 %; every method on 2**20 inputs under 2 s).
//
//   node tools/playground/bench.js [--format fp16] [--inputs uniform] [--n 1048576] [--json]
//
// Each method runs for at least half a second (after one warm-up run), twice; the rate is n over the
// best time of one run.  Running totals are not kept (the page keeps them; see --running).
import { drawInputs, METHODS, runMethod } from "../../docs/assets/javascripts/playground/core/index.js";

/** @param {string} name @param {string} fallback @returns {string} */
function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

const format = option("format", "fp16");
const kind = option("inputs", "uniform");
const n = Number(option("n", String(1 << 20)));
const running = process.argv.includes("--running");
const values = drawInputs(kind, n, 0, format);

/** @param {() => number} run @returns {number} the best seconds of one run */
function best(run) {
  run();
  let fastest = Infinity;
  const start = performance.now();
  let sink = 0;
  do {
    const t0 = performance.now();
    sink += run();
    fastest = Math.min(fastest, (performance.now() - t0) / 1000);
  } while (performance.now() - start < 500);
  if (Number.isNaN(sink)) fastest = Math.max(fastest, 0); // keep the result alive
  return fastest;
}

const plain = best(() => {
  let s = 0;
  for (let i = 0; i < values.length; i += 1) s += values[i];
  return s;
});
/** @type {{method: string, seconds: number, additionsPerSecond: number, ofPlain: number}[]} */
const rows = [{ method: "plain double loop", seconds: plain, additionsPerSecond: n / plain, ofPlain: 1 }];
// two rounds over the methods, the best of both: the engine's first optimisation of a shared loop
// (naive's, which wide also runs) may not be its last
/** @type {Map<string, number>} */
const fastest = new Map();
for (let round = 0; round < 2; round += 1) {
  for (const method of METHODS) {
    const seconds = best(() => runMethod(method, values, format, { running }).total);
    fastest.set(method, Math.min(seconds, fastest.get(method) ?? Infinity));
  }
}
for (const [method, seconds] of fastest) rows.push({ method, seconds, additionsPerSecond: n / seconds, ofPlain: plain / seconds });
if (process.argv.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ format, inputs: kind, n, running, node: process.version, rows })}\n`);
} else {
  process.stdout.write(`${format}, ${n} ${kind} inputs${running ? ", running totals kept" : ""} (node ${process.version})\n`);
  for (const r of rows) {
    process.stdout.write(`${r.method.padEnd(18)} ${(r.additionsPerSecond / 1e6).toFixed(1).padStart(8)} M additions/s`
      + `  ${(r.seconds * 1000).toFixed(1).padStart(8)} ms  ${(100 * r.ofPlain).toFixed(1).padStart(6)} % of plain\n`);
  }
}
