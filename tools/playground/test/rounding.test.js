// Unit tests of core/rounding.js: ties, subnormals, overflow, signs of zero, and the fast Rounder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { getFormat } from "../../../docs/assets/javascripts/playground/core/formats.js";
import {
  addRounded, nextDown, nextUp, rounderFor, roundToFormat, stochasticRound, ulp,
} from "../../../docs/assets/javascripts/playground/core/rounding.js";

const fp16 = getFormat("fp16");
const e4m3 = getFormat("e4m3");
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
  for (const name of ["fp16", "bf16", "fp32", "fp64", "e4m3", "e5m2"]) {
    const fmt = getFormat(name);
    const rounder = rounderFor(fmt);
    for (const x of edges) assert.ok(Object.is(rounder.round(x), roundToFormat(x, fmt)), `${name} ${x}`);
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
