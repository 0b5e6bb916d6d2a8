/**
 * The chart: each method's running total (top) and its error in ulps (bottom, log scale) against
 * the number of inputs added, as the race figures draw them, in each method's look
 * (scripts/figures/looks.py: colour from the page's --look-* properties in either palette,
 * width and dash pattern from the build). The exact total is the thin line on top.
 *
 * Drawn in CSS pixels at the width it is given, so its text is the page's size on any screen.
 */

import { grouped, svg } from "./dom.js";
import { lookOf } from "./looks.js";

const FONT = 13;
/** Markers along each method's line (the race figures have five). */
const MARKERS_PER_LINE = 5;
const MARGIN = { left: 58, right: 12, top: 26, gap: 34, bottom: 30 };

/**
 * Round-number ticks from `lo` to `hi`, about `count` of them.
 * @param {number} lo
 * @param {number} hi
 * @param {number} count
 * @returns {number[]}
 */
export function ticks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || 10 * power;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

/**
 * The labels of one axis's ticks, all in one number style: grouped digits and plain decimals
 * (`500,000`, `0.001`), or, when any tick is a million or more or below 0.001, every tick with
 * a short exponent (`5e5`, `1.5e6`). Zero is `0` in either style; at most three significant digits.
 * @param {number[]} values
 * @returns {string[]}
 */
export function axisLabels(values) {
  const short = (/** @type {number} */ v) => Number(v.toPrecision(3));
  const exponent = values.some((v) => v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3));
  return values.map((v) => {
    if (v === 0) return "0";
    if (exponent) return short(v).toExponential().replace("e+", "e");
    return Number.isInteger(v) ? grouped(v) : String(short(v));
  });
}

/**
 * A polyline's path data; a non-finite value breaks the line.
 * @param {ArrayLike<number>} xs
 * @param {ArrayLike<number>} ys
 * @returns {string}
 */
function path(xs, ys) {
  let d = "";
  let pen = false;
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isFinite(ys[i])) { pen = false; continue; }
    d += `${pen ? "L" : "M"}${xs[i].toFixed(1)} ${ys[i].toFixed(1)}`;
    pen = true;
  }
  return d;
}

/**
 * @param {string} method
 * @returns {string} the inline style of its line: colour from the page, width and dashes from its look
 */
function lineStyle(method) {
  const look = lookOf(method);
  return `fill:none;stroke:var(--look-${method},currentColor);stroke-width:${look.width};`
    + `stroke-dasharray:${look.dash};stroke-linejoin:round`;
}

/**
 * The chart of `outcome`, `width` CSS pixels wide.
 * @param {import("./experiment.js").Outcome} outcome
 * @param {number} width
 * @param {string} description  what the chart shows, in words (its accessible name)
 * @returns {SVGElement}
 */
export function chart(outcome, width, description) {
  const height = Math.round(Math.min(460, Math.max(320, width * 0.62)));
  const plotW = width - MARGIN.left - MARGIN.right;
  const plots = height - MARGIN.top - MARGIN.gap - MARGIN.bottom;
  const topH = Math.round(plots * 0.58);
  const errTop = MARGIN.top + topH + MARGIN.gap;
  const errH = plots - topH;
  const { steps, exactSampled, results } = outcome;
  const n = steps[steps.length - 1];
  const x = (/** @type {number} */ step) => MARGIN.left + (n === 1 ? plotW : (plotW * (step - 1)) / (n - 1));
  const xs = Array.from(steps, x);

  // Running totals: one linear scale for every finite value.
  let lo = Math.min(0, ...exactSampled);
  let hi = Math.max(0, ...exactSampled);
  for (const r of results) for (const v of r.sampled) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (hi === lo) hi = lo + 1;
  const y = (/** @type {number} */ v) => MARGIN.top + topH - (topH * (v - lo)) / (hi - lo);

  // Errors in ulps of the exact running total, on a log scale above a linear strip for zero.
  const errors = results.map((r) => Array.from(r.errors));
  const positive = errors.flat().filter((e) => e > 0 && Number.isFinite(e));
  const lowDecade = positive.length ? Math.max(-3, Math.floor(Math.log10(Math.min(...positive)))) : -1;
  const highDecade = Math.max(lowDecade + 1, positive.length ? Math.ceil(Math.log10(Math.max(...positive))) : 0);
  const strip = errH / (highDecade - lowDecade + 1);
  const ey = (/** @type {number} */ e) => {
    if (!Number.isFinite(e)) return NaN;
    const t = e <= 10 ** lowDecade ? e / 10 ** lowDecade : 1 + Math.log10(e) - lowDecade;
    return errTop + errH - strip * t;
  };

  const grid = [];
  const labels = [];
  const totalTicks = ticks(lo, hi, 4);
  axisLabels(totalTicks).forEach((text, i) => {
    const v = totalTicks[i];
    grid.push(`M${MARGIN.left} ${y(v).toFixed(1)}H${width - MARGIN.right}`);
    labels.push(svg("text", { x: MARGIN.left - 6, y: y(v) + 4, "text-anchor": "end" }, [text]));
  });
  const decades = [];
  for (let d = lowDecade; d <= highDecade; d++) decades.push(d);
  const every = Math.ceil((FONT + 2) / strip); // label a decade only where there is room for its text
  const labelled = decades.filter((d) => (highDecade - d) % every === 0);
  const decadeLabels = axisLabels(labelled.map((d) => 10 ** d));
  const decadeText = new Map(labelled.map((d, i) => [d, decadeLabels[i]]));
  for (const d of [null, ...decades]) {
    const v = d === null ? 0 : 10 ** d;
    grid.push(`M${MARGIN.left} ${ey(v).toFixed(1)}H${width - MARGIN.right}`);
    const text = d === null ? "0" : decadeText.get(d);
    if (text !== undefined) labels.push(svg("text", { x: MARGIN.left - 6, y: ey(v) + 4, "text-anchor": "end" }, [text]));
  }
  // The inputs added are whole: no tick between two of them.
  const stepTicks = ticks(1, n, Math.max(2, Math.floor(plotW / 90))).filter((v) => v >= 1 && Number.isInteger(v));
  axisLabels(stepTicks).forEach((text, i) => {
    labels.push(svg("text", { x: x(stepTicks[i]), y: height - 10, "text-anchor": "middle" }, [text]));
  });
  const stallOf = results.find((r) => r.method === "naive");
  const guides = [];
  const stallLabel = [];
  if (stallOf && stallOf.stall !== null) {
    const at = x(stallOf.stall);
    guides.push(svg("path", { class: "fpsum-pg-chart__stall", d: `M${at.toFixed(1)} ${MARGIN.top}V${MARGIN.top + topH}M${at.toFixed(1)} ${errTop}V${errTop + errH}` }));
    const left = at > MARGIN.left + plotW / 2;
    stallLabel.push(svg("text", { x: at + (left ? -6 : 6), y: MARGIN.top + 14, "text-anchor": left ? "end" : "start",
      class: "fpsum-pg-chart__note" }, [`naive stalls after ${grouped(stallOf.stall)}`]));
  }
  const lines = [];
  /** @type {SVGElement[]} */
  const marks = [];
  results.forEach((r, i) => {
    const ys = Array.from(r.sampled, y);
    const es = errors[i].map(ey);
    lines.push(svg("path", { style: lineStyle(r.method), d: path(xs, ys), "data-line": r.method }));
    lines.push(svg("path", { style: lineStyle(r.method), d: path(xs, es), "data-error-line": r.method }));
    // Markers along each line, staggered between the methods, as the race figures have them.
    const shape = lookOf(r.method).marker;
    for (let k = 0; shape && k < MARKERS_PER_LINE; k++) {
      const j = Math.round(((xs.length - 1) * (k + (i + 1) / (results.length + 1))) / MARKERS_PER_LINE);
      for (const at of [ys[j], es[j]]) {
        if (!Number.isFinite(at)) continue;
        marks.push(svg("path", { d: shape, transform: `translate(${xs[j].toFixed(1)} ${at.toFixed(1)})`,
          style: `fill:var(--look-${r.method},currentColor);stroke:var(--look-bg,#fff);stroke-width:1.2` }));
      }
    }
  });
  const exactStyle = lineStyle("exact");
  lines.push(svg("path", { style: exactStyle, d: path(xs, Array.from(exactSampled, y)), "data-line": "exact" }));
  lines.push(svg("path", { style: exactStyle, d: `M${MARGIN.left} ${ey(0)}H${width - MARGIN.right}` }));

  const title = svg("title", {}, [description]);
  return svg("svg", {
    class: "fpsum-pg-chart__svg", viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "font-size": FONT,
  }, [
    title,
    svg("path", { class: "fpsum-pg-chart__grid", d: grid.join("") }),
    svg("path", { class: "fpsum-pg-chart__axis", d: `M${MARGIN.left} ${MARGIN.top + topH}H${width - MARGIN.right}M${MARGIN.left} ${errTop + errH}H${width - MARGIN.right}` }),
    ...guides, ...lines, ...marks, ...labels, ...stallLabel,
    svg("text", { x: MARGIN.left, y: errTop - 8, class: "fpsum-pg-chart__head" }, ["error, ulps (log scale)"]),
    svg("text", { x: MARGIN.left, y: MARGIN.top - 8, class: "fpsum-pg-chart__head" }, ["running total"]),
  ]);
}

/**
 * The chart's legend: one entry per line, each a short stretch of the line in its look.
 * @param {string[]} methods
 * @returns {HTMLUListElement}
 */
export function legend(methods) {
  const list = document.createElement("ul");
  list.className = "fpsum-pg-legend";
  for (const method of [...methods, "exact"]) {
    const item = document.createElement("li");
    const shape = lookOf(method).marker;
    const swatch = svg("svg", { width: 34, height: 14, viewBox: "0 0 34 14", "aria-hidden": "true" }, [
      svg("path", { style: lineStyle(method), d: "M1 7H33" }),
      ...(shape ? [svg("path", { d: shape, transform: "translate(17 7)",
        style: `fill:var(--look-${method},currentColor);stroke:var(--look-bg,#fff);stroke-width:1.2` })] : [])]);
    item.append(swatch, ` ${lookOf(method).label}`);
    list.append(item);
  }
  return list;
}
