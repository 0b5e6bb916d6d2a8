"""Every figure's smallest text in the dark palette, on a phone whose system prefers dark, is at least 11 CSS px.

The light palette is measured on every screen on each page's one load per screen
(``test_fits_screen``); the dark figures are the light ones recoloured
(tests/build/test_figure_layout.py), so the dark palette is measured on the
first screen, where it must fetch only its own SVGs: the page opens in the
palette the reader's system prefers, as a reader's first visit does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browsing import Visit
from figure_text import FIGURE_PAGES, figure_text_problems
from screens import SCHEMES, SCREENS

PHONE, DARK = SCREENS[0], SCHEMES[1]


@pytest.mark.parametrize("name", FIGURE_PAGES)
def test_every_figure_draws_its_smallest_text_at_11_css_px_or_more_in_the_dark(
        browser: Browser, site_url: str, site_dir: Path, name: str) -> None:
    visit = Visit(browser, site_url, name, viewport=PHONE.viewport, is_mobile=True, has_touch=True,
                  color_scheme="dark")
    try:
        shown = visit.page.evaluate("document.body.getAttribute('data-md-color-scheme')")
        assert shown == DARK, f"a system that prefers dark got the palette {shown}"
        problems = figure_text_problems(visit, site_dir, PHONE.phone, DARK)
    finally:
        visit.close()
    assert problems == [], f"{name} at {PHONE.name}, {DARK}:\n" + "\n".join(problems)
