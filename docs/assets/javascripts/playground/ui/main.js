/**
 * The bundle's entry. On a page, it sets up the playground wherever the page holds
 * `#fpsum-playground` (also after mkdocs-material's instant navigation brings that page in);
 * started as a Web Worker, it answers experiments instead.
 */

import { start } from "./page.js";
import { serve } from "./worker.js";

if (typeof document === "undefined") {
  serve(/** @type {import("./worker.js").WorkerScope} */ (/** @type {unknown} */ (self)));
} else {
  const script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  const url = script ? script.src : null;
  const setUp = () => {
    const root = document.getElementById("fpsum-playground");
    if (root && !root.hasAttribute("data-playground-ready")) start(root, url);
  };
  const page = /** @type {{document$?: {subscribe: (f: () => void) => void}}} */ (/** @type {unknown} */ (window));
  if (page.document$) page.document$.subscribe(setUp);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
}
