/* A static figure's picture is a link that opens the figure on its own (scripts/figures/html.py).
 *
 * Its address in the page is its palette's wide SVG, which is what a reader
 * without JavaScript opens.  The <picture> inside may show the narrow layout
 * instead (a phone: its <source>'s media query), so just before the link is
 * followed its address becomes the file the picture shows: its image's
 * currentSrc, without the #only-light/#only-dark fragment mkdocs-material
 * reads.  Just before: on the pointer going down (a tap, a middle click, a
 * press that opens the context menu), on focus (the keyboard) and on the
 * click itself, so a window resized or a phone turned since the page loaded
 * opens what the screen shows now.  An image not loaded yet has no
 * currentSrc: the link keeps its address.
 */
(function () {
  "use strict";

  function follow(event) {
    var target = event.target;
    var link = target && target.closest ? target.closest("a.fpsum-figure__open") : null;
    var image = link ? link.querySelector("img") : null;
    if (image && image.currentSrc) {
      link.href = image.currentSrc.split("#")[0];
    }
  }

  ["pointerdown", "focusin", "click", "contextmenu"].forEach(function (type) {
    document.addEventListener(type, follow, true);
  });
})();
