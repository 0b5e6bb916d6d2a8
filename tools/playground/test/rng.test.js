// Unit tests of core/rng.js: NumPy's streams, first values (from numpy 2: default_rng(seed).random(), ...).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Pcg64, seedSequenceWords } from "../../../docs/assets/javascripts/playground/core/rng.js";

test("SeedSequence(0).generate_state(2, uint32)", () => {
  assert.deepEqual(seedSequenceWords(0, 2), [2968811710, 3677149159]);
});

test("default_rng(0).random() and default_rng(1).standard_normal()", () => {
  const g = new Pcg64(0);
  assert.equal(g.random(), 0.6369616873214543);
  assert.equal(g.random(), 0.2697867137638703);
  const h = new Pcg64(1);
  assert.equal(h.standardNormal(), 0.345584192064786);
  assert.equal(h.standardNormal(), 0.8216181435011584);
});

test("a list of seeds, as stochastic rounding's stream [0x5352, seed]", () => {
  assert.equal(new Pcg64([0x5352, 7]).random(), 0.9084202877816686);
});

test("draws lie in [0, 1) and normals have mean near 0 and variance near 1", () => {
  const g = new Pcg64(5);
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < 100000; i += 1) {
    const u = g.random();
    assert.ok(u >= 0 && u < 1);
    const z = g.standardNormal();
    sum += z;
    squares += z * z;
  }
  assert.ok(Math.abs(sum / 100000) < 0.02);
  assert.ok(Math.abs(squares / 100000 - 1) < 0.02);
});
