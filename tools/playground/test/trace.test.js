// Unit tests of core/trace.js: one addition taken apart, the first lost input, isLost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { firstLostStep, isLost, traceStep } from "../../../docs/assets/javascripts/playground/core/trace.js";
import { InputError } from "../../../docs/assets/javascripts/playground/core/errors.js";

test("2048 + 1 in FP16: a tie, rounded down to 2048, the input lost", () => {
  const step = isLost(2048, 1, "fp16");
  assert.equal(step.exactSum, "2049");
  assert.deepEqual([step.below, step.above, step.gap, step.result, step.lost], [2048, 2050, 2, 2048, 1]);
  assert.equal(step.swallowed, true);
});

test("a representable sum has itself as both neighbours; overflow has inf above", () => {
  const step = isLost(1, 0.5, "fp16");
  assert.deepEqual([step.below, step.above, step.gap, step.lost, step.swallowed], [1.5, 1.5, 0, 0, false]);
  const over = isLost(65504, 32, "fp16");
  assert.deepEqual([over.below, over.above, over.result], [65504, Infinity, Infinity]);
  assert.ok(Number.isNaN(isLost(448, 32, "e4m3").above));
});

test("the first lost input of ones is the 2049th, in Kahan's sum too, whose compensation keeps it", () => {
  const values = new Float64Array(3000).fill(1);
  assert.equal(firstLostStep("naive", values, "fp16"), 2049);
  assert.equal(firstLostStep("kahan", values, "fp16"), 2049);
  assert.equal(firstLostStep("wide", values, "fp16"), null);
  const step = traceStep("naive", values, "fp16", 2049);
  assert.deepEqual([step.total, step.input, step.result], [2048, 1, 2048]);
  const kahan = traceStep("kahan", Float64Array.from([2048, 1, 1]), "fp16", 2);
  assert.deepEqual([kahan.result, kahan.compensation], [2048, -1]);
});

test("pairwise is not traced; k out of range", () => {
  assert.throws(() => traceStep("pairwise", new Float64Array(2), "fp16", 1), InputError);
  assert.throws(() => traceStep("naive", new Float64Array(2), "fp16", 3), InputError);
});
