/**
 * The results table: each method's value, the exact total, relative error, error in ulps, and
 * after how many inputs the method stalled. Each value cell carries the contract the tests and
 * others rely on: `data-method` (fpsum's name; `exact` for the exact total) and `data-result`
 * (the shortest decimal that round-trips the double). A result that is inf or NaN says beside it
 * why: a running value passed the format's largest value (overflow), or an input was inf or NaN.
 */

import { el, grouped } from "./dom.js";
import { lookOf } from "./looks.js";

/**
 * An error as the table shows it: three significant digits, 0 as 0.
 * @param {number} value
 * @returns {string}
 */
export function shortError(value) {
  if (value === 0) return "0";
  if (!Number.isFinite(value)) return String(value);
  return value >= 0.001 && value < 1e5 ? String(Number(value.toPrecision(3))) : value.toExponential(2);
}

/**
 * The format's largest finite value in words: grouped digits, or four significant digits with an
 * exponent past 2^53 (FP32's 3.403e+38).
 * @param {number} value
 * @returns {string}
 */
function largest(value) {
  return value < 2 ** 53 ? grouped(value) : `about ${Number(value.toPrecision(4)).toExponential()}`;
}

/**
 * Why `total` is inf or NaN, or null when it is finite.
 * @param {number} total
 * @param {Float64Array} values  the inputs, in the format
 * @param {import("../core/formats.js").Format} format
 * @returns {string | null}
 */
export function nonFiniteNote(total, values, format) {
  if (Number.isFinite(total)) return null;
  if (!values.every(Number.isFinite)) return "an input is inf or NaN";
  return `overflow: a running value passed ${format.label}'s largest, ${largest(format.maxFinite)}`;
}

/**
 * @param {import("./experiment.js").Outcome} outcome
 * @param {import("../core/formats.js").Format} format
 * @returns {HTMLElement} the table, in a box that scrolls sideways if the screen is narrow
 */
export function resultsTable(outcome, format) {
  /** @param {number} total */
  const note = (total) => {
    const why = nonFiniteNote(total, outcome.values, format);
    return why === null ? [] : [" ", el("span", { class: "fpsum-pg-overflow" }, [`(${why})`])];
  };
  const head = el("tr", {}, ["method", "result", "relative error", "error, ulps", "stalled after"]
    .map((text) => el("th", { scope: "col" }, [text])));
  const rows = [el("tr", {}, [
    el("th", { scope: "row" }, ["exact total"]),
    el("td", { "data-method": "exact", "data-result": outcome.exactShown }, [outcome.exactShown]),
    el("td", {}, ["0"]), el("td", {}, ["0"]), el("td", {}, ["–"]),
  ])];
  for (const r of outcome.results) {
    rows.push(el("tr", {}, [
      el("th", { scope: "row" }, [lookOf(r.method).label]),
      el("td", { "data-method": r.method, "data-result": r.shown }, [r.shown, ...note(r.total)]),
      el("td", {}, [shortError(r.relError)]),
      el("td", {}, [shortError(r.ulps)]),
      el("td", {}, [r.stall === null ? "–" : `${grouped(r.stall)} inputs`]),
    ]));
  }
  const table = el("table", {}, [
    el("caption", {}, [`Results in ${format.label} for ${grouped(outcome.values.length)} inputs; `
      + "the exact total is that of the inputs as stored, rounded to double."]),
    el("thead", {}, [head]), el("tbody", {}, rows),
  ]);
  return el("div", { class: "md-typeset__scrollwrap fpsum-pg-scroll", tabindex: "0", role: "region",
    "aria-label": "results table" }, [el("div", { class: "md-typeset__table" }, [table])]);
}
