// Unit tests of ui/chart.js's tick labels: one number style per axis.
import { test } from "node:test";
import assert from "node:assert/strict";
import { axisLabels } from "../../../docs/assets/javascripts/playground/ui/chart.js";

test("an axis that reaches a million writes every tick with an exponent", () => {
  assert.deepEqual(axisLabels([0, 500000, 1e6, 1.5e6]), ["0", "5e5", "1e6", "1.5e6"]);
  assert.deepEqual(axisLabels([0.001, 0.1, 10, 1000, 1e5, 1e7]), ["1e-3", "1e-1", "1e1", "1e3", "1e5", "1e7"]);
});

test("an axis within 0.001 and a million writes grouped digits and plain decimals", () => {
  assert.deepEqual(axisLabels([0, 20000, 40000, 60000]), ["0", "20,000", "40,000", "60,000"]);
  assert.deepEqual(axisLabels([0.001, 0.01, 0.1, 1, 10, 100000]), ["0.001", "0.01", "0.1", "1", "10", "100,000"]);
  assert.deepEqual(axisLabels([0.25, 0.5, 0.75]), ["0.25", "0.5", "0.75"]);
});
