"""A static figure's "open large" link opens the layout and palette the reader sees (issue 39).

On a phone in the dark palette the picture shows the narrow dark SVG, so the
link opens that one, on a dark canvas and as wide as the screen, not the
desktop's light SVG with its text at 5 px; on a desktop, the wide SVG of the palette.  Served
and opened from disk.  Without JavaScript each palette's link keeps its
palette's wide SVG (tests/site/test_figure_variants.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browsing import Visit, show
from screens import Screen

PAGE = "error-vs-n.html"
FIGURE = "error-vs-n"
CASES = ((Screen(390, 844, True), "dark", f"{FIGURE}-narrow-dark.svg"),
         (Screen(1280, 800, False), "light", f"{FIGURE}.svg"),
         (Screen(1280, 800, False), "dark", f"{FIGURE}-dark.svg"))


@pytest.mark.parametrize("where", ["served", "disk"])
@pytest.mark.parametrize(("screen", "scheme", "opened"), CASES, ids=lambda case: getattr(case, "name", case))
def test_open_large_opens_the_variant_shown(browser: Browser, site_url: str, site_dir: Path, where: str,
                                            screen: Screen, scheme: str, opened: str) -> None:
    base = site_url if where == "served" else site_dir.resolve().as_uri() + "/"
    visit = Visit(browser, base, PAGE, viewport=screen.viewport, is_mobile=screen.phone, has_touch=screen.phone,
                  color_scheme=scheme)
    try:
        page = visit.page
        figure = page.locator(f"#fig-{FIGURE}")
        show(figure)
        link = figure.locator("a.fpsum-figure__open:visible")
        assert link.count() == 1, "one link shown, the palette's"
        image = link.locator("img")
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        shown = image.evaluate("img => img.currentSrc")
        assert shown.split("#")[0].endswith("/figures/" + opened), f"the picture shows {shown}"
        with page.expect_navigation():
            if screen.phone:
                link.tap()
            else:
                link.click()
        assert page.url.endswith("/figures/" + opened), f"opened {page.url}"
        canvas = page.evaluate("getComputedStyle(document.documentElement).colorScheme")
        assert canvas == ("dark" if scheme == "dark" else "normal"), canvas
        if screen.phone:  # a phone lays the file out 980 px wide: the narrow figure fills that, so the screen
            filled = page.evaluate("document.documentElement.getBoundingClientRect().width / innerWidth")
            assert filled > 0.99, f"the figure fills {filled:.0%} of the width a phone shows"
    finally:
        visit.close()
