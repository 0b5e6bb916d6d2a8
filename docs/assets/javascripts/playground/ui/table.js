/**
 * The results table: each method's value, the exact total, relative error, error in ulps, and
 * after how many inputs the method stalled. Each value cell carries the contract the tests and
 * others rely on: `data-method` (fpsum's name; `exact` for the exact total) and `data-result`
 * (the shortest decimal that round-trips the double). A result that is inf or NaN says beside it
 * why: a running value passed the format's largest value (overflow), or an input was inf or NaN.
 */

import { el, grouped } from "./dom.js";

/** @typedef {import("./dom.js").Attributes} Attributes */
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

/** The columns, in order; the first names the row. */
const COLUMNS = ["method", "result", "relative error", "error, ulps", "stalled after"];

/**
 * A row: its name, then one cell per column after the first, each with that column's name as
 * `data-label` (on a phone the table is one card per row and shows it: layout.css) and the role
 * it has as a table cell, so that a screen reader still reads a table laid out as cards.
 * @param {string} name
 * @param {Array<[Array<Node | string>, Attributes]>} cells each cell's content and its attributes
 * @returns {HTMLTableRowElement}
 */
function row(name, cells) {
  return el("tr", { role: "row" }, [
    el("th", { scope: "row", role: "rowheader" }, [name]),
    ...cells.map(([content, attributes], i) =>
      el("td", { ...attributes, role: "cell", "data-label": COLUMNS[i + 1] }, content)),
  ]);
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
 * @returns {HTMLElement} the table, in a box that scrolls sideways if the screen is narrow (cards on a phone)
 */
export function resultsTable(outcome, format) {
  /** @param {number} total */
  const note = (total) => {
    const why = nonFiniteNote(total, outcome.values, format);
    return why === null ? [] : [" ", el("span", { class: "fpsum-pg-overflow" }, [`(${why})`])];
  };
  const head = el("tr", { role: "row" },
    COLUMNS.map((text) => el("th", { scope: "col", role: "columnheader" }, [text])));
  const rows = [row("exact total", [
    [[outcome.exactShown], { "data-method": "exact", "data-result": outcome.exactShown }],
    [["0"], {}], [["0"], {}], [["–"], {}],
  ])];
  for (const r of outcome.results) {
    rows.push(row(lookOf(r.method).label, [
      [[r.shown, ...note(r.total)], { "data-method": r.method, "data-result": r.shown }],
      [[shortError(r.relError)], {}],
      [[shortError(r.ulps)], {}],
      [[r.stall === null ? "–" : `${grouped(r.stall)} inputs`], {}],
    ]));
  }
  const table = el("table", { "data-fpsum-cards": true, role: "table" }, [
    el("caption", {}, [`Results in ${format.label} for ${grouped(outcome.values.length)} inputs; `
      + "the exact total is that of the inputs as stored, rounded to double."]),
    el("thead", { role: "rowgroup" }, [head]), el("tbody", { role: "rowgroup" }, rows),
  ]);
  return el("div", { class: "md-typeset__scrollwrap fpsum-pg-scroll", tabindex: "0", role: "region",
    "aria-label": "results table" }, [el("div", { class: "md-typeset__table" }, [table])]);
}
