// Unit tests of core/parse.js: what fpsum sum reads, and the messages for what it does not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseNumbers } from "../../../docs/assets/javascripts/playground/core/parse.js";
import { InputError } from "../../../docs/assets/javascripts/playground/core/errors.js";

test("decimals, ratios, underscores, specials, commas and lines", () => {
  const v = parseNumbers("0.1, 1/3\n-0 1_000 2.5e3 +inf -nan", "fp16");
  assert.deepEqual(Array.from(v.subarray(0, 2)), [0.0999755859375, 0.333251953125]);
  assert.ok(Object.is(v[2], -0));
  assert.deepEqual(Array.from(v.subarray(3, 6)), [1000, 2500, Infinity]);
  assert.ok(Number.isNaN(v[6]));
});

test("exact decimals, never through a double: ties and overflow as the format rounds", () => {
  assert.deepEqual(Array.from(parseNumbers("2049 2049.0000000000000000001 65520 1e400", "fp16")), [2048, 2050, Infinity, Infinity]);
  assert.ok(Number.isNaN(parseNumbers("inf", "e4m3")[0]));
  assert.ok(Object.is(parseNumbers("-1e-400", "fp64")[0], -0));
});

test("a bad token names itself, its line and its place", () => {
  assert.throws(() => parseNumbers("1 2\n3 x4", "fp16"), (e) => e instanceof InputError && e.message === 'line 2, number 4: "x4" is not a number');
  for (const bad of ["1..2", "1e", "--1", "1/0", "_1", "1__0", "0x10", "1.d"]) {
    assert.throws(() => parseNumbers(bad, "fp16"), InputError, bad);
  }
  assert.throws(() => parseNumbers("  \n ", "fp16"), /no numbers/);
  assert.throws(() => parseNumbers("1 ".repeat(100001), "fp16"), /100000/);
});
