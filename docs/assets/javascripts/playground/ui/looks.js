/**
 * What the build hands the page from the Python side (scripts/figures/playground.py):
 * each method's look from scripts/figures/looks.py and the model's labels of the input kinds,
 * as `globalThis.FPSUM_BUILD`, which the bundler (esbuild's `define`) replaces by their values.
 * Served as a module on its own (not bundled) the tables are empty, and the page falls back
 * to the plain names.
 */

/** @typedef {{label: string, width: number, dash: string, marker: string}} Look */

/** @type {{looks?: Readonly<Record<string, Look>>, inputLabels?: Readonly<Record<string, string>>}} */
const BUILD = /** @type {any} */ (globalThis).FPSUM_BUILD || {};

/** @type {Readonly<Record<string, Look>>} */
export const LOOKS = BUILD.looks || {};

/** @type {Readonly<Record<string, string>>} */
export const INPUT_LABELS = BUILD.inputLabels || {};

/**
 * A method's look; a plain solid line named after the method where the table has none.
 * @param {string} method
 * @returns {Look}
 */
export function lookOf(method) {
  return LOOKS[method] || { label: method, width: 2, dash: "none", marker: "" };
}

/**
 * What the page calls an input kind: the model's label, or the kind's own name.
 * @param {string} kind
 * @returns {string}
 */
export function inputLabel(kind) {
  return INPUT_LABELS[kind] || (kind === "constant" ? "one constant c" : kind);
}
