"""The accumulation-error page in a real browser: Debian's chromium driven by Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("site")]

# Without the background-networking flags chromium tries to reach Google at start-up.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Visit:
    """A page opened with every console error and every non-local request recorded."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.remote: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", self._request)
        self.page.goto(url, wait_until="load")

    def _request(self, request: object) -> None:
        url = getattr(request, "url")
        host = urlparse(url).hostname
        if url.startswith(("data:", "blob:", "about:")):
            return
        if host not in ("127.0.0.1", "localhost"):
            self.remote.append(url)

    def close(self) -> None:
        self.context.close()


@pytest.fixture()
def visit(browser: Browser, site_url: str) -> Iterator[Visit]:
    opened = Visit(browser, site_url + "accumulation-error.html")
    yield opened
    opened.close()


def wait_for_mathjax(page: Page) -> None:
    page.wait_for_function(
        "document.querySelectorAll('.arithmatex').length > 0 && "
        "[...document.querySelectorAll('.arithmatex')].every(e => e.querySelector('mjx-container'))",
        timeout=20_000,
    )


def test_loads_without_console_errors_or_remote_requests(visit: Visit) -> None:
    wait_for_mathjax(visit.page)
    visit.page.wait_for_timeout(500)
    assert visit.errors == []
    assert visit.remote == []


def test_mathjax_typesets_every_formula(visit: Visit) -> None:
    wait_for_mathjax(visit.page)
    visible = visit.page.evaluate("document.querySelector('article').innerText")
    assert "\\(" not in visible and "\\[" not in visible and "\\sum" not in visible
    assert visit.page.locator("mjx-container svg").count() >= 6


def test_race_animation_plays_and_its_pause_control_works(visit: Visit) -> None:
    race = visit.page.locator("#race-fp16-uniform")
    race.scroll_into_view_if_needed()
    svg = race.locator("svg").first
    assert svg.is_visible()
    t0 = svg.evaluate("s => s.getCurrentTime()")
    visit.page.wait_for_timeout(400)
    t1 = svg.evaluate("s => s.getCurrentTime()")
    assert t1 > t0, "the animation clock runs"
    pause = race.locator("[data-race-action=pause]")
    assert pause.is_visible(), "the pause control is shown when JavaScript runs"
    pause.click()
    assert svg.evaluate("s => s.animationsPaused()")
    frozen = svg.evaluate("s => s.getCurrentTime()")
    visit.page.wait_for_timeout(400)
    assert svg.evaluate("s => s.getCurrentTime()") == pytest.approx(frozen, abs=1e-3)
    pause.click()
    assert not svg.evaluate("s => s.animationsPaused()")
    visit.page.wait_for_timeout(1500)
    race.locator("[data-race-action=restart]").click()
    assert svg.evaluate("s => s.getCurrentTime()") < 1.0


def test_tabs_switch_format_and_inputs(visit: Visit) -> None:
    page = visit.page
    assert page.locator("#race-fp16-uniform").is_visible()
    assert not page.locator("#race-bf16-uniform").is_visible()
    page.locator(".tabbed-labels label", has_text="BF16").first.click()
    assert page.locator("#race-bf16-uniform").is_visible()
    assert not page.locator("#race-fp16-uniform").is_visible()
    page.locator("#race-bf16-uniform").locator("xpath=ancestor::div[contains(@class,'tabbed-set')][1]") \
        .locator(".tabbed-labels label", has_text="ones").first.click()
    assert page.locator("#race-bf16-ones").is_visible()
    assert not page.locator("#race-bf16-uniform").is_visible()
