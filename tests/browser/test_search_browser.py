"""The site's search in chromium: typing a library call finds the page."""

from __future__ import annotations

from playwright.sync_api import Browser

from browsing import Visit

SEARCH_TIMEOUT_MS = 15_000


def test_typing_a_library_call_in_the_search_box_finds_the_page(browser: Browser, site_url: str) -> None:
    opened = Visit(browser, site_url, "index.html")
    try:
        page = opened.page
        page.locator(".md-search__input").click()
        page.keyboard.type("torch.sum")
        page.locator(".md-search-result__item").first.wait_for(state="visible", timeout=SEARCH_TIMEOUT_MS)
        links = page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
        pages = list(dict.fromkeys(link.split("#")[0].removeprefix(site_url) for link in links))
        assert "in-practice.html" in pages[:3], pages  # among the first pages the results show
        assert opened.problems() == []
    finally:
        opened.close()
