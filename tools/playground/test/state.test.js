// Unit tests of ui/state.js: the whole numbers a field or a link gives, and a hand-written link's plus signs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromQuery, wholeNumber } from "../../../docs/assets/javascripts/playground/ui/state.js";

test("n reads plain, grouped and exponent forms of a whole number", () => {
  /** @type {Array<[string, number]>} */
  const cases = [["8192", 8192], ["8,192", 8192], [" 1,048,576 ", 1048576], ["1e3", 1000], ["1E3", 1000],
    ["2.5e3", 2500], ["1e0", 1]];
  for (const [text, value] of cases) {
    assert.equal(wholeNumber("n", text, 1, 2 ** 20), value, text);
  }
});

test("n refuses what is not a whole number in range, with a message naming it", () => {
  for (const text of ["1e3.5", "-3", "0", "junk", "", "8,19", "81,92", "1,0000", "2.5", "1e-3", "1.5e0", "1e7", "0x10"]) {
    const got = wholeNumber("n", text, 1, 2 ** 20);
    assert.equal(typeof got, "string", text);
    assert.match(String(got), /^n must be/, text);
  }
  assert.match(String(wholeNumber("n", "junk", 1, 2 ** 20)), /"junk"/);
  assert.match(String(wholeNumber("n", "0", 1, 2 ** 20)), /from 1 to/);
});

test("a link's numbers keep an exponent's plus that arrived as a space", () => {
  // What a hand-written link with x=1e+5 gives URLSearchParams: the "+" read as a space.
  assert.equal(fromQuery("?x=1e+5,2.5E+3,-1e+2&format=fp32").experiment.x, "1e+5,2.5E+3,-1e+2");
  assert.equal(fromQuery("?inputs=constant&c=3e+2").experiment.c, "3e+2");
  // A space between two whole numbers stays a separator.
  assert.equal(fromQuery("?x=1+5").experiment.x, "1 5");
  assert.equal(fromQuery("?x=1e%2B5").experiment.x, "1e+5");
  assert.equal(fromQuery("?n=8,192").experiment.n, 8192);
  assert.deepEqual(fromQuery("?n=1e3").problems, []);
});
