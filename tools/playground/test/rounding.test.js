// Unit tests of core/rounding.js: ties, subnormals, overflow, signs of zero, and the fast Rounder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FORMATS, getFormat } from "../../../docs/assets/javascripts/playground/core/formats.js";
import { InputError } from "../../../docs/assets/javascripts/playground/core/errors.js";
import {
  addRounded, nextDown, nextUp, rounderFor, roundToFormat, stochasticRound, ulp,
} from "../../../docs/assets/javascripts/playground/core/rounding.js";

const fp16 = getFormat("fp16");
const e4m3 = getFormat("e4m3");
const e2m1 = getFormat("e2m1");
const e4m3fnuz = getFormat("e4m3fnuz");
const e5m2 = getFormat("e5m2");
const bf16 = getFormat("bf16");

test("ties go to the even neighbour", () => {
  assert.equal(roundToFormat(2049, fp16), 2048); // between 2048 (even) and 2050
  assert.equal(roundToFormat(2051, fp16), 2052);
  assert.equal(roundToFormat(1 + 2 ** -11, fp16), 1);
  assert.equal(roundToFormat(1 + 3 * 2 ** -11, fp16), 1 + 2 ** -9);
});

test("overflow: inf from max + ulp/2 up, NaN in E4M3, which rounds 464 down to 448", () => {
  assert.equal(roundToFormat(65519.99, fp16), 65504);
  assert.equal(roundToFormat(65520, fp16), Infinity);
  assert.equal(roundToFormat(-1e300, fp16), -Infinity);
  assert.equal(roundToFormat(464, e4m3), 448);
  assert.ok(Number.isNaN(roundToFormat(465, e4m3)));
  assert.ok(Number.isNaN(roundToFormat(Infinity, e4m3)));
  assert.equal(roundToFormat(Infinity, e5m2), Infinity);
});

test("subnormals, and the sign of zero", () => {
  assert.equal(roundToFormat(2 ** -25, fp16), 0); // half the smallest subnormal: a tie, to even (0)
  assert.equal(roundToFormat(3 * 2 ** -25, fp16), 2 ** -23);
  assert.ok(Object.is(roundToFormat(-(2 ** -26), fp16), -0));
  assert.ok(Object.is(roundToFormat(-0, fp16), -0));
  assert.ok(Number.isNaN(roundToFormat(NaN, fp16)));
});

test("the Rounder agrees with roundToFormat on edge values of every format", () => {
  const edges = [0, -0, 1, 2049, 2051, 65519, 65520, 464, 465, 2 ** -25, -(2 ** -26), 3 * 2 ** -25, 1e300, -1e300,
    Infinity, -Infinity, NaN, 2 ** 130, 1 + 2 ** -9, 255.5, 256.5, 0.1, -0.3];
  for (const fmt of FORMATS) {
    const rounder = rounderFor(fmt);
    for (const x of edges) {
      if (Number.isNaN(x) && fmt.overflow === "saturate") continue; // an InputError from both (tested below)
      assert.ok(Object.is(rounder.round(x), roundToFormat(x, fmt)), `${fmt.name} ${x}`);
    }
  }
});

test("addition rounds once; -0 + -0 is -0, -0 + 0 is 0; inf - inf is NaN", () => {
  assert.equal(addRounded(2048, 1, fp16), 2048);
  assert.equal(addRounded(2048, 3, fp16), 2052);
  assert.ok(Object.is(addRounded(-0, -0, fp16), -0));
  assert.ok(Object.is(addRounded(-0, 0, fp16), 0));
  assert.ok(Number.isNaN(addRounded(Infinity, -Infinity, e5m2)));
  assert.equal(addRounded(2 ** 100, 2 ** -100, bf16), 2 ** 100);
});

test("ulp and neighbours", () => {
  assert.equal(ulp(1, fp16), 2 ** -10);
  assert.equal(ulp(0, fp16), 2 ** -24);
  assert.equal(nextUp(1, fp16), 1 + 2 ** -10);
  assert.equal(nextDown(1, fp16), 1 - 2 ** -11);
  assert.equal(nextUp(65504, fp16), 65504);
  assert.equal(nextDown(0, fp16), -(2 ** -24));
});

test("stochastic rounding: up when the draw is below the fraction covered", () => {
  // 2048 + 1 lies half-way between 2048 and 2050
  assert.equal(stochasticRound(2048, 1, fp16, 0.49), 2050);
  assert.equal(stochasticRound(2048, 1, fp16, 0.5), 2048);
  assert.equal(stochasticRound(2048, 2, fp16, 0.99), 2050); // representable: unchanged
  assert.equal(stochasticRound(65504, 32, fp16, 0), Infinity);
});

test("FP4 saturates: beyond 6 is 6, infinity too, and NaN cannot be rounded to it", () => {
  assert.equal(roundToFormat(5, e2m1), 4); // between 4 (1.0 * 2**2, even) and 6 (1.1 * 2**2)
  assert.equal(roundToFormat(7, e2m1), 6);
  assert.equal(roundToFormat(1e300, e2m1), 6);
  assert.equal(roundToFormat(-Infinity, e2m1), -6);
  assert.equal(rounderFor(e2m1).round(100), 6);
  assert.equal(addRounded(6, 6, e2m1), 6);
  assert.throws(() => roundToFormat(NaN, e2m1), (e) => e instanceof InputError && /FP4 E2M1 has no NaN/.test(e.message));
  assert.throws(() => rounderFor(e2m1).round(NaN), InputError);
  assert.equal(roundToFormat(0.25, e2m1), 0); // half the smallest subnormal 0.5: a tie, to even (0)
});

test("fnuz has one zero: a negative value that rounds to zero is +0, and overflow is NaN", () => {
  assert.ok(Object.is(roundToFormat(-0, e4m3fnuz), 0));
  assert.ok(Object.is(roundToFormat(-(2 ** -12), e4m3fnuz), 0));
  assert.ok(Object.is(rounderFor(e4m3fnuz).round(-(2 ** -12)), 0));
  assert.ok(Object.is(addRounded(-(2 ** -10), 2 ** -10, e4m3fnuz), 0));
  assert.ok(Object.is(nextDown(2 ** -10, e4m3fnuz), 0));
  assert.ok(Object.is(nextUp(-(2 ** -10), e4m3fnuz), 0));
  assert.equal(roundToFormat(247, e4m3fnuz), 240); // below the midpoint 248 between 240 and 256
  assert.ok(Number.isNaN(roundToFormat(248, e4m3fnuz))); // the tie goes to 256 (even), beyond the format
  assert.ok(Number.isNaN(roundToFormat(Infinity, e4m3fnuz)));
});
