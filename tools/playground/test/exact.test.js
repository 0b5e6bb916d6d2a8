// Unit tests of core/exact.js and core/rational.js: exact sums, errors, the stall step, exact decimals.
import { test } from "node:test";
import assert from "node:assert/strict";
import { absoluteError, exactTotal, relativeError, stallStep, ulpError } from "../../../docs/assets/javascripts/playground/core/exact.js";
import { dyadicToDecimal, roundRational } from "../../../docs/assets/javascripts/playground/core/rational.js";
import { getFormat } from "../../../docs/assets/javascripts/playground/core/formats.js";
import { runMethod } from "../../../docs/assets/javascripts/playground/core/methods.js";

test("the exact sum survives cancellation that doubles lose", () => {
  const e = exactTotal(Float64Array.from([1e300, 1, -1e300, 2 ** -1074]));
  assert.equal(e.value, 1);
  assert.equal(e.numerator, (1n << 1074n) + 1n);
});

test("NaN and infinities as fpsum reports them", () => {
  assert.ok(Number.isNaN(exactTotal(Float64Array.from([1, NaN])).value));
  assert.ok(Number.isNaN(exactTotal(Float64Array.from([Infinity, -Infinity])).value));
  const inf = exactTotal(Float64Array.from([Infinity, 1]));
  assert.equal(inf.value, Infinity);
  assert.equal(relativeError(Infinity, inf), 0);
  assert.ok(Number.isNaN(relativeError(1, inf)));
});

test("errors: absolute, relative (inf for an exact zero), in ulps", () => {
  const e = exactTotal(Float64Array.from([2048, 1]));
  assert.equal(absoluteError(2048, e), 1);
  assert.equal(relativeError(2048, e), 1 / 2049);
  assert.equal(ulpError(2048, e, "fp16"), 0.5);
  assert.equal(relativeError(1, exactTotal(Float64Array.from([1, -1]))), Infinity);
  assert.equal(relativeError(0, exactTotal(Float64Array.from([1, -1]))), 0);
});

test("naive FP16 sums of ones stall after 2048", () => {
  const values = new Float64Array(3000).fill(1);
  const running = /** @type {Float64Array} */ (runMethod("naive", values, "fp16", { running: true }).running);
  assert.equal(stallStep(running, values, "fp16"), 2048);
  const pairwise = /** @type {Float64Array} */ (runMethod("pairwise", values, "fp16", { running: true }).running);
  assert.equal(stallStep(pairwise, values, "fp16"), null);
});

test("rational rounding and exact decimals", () => {
  assert.equal(roundRational(1n, 3n, getFormat("fp64")), 1 / 3);
  assert.equal(roundRational(-1n, 10n ** 400n, getFormat("fp16")), -0);
  assert.equal(dyadicToDecimal(1n, 3), "0.125");
  assert.equal(dyadicToDecimal(-3n, 0), "-3");
});
