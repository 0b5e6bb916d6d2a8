/**
 * The form fields of an experiment: format, methods and their options, drawn inputs or the
 * reader's own numbers. Every control has a label; numbers are typed as text, so that what the
 * reader typed can be named in a message when it is not a number.
 */

import { FORMATS, METHODS } from "../core/index.js";
import { el, grouped } from "./dom.js";
import { inputLabel, lookOf } from "./looks.js";
import { CONSTANT, KINDS, MAX_N, wholeNumber } from "./state.js";

/**
 * @typedef {object} Fields
 * @property {HTMLFormElement} form
 * @property {HTMLSelectElement} format
 * @property {HTMLInputElement[]} methods
 * @property {HTMLInputElement} block
 * @property {HTMLInputElement} srSeed
 * @property {HTMLInputElement} drawn      the radio button for drawn inputs
 * @property {HTMLInputElement} own        the radio button for the reader's numbers
 * @property {HTMLSelectElement} inputs
 * @property {HTMLInputElement} n
 * @property {HTMLInputElement} seed
 * @property {HTMLInputElement} c         the constant, for the kind "constant"
 * @property {HTMLTextAreaElement} x
 * @property {HTMLButtonElement} run
 */

/**
 * A labelled control in a row of its own.
 * @param {string} text
 * @param {HTMLElement} control  it must have an id
 * @param {string} [hint]
 * @returns {HTMLElement}
 */
function field(text, control, hint) {
  const hintId = hint ? `${control.id}-hint` : null;
  if (hintId) control.setAttribute("aria-describedby", hintId);
  return el("div", { class: "fpsum-pg-field" }, [
    el("label", { for: control.id }, [text]), control,
    hint ? el("span", { class: "fpsum-pg-hint", id: hintId }, [hint]) : null,
  ]);
}

/**
 * @param {string} id
 * @param {string} [placeholder]
 * @returns {HTMLInputElement}
 */
function numberInput(id, placeholder) {
  return el("input", { id, name: id, type: "text", inputmode: "numeric", autocomplete: "off", spellcheck: "false",
    size: 9, placeholder });
}

/** @returns {Fields} the form, not yet on the page */
export function makeFields() {
  const format = el("select", { id: "pg-format", name: "format" },
    FORMATS.map((f) => el("option", { value: f.name }, [`${f.label} (${f.name})`])));
  const methods = METHODS.map((m) => el("input", { type: "checkbox", id: `pg-method-${m}`, name: "methods", value: m }));
  const methodBoxes = el("fieldset", { class: "fpsum-pg-methods" }, [el("legend", {}, ["Methods"]),
    ...methods.map((box, i) => el("label", { for: box.id, class: "fpsum-pg-check" }, [box, ` ${lookOf(METHODS[i]).label}`]))]);
  const block = numberInput("pg-block");
  const srSeed = numberInput("pg-sr-seed", "as the inputs");
  const drawn = el("input", { type: "radio", id: "pg-drawn", name: "source", value: "drawn" });
  const own = el("input", { type: "radio", id: "pg-own", name: "source", value: "own" });
  const inputs = el("select", { id: "pg-inputs", name: "inputs" },
    KINDS.map((k) => el("option", { value: k }, [inputLabel(k)])));
  const c = el("input", { id: "pg-c", name: "c", type: "text", inputmode: "decimal", autocomplete: "off", size: 9 });
  const n = numberInput("pg-n");
  const seed = numberInput("pg-seed");
  const x = el("textarea", { id: "pg-x", name: "x", rows: 4, spellcheck: "false",
    placeholder: "0.1, 0.2, 0.3 or one number a line" });
  const run = el("button", { type: "submit", class: "md-button md-button--primary" }, ["Run"]);
  const form = el("form", { class: "fpsum-pg-form", novalidate: true, "aria-label": "the experiment" }, [
    el("fieldset", {}, [el("legend", {}, ["Format and methods"]),
      field("Format", format), methodBoxes,
      field("Block size (blocked)", block),
      field("Seed of stochastic rounding", srSeed, "empty: the inputs' seed, or 0 for your numbers")]),
    el("fieldset", {}, [el("legend", {}, ["Inputs"]),
      el("div", { class: "fpsum-pg-source" }, [
        el("label", { for: drawn.id, class: "fpsum-pg-check" }, [drawn, " drawn by the model"]),
        el("label", { for: own.id, class: "fpsum-pg-check" }, [own, " your own numbers"])]),
      el("div", { class: "fpsum-pg-drawn" }, [field("Kind of inputs", inputs),
        field("n, how many", n, `1 to ${grouped(MAX_N)}`), field("Seed", seed),
        el("div", { class: "fpsum-pg-constant" }, [field("The constant c", c, "rounded to the format as fpsum sum rounds it")])]),
      el("div", { class: "fpsum-pg-own" }, [field("Your numbers", x, "comma-separated or one a line, up to 100,000")])]),
    el("div", { class: "fpsum-pg-actions" }, [run]),
  ]);
  const fields = { form, format, methods, block, srSeed, drawn, own, inputs, n, seed, c, x, run };
  const sync = () => {
    form.classList.toggle("fpsum-pg-form--own", own.checked);
    form.classList.toggle("fpsum-pg-form--constant", inputs.value === CONSTANT);
    inputs.disabled = n.disabled = seed.disabled = own.checked;
    x.disabled = !own.checked;
  };
  drawn.addEventListener("change", sync);
  own.addEventListener("change", sync);
  inputs.addEventListener("change", sync);
  return fields;
}

/**
 * Show `experiment` in the fields.
 * @param {Fields} f
 * @param {import("./state.js").Experiment} e
 */
export function writeFields(f, e) {
  f.format.value = e.format;
  f.methods.forEach((box) => { box.checked = e.methods.includes(box.value); });
  f.block.value = String(e.block);
  f.srSeed.value = e.srSeed === null ? "" : String(e.srSeed);
  f.inputs.value = e.inputs;
  f.n.value = String(e.n);
  f.seed.value = String(e.seed);
  f.c.value = e.c;
  f.x.value = e.x === null ? f.x.value : e.x;
  (e.x === null ? f.drawn : f.own).checked = true;
  f.drawn.dispatchEvent(new Event("change"));
}

/**
 * The experiment the fields ask for, and a message for each field that is wrong.
 * @param {Fields} f
 * @returns {{experiment: import("./state.js").Experiment, problems: string[]}}
 */
export function readFields(f) {
  /** @type {string[]} */
  const problems = [];
  /**
   * @param {string} name
   * @param {HTMLInputElement} input
   * @param {number} low
   * @param {number} high
   */
  const whole = (name, input, low, high) => {
    const value = wholeNumber(name, input.value, low, high);
    if (typeof value === "string") { problems.push(value); return low; }
    return value;
  };
  const methods = f.methods.filter((box) => box.checked).map((box) => box.value);
  if (!methods.length) problems.push("choose at least one method");
  const own = f.own.checked;
  if (own && !f.x.value.trim()) problems.push("type or paste your numbers, or choose drawn inputs");
  const experiment = {
    format: f.format.value, methods, inputs: f.inputs.value,
    n: own ? 8192 : whole("n", f.n, 1, MAX_N), seed: own ? 0 : whole("seed", f.seed, 0, 2 ** 32 - 1),
    x: own ? f.x.value : null,
    block: methods.includes("blocked") ? whole("block size", f.block, 1, MAX_N) : 128,
    srSeed: f.srSeed.value.trim() === "" ? null : whole("seed of stochastic rounding", f.srSeed, 0, 2 ** 32 - 1),
    c: f.c.value,
  };
  return { experiment, problems };
}
