"""What makes the pages light and quick, checked in chromium: lazy images, code skipped off screen, formulas drawn.

- Images below a phone's first screen are lazy: they are not fetched until the
  reader scrolls towards them (``scripts/page_weight.py`` counts what is).
- Code blocks are not drawn off screen (``content-visibility`` in site.css)
  but keep their height meanwhile, worked out from their line count
  (``hooks/theme/code_blocks.py``), so the page does not move when one is drawn.
- A display formula, scrolled to on a phone, is drawn whole in its box.
- Loading barely moves the page: the layout shifts add up to less than Web
  Vitals' "good" 0.1 (Lighthouse's performance score counts them).
- The formulas arrive drawn (``hooks/content/formulas.py``): a page fetches no script,
  font or outline file for them, and every glyph a formula draws finds its
  outline in the page.

Each page is loaded fresh once at a phone's size and once at a desktop's
(``fresh_loads``), and each load serves every test here that looks at it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from browsing import all_pages, doc_pages, formula_count, narrow_forms
from fresh_loads import Loaded

PAGES = doc_pages()
FONT_FILES = (".woff", ".woff2", ".otf", ".ttf")
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
def test_loading_barely_moves_the_page(loaded: Loaded, name: str) -> None:
    """The layout shifts from the start of the load to five frames after it add up to less than 0.1 (desktop)."""
    shift = loaded("desktop", name).layout_shift
    assert shift < LAYOUT_SHIFT_LIMIT, f"{name}: cumulative layout shift {shift:.3f}"


@pytest.mark.parametrize("name", PAGES)
def test_every_display_formula_is_drawn_whole_when_scrolled_to(loaded: Loaded, name: str) -> None:
    for i, box, drawn in loaded("phone", name).formula_boxes:
        assert drawn > 0 and box >= drawn - 1, f"formula {i}: drawn {drawn:.1f} px high in a box of {box:.1f}"


@pytest.mark.parametrize("name", PAGES)
def test_a_page_fetches_nothing_to_draw_its_formulas(loaded: Loaded, site_dir: Path, name: str) -> None:
    """Its formulas come drawn in its HTML, their outlines with them: no script, font or outline file is fetched."""
    fetched = [urlsplit(url).path for url in loaded("desktop", name).requests]
    for_formulas = [path for path in fetched if "mathjax" in path.lower() or path.endswith(FONT_FILES)]
    assert for_formulas == [], f"{name} fetched {for_formulas}"
    if formula_count(site_dir, name):
        outlines = loaded("desktop", name).outlines
        assert len(outlines) == formula_count(site_dir, name) + narrow_forms(site_dir, name)  # a long one: two
        missing = [i for i, glyphs in enumerate(outlines) if not glyphs or any(d is None for _, d in glyphs)]
        assert missing == [], f"formulas with no glyph, or a glyph whose outline the page lacks: {missing}"
