"""Issue 24: the home page's first screen shows the race and the takeaway, on phones and desktops, light and dark.

The first screen is the viewport as the page arrives, unscrolled.  The race
is the figure ``fig-race-fp16-uniform``; what must be in view is its plot,
the race's drawing (its SVG), down to the x axis of the running total's panel
at least.  The takeaway (``#takeaway``) must be wholly in view, below the
header, in at most three rendered lines, counted from the boxes the browser
lays its text out in.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from browsing import Visit, set_scheme
from screens import SCHEMES, SCREENS, Screen

FIGURE = "fig-race-fp16-uniform"
MAX_LINES = 3
PLOT_SHARE = 0.6
"""The least share of the race's drawing (its SVG's height) in view: the whole running-total panel and more."""

GEOMETRY_JS = """([figure]) => {
  const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
  const fig = document.getElementById(figure);
  const svg = fig && fig.querySelector('.race svg');
  const box = e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, height: r.height}; };
  const takeaway = document.getElementById('takeaway');
  let lines = 0, last = null;
  if (takeaway) {
    const range = document.createRange();
    range.selectNodeContents(takeaway);
    const tops = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0)
      .map(r => r.top).sort((a, b) => a - b);
    const lineHeight = parseFloat(getComputedStyle(takeaway).lineHeight) || 16;
    for (const top of tops) {  // fragments of one line share its top, within half a line
      if (last === null || top - last > lineHeight / 2) { lines += 1; last = top; }
    }
  }
  return {
    header, height: innerHeight, scrollY,
    figure: fig ? box(fig) : null, svg: svg ? box(svg) : null,
    takeaway: takeaway ? box(takeaway) : null, lines,
  };
}"""


def first_screen(browser: Browser, site_url: str, screen: Screen, scheme: str) -> dict[str, object]:
    """The geometry of the home page's first screen at ``screen`` in the palette ``scheme``."""
    visit = Visit(browser, site_url, "index.html", viewport=screen.viewport, is_mobile=screen.phone,
                  has_touch=screen.phone)
    try:
        set_scheme(visit.page, scheme)
        visit.page.wait_for_function(f"document.querySelector('#{FIGURE} .race[data-race-drawn] svg') !== null")
        geometry: dict[str, object] = visit.page.evaluate(GEOMETRY_JS, [FIGURE])
        assert not visit.problems(), visit.problems()
        return geometry
    finally:
        visit.close()


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: s.name)
def test_the_first_screen_holds_the_race_and_the_takeaway(browser: Browser, site_url: str, screen: Screen,
                                                          scheme: str) -> None:
    seen = first_screen(browser, site_url, screen, scheme)
    assert seen["scrollY"] == 0, seen
    height, header = float(seen["height"]), float(seen["header"])  # type: ignore[arg-type]
    svg = seen["svg"]
    assert isinstance(svg, dict), f"no drawn race in {FIGURE}"
    in_view = min(svg["bottom"], height) - max(svg["top"], header)
    assert svg["top"] >= header and in_view >= PLOT_SHARE * svg["height"], \
        f"{screen.name}: the race's plot spans {svg['top']:.0f}-{svg['bottom']:.0f} px, the screen {height:.0f} px"
    takeaway = seen["takeaway"]
    assert isinstance(takeaway, dict), "the home page has no #takeaway"
    assert header <= takeaway["top"] and takeaway["bottom"] <= height, f"{screen.name}: takeaway {takeaway}"
    assert 1 <= int(seen["lines"]) <= MAX_LINES, f"{screen.name}: the takeaway takes {seen['lines']} lines"  # type: ignore[call-overload]
