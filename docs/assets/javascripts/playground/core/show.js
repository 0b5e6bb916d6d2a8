/**
 * How every display writes a double.
 *
 * JavaScript's String(x) already is the shortest decimal that reads back as
 * the same double, except that it writes -0 as "0"; one function, so every
 * figure, table and data attribute agrees.  NaN is "NaN", the infinities
 * "Infinity" and "-Infinity" (Python's float() reads all three back).
 */

/**
 * @param {number} x
 * @returns {string}
 */
export function formatShortest(x) {
  return Object.is(x, -0) ? "-0" : String(x);
}
