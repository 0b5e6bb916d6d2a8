/* Patches mkdocs-material's page: its script starts on the reader's first move, not in the page load.
 *
 * hooks/theme/theme_on_demand.py puts this script in each page, in place of the
 * <script> tag of mkdocs-material's bundle, with the addresses it loads.
 * The bundle's start-up is the longest task of a page load: on a phone it
 * holds the page for a third of a second or more, laying the whole page out
 * to measure it, and a reader who only reads needs none of what it does.
 * The page reads without it: formulas and figures are drawn, tables are in
 * their scroll boxes (table_wraps.py), the palette the reader chose is set
 * (the script after the header) and the menu opens (a checkbox).  So the
 * bundle loads on the first touch, click, pointer move (one that moves), wheel,
 * scroll, key or focus, and starts on the page as it would have when the page was parsed.
 *
 * What the reader does before it has started is not lost:
 * - a palette toggle is applied here as the bundle applies it (the body's
 *   colour attributes, which toggle shows, the stored choice), and the
 *   bundle starts from the stored choice;
 * - the key that started it is handed to the bundle's keyboard handler once
 *   it runs, so "/", "s" or "f" open the search and "n" goes on;
 * - a tap on the search button puts the focus in the search field, as the
 *   bundle does (a phone shows its keyboard only for a focus given in a tap);
 * - a page printed before it has started prints its folded blocks unfolded,
 *   as the bundle prints them (and folds them again afterwards).
 * Opened from disk, the polyfills (iframe-worker's shim) load first, in order.
 * The root element gets data-fpsum-theme="running" once the bundle has started.
 */
// @ts-check
(function (/** @type {{bundle: string, polyfills: string[]}} */ sources) {
  "use strict";

  const MOVES = ["pointerdown", "pointermove", "touchstart", "wheel", "scroll", "keydown", "focusin"];
  const LISTEN = { capture: true, passive: true };
  const RUNNING = "data-fpsum-theme";
  const win = /** @type {any} */ (window);

  if (win.document$) {
    return;  /* a page brought in by instant navigation: the bundle runs already */
  }

  let parsed = document.readyState !== "loading";
  let started = false;
  /** @type {KeyboardEvent | null} */
  let firstKey = null;

  document.addEventListener("DOMContentLoaded", function () {
    parsed = true;
  });

  function running() {
    return document.documentElement.hasAttribute(RUNNING);
  }

  /* A pointer move that moves nothing is not a reader's move: chromium sends one when the page under a resting
     cursor changes as it loads (the header taking its place).  A cursor that comes in moves by nothing at its
     first event too (no place to move from), and the bundle starts at its next. */
  /** @param {Event} event */
  function stillPointer(event) {
    const move = /** @type {PointerEvent} */ (event);
    return event.type === "pointermove" && move.movementX === 0 && move.movementY === 0;
  }

  /** @param {Event} event */
  function start(event) {
    if (started || stillPointer(event)) {
      return;
    }
    started = true;
    MOVES.forEach(function (type) {
      window.removeEventListener(type, start, LISTEN);
    });
    if (event.type === "keydown") {
      firstKey = /** @type {KeyboardEvent} */ (event);
    }
    const scripts = (location.protocol === "file:" ? sources.polyfills : []).concat([sources.bundle]);
    scripts.forEach(function (src, index) {
      const script = document.createElement("script");
      script.src = src;
      script.async = false;  /* in order: the shim before the bundle */
      if (index === scripts.length - 1) {
        script.addEventListener("load", begin);
      }
      document.body.appendChild(script);
    });
  }

  /* The bundle has run: it waits for DOMContentLoaded, which has passed if the page was parsed before it came. */
  function begin() {
    if (parsed && win.document$) {
      win.document$.next(document);
    }
    document.documentElement.setAttribute(RUNNING, "running");
    if (firstKey) {
      window.dispatchEvent(new KeyboardEvent("keydown", {
        key: firstKey.key, code: firstKey.code,
        shiftKey: firstKey.shiftKey, altKey: firstKey.altKey,
      }));
    }
  }

  /* A palette toggle before the bundle runs: applied as the bundle would (its components/palette), by the
     script after the header (hooks/theme/overrides/main.html), and stored, so that the bundle starts from it. */
  const palette = document.querySelector('[data-md-component="palette"]');
  if (palette) {
    const inputs = Array.prototype.slice.call(palette.querySelectorAll("input"));
    palette.addEventListener("change", function (event) {
      const input = /** @type {HTMLInputElement} */ (event.target);
      const index = inputs.indexOf(input);
      if (running() || index < 0) {
        return;
      }
      win.__md_set("__palette", { index: index, color: win.__fpsum_palette(index) });
    });
  }

  /* The search button, tapped before the bundle runs: the focus goes to the field, as the bundle gives it. */
  const searchButton = document.querySelector("header [for=__search]");
  const searchField = document.querySelector("[data-md-component=search-query]");
  if (searchButton && searchField instanceof HTMLElement) {
    const field = searchField;
    searchButton.addEventListener("click", function () {
      if (!running()) {
        field.focus();
      }
    });
  }

  /* Printed before the bundle runs: every folded block unfolded for the print, as the bundle does. */
  /** @type {HTMLDetailsElement[]} */
  let unfolded = [];
  window.addEventListener("beforeprint", function () {
    if (running()) {
      return;
    }
    unfolded = Array.prototype.filter.call(document.querySelectorAll("details"), function (details) {
      return !details.open;
    });
    unfolded.forEach(function (details) {
      details.open = true;
    });
  });
  window.addEventListener("afterprint", function () {
    unfolded.forEach(function (details) {
      details.open = false;
    });
    unfolded = [];
  });

  MOVES.forEach(function (type) {
    window.addEventListener(type, start, LISTEN);
  });
})({ bundle: "", polyfills: [] } /* SOURCES */);
