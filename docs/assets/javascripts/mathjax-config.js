// MathJax 3, served by the site (assets/mathjax/tex-svg.js), typesets what
// pymdownx.arithmatex marked: \( ... \) and \[ ... \] inside .arithmatex.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
  svg: { fontCache: "global" },
};

// Instant navigation swaps the page body without reloading scripts:
// typeset the new content each time. On the first load MathJax (deferred)
// may not be ready yet; it then typesets the page by itself at startup.
if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    const mj = window.MathJax;
    if (!mj || typeof mj.typesetPromise !== "function") return;
    // clearCache exists only for CHTML output: guard it.
    if (mj.startup && mj.startup.output && typeof mj.startup.output.clearCache === "function") {
      mj.startup.output.clearCache();
    }
    mj.typesetClear();
    mj.texReset();
    mj.typesetPromise();
  });
}
