"""What makes the pages light and quick, checked in chromium: lazy images, blocks skipped off screen, MathJax's font.

- Images below a phone's first screen are lazy: they are not fetched until the
  reader scrolls towards them (``scripts/page_weight.py`` counts what is).
- Display formulas and code blocks are not drawn off screen
  (``content-visibility`` in site.css) but keep their height meanwhile: a code
  block's is worked out from its line count (``hooks/code_blocks.py``), so the
  page does not move when it is drawn; a formula, scrolled to, is drawn whole.
- Over HTTP, MathJax's worker loads the page's own glyph outlines
  (``hooks/serve_mathjax.py`` splits the 1 MB font, ``hooks/mathjax_glyphs.py``
  guesses what each page draws) and draws each formula with exactly the
  outlines the whole font has, which the page uses from disk.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from browsing import ALL_TYPESET_JS, TYPESET_TIMEOUT_MS, Visit, doc_pages, formula_count

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("site")]

PAGES = doc_pages()
PHONE = {"width": 412, "height": 823}  # Lighthouse's mobile viewport
# Each formula's glyphs, in order: the code point and outline of every path MathJax drew.
OUTLINES_JS = """() => [...document.querySelectorAll('.arithmatex > mjx-container > svg')].map(
  svg => [...svg.querySelectorAll('path')].map(path => [path.getAttribute('data-c'), path.getAttribute('d')]))"""


def typeset(page: Page) -> None:
    page.wait_for_function(ALL_TYPESET_JS, timeout=TYPESET_TIMEOUT_MS)


@pytest.mark.parametrize("name", PAGES)
def test_images_below_the_first_screen_are_lazy(browser: Browser, site_url: str, name: str) -> None:
    visit = Visit(browser, site_url, name, viewport=PHONE)
    try:
        eager = visit.page.evaluate("""(height) => [...document.querySelectorAll('article img')]
          .filter(img => !img.closest('noscript') && img.getBoundingClientRect().top + scrollY > height)
          .filter(img => img.loading !== 'lazy').map(img => img.getAttribute('src'))""", PHONE["height"])
        assert eager == [], f"images below the first screen fetched at once: {eager}"
    finally:
        visit.close()


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1280, "height": 900}], ids=["phone", "desktop"])
@pytest.mark.parametrize("name", PAGES)
def test_a_code_block_skipped_off_screen_keeps_its_height(browser: Browser, site_url: str, name: str,
                                                           viewport: dict[str, int]) -> None:
    visit = Visit(browser, site_url, name, viewport=viewport)
    try:
        heights = visit.page.evaluate("""() => [...document.querySelectorAll('.md-typeset pre')]
          .filter(pre => pre.checkVisibility()).map(pre => {
            const skipped = parseFloat(getComputedStyle(pre).containIntrinsicHeight.replace('auto', ''));
            pre.style.contentVisibility = 'visible';
            const drawn = pre.getBoundingClientRect().height;
            pre.style.contentVisibility = '';
            return [skipped, drawn];
          })""")
        for skipped, drawn in heights:
            assert skipped == pytest.approx(drawn, abs=2), f"a code block {drawn:.1f} px high, skipped: {skipped:.1f}"
    finally:
        visit.close()


@pytest.mark.parametrize("name", PAGES)
def test_every_display_formula_is_drawn_whole_when_scrolled_to(browser: Browser, site_url: str, name: str) -> None:
    visit = Visit(browser, site_url, name, viewport=PHONE)
    try:
        page = visit.page
        typeset(page)
        formulas = page.locator("div.arithmatex")
        for i in range(formulas.count()):
            formula = formulas.nth(i)
            if not formula.evaluate("f => f.checkVisibility()"):
                continue  # in a folded answer or a hidden tab
            formula.scroll_into_view_if_needed()
            page.wait_for_function("f => f.checkVisibility({contentVisibilityAuto: true})",
                                   arg=formula.element_handle())
            box, drawn = formula.evaluate("""f => {
              const svg = f.querySelector('mjx-container svg').getBoundingClientRect();
              return [f.getBoundingClientRect().height, svg.height];
            }""")
            assert drawn > 0 and box >= drawn - 1, f"formula {i}: drawn {drawn:.1f} px high in a box of {box:.1f}"
    finally:
        visit.close()


@pytest.mark.parametrize("name", PAGES)
def test_the_worker_draws_each_formula_with_the_whole_fonts_outlines(browser: Browser, site_url: str,
                                                                     site_dir: Path, name: str) -> None:
    """Over HTTP (worker, the page's glyph file) and from disk (page, the whole font): the same glyphs."""
    if formula_count(site_dir, name) == 0:
        return
    outlines = []
    for base in (site_url, site_dir.resolve().as_uri() + "/"):
        visit = Visit(browser, base, name)
        try:
            typeset(visit.page)
            outlines.append(visit.page.evaluate(OUTLINES_JS))
        finally:
            visit.close()
    over_http, from_disk = outlines
    assert len(over_http) == len(from_disk) == formula_count(site_dir, name)
    differ = [i for i, (a, b) in enumerate(zip(over_http, from_disk)) if a != b]
    assert differ == [], f"formulas drawn with other outlines over HTTP than from disk: {differ}"


@pytest.mark.parametrize("name", PAGES)
def test_a_page_loads_its_own_glyph_outlines_not_the_whole_font(browser: Browser, site_url: str, site_dir: Path,
                                                                 name: str) -> None:
    """The guess from the page's TeX covers its formulas: no block of outlines is loaded on top, nor the font."""
    visit = Visit(browser, site_url, name)
    try:
        typeset(visit.page)
        fonts = sorted(re.sub(r".*/output/svg/fonts/", "", url) for url in visit.requests
                       if "/output/svg/fonts/" in url)
    finally:
        visit.close()
    if formula_count(site_dir, name) == 0:
        assert fonts == []
    else:
        page_file = "tex-pages/" + name.removesuffix(".html") + ".js"
        assert fonts == sorted(["tex-lazy.js", page_file]), \
            f"{fonts}: a glyph the page draws is missing from its file (see hooks/mathjax_glyphs.py)"
