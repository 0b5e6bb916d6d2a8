/**
 * The step trace: for step k of a method (or the first step where an input was lost), the
 * running total, the input, their exact sum, the two representable neighbours of that sum and
 * the gap between them, the rounded result and what was lost; for Kahan and Neumaier, the
 * compensation. The "Is it lost?" box shows the same fields for one addition the reader types.
 */

import { formatShortest } from "../core/index.js";
import { el } from "./dom.js";

/** The methods the core traces step by step. */
export const TRACED = Object.freeze(["naive", "wide", "kahan", "neumaier"]);

/** @typedef {import("../core/trace.js").TraceStep} Step */

/** @type {Array<[keyof Step, string]>} */
const FIELDS = [
  ["total", "running total s"], ["value", "input x"], ["input", "input x"],
  ["exactSum", "exact s + x"], ["below", "neighbour below"], ["above", "neighbour above"],
  ["gap", "gap between them"], ["result", "rounded result fl(s + x)"], ["lost", "lost: (s + x) − fl(s + x)"],
  ["compensation", "compensation c after the step"], ["corrected", "Neumaier's result fl(s + c)"],
];

/**
 * A sentence saying what became of the input.
 * @param {Step} step
 * @returns {string}
 */
export function verdict(step) {
  if (step.input === 0) return "The input is zero: nothing to lose.";
  if (step.swallowed) return "The input is lost: the rounded sum is the old total.";
  if (step.lost === 0) return "The input is added exactly: the sum is representable.";
  return "The input is added, but rounded: part of it is lost.";
}

/**
 * The fields of `step` as a description list; each value has `data-trace` (the field) and
 * `data-value` (the shortest decimal of the double, or the exact decimal of the exact sum).
 * @param {Step} step
 * @returns {HTMLElement}
 */
export function stepView(step) {
  const items = [];
  for (const [key, name] of FIELDS) {
    const value = step[key];
    if (value === undefined || typeof value === "boolean") continue;
    if (key === "value" && step.value === step.input) continue; // said once, as the input
    const text = typeof value === "string" ? value : formatShortest(value);
    const label = key === "input" && step.value !== step.input ? "corrected input y = x − c, added to s" : name;
    items.push(el("dt", {}, [label]), el("dd", {}, [el("code", { "data-trace": key, "data-value": text }, [text])]));
  }
  return el("div", {}, [el("p", { class: "fpsum-pg-verdict" }, [verdict(step)]), el("dl", { class: "fpsum-pg-step" }, items)]);
}
