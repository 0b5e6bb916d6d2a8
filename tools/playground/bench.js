// Speed of the playground's summation methods in node (speed.js; make bench measures it in chromium):
//
//   node tools/playground/bench.js [--format fp16] [--inputs uniform] [--n 1048576] [--running] [--json]
//
// Goals (issue 26): naive and pairwise at least 20 % of the plain loop, kahan and neumaier at least 5 %;
// every method on 2**20 inputs under 2 s.
import { measureSpeed } from "./speed.js";

/** @param {string} name @param {string} fallback @returns {string} */
function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

const speed = measureSpeed({
  format: option("format", "fp16"),
  inputs: option("inputs", "uniform"),
  n: Number(option("n", String(1 << 20))),
  running: process.argv.includes("--running"),
});
if (process.argv.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ ...speed, node: process.version })}\n`);
} else {
  process.stdout.write(`${speed.format}, ${speed.n} ${speed.inputs} inputs`
    + `${speed.running ? ", running totals kept" : ""} (node ${process.version})\n`);
  for (const r of speed.rows) {
    process.stdout.write(`${r.method.padEnd(18)} ${(r.additionsPerSecond / 1e6).toFixed(1).padStart(8)} M additions/s`
      + `  ${(r.seconds * 1000).toFixed(1).padStart(8)} ms  ${(100 * r.ofPlain).toFixed(1).padStart(6)} % of plain\n`);
  }
}
