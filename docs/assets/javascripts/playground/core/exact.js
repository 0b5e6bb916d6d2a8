/** Exact sums (in progress). */
/** @typedef {{value: number, numerator: bigint | null, scale: number}} ExactSum */
/** @param {Float64Array} values @returns {ExactSum} */
export function exactTotal(values) { throw new Error(`not yet ${values.length}`); }
/** @param {number} result @param {ExactSum} exact @returns {number} */
export function relativeError(result, exact) { throw new Error(`not yet ${result} ${exact.value}`); }
/** @param {number} result @param {ExactSum} exact @returns {number} */
export function absoluteError(result, exact) { throw new Error(`not yet ${result} ${exact.value}`); }
/** @param {number} result @param {ExactSum} exact @param {string} format @returns {number} */
export function ulpError(result, exact, format) { throw new Error(`not yet ${result} ${exact.value} ${format}`); }
/** @param {Float64Array} running @param {Float64Array} values @param {string} format @returns {number | null} */
export function stallStep(running, values, format) { throw new Error(`not yet ${running.length} ${values.length} ${format}`); }
