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
  guesses what each page draws), and a glyph the guess missed from its block of
  outlines.  Either way each formula is drawn with exactly the outlines the
  whole font has, which the page uses from disk (``test_offline`` compares the two).

Each page is loaded fresh once at a phone's size and once at a desktop's
(``fresh_loads``), and each load serves every test here that looks at it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browsing import Visit, all_pages, doc_pages, formula_count
from fresh_loads import OUTLINES_JS, Loaded

pytestmark = pytest.mark.browser

PAGES = doc_pages()
GUESS_MISSED_PAGE = "accumulation-error.html"
LAYOUT_SHIFT_LIMIT = 0.1
"""Web Vitals' "good" cumulative layout shift; Lighthouse's performance score counts it."""


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
def test_a_page_loads_its_own_glyph_outlines_not_the_whole_font(loaded: Loaded, site_dir: Path, name: str) -> None:
    """The guess from the page's TeX covers its formulas: no block of outlines is loaded on top, nor the font."""
    fonts = loaded("desktop", name).fonts
    if formula_count(site_dir, name) == 0:
        assert fonts == []
    else:
        page_file = "tex-pages/" + name.removesuffix(".html") + ".js"
        assert fonts == sorted(["tex-lazy.js", page_file]), \
            f"{fonts}: a glyph the page draws is missing from its file (see hooks/mathjax_glyphs.py)"


@pytest.mark.xdist_group(GUESS_MISSED_PAGE)  # with the page's other tests, whose desktop load it reads
def test_a_glyph_the_guess_missed_is_loaded_from_its_block_as_it_is_drawn(browser: Browser, site_url: str,
                                                                         loaded: Loaded) -> None:
    """With the page's glyph file empty (every glyph missed), the worker loads the blocks of outlines that
    hold what MathJax draws, and the formulas come out as with the page's file: as from disk, with the
    whole font (``test_offline``).
    """
    name = GUESS_MISSED_PAGE
    visit = Visit(browser, site_url)
    try:
        visit.context.route("**/output/svg/fonts/tex-pages/*.js",
                            lambda route: route.fulfill(status=200, content_type="text/javascript", body=""))
        visit.goto(name)
        visit.wait_for_formulas()
        outlines = visit.page.evaluate(OUTLINES_JS)
        blocks = [url for url in visit.requests if "/output/svg/fonts/tex-glyphs/" in url]
        assert visit.problems() == []
    finally:
        visit.close()
    assert len(blocks) == len(set(blocks)) > 1, f"each block once, several of them: {blocks}"
    with_page_file = loaded("desktop", name).outlines
    differ = [i for i, (a, b) in enumerate(zip(outlines, with_page_file, strict=True)) if a != b]
    assert differ == [], f"formulas drawn from the blocks with other outlines than with the page's file: {differ}"
