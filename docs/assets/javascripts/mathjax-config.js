/* Formulas: MathJax 3, served by the site (assets/mathjax/, see hooks/serve_mathjax.py),
 * typesets what pymdownx.arithmatex marked: each span.arithmatex (inline) and
 * div.arithmatex (display) holds the TeX of one formula, without delimiters
 * (mkdocs.yml sets arithmatex's wrappers to nothing: until MathJax is done the
 * page shows the bare TeX, set in a math-like face by site.css).
 *
 * MathJax is loaded only by a page that has formulas, and only once the page
 * has been painted: the text shows at once, the formulas a moment later.
 *
 * Over HTTP MathJax runs in a web worker: it turns each formula's TeX into SVG
 * markup (with MathML for screen readers) off the page's thread, and the page
 * only inserts the results, in a few batches, so the page never stalls however
 * many formulas it has; it loads the outlines of the glyphs the page draws,
 * not the whole 1 MB font.  Browsers refuse workers to pages opened from
 * disk (file://): there MathJax runs on the page itself, a few formulas at a
 * time, with the whole font.  Either way each .arithmatex ends up holding
 * MathJax's mjx-container, drawn with the same outlines.
 *
 * Instant navigation (mkdocs-material) swaps pages without reloading scripts:
 * on every page change (document$) the new page's formulas are typeset.
 */
(function () {
  "use strict";

  var FORMULA = ".arithmatex";
  var GLYPHS = "data-fpsum-glyphs"; /* on a page's first formula: its glyph outlines (hooks/serve_mathjax.py) */
  var BUDGET_MS = 8; /* main-thread work per step: far below a 50 ms long task, even on a 4x slower CPU */
  var INSERT_EVERY_MS = 150; /* from a worker, formulas go into the page at most this often */
  var INSERT_AT_MOST = 8; /* ... and at most this many at once: the page restyles and lays out each batch in one frame */
  var NO_PAINT_MS = 3000; /* a hidden tab never paints: start anyway after this long */
  var here = (document.currentScript && document.currentScript.src) || window.location.href;
  var MATHJAX_DIR = new URL("../mathjax/", here).href;
  var TEX = {}; /* TeX input as MathJax's tex-svg.js bundle has it: base, ams, newcommand, autoload, ... */
  var COMPONENTS = ["input/tex", "output/svg", "a11y/assistive-mml"];
  var useWorker = window.location.protocol !== "file:" && typeof Worker !== "undefined";
  var engine = null; /* typeset(elements) once MathJax is up */
  var started = false;
  var run = 0; /* each page is typeset in its own run: a newer page ends an older run */

  function untypeset() {
    return Array.prototype.filter.call(document.querySelectorAll(FORMULA), function (el) {
      return !el.querySelector("mjx-container");
    });
  }

  function later(then) {
    window.setTimeout(then, 0);
  }

  /* ------------------------------------------------------------ MathJax in a web worker */

  /* The worker's code (it runs in the worker's global scope, not here).
   *
   * Its SVG font is tex-lazy.js, the font's measurements without the glyphs'
   * outlines (hooks/serve_mathjax.py splits the 1 MB font).  Before it
   * typesets a page, the worker loads the outlines the page's formulas are
   * guessed to draw (the file its first formula names in data-fpsum-glyphs);
   * should MathJax need a glyph that file lacks, the font's getChar loads the
   * block of outlines that holds it -- synchronously, as a worker may, before
   * MathJax draws it. */
  function workerMain(dir, tex, components) {
    /* global self, importScripts, MathJax */
    self.MathJax = {
      loader: {
        paths: { mathjax: dir.replace(/\/$/, "") },
        source: { "output/svg/fonts/tex": "[mathjax]/output/svg/fonts/tex-lazy.js" },
        require: function (url) {
          importScripts(url);
        },
        load: ["adaptors/liteDOM"].concat(components),
      },
      tex: tex,
      svg: { fontCache: "none" }, /* each formula its own paths: no <defs>, no <use>, fewer nodes */
      startup: {
        typeset: false,
        ready: function () {
          MathJax.startup.defaultReady();
          loadGlyphsOnDemand(MathJax.startup.output.font);
          MathJax.startup.promise.then(function () {
            var adaptor = MathJax.startup.adaptor;
            self.postMessage({ css: adaptor.textContent(MathJax.svgStylesheet()) });
          });
        },
      },
    };
    /* The font's tables (normal, bold, texSize4, ...) by name. */
    function fontTables() {
      var tables = {};
      var modules = MathJax._.output.svg.fonts.tex;
      Object.keys(modules).forEach(function (key) {
        Object.keys(modules[key]).forEach(function (name) {
          tables[name] = modules[key][name];
        });
      });
      return tables;
    }
    /* A glyph file adds its outlines to its table (MathJax's own AddPaths, as the whole font does). */
    self.fpsumAddGlyphs = function (name, outlines) {
      MathJax._.output.svg.FontData.AddPaths(fontTables()[name], outlines, {});
    };
    function loadGlyphsOnDemand(font) {
      var chunks = self.fpsumGlyphChunks;
      if (!chunks) {
        return; /* the whole font: nothing to load */
      }
      var tables = fontTables();
      var owners = Object.keys(chunks.tables).filter(function (name) { return tables[name]; });
      var loaded = {};
      var getChar = font.getChar;
      font.getChar = function (variant, code) {
        var glyph = getChar.call(font, variant, code);
        if (glyph && !(glyph[3] && ("p" in glyph[3] || "c" in glyph[3]))) {
          var block = code >> chunks.bits;
          owners.forEach(function (name) {
            var file = name + "-" + block.toString(16);
            if (tables[name][code] === glyph && !loaded[file] && chunks.tables[name].indexOf(block) >= 0) {
              loaded[file] = true;
              try {
                importScripts(dir + chunks.path + file + ".js");
              } catch (error) {
                /* offline: the glyph is left blank rather than the formula untypeset */
              }
            }
          });
        }
        return glyph;
      };
    }
    var queue = Promise.resolve();
    var pageGlyphs = {};
    self.onmessage = function (event) {
      var adaptor = MathJax.startup.adaptor;
      var glyphs = event.data.glyphs;
      if (glyphs && !pageGlyphs[glyphs]) {
        pageGlyphs[glyphs] = true;
        try {
          importScripts(glyphs); /* the outlines the page's formulas are guessed to draw */
        } catch (error) {
          /* none: each glyph's block is loaded as it is drawn */
        }
      }
      event.data.formulas.forEach(function (formula) {
        queue = queue.then(function () {
          return MathJax.tex2svgPromise(formula.tex, { display: formula.display });
        }).then(function (node) {
          self.postMessage({ id: formula.id, html: adaptor.outerHTML(node) });
        });
      });
    };
    importScripts(dir + "startup.js");
  }

  /* A formula's TeX, and whether it is displayed (a div) or inline (a span).
   * Delimiters, if the page still has them (\( \) or \[ \]), are dropped. */
  function texOf(el) {
    var text = el.textContent.trim();
    var wrapped = /^\\\(([\s\S]*)\\\)$/.exec(text) || /^\\\[([\s\S]*)\\\]$/.exec(text);
    return { tex: wrapped ? wrapped[1] : text, display: el.tagName !== "SPAN" };
  }

  function startWorker(ready) {
    var source = "(" + workerMain.toString() + ")(" +
      [MATHJAX_DIR, TEX, COMPONENTS].map(function (arg) { return JSON.stringify(arg); }).join(",") + ");";
    var worker;
    try {
      worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
    } catch (error) {
      useWorker = false;
      startOnPage(ready);
      return;
    }
    var waiting = {}; /* formula id -> element */
    var arrived = []; /* [element, html], to insert */
    var nextId = 0;
    var scheduled = false;

    /* Insert what has arrived in batches: each batch costs the page one frame
     * of styling and layout, which on a long page takes longer than the
     * insertion itself; a batch of a few formulas keeps that frame short. */
    function insert() {
      scheduled = false;
      arrived.splice(0, INSERT_AT_MOST).forEach(function (item) {
        if (item[0].isConnected) {
          item[0].innerHTML = item[1];
        }
      });
      if (arrived.length) {
        schedule(0);
      }
    }

    function schedule(wait) {
      if (!scheduled) {
        scheduled = true;
        window.setTimeout(function () {
          window.requestAnimationFrame(function () {
            later(insert); /* after the frame's rendering, not inside it */
          });
        }, wait);
      }
    }

    worker.onmessage = function (event) {
      var message = event.data;
      if (message.css !== undefined) {
        var style = document.createElement("style");
        style.id = "MJX-SVG-styles";
        style.textContent = message.css;
        document.head.appendChild(style);
        ready(function (elements) {
          var named = document.querySelector("[" + GLYPHS + "]");
          worker.postMessage({
            glyphs: named ? new URL(named.getAttribute(GLYPHS), window.location.href).href : null,
            formulas: elements.map(function (el) {
              var id = ++nextId;
              waiting[id] = el;
              var formula = texOf(el);
              formula.id = id;
              return formula;
            }),
          });
        });
        return;
      }
      var el = waiting[message.id];
      delete waiting[message.id];
      if (el) {
        arrived.push([el, message.html]);
        schedule(INSERT_EVERY_MS);
      }
    };
    worker.onerror = function (event) {
      event.preventDefault();
      worker.terminate();
      if (!engine) { /* it never came up: typeset on the page instead */
        useWorker = false;
        startOnPage(ready);
      }
    };
  }

  /* ------------------------------------------------------------ MathJax on the page */

  function startOnPage(ready) {
    window.MathJax = {
      loader: { load: COMPONENTS },
      tex: TEX,
      svg: { fontCache: "none" },
      startup: {
        typeset: false, /* convertSteps does it */
        ready: function () {
          window.MathJax.startup.defaultReady();
          window.MathJax.startup.promise.then(function () {
            document.head.appendChild(window.MathJax.svgStylesheet());
            ready(convertSteps);
          });
        },
      },
    };
    var script = document.createElement("script");
    script.src = MATHJAX_DIR + "startup.js";
    script.async = true;
    document.head.appendChild(script);
  }

  /* Typeset the elements on the page, in steps of about BUDGET_MS, judged by the step before. */
  function convertSteps(elements) {
    var mj = window.MathJax;
    var mine = run;
    var size = 1;
    function one(el) {
      var formula = texOf(el);
      return mj.tex2svgPromise(formula.tex, { display: formula.display }).then(function (node) {
        if (el.isConnected) {
          el.replaceChildren(node);
        }
      });
    }
    function step() {
      if (mine !== run || !elements.length) {
        return;
      }
      var batch = elements.splice(0, size);
      var begun = performance.now();
      batch.reduce(function (done, el) {
        return done.then(function () { return one(el); });
      }, Promise.resolve()).then(function () {
        var each = (performance.now() - begun) / batch.length;
        size = Math.max(1, Math.min(32, Math.floor(BUDGET_MS / Math.max(each, 0.25))));
        later(step);
      });
    }
    step();
  }

  /* ------------------------------------------------------------ when to start */

  /* Run `then` once the page has been loaded and painted: never before the first paint. */
  function afterFirstPaint(then) {
    var done = false;
    function go() {
      if (!done) {
        done = true;
        later(then);
      }
    }
    function loaded() {
      var painted = performance.getEntriesByType ? performance.getEntriesByType("paint") : [];
      if (painted.length) {
        go();
        return;
      }
      if (window.PerformanceObserver) {
        try {
          new PerformanceObserver(function (list, observer) {
            observer.disconnect();
            go();
          }).observe({ type: "paint", buffered: true });
        } catch (error) {
          window.requestAnimationFrame(function () {
            window.requestAnimationFrame(go);
          });
        }
      }
      window.setTimeout(go, NO_PAINT_MS);
    }
    if (document.readyState === "complete") {
      loaded();
    } else {
      window.addEventListener("load", loaded, { once: true });
    }
  }

  function typesetPage() {
    var elements = untypeset();
    if (elements.length) {
      engine(elements);
    }
  }

  function onPage() {
    run += 1; /* stop typesetting the page that was replaced */
    if (!document.querySelector(FORMULA)) {
      return;
    }
    if (engine) {
      typesetPage();
    } else if (!started) {
      started = true;
      afterFirstPaint(function () {
        var ready = function (typeset) {
          engine = typeset;
          typesetPage(); /* the page showing now, which may not be the first one */
        };
        if (useWorker) {
          startWorker(ready);
        } else {
          startOnPage(ready);
        }
      });
    }
  }

  /* Run a function on every page a reader sees: after each instant navigation of mkdocs-material
     (its document$ observable), or once when the page is ready. race.js, loaded after this file,
     uses it too. */
  window.fpsumOnEveryPage = function (run) {
    if (typeof document$ !== "undefined" && document$.subscribe) {
      document$.subscribe(run);
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", run);
    } else {
      run();
    }
  };
  window.fpsumOnEveryPage(onPage);
})();
