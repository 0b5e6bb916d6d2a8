/**
 * The one helper every view uses to make elements: a tag, its attributes, its children.
 */

/**
 * @typedef {Record<string, string | number | boolean | null | undefined>} Attributes
 * Attribute values; `true` sets a boolean attribute, `false`, null and undefined leave it out.
 */

/**
 * A new element of `tag` with `attributes` and `children` (strings become text).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attributes]
 * @param {Array<Node | string | null | undefined | false>} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attributes = {}, children = []) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * A new SVG element of `tag` with `attributes`.
 * @param {string} tag
 * @param {Attributes} [attributes]
 * @param {Array<Node | string>} [children]
 * @returns {SVGElement}
 */
export function svg(tag, attributes = {}, children = []) {
  const element = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, String(value));
  }
  element.append(...children);
  return element;
}

/**
 * A number as the page writes it in prose: grouped thousands for whole numbers up to 2^53.
 * @param {number} value
 * @returns {string}
 */
export function grouped(value) {
  if (!Number.isInteger(value) || Math.abs(value) >= 2 ** 53) return String(value);
  // By hand: the first toLocaleString of a page starts up the browser's Intl, a long task on a slow phone.
  return String(value).replace(/\B(?=(\d{3})+$)/g, ",");
}
