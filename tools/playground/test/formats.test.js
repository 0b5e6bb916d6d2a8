// Unit tests of core/formats.js: the numbers that define each format, and the look-ups.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FORMATS, accumulatorFor, getFormat } from "../../../docs/assets/javascripts/playground/core/formats.js";
import { InputError } from "../../../docs/assets/javascripts/playground/core/errors.js";

test("the six formats of fpsum, in its order", () => {
  assert.deepEqual(FORMATS.map((f) => f.name), ["fp16", "bf16", "fp32", "fp64", "e4m3", "e5m2"]);
});

test("largest values, precisions and overflow rules", () => {
  assert.equal(getFormat("fp16").maxFinite, 65504);
  assert.equal(getFormat("bf16").maxFinite, 3.3895313892515355e38);
  assert.equal(getFormat("fp32").maxFinite, 3.4028234663852886e38);
  assert.equal(getFormat("fp64").maxFinite, Number.MAX_VALUE);
  assert.equal(getFormat("e4m3").maxFinite, 448);
  assert.equal(getFormat("e5m2").maxFinite, 57344);
  assert.equal(getFormat("e4m3").overflow, "nan");
  assert.equal(getFormat("fp16").smallestSubnormal, 2 ** -24);
  assert.equal(getFormat("bf16").unitRoundoff, 2 ** -8);
});

test("names are case-insensitive; an unknown one is an InputError naming it", () => {
  assert.equal(getFormat("BF16").name, "bf16");
  assert.throws(() => getFormat("fp12"), (e) => e instanceof InputError && /fp12/.test(e.message));
});

test("the wide accumulator: FP32 below 32 bits, else FP64", () => {
  assert.equal(accumulatorFor(getFormat("e4m3")).name, "fp32");
  assert.equal(accumulatorFor(getFormat("fp32")).name, "fp64");
});
