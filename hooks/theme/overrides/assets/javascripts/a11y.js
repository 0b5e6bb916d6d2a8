/* Accessibility fixes to what mkdocs-material builds in the browser (axe finds them).
 *
 * - Each code block gets a <nav class="md-code__nav"> holding its copy button:
 *   many navigation landmarks with the same (no) name, which axe's
 *   landmark-unique rule and screen-reader users' landmark lists object to.
 *   Each gets a name of its own.
 * - A table too wide for the page scrolls sideways inside .md-typeset__scrollwrap,
 *   and a display formula too wide inside its div.arithmatex (math.css);
 *   keyboard users can scroll it only if it can take focus (axe's
 *   scrollable-region-focusable), so a scrolling one becomes a focusable
 *   region with a name of its own.  A ResizeObserver tells when a box's width changes (the
 *   window resizes): its callback runs once the page is laid out, so reading
 *   the widths there costs no extra layout.  A box in a block skipped off
 *   screen (layout.css) has no width yet and the observer says nothing of it
 *   until the block is drawn, which may be after a reader tabbing through the
 *   page has gone past it: so every box starts out focusable, and the observer
 *   takes that back from each that turns out not to scroll (but not while it
 *   has the focus, which would throw the reader's place away).
 * - A code block that scrolls sideways must be reachable with the keyboard
 *   wherever it is on the page.  mkdocs-material gives it tabindex="0" when it
 *   sets the block up, which with its content.lazy feature (mkdocs.yml) waits
 *   until the block comes into view; until then every block gets one here,
 *   and mkdocs-material takes it off again where the block does not scroll
 *   (or the device has no hover).
 * All run on every page, instant navigation included.
 */
(function () {
  "use strict";

  var scheduled = false;
  /* A table's box is the outer of its two .md-typeset__scrollwrap: mkdocs-material's script wraps the
   * table again inside the one the build gave it (hooks/theme/table_wraps.py), and that inner one never scrolls. */
  var TABLE_BOX = ".md-typeset__scrollwrap:not(.md-typeset__table > *)";
  var SCROLLERS = TABLE_BOX + ", .md-typeset div.arithmatex";

  function nameCodeNavs() {
    scheduled = false;
    document.querySelectorAll(".md-code__nav").forEach(function (nav, index) {
      var name = "Code block " + (index + 1);
      if (nav.getAttribute("aria-label") !== name) {
        nav.setAttribute("aria-label", name);
      }
    });
  }

  /* Each region's name is its own (axe's landmark-unique): "Formula 3, scrolls sideways" is the page's third display
   * formula, "Table 2, ..." its second table, counted over all of them, scrolling or not. */
  function regionName(wrap) {
    var formula = wrap.classList.contains("arithmatex");
    var all = document.querySelectorAll(formula ? ".md-typeset div.arithmatex" : TABLE_BOX);
    return (formula ? "Formula " : "Table ") + (Array.prototype.indexOf.call(all, wrap) + 1) + ", scrolls sideways";
  }

  function markScrolling(wrap, scrolls) {
    if (!scrolls && document.activeElement === wrap) {
      return;  /* the next resize, or a blur, decides */
    }
    if (scrolls && wrap.getAttribute("role") !== "region") {
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", regionName(wrap));
    } else if (!scrolls && wrap.getAttribute("role") === "region") {
      wrap.removeAttribute("tabindex");
      wrap.removeAttribute("role");
      wrap.removeAttribute("aria-label");
    }
  }

  function scrolling(wrap) {
    return wrap.scrollWidth > wrap.clientWidth + 1;
  }

  /* All the widths are read before any attribute changes: a change between two
   * reads would make the second one lay the page out again. */
  var resized = window.ResizeObserver ? new ResizeObserver(function (entries) {
    var wraps = [];
    entries.forEach(function (entry) {
      var wrap = entry.target.closest(SCROLLERS);
      if (wrap && wraps.indexOf(wrap) < 0) {
        wraps.push(wrap);
      }
    });
    /* A box whose contents are still skipped has no width of its own to tell: it waits for the next call. */
    wraps = wraps.filter(function (wrap) {
      var inside = wrap.firstElementChild;
      return !inside || !inside.checkVisibility || inside.checkVisibility({ contentVisibilityAuto: true });
    });
    wraps.map(scrolling).forEach(function (scrolls, i) {
      markScrolling(wraps[i], scrolls);
    });
  }) : null;

  function watchTables(root) {
    var wraps = root.matches && root.matches(SCROLLERS) ? [root]
      : root.querySelectorAll ? root.querySelectorAll(SCROLLERS) : [];
    Array.prototype.forEach.call(wraps, function (wrap) {
      if (resized) {
        markScrolling(wrap, true);  /* until the observer has seen its width */
        resized.observe(wrap);
        if (wrap.firstElementChild) {
          resized.observe(wrap.firstElementChild);
        }
      } else {
        markScrolling(wrap, scrolling(wrap));
      }
    });
  }

  /* Blocks not set up yet: mkdocs-material's copy button goes into the <pre> when it sets one up. */
  function focusableCode(root) {
    var blocks = root.matches && root.matches("pre > code") ? [root]
      : root.querySelectorAll ? root.querySelectorAll("pre > code") : [];
    Array.prototype.forEach.call(blocks, function (code) {
      if (!code.hasAttribute("tabindex") && !code.parentElement.querySelector(".md-code__nav")) {
        code.setAttribute("tabindex", "0");
      }
    });
  }

  /* Code block navs appear as mkdocs-material mounts each block; pages come and go. */
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      Array.prototype.forEach.call(record.addedNodes, function (node) {
        if (node.nodeType !== 1) {
          return;
        }
        if (!scheduled && (node.classList.contains("md-code__nav") || node.querySelector(".md-code__nav"))) {
          scheduled = true;
          window.requestAnimationFrame(nameCodeNavs);
        }
        watchTables(node);
        focusableCode(node);
      });
    });
  }).observe(document.body, { childList: true, subtree: true });
  /* A box left focusable while it had the focus is decided when the focus leaves it. */
  document.addEventListener("focusout", function (event) {
    var wrap = event.target;
    if (wrap.nodeType === 1 && wrap.matches(SCROLLERS)) {
      window.requestAnimationFrame(function () {
        markScrolling(wrap, scrolling(wrap));
      });
    }
  });
  watchTables(document);
  focusableCode(document);
  nameCodeNavs();
})();
