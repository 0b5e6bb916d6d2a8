"""The formulas in chromium, on every screen of ``tests/screens.py``, in both palettes: drawn, never raw, never wide.

On every page with formulas: every display formula draws something wider
and taller than 8 px (below 45em mkdocs-material's own rules once squeezed
each to 1 px); as soon as the page is parsed (DOMContentLoaded) no text a
reader sees outside code is TeX; no formula makes the page scroll sideways
(a long display formula scrolls inside its own box, which then takes the
keyboard focus).  The same with JavaScript off, and from disk (``file://``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browsing import FORMULAS_DRAWN_JS, TEX_LEFT, VISIBLE_PROSE_JS, Visit, doc_pages, has_formulas, set_scheme
from screens import SCHEMES, SCREENS, Screen

pytestmark = pytest.mark.browser

PAGES = doc_pages()
SMALLEST_PX = 8
# Each display formula: whether it is shown, and its drawing's size; each formula a reader would see
# stick out of the screen (not inside a box that scrolls): its index and its box's edges.
MEASURE_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const displayed = [...document.querySelectorAll('div.arithmatex')].map(f => {
    const box = f.querySelector(':scope > mjx-container > svg').getBoundingClientRect();
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


def formula_pages(site_dir: Path) -> list[str]:
    return [p for p in PAGES if has_formulas(site_dir, p)]


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


@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
@pytest.mark.parametrize("name", PAGES)
def test_formulas_are_drawn_whole_and_never_widen_the_page(browser: Browser, site_url: str, site_dir: Path,
                                                           name: str, screen: Screen) -> None:
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    visit = Visit(browser, site_url, viewport=screen.viewport, is_mobile=screen.phone, has_touch=screen.phone)
    try:
        no_tex_at_dom_content_loaded(visit.page, site_url + name, f"{name} at {screen.name}")
        for scheme in SCHEMES:
            set_scheme(visit.page, scheme)
            check(visit.page, f"{name} at {screen.name}, {scheme}")
        assert visit.problems() == []
    finally:
        visit.close()


@pytest.mark.parametrize("where", ["no-javascript", "file"])
@pytest.mark.parametrize("name", PAGES)
def test_formulas_are_drawn_without_javascript_and_from_disk(browser: Browser, site_url: str, site_dir: Path,
                                                             name: str, where: str) -> None:
    """Without scripts (palette as the reader's system prefers it), or opened from disk, on every screen."""
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    base = site_dir.resolve().as_uri() + "/" if where == "file" else site_url
    options: dict[str, Any] = {"java_script_enabled": False} if where == "no-javascript" else {}
    for scheme, preferred in zip(SCHEMES, ("light", "dark"), strict=True):
        visit = Visit(browser, base, viewport=SCREENS[0].viewport, color_scheme=preferred, **options)
        try:
            no_tex_at_dom_content_loaded(visit.page, base + name, f"{name}, {where}")
            for screen in SCREENS:
                visit.page.set_viewport_size(screen.viewport)
                check(visit.page, f"{name}, {where}, at {screen.name}, {scheme}", scripts=where == "file")
            assert visit.problems() == []
        finally:
            visit.close()
