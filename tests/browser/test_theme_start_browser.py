"""mkdocs-material's script starts on the reader's first move in chromium, and nothing the reader did is lost.

That nothing in the article moves when it starts is checked on each page's one load per screen
(``first_load``, in ``test_fits_screen``).
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Route

from browsing import THEME_RUNNING_JS, Visit
from first_load import BUNDLE, RUNNING_NOW_JS
from screens import SCREENS, Screen

PALETTE_JS = """() => ({
  scheme: document.body.getAttribute('data-md-color-scheme'),
  shown: [...document.querySelectorAll('[data-md-component=palette] label')].map(l => !l.hidden),
  stored: __md_get('__palette') && __md_get('__palette').color.scheme,
})"""


@pytest.fixture
def visits(browser: Browser, site_url: str) -> Iterator[list[Visit]]:
    """Visits a test opens, closed after it (each opens its page without starting the theme)."""
    visits: list[Visit] = []
    yield visits
    for visit in visits:
        visit.close()


def open_unstarted(visits: list[Visit], browser: Browser, site_url: str, page: str, screen: Screen,
                   **options: object) -> Visit:
    visit = Visit(browser, site_url, viewport=screen.viewport, **options)
    visits.append(visit)
    visit.goto(page, start_theme=False)
    return visit


class HeldBundle:
    """Holds the page's requests for the bundle until ``release``; requests that come after it pass.

    The script tag is in the page before its request reaches the route, so ``release`` first waits
    for a request to be held: letting go of an empty list would leave the late one held for ever.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.routes: list[Route] = []
        self.released = False
        page.route(BUNDLE, self._hold)

    def _hold(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self, timeout_ms: int = 10_000) -> None:
        """Let the held requests go, after waiting up to ``timeout_ms`` for the first (AssertionError if none)."""
        waited = 0
        while not self.routes and waited < timeout_ms:
            self.page.wait_for_timeout(20)  # the route's handler runs while playwright waits
            waited += 20
        assert self.routes, "the page asked for no bundle"
        self.released = True
        for route in self.routes:
            route.continue_()


MOVES = {
    "tap": lambda page: page.touchscreen.tap(200, 400),
    "click": lambda page: page.mouse.click(200, 400),
    # A reader's move is a stream of events; the first after the cursor comes in moves by nothing (no place
    # to move from), and only the next one starts the bundle (test_a_pointer_move_that_moves_nothing...).
    "pointer move": lambda page: page.mouse.move(200, 400, steps=2),
    "wheel": lambda page: page.mouse.wheel(0, 200),
    "key": lambda page: page.keyboard.press("Tab"),
    "scroll": lambda page: page.evaluate("scrollBy(0, 300)"),
}


@pytest.mark.parametrize("move", MOVES)
def test_each_first_move_starts_the_bundle(browser: Browser, site_url: str, visits: list[Visit], move: str) -> None:
    visit = open_unstarted(visits, browser, site_url, "index.html", SCREENS[1], has_touch=True)
    assert not visit.page.evaluate(RUNNING_NOW_JS)
    MOVES[move](visit.page)
    visit.page.wait_for_function(THEME_RUNNING_JS)
    assert visit.problems() == []


# The pointer move chromium makes itself when the page under a resting cursor changes as it loads: it moves by
# nothing (seen at load in chromium's headless shell, the cursor at the corner, over the header).
STILL_MOVE_JS = "() => dispatchEvent(new PointerEvent('pointermove', {movementX: 0, movementY: 0}))"


def test_a_pointer_move_that_moves_nothing_does_not_start_the_bundle(browser: Browser, site_url: str,
                                                                      visits: list[Visit]) -> None:
    """No reader made it; the next move that moves starts the bundle."""
    visit = open_unstarted(visits, browser, site_url, "index.html", SCREENS[1])
    visit.page.evaluate(STILL_MOVE_JS)
    visit.page.evaluate("() => new Promise(requestAnimationFrame)")
    assert not visit.page.evaluate(RUNNING_NOW_JS)
    assert not [url for url in visit.requests if BUNDLE.search(urlsplit(url).path)], "the bundle was fetched"
    visit.page.mouse.move(200, 400, steps=2)
    visit.page.wait_for_function(THEME_RUNNING_JS)


@pytest.mark.parametrize("system", ["light", "dark"])
def test_a_palette_toggle_before_the_bundle_runs_takes_effect_and_stays(browser: Browser, site_url: str,
                                                                        visits: list[Visit], system: str) -> None:
    visit = open_unstarted(visits, browser, site_url, "formats.html", SCREENS[1], color_scheme=system)
    page = visit.page
    first, other = ("default", "slate") if system == "light" else ("slate", "default")
    arrived = page.evaluate(PALETTE_JS)
    assert arrived["scheme"] == first and arrived["shown"].count(True) == 1, arrived
    held = HeldBundle(page)
    page.locator("[data-md-component=palette] label:not([hidden])").click()
    page.wait_for_function("() => document.querySelectorAll('script[src*=\"bundle.\"]').length === 1")
    toggled = page.evaluate(PALETTE_JS)
    assert not page.evaluate(RUNNING_NOW_JS), "the bundle ran although it was held"
    assert toggled["scheme"] == other and toggled["stored"] == other, toggled
    assert toggled["shown"] == [not shown for shown in arrived["shown"]], toggled
    held.release()
    page.wait_for_function(THEME_RUNNING_JS)
    assert page.evaluate(PALETTE_JS) == toggled, "the bundle started from another palette"
    visit.settle()  # the search worker's files loaded: a reload would cut them off (net::ERR_ABORTED), seen under load
    page.reload(wait_until="load")
    assert page.evaluate(PALETTE_JS) == toggled, "not kept on the next load"
    assert visit.problems() == []


def test_a_tap_on_search_before_the_bundle_runs_focuses_the_field_and_searches(browser: Browser, site_url: str,
                                                                               visits: list[Visit]) -> None:
    visit = open_unstarted(visits, browser, site_url, "index.html", SCREENS[1], has_touch=True, is_mobile=True)
    page = visit.page
    held = HeldBundle(page)
    page.locator("header label.md-header__button[for=__search]").tap()
    page.wait_for_function("() => document.activeElement.matches('[data-md-component=search-query]')")
    assert page.evaluate("document.getElementById('__search').checked"), "the search did not open"
    page.keyboard.type("kahan")
    held.release()
    page.wait_for_function(THEME_RUNNING_JS)
    page.locator(".md-search-result__item").first.wait_for(state="visible")
    assert visit.problems() == []


@pytest.mark.parametrize(("key", "expected"), [("/", "search"), ("n", "next page")])
def test_the_key_that_starts_the_bundle_is_not_lost(browser: Browser, site_url: str, visits: list[Visit],
                                                    key: str, expected: str) -> None:
    visit = open_unstarted(visits, browser, site_url, "formats.html", SCREENS[3])
    page = visit.page
    next_page = page.evaluate("document.querySelector('link[rel=next]').href")
    page.keyboard.press(key)
    if expected == "next page":
        page.wait_for_url(next_page)
        return
    page.wait_for_function(THEME_RUNNING_JS)
    page.wait_for_function("() => document.activeElement.matches('[data-md-component=search-query]')")
    assert page.evaluate("document.getElementById('__search').checked")
    assert visit.problems() == []


def test_a_page_printed_before_the_bundle_runs_prints_its_folded_blocks_unfolded(browser: Browser, site_url: str,
                                                                                 visits: list[Visit]) -> None:
    visit = open_unstarted(visits, browser, site_url, "formats.html", SCREENS[3])
    page = visit.page
    folded = page.evaluate("() => [...document.querySelectorAll('details')].filter(d => !d.open).length")
    assert folded > 0, "no folded block here: pick another page"
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # as the browser does before printing
    assert page.evaluate("() => [...document.querySelectorAll('details')].every(d => d.open)")
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    assert page.evaluate("() => [...document.querySelectorAll('details')].filter(d => !d.open).length") == folded
    assert not page.evaluate(RUNNING_NOW_JS), "printing is not a move of the reader's"
