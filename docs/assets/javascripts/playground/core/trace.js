/** Traces of single steps (in progress). */
/**
 * @typedef {object} TraceStep
 * @property {number} step @property {number} total @property {number} input @property {string} exactSum
 * @property {number} below @property {number} above @property {number} gap @property {number} result
 * @property {number} lost @property {boolean} swallowed @property {number} [compensation]
 */
/** @param {string} method @param {Float64Array} values @param {string} format @param {number} k @param {{}} [options] @returns {TraceStep} */
export function traceStep(method, values, format, k, options) { throw new Error(`not yet ${method} ${values.length} ${format} ${k} ${options}`); }
/** @param {string} method @param {Float64Array} values @param {string} format @param {{}} [options] @returns {number | null} */
export function firstLostStep(method, values, format, options) { throw new Error(`not yet ${method} ${values.length} ${format} ${options}`); }
/** @param {number} total @param {number} input @param {string} format @returns {TraceStep} */
export function isLost(total, input, format) { throw new Error(`not yet ${total} ${input} ${format}`); }
