// @ts-check
/**
 * Turns TeX into SVG at build time with MathJax 3.2.2 (hooks/content/formulas.py runs it once per build,
 * for every formula its cache lacks).
 *
 * Standard input: one JSON object, {"formulas": [{"tex": "...", "display": true}, ...]}.
 * Standard output: one JSON object,
 *   {"mathjax": "3.2.2", "formulas": [{"svg": "<mjx-container ...>...</mjx-container>",
 *                                     "glyphs": {"MJX-TEX-I-1D465": "M52 289Q59 ...", ...}}
 *                                    | {"error": "Missing close brace"}, ...]}
 * in the order of the input.  Each container holds MathJax's SVG, hidden from screen readers, and
 * is itself an image whose accessible name is the formula read out in words: the speech that
 * MathJax's speech rule engine (SRE, ClearSpeak rules, English) makes of the formula's MathML.  The
 * MathML itself is not kept: a page held a thousand and more of its elements, which the reader's
 * browser styled and laid out on every load.  The SVG font cache is global: a glyph is drawn as <use href="#id">, and
 * "glyphs" gives the outline of every id the formula uses, so that the page can hold each
 * outline once, whatever number of formulas draw it.  An id names one glyph of one font
 * variant, so the same id is the same outline on every page.
 *
 * A TeX error (an unknown command, a missing brace) is reported for that formula alone; the
 * others are still rendered.  Exit status 2 when the input is not as described.
 */
"use strict";

const { mathjax } = require("mathjax-full/js/mathjax.js");
const { TeX } = require("mathjax-full/js/input/tex.js");
const { SVG } = require("mathjax-full/js/output/svg.js");
const { liteAdaptor } = require("mathjax-full/js/adaptors/liteAdaptor.js");
const { RegisterHTMLHandler } = require("mathjax-full/js/handlers/html.js");
const { AssistiveMmlHandler } = require("mathjax-full/js/a11y/assistive-mml.js");
require("mathjax-full/js/input/tex/base/BaseConfiguration.js");
require("mathjax-full/js/input/tex/ams/AmsConfiguration.js");
require("mathjax-full/js/input/tex/newcommand/NewcommandConfiguration.js");
require("mathjax-full/js/input/tex/configmacros/ConfigMacrosConfiguration.js");
require("mathjax-full/js/input/tex/boldsymbol/BoldsymbolConfiguration.js");
require("mathjax-full/js/input/tex/cancel/CancelConfiguration.js");
require("mathjax-full/js/input/tex/color/ColorConfiguration.js");
const { VERSION } = require("mathjax-full/js/components/version.js");
const SRE = require("speech-rule-engine");
const path = require("path");

/** How SRE reads a formula; its locale files are read from the package, pinned by the lock. */
const SPEECH = {
  locale: "en", domain: "clearspeak", style: "default", modality: "speech",
  json: path.join(path.dirname(require.resolve("speech-rule-engine")), "mathmaps"),
};

/**
 * TeX's packages: those MathJax's tex-svg.js bundle has (base, ams, newcommand, configmacros)
 * and the ones it would load on first use that the pages may want.  Not noundefined: an unknown
 * command is an error here, where the bundle would have drawn its name in red.
 */
const PACKAGES = ["base", "ams", "newcommand", "configmacros", "boldsymbol", "cancel", "color"];

/** @typedef {{tex: string, display: boolean}} Formula */
/** @typedef {{svg: string, glyphs: Record<string, string>} | {error: string}} Rendered */

/**
 * A TeX error is thrown rather than drawn as MathJax's red error box.
 * @param {unknown} _jax
 * @param {unknown} error
 * @returns {never}
 */
function throwError(_jax, error) {
  throw error;
}

const adaptor = liteAdaptor();
AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
const tex = new TeX({ packages: PACKAGES, formatError: throwError });
const svg = new SVG({ fontCache: "global" });
const document = mathjax.document("", { InputJax: tex, OutputJax: svg });

/**
 * The outlines the last formula drew, by id.  The cache's map is internal to MathJax (its
 * FontCache class): it is emptied before each formula, so it then holds that formula's glyphs.
 * @returns {Record<string, string>}
 */
function glyphsDrawn() {
  /** @type {Map<string, string>} */
  const cache = /** @type {any} */ (svg.fontCache).cache;
  return Object.fromEntries([...cache.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The container as a named image: its MathML (which MathJax's assistive handler put in it) read
 * out by SRE into the container's aria-label, and then taken out.
 * @param {any} node the mjx-container
 */
function spoken(node) {
  const assistive = adaptor.childNodes(node).find((child) => adaptor.kind(child) === "mjx-assistive-mml");
  if (!assistive) {
    throw new Error("MathJax wrote no MathML to read out");
  }
  const speech = SRE.toSpeech(adaptor.outerHTML(adaptor.firstChild(assistive))).trim();
  if (!speech) {
    throw new Error("SRE read the formula out as nothing");
  }
  adaptor.remove(assistive);
  adaptor.setAttribute(node, "role", "img");
  adaptor.setAttribute(node, "aria-label", speech);
}

/**
 * One formula as MathJax draws it.
 * @param {Formula} formula
 * @returns {Rendered}
 */
function render(formula) {
  svg.clearFontCache();
  try {
    const node = document.convert(formula.tex, { display: formula.display });
    spoken(node);
    return { svg: adaptor.outerHTML(node), glyphs: glyphsDrawn() };
  } catch (error) {
    // MathJax's TexError is no Error subclass, but it has a message.
    const message = /** @type {{message?: unknown}} */ (error).message;
    return { error: typeof message === "string" ? message : String(error) };
  }
}

/**
 * The formulas of the input, or null if it is not {"formulas": [{tex, display}, ...]}.
 * @param {string} text
 * @returns {Formula[] | null}
 */
function parse(text) {
  try {
    const formulas = JSON.parse(text).formulas;
    const valid = Array.isArray(formulas) && formulas.every(
      (f) => f && typeof f.tex === "string" && typeof f.display === "boolean");
    return valid ? formulas : null;
  } catch {
    return null;
  }
}

/** @type {string[]} */
const chunks = [];
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => chunks.push(String(chunk)));
process.stdin.on("end", async () => {
  const formulas = parse(chunks.join(""));
  if (formulas === null) {
    process.stderr.write('render.js: expected {"formulas": [{"tex": string, "display": boolean}, ...]} on stdin\n');
    process.exit(2);
  }
  await SRE.setupEngine(SPEECH);
  await SRE.engineReady();
  process.stdout.write(JSON.stringify({ mathjax: VERSION, formulas: formulas.map(render) }));
});
