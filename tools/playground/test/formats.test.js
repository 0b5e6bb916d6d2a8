// Unit tests of core/formats.js: the numbers that define each format, and the look-ups.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FORMATS, accumulatorFor, getFormat } from "../../../docs/assets/javascripts/playground/core/formats.js";
import { InputError } from "../../../docs/assets/javascripts/playground/core/errors.js";

test("the eleven formats of fpsum, in its order", () => {
  assert.deepEqual(FORMATS.map((f) => f.name),
    ["fp16", "bf16", "fp32", "fp64", "e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e3m2", "e2m3", "e2m1"]);
});

test("FP4, FP6 and fnuz: largest values from their bit layouts, and what they lack", () => {
  // e2m1: bias 1, top code 0 11 1 = 1.5 * 2**2; e2m3: 0 11 111 = 1.875 * 2**2; e3m2: bias 3, 0 111 11 = 1.75 * 2**4
  assert.equal(getFormat("e2m1").maxFinite, 6);
  assert.equal(getFormat("e2m3").maxFinite, 7.5);
  assert.equal(getFormat("e3m2").maxFinite, 28);
  assert.equal(getFormat("e2m1").smallestSubnormal, 0.5);
  assert.equal(getFormat("e3m2").smallestSubnormal, 2 ** -4);
  // fnuz: bias 8 (16), every code finite but 0x80: 1.875 * 2**7 and 1.75 * 2**15
  assert.equal(getFormat("e4m3fnuz").maxFinite, 240);
  assert.equal(getFormat("e5m2fnuz").maxFinite, 57344);
  assert.equal(getFormat("e4m3fnuz").smallestSubnormal, 2 ** -10);
  for (const name of ["e2m1", "e2m3", "e3m2"]) assert.equal(getFormat(name).overflow, "saturate");
  for (const name of ["e4m3fnuz", "e5m2fnuz"]) {
    assert.equal(getFormat(name).overflow, "nan");
    assert.equal(getFormat(name).signedZero, false);
  }
  assert.equal(getFormat("fp16").signedZero, true);
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
