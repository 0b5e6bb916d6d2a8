"""The built site offline: every page opened from disk (file://) works, and nothing is fetched from outside.

From disk: figures show, formulas are typeset (MathJax comes from the site),
the figure controls and the palette toggle work, and links lead from page to
page (``use_directory_urls: false`` makes them ``page.html``).  The search
works both over HTTP from localhost and from disk: browsers refuse a web
worker to a file:// page, so there mkdocs-material's offline plugin has the
page load the index as a script (``search/search_index.js``) and
iframe-worker's shim, served by the site, runs the search worker in an iframe.
Every request is recorded: none may leave the site's folder (from disk) or
localhost (over HTTP).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browsing import ALL_RACES_READY_JS, Visit, built_html, doc_pages, draw_every_race, has_races

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("site")]

PAGES = doc_pages()  # the 404 page is for servers: from disk nobody lands on it


def file_base(site_dir: Path) -> str:
    return site_dir.resolve().as_uri() + "/"


@pytest.mark.parametrize("name", PAGES)
def test_page_works_from_disk(browser: Browser, site_dir: Path, name: str) -> None:
    base = file_base(site_dir)
    opened = Visit(browser, base, name)
    try:
        page = opened.page
        opened.wait_for_formulas()
        assert opened.tex_left() == []
        # Figures: every image shown has loaded (lazy ones once scrolled to), every race is inline SVG.
        images = page.locator("article img")
        for i in range(images.count()):
            image = images.nth(i)
            if image.is_visible():
                image.scroll_into_view_if_needed()
                page.wait_for_function("img => img.complete", arg=image.element_handle())
                assert image.evaluate("img => img.naturalWidth") > 0, image.get_attribute("src")
        races = built_html(site_dir, name).count('class="race"')
        assert page.locator(".race > svg").count() == races
        if has_races(site_dir, name):
            page.wait_for_function(ALL_RACES_READY_JS)
            assert page.locator(".race [data-race-action=pause]:visible").count() >= 1, "no figure controls"
            draw_every_race(page)
            assert page.locator(".race > svg:has(use)").count() == races, "a race is not drawn"
        # mkdocs-material's own components run: the palette toggle switches the scheme.
        page.locator('[data-md-component="palette"] label:visible').click()
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
        # A link leads to the next page in the navigation, read from disk.
        following = PAGES[(PAGES.index(name) + 1) % len(PAGES)]
        target = base + following
        page.evaluate("""(target) => [...document.querySelectorAll('.md-sidebar--primary a.md-nav__link')]
                           .find(a => a.href === target).setAttribute('data-test-target', '')""", target)
        page.locator("a[data-test-target]").click()
        page.wait_for_url(target)
        page.wait_for_load_state("load")
        assert page.locator("article h1").first.is_visible()
        opened.wait_for_formulas()
        assert opened.problems() == []
        assert all(url.startswith((base, "data:", "blob:")) for url in opened.requests)
    finally:
        opened.close()


@pytest.mark.parametrize("where", ["http", "disk"])
@pytest.mark.parametrize("word", ["Kahan"])
def test_search_finds_a_word(browser: Browser, site_url: str, site_dir: Path, word: str, where: str) -> None:
    base = site_url if where == "http" else file_base(site_dir)
    opened = Visit(browser, base, "index.html")
    try:
        page = opened.page
        page.locator(".md-search__input").click()
        page.keyboard.type(word)
        results = page.locator(".md-search-result__item")
        results.first.wait_for(state="visible", timeout=15_000)
        links = page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
        assert links and all(link.startswith(base) for link in links), links
        texts = page.eval_on_selector_all(".md-search-result__item", "items => items.map(i => i.textContent)")
        assert any(word.lower() in text.lower() for text in texts)
        pages_with_word = [p for p in doc_pages() if word.lower() in built_html(site_dir, p).lower()]
        found = {link.split("#")[0].removeprefix(base) for link in links}
        assert found and found <= set(pages_with_word), found
        assert opened.problems() == []  # a request outside the site's folder or localhost is one
    finally:
        opened.close()
