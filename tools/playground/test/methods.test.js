// Unit tests of core/methods.js: the textbook facts of each method, small enough to check by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { METHODS, runMethod, pairwiseSplit } from "../../../docs/assets/javascripts/playground/core/methods.js";
import { InputError } from "../../../docs/assets/javascripts/playground/core/errors.js";

/** @param {number} n */
const ones = (n) => new Float64Array(n).fill(1);

test("naive FP16 sums of ones stall at 2048; Neumaier's compensation, a naive sum too, stalls there as well", () => {
  assert.equal(runMethod("naive", ones(5000), "fp16").total, 2048);
  assert.equal(runMethod("neumaier", ones(5000), "fp16").total, 4096);
  for (const method of ["wide", "kahan", "pairwise", "blocked"]) {
    assert.equal(runMethod(method, ones(5000), "fp16").total, 5000, method);
  }
});

test("running totals end at the total, and naive's start at the first input (-0 stays -0)", () => {
  const values = Float64Array.from([0.5, 0.25, 1, 3]);
  for (const method of METHODS) {
    const { total, running } = runMethod(method, values, "fp16", { running: true });
    assert.ok(running !== null);
    assert.equal(running[running.length - 1], total, method);
  }
  assert.ok(Object.is(runMethod("naive", Float64Array.from([-0]), "fp16").total, -0));
  assert.ok(Object.is(runMethod("kahan", Float64Array.from([-0]), "fp16").total, 0));
});

test("overflow: FP16 to inf, E4M3 to NaN; Kahan turns inf into NaN", () => {
  assert.equal(runMethod("naive", Float64Array.from([60000, 60000]), "fp16").total, Infinity);
  assert.ok(Number.isNaN(runMethod("naive", Float64Array.from([448, 448]), "e4m3").total));
  assert.ok(Number.isNaN(runMethod("kahan", Float64Array.from([60000, 60000, 1]), "fp16").total));
});

test("pairwise splits at the largest power of two below n", () => {
  assert.equal(pairwiseSplit(2), 1);
  assert.equal(pairwiseSplit(5), 4);
  assert.equal(pairwiseSplit(8), 4);
  assert.equal(pairwiseSplit(9), 8);
});

test("stochastic rounding of ones beyond 2048 keeps growing, and its seed matters", () => {
  const values = Float64Array.from({ length: 4000 }, (_, i) => (i < 2048 ? 1 : 0.5));
  const a = runMethod("stochastic", values, "fp16", { srSeed: 1 }).total;
  assert.ok(a > 2048 + 500 && a < 2048 + 1500, String(a));
});

test("bad method, format, block or seed", () => {
  assert.throws(() => runMethod("fast", ones(2), "fp16"), InputError);
  assert.throws(() => runMethod("naive", ones(2), "fp12"), InputError);
  assert.throws(() => runMethod("blocked", ones(2), "fp16", { block: 0 }), InputError);
  assert.throws(() => runMethod("stochastic", ones(2), "fp16", { srSeed: -1 }), InputError);
  assert.throws(() => runMethod("naive", new Float64Array(0), "fp16"), InputError);
});
