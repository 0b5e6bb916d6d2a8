"""The checks of a page's display formulas as chromium draws them, shared by the tests that load pages.

``check``: every display formula drawn larger than 8 px each way, none out of
the screen, the page no wider because of them, one that scrolls takes the
keyboard focus; ``FORMS_JS``: which of a long formula's forms (wide, narrow) each
shows, and whether what it holds is wider than its box.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from browsing import FORMULAS_DRAWN_JS, TEX_LEFT, VISIBLE_PROSE_JS
from screens import SCREENS

SMALLEST_PX = 8
# Each display formula: whether it is shown, and its drawing's size; each formula a reader would see
# stick out of the screen (not inside a box that scrolls): its index and its box's edges.
MEASURE_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const displayed = [...document.querySelectorAll('div.arithmatex')].map(f => {
    const forms = [...f.querySelectorAll(':scope > mjx-container')];  // a long one: its wide and narrow form
    const shown = forms.find(c => c.checkVisibility()) || forms[0];
    const box = shown.querySelector(':scope > svg').getBoundingClientRect();
    return {shown: f.checkVisibility(), width: box.width, height: box.height};
  });
  // What a reader sees of a formula: its box, clipped by every box around it that scrolls or clips.
  const clips = el => getComputedStyle(el).overflowX !== 'visible';
  const sticking = [...document.querySelectorAll('.arithmatex')].map((f, i) => {
    const box = f.getBoundingClientRect();
    let [left, right] = [box.left, box.right];
    for (let el = f; el && el !== document.documentElement; el = el.parentElement) {
      if (clips(el)) {
        const clip = el.getBoundingClientRect();
        [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
      }
    }
    return {i, left, right};
  }).filter(b => b.right > b.left && (b.left < -0.5 || b.right > innerWidth + 0.5));
  // Each display formula that can scroll is reachable with the keyboard (a11y.js), if scripts run.
  const unreachable = [...document.querySelectorAll('div.arithmatex')]
    .filter(f => f.scrollWidth > f.clientWidth + 1 && f.tabIndex < 0).length;
  // How wide the page is, and how wide it would be without its formulas.
  const pageWidth = document.documentElement.scrollWidth;
  const without = document.createElement('style');
  without.textContent = '.arithmatex { display: none !important; }';
  document.head.append(without);
  const widthWithout = document.documentElement.scrollWidth;
  without.remove();
  return {displayed, sticking, unreachable, pageWidth, widthWithout, innerWidth};
}"""


def check(page: Page, where: str, *, scripts: bool = True) -> None:
    """Every display formula drawn larger than 8 px each way; none out of the screen; the page no wider
    than the screen because of them (without them it may be: mkdocs-material's header title, without
    JavaScript at 360 px, is not a formula's doing).
    """
    seen: dict[str, Any] = page.evaluate(MEASURE_JS)
    hidden = [i for i, d in enumerate(seen["displayed"]) if not d["shown"]]
    small = [(i, round(d["width"], 1), round(d["height"], 1)) for i, d in enumerate(seen["displayed"])
             if d["shown"] and not (d["width"] > SMALLEST_PX and d["height"] > SMALLEST_PX)]
    assert hidden == [], f"{where}: display formulas not shown: {hidden}"
    assert small == [], f"{where}: display formulas drawn too small (index, width, height): {small}"
    assert seen["sticking"] == [], f"{where}: formulas out of the screen: {seen['sticking'][:5]}"
    widest = max(seen["innerWidth"], seen["widthWithout"])
    assert seen["pageWidth"] <= widest, f"{where}: the formulas make the page {seen['pageWidth']} px wide"
    if scripts:
        assert seen["unreachable"] == 0, f"{where}: a display formula scrolls, but takes no keyboard focus"
    assert page.evaluate(FORMULAS_DRAWN_JS), f"{where}: a formula's glyph has no outline, or it draws nothing"


def no_tex_at_dom_content_loaded(page: Page, url: str, where: str) -> None:
    """Open ``url`` and, once it is parsed and before it is loaded, find no TeX in the text a reader sees."""
    page.goto(url, wait_until="domcontentloaded")
    tex = TEX_LEFT.findall(page.evaluate(VISIBLE_PROSE_JS))
    assert tex == [], f"{where}: TeX in sight at DOMContentLoaded: {tex[:10]}"
    page.wait_for_load_state("load")


# Each display formula a reader can see (the answers unfolded; every block and drawing laid out, which
# layout.css and math.css skip off screen): how wide its box's content is and how wide what it holds
# (scrollWidth, clientWidth), and which of its forms show (hooks/content/formula_forms.py).
FORMS_JS = """() => {
  const drawn = document.createElement('style');
  drawn.textContent = '.md-typeset > *, mjx-container > svg { content-visibility: visible !important; }';
  document.head.append(drawn);
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const seen = [...document.querySelectorAll('div.arithmatex')].map((f, i) => ({
    i, visible: f.checkVisibility(), scroll: f.scrollWidth, client: f.clientWidth,
    wide: !!f.querySelector(':scope > .fpsum-wide'),
    shown: [...f.querySelectorAll(':scope > mjx-container')].filter(c => c.checkVisibility())
      .map(c => c.classList.contains('fpsum-narrow') ? 'narrow' : 'wide'),
  }));
  drawn.remove();
  return seen.filter(f => f.visible);
}"""
PHONES = [screen for screen in SCREENS if screen.phone]
DESKTOP = next(s for s in SCREENS if s.width == 1280)
