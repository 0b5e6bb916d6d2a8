// Unit tests of core/show.js and core/bits.js: the shortest decimals, powers of two and binades.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatShortest } from "../../../docs/assets/javascripts/playground/core/show.js";
import { binade, pow2 } from "../../../docs/assets/javascripts/playground/core/bits.js";

test("the shortest decimal that reads back, -0 included", () => {
  assert.equal(formatShortest(0.1 + 0.2), "0.30000000000000004");
  assert.equal(formatShortest(-0), "-0");
  assert.equal(formatShortest(2048), "2048");
  assert.equal(formatShortest(Infinity), "Infinity");
  assert.equal(formatShortest(NaN), "NaN");
  for (const x of [5e-324, 1.7976931348623157e308, 1 / 3, 65504, 2 ** -24]) assert.equal(Number(formatShortest(x)), x);
});

test("powers of two are exact across the range, binades are floor(log2)", () => {
  assert.equal(pow2(-1074), 5e-324);
  assert.equal(pow2(1023) * 2, Infinity);
  assert.equal(pow2(-1075), 0);
  assert.equal(binade(1), 0);
  assert.equal(binade(0.75), -1);
  assert.equal(binade(2 ** 100 * 1.5), 100);
  assert.equal(binade(5e-324), -1023);
});
