// Unit tests of core/inputs.js: the kinds, their ranges, the constant kind and bad requests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { drawInputs, INPUT_KINDS, inputsMatchFpsum } from "../../../docs/assets/javascripts/playground/core/inputs.js";
import { InputError } from "../../../docs/assets/javascripts/playground/core/errors.js";

test("every kind draws n values in its range, never -0", () => {
  const ranges = { uniform: [0, 1], ones: [1, 1], normal: [-10, 10], squares: [0, 1], exp: [Math.exp(-3) - 0.01, 1], symmetric: [-1, 1] };
  for (const kind of INPUT_KINDS) {
    const v = drawInputs(kind, 1000, 3, "fp16");
    assert.equal(v.length, 1000);
    const [low, high] = ranges[/** @type {keyof typeof ranges} */ (kind)];
    for (const x of v) {
      assert.ok(x >= low && x <= high, `${kind} ${x}`);
      assert.ok(!Object.is(x, -0));
    }
  }
});

test("the first uniform input of seed 0 in FP16 is 0.63696... rounded to 1304 / 2048", () => {
  assert.equal(drawInputs("uniform", 1, 0, "fp16")[0], 0.63671875);
});

test("constant, and which kinds match fpsum by construction", () => {
  assert.deepEqual(Array.from(drawInputs("constant", 3, 0, "fp16", { c: 0.1 })), [0.0999755859375, 0.0999755859375, 0.0999755859375]);
  assert.equal(inputsMatchFpsum("exp"), false);
  assert.equal(inputsMatchFpsum("normal"), true);
});

test("bad kind, n or seed", () => {
  assert.throws(() => drawInputs("cauchy", 3, 0, "fp16"), InputError);
  assert.throws(() => drawInputs("uniform", 0, 0, "fp16"), InputError);
  assert.throws(() => drawInputs("uniform", 3, -1, "fp16"), InputError);
});
