/** Reading the reader's numbers (in progress). */
import { InputError } from "./errors.js";

/** The most numbers parseNumbers reads. */
export const MAX_NUMBERS = 100000;

/**
 * @param {string} text
 * @param {string} format
 * @returns {Float64Array}
 */
export function parseNumbers(text, format) {
  throw new InputError(`not yet: ${text.length} ${format}`);
}
