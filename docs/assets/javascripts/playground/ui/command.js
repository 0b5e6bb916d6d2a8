/**
 * The `fpsum` command that gives the same numbers from a terminal (src/fpsum/cli.py).
 *
 * Drawn inputs with the race's own options (stochastic rounding seeded by the inputs' seed, blocks
 * of 128) are one `fpsum race`, which prints every method's total and the exact one. Other options,
 * or the reader's own numbers, go through `fpsum sum` on a file of the inputs, one method at a
 * time: the inputs are drawn by the model itself (`fpsum.inputs.make_inputs`), or are the reader's numbers,
 * which `fpsum sum` rounds to the format as the page does. Where the page's drawn inputs are not
 * the model's (`inputsMatchFpsum`), the file is the page's inputs, to download. Lines stay within
 * 56 characters, so that the block fits a phone.
 */

import { inputsMatchFpsum } from "../core/index.js";
import { CONSTANT, DEFAULT_BLOCK, srSeedOf } from "./state.js";

/**
 * @typedef {object} Command
 * @property {string} text           the shell command, lines joined by newlines
 * @property {string | null} file    the file the command reads, which the page offers to download (or null)
 * @property {string} note           one sentence on what it prints
 */

/**
 * @param {import("./state.js").Experiment} e
 * @returns {string[]} the `--block` and `--seed` options the methods of `e` need
 */
function options(e) {
  const out = [];
  if (e.methods.includes("blocked")) out.push(`--block ${e.block}`);
  if (e.methods.includes("stochastic")) out.push(`--seed ${srSeedOf(e)}`);
  return out;
}

/** The longest line a command has: it fits a 360 px screen. */
export const COLUMNS = 56;

/**
 * `head` followed by `words` and then `end`, in lines of at most COLUMNS characters, continued with "\\".
 * @param {string} head
 * @param {string[]} words
 * @param {string} end
 * @returns {string[]}
 */
function wrapped(head, words, end) {
  const lines = [];
  let line = head;
  for (const [i, word] of words.entries()) {
    const tail = i === words.length - 1 ? end : "";
    if (`${line} ${word}${tail}`.length > COLUMNS - 2) {
      lines.push(`${line} \\`);
      line = "   ";
    }
    line += ` ${word}`;
  }
  lines.push(line + end);
  return lines;
}

/**
 * `fpsum sum FILE` for each method of `e`, as a loop.
 * @param {import("./state.js").Experiment} e
 * @param {string} file
 * @returns {string[]}
 */
function sumLoop(e, file) {
  const extra = options(e);
  const tail = extra.length ? ` \\\n    ${extra.join(" ")}` : "";
  return [...wrapped("for m in", e.methods, "; do"),
    `  fpsum sum ${file} --format ${e.format} --method $m${tail}`, "done"];
}

/**
 * The command for `experiment`.
 * @param {import("./state.js").Experiment} e
 * @returns {Command}
 */
export function commandFor(e) {
  if (e.x !== null) {
    return { text: sumLoop(e, "numbers.txt").join("\n"), file: "numbers.txt",
      note: "numbers.txt holds your numbers, one a line; each fpsum sum prints its method's result and the exact sum." };
  }
  if (e.inputs === CONSTANT) {
    return { text: [`yes ${e.c.trim()} | head -n ${e.n} > inputs.txt`, ...sumLoop(e, "inputs.txt")].join("\n"),
      file: null, note: `inputs.txt holds ${e.n} copies of ${e.c.trim()}; each fpsum sum prints its method's result.` };
  }
  if (!inputsMatchFpsum(e.inputs)) {
    return { text: sumLoop(e, "inputs.txt").join("\n"), file: "inputs.txt",
      note: `The page draws its ${e.inputs} inputs otherwise than fpsum does: inputs.txt holds the page's own, `
        + "and each fpsum sum prints its method's result on them." };
  }
  const raceOptions = (!e.methods.includes("blocked") || e.block === DEFAULT_BLOCK)
    && (!e.methods.includes("stochastic") || srSeedOf(e) === e.seed);
  if (raceOptions) {
    return { text: [`fpsum race --format ${e.format} --inputs ${e.inputs} \\`, `  --n ${e.n} --seed ${e.seed}`].join("\n"),
      file: null, note: "It prints every method's total, the exact total, and where each stalled." };
  }
  const draw = ["python -c 'from fpsum.formats import get_format", "from fpsum.inputs import make_inputs",
    `f = get_format("${e.format}")`, `x = make_inputs("${e.inputs}", ${e.n}, f, ${e.seed})`,
    "print(*x.astype(float).tolist(), sep=\"\\n\")' \\", "  > inputs.txt"];
  return { text: [...draw, ...sumLoop(e, "inputs.txt")].join("\n"), file: null,
    note: "The model draws the inputs into inputs.txt; each fpsum sum prints its method's result on them." };
}
