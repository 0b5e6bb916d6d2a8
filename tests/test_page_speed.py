"""What makes the pages light and quick, checked in chromium: lazy images, blocks skipped off screen, MathJax's font.

- Images below a phone's first screen are lazy: they are not fetched until the
  reader scrolls towards them (``scripts/page_weight.py`` counts what is).
- Display formulas and code blocks are not drawn off screen
  (``content-visibility`` in site.css) but keep their height meanwhile: a code
  block's is worked out from its line count (``hooks/code_blocks.py``), so the
  page does not move when it is drawn; a formula, scrolled to, is drawn whole.
- Typesetting the formulas barely moves the page: the layout shifts add up to
  less than Web Vitals' "good" 0.1 (Lighthouse's performance score counts them).
- Over HTTP, MathJax's worker loads the page's own glyph outlines
  (``hooks/serve_mathjax.py`` splits the 1 MB font, ``hooks/mathjax_glyphs.py``
  guesses what each page draws) and draws each formula with exactly the
  outlines the whole font has, which the page uses from disk.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browsing import ALL_TYPESET_JS, TYPESET_TIMEOUT_MS, Visit, all_pages, doc_pages, formula_count, let_frames_pass
from page_weight import VIEWPORT

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("site")]

PAGES = doc_pages()
PHONE = dict(VIEWPORT)  # the bench's phone, Lighthouse's mobile viewport
# Each formula's glyphs, in order: the code point and outline of every path MathJax drew.
OUTLINES_JS = """() => [...document.querySelectorAll('.arithmatex > mjx-container > svg')].map(
  svg => [...svg.querySelectorAll('path')].map(path => [path.getAttribute('data-c'), path.getAttribute('d')]))"""


IMAGES_EAGER_BELOW_JS = """(height) => [...document.querySelectorAll('article img')]
  .filter(img => !img.closest('noscript') && img.getBoundingClientRect().top + scrollY > height)
  .filter(img => img.loading !== 'lazy').map(img => img.getAttribute('src'))"""
# Each shown code block's height while skipped (contain-intrinsic-size) and drawn.
CODE_HEIGHTS_JS = """() => [...document.querySelectorAll('.md-typeset pre')]
  .filter(pre => pre.checkVisibility()).map(pre => {
    const skipped = parseFloat(getComputedStyle(pre).containIntrinsicHeight.replace('auto', ''));
    pre.style.contentVisibility = 'visible';
    const drawn = pre.getBoundingClientRect().height;
    pre.style.contentVisibility = '';
    return [skipped, drawn];
  })"""


LAYOUT_SHIFT_LIMIT = 0.1
"""Web Vitals' "good" cumulative layout shift; Lighthouse's performance score counts it."""
# Adds up every layout shift from the page's start (before any script of its own runs).
LAYOUT_SHIFTS_JS = """window.__shift = 0; new PerformanceObserver(list => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value;
}).observe({type: 'layout-shift', buffered: true});"""


def typeset(page: Page) -> None:
    page.wait_for_function(ALL_TYPESET_JS, timeout=TYPESET_TIMEOUT_MS)


@dataclass
class Measured:
    """What one fresh load of a page showed, in the order a reader meets it: at once, then once typeset."""

    eager_images: list[str] = field(default_factory=list)
    code_heights: list[tuple[float, float]] = field(default_factory=list)
    formula_boxes: list[tuple[int, float, float]] = field(default_factory=list)
    outlines: list[Any] = field(default_factory=list)
    fonts: list[str] = field(default_factory=list)
    layout_shift: float = 0.0


def _on_phone(browser: Browser, site_url: str, name: str) -> Measured:
    """At a phone's size: the images and code blocks as loaded (nothing scrolled), then each display formula
    scrolled to once the page is typeset: its box's and its drawing's heights.
    """
    visit = Visit(browser, site_url, name, viewport=PHONE)
    try:
        page = visit.page
        seen = Measured(eager_images=page.evaluate(IMAGES_EAGER_BELOW_JS, PHONE["height"]),
                        code_heights=page.evaluate(CODE_HEIGHTS_JS))
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
            seen.formula_boxes.append((i, box, drawn))
        return seen
    finally:
        visit.close()


def _on_desktop(browser: Browser, base: str, name: str) -> Measured:
    """At a desktop's size from ``base``: the code blocks as loaded, then, typeset, the layout shifts since
    the start (five frames on), every formula's outlines and the font files MathJax fetched.
    """
    visit = Visit(browser, base)
    try:
        visit.page.add_init_script(LAYOUT_SHIFTS_JS)
        visit.goto(name)
        seen = Measured(code_heights=visit.page.evaluate(CODE_HEIGHTS_JS))
        typeset(visit.page)
        let_frames_pass(visit.page, 5)
        seen.layout_shift = visit.page.evaluate("window.__shift")
        seen.outlines = visit.page.evaluate(OUTLINES_JS)
        seen.fonts = sorted(re.sub(r".*/output/svg/fonts/", "", url) for url in visit.requests
                            if "/output/svg/fonts/" in url)
        return seen
    finally:
        visit.close()


Loaded = Callable[[str, str], Measured]


@pytest.fixture(scope="module")
def loaded(browser: Browser, site_url: str, site_dir: Path) -> Loaded:
    """``loaded(how, name)``: what one fresh load of ``name`` showed (``how``: phone, desktop or disk),
    loaded once per module; a load costs about a second of chromium's time, and each load serves
    every test below that looks at it.
    """
    seen: dict[tuple[str, str], Measured] = {}
    disk = site_dir.resolve().as_uri() + "/"

    def get(how: str, name: str) -> Measured:
        if (how, name) not in seen:
            seen[how, name] = (_on_phone(browser, site_url, name) if how == "phone"
                               else _on_desktop(browser, site_url if how == "desktop" else disk, name))
        return seen[how, name]

    return get


@pytest.mark.parametrize("name", PAGES)
def test_images_below_the_first_screen_are_lazy(loaded: Loaded, name: str) -> None:
    eager = loaded("phone", name).eager_images
    assert eager == [], f"images below the first screen fetched at once: {eager}"


@pytest.mark.parametrize("how", ["phone", "desktop"])
@pytest.mark.parametrize("name", PAGES)
def test_a_code_block_skipped_off_screen_keeps_its_height(loaded: Loaded, name: str, how: str) -> None:
    for skipped, drawn in loaded(how, name).code_heights:
        assert skipped == pytest.approx(drawn, abs=2), f"a code block {drawn:.1f} px high, skipped: {skipped:.1f}"


@pytest.mark.parametrize("name", all_pages())
def test_typesetting_the_formulas_barely_moves_the_page(loaded: Loaded, name: str) -> None:
    """The layout shifts from loading to every formula typeset add up to less than 0.1 (desktop viewport)."""
    shift = loaded("desktop", name).layout_shift
    assert shift < LAYOUT_SHIFT_LIMIT, f"{name}: cumulative layout shift {shift:.3f}"


@pytest.mark.parametrize("name", PAGES)
def test_every_display_formula_is_drawn_whole_when_scrolled_to(loaded: Loaded, name: str) -> None:
    for i, box, drawn in loaded("phone", name).formula_boxes:
        assert drawn > 0 and box >= drawn - 1, f"formula {i}: drawn {drawn:.1f} px high in a box of {box:.1f}"


@pytest.mark.parametrize("name", PAGES)
def test_the_worker_draws_each_formula_with_the_whole_fonts_outlines(loaded: Loaded, site_dir: Path,
                                                                     name: str) -> None:
    """Over HTTP (worker, the page's glyph file) and from disk (page, the whole font): the same glyphs."""
    if formula_count(site_dir, name) == 0:
        return
    over_http, from_disk = loaded("desktop", name).outlines, loaded("disk", name).outlines
    assert len(over_http) == len(from_disk) == formula_count(site_dir, name)
    differ = [i for i, (a, b) in enumerate(zip(over_http, from_disk)) if a != b]
    assert differ == [], f"formulas drawn with other outlines over HTTP than from disk: {differ}"


@pytest.mark.parametrize("name", PAGES)
def test_a_page_loads_its_own_glyph_outlines_not_the_whole_font(loaded: Loaded, site_dir: Path, name: str) -> None:
    """The guess from the page's TeX covers its formulas: no block of outlines is loaded on top, nor the font."""
    fonts = loaded("desktop", name).fonts
    if formula_count(site_dir, name) == 0:
        assert fonts == []
    else:
        page_file = "tex-pages/" + name.removesuffix(".html") + ".js"
        assert fonts == sorted(["tex-lazy.js", page_file]), \
            f"{fonts}: a glyph the page draws is missing from its file (see hooks/mathjax_glyphs.py)"


def test_a_glyph_the_guess_missed_is_loaded_from_its_block_as_it_is_drawn(browser: Browser, site_url: str,
                                                                         loaded: Loaded) -> None:
    """With the page's glyph file empty (every glyph missed), the worker loads the blocks of outlines that
    hold what MathJax draws, and the formulas come out as from disk, with the whole font.
    """
    name = "accumulation-error.html"
    visit = Visit(browser, site_url)
    try:
        visit.context.route("**/output/svg/fonts/tex-pages/*.js",
                            lambda route: route.fulfill(status=200, content_type="text/javascript", body=""))
        visit.goto(name)
        typeset(visit.page)
        outlines = visit.page.evaluate(OUTLINES_JS)
        blocks = [url for url in visit.requests if "/output/svg/fonts/tex-glyphs/" in url]
        assert visit.problems() == []
    finally:
        visit.close()
    assert len(blocks) == len(set(blocks)) > 1, f"each block once, several of them: {blocks}"
    from_disk = loaded("disk", name).outlines
    differ = [i for i, (a, b) in enumerate(zip(outlines, from_disk, strict=True)) if a != b]
    assert differ == [], f"formulas drawn from the blocks with other outlines than from disk: {differ}"
