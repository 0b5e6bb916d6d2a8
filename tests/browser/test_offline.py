"""The built site offline: every page opened from disk (file://) works, and nothing is fetched from outside.

The pages are opened from the unpacked archive (``make archive``), which
``test_archive`` checks is the built site byte for byte: so a student's
unpacked copy and ``site/`` opened from disk are tested at once.  From disk:
figures show, formulas are drawn (their SVG is in the page) with exactly the
outlines they are drawn with over HTTP, the figure controls work, the
navigation links to the next page (``use_directory_urls: false`` makes them
``page.html``) and the palette toggle works; the search finds every page by
its title, and a result leads to its page.  The search works both over HTTP from
localhost and from disk: browsers refuse a web worker to a file:// page, so
there mkdocs-material's offline plugin has the page load the index as a script
(``search/search_index.js``) and iframe-worker's shim, served by the site, runs
the search worker in an iframe.  Every request is recorded: none may leave the
site's folder (from disk) or localhost (over HTTP).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from browsing import (
    ALL_RACES_READY_JS,
    TITLE_JS,
    Visit,
    built_html,
    doc_pages,
    draw_every_race,
    formula_count,
    has_races,
    narrow_forms,
    title_of,
    wait_until,
)
from fresh_loads import OUTLINES_JS, Loaded

PAGES = doc_pages()  # the 404 page is for servers: from disk nobody lands on it
SEARCH_TIMEOUT_MS = 15_000


def file_base(site: Path) -> str:
    return site.resolve().as_uri() + "/"


def search(page: Page, words: str) -> list[str]:
    """Type ``words`` in mkdocs-material's search and return the links of its results, once there are some."""
    page.locator(".md-search__input").click()
    page.keyboard.type(words)
    page.locator(".md-search-result__item").first.wait_for(state="visible", timeout=SEARCH_TIMEOUT_MS)
    links: list[str] = page.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
    return links


@pytest.mark.parametrize("name", PAGES)
def test_page_works_from_disk(browser: Browser, unpacked: Path, site_dir: Path, loaded: Loaded, name: str) -> None:
    base = file_base(unpacked)
    opened = Visit(browser, base, name)
    try:
        page = opened.page
        assert opened.tex_left() == []
        # Each glyph's <use> finds its outline in the page from disk as over HTTP.
        formulas = formula_count(site_dir, name)
        if formulas:
            from_disk, over_http = page.evaluate(OUTLINES_JS), loaded("desktop", name).outlines
            drawings = formulas + narrow_forms(site_dir, name)  # a long display formula is drawn twice
            assert len(from_disk) == len(over_http) == drawings
            assert all(d is not None for glyphs in from_disk for _, d in glyphs), "a glyph without its outline"
            differ = [i for i, (a, b) in enumerate(zip(from_disk, over_http)) if a != b]
            assert differ == [], f"formulas drawn with other outlines from disk than over HTTP: {differ}"
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
        # The navigation links to the next page (the search finds each page: test_search_from_disk_finds_every_page).
        following = PAGES[(PAGES.index(name) + 1) % len(PAGES)]
        navigation = page.eval_on_selector_all(".md-sidebar--primary a.md-nav__link", "links => links.map(a => a.href)")
        assert base + following in navigation, f"no link to {following} in the navigation"
        # mkdocs-material's own components run from disk: the palette toggle switches the scheme, and its
        # dark figures load.
        page.locator('[data-md-component="palette"] label:visible').click()
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
        assert opened.problems() == []
        assert all(url.startswith((base, "data:", "blob:")) for url in opened.requests)
    finally:
        opened.close()


def test_search_from_disk_finds_every_page_by_its_title_and_leads_there(browser: Browser, unpacked: Path,
                                                                        site_dir: Path) -> None:
    """From disk (the index as a script, the worker in an iframe), each page's title, in words (":" is lunr
    syntax), finds a result that links to that page; the last result followed leads there.
    """
    base = file_base(unpacked)
    opened = Visit(browser, base, PAGES[0])
    try:
        page = opened.page
        search(page, "Kahan")  # opens the search once its index is loaded (the worker in an iframe)
        for name in PAGES:
            title = title_of(site_dir, name)
            words = re.sub(r"[^\w\s]", " ", title).strip()
            # Typed as a reader's last key press ends it: mkdocs-material searches on each key's release, so
            # the words but their last letter are filled in at once, and that letter is typed.
            page.locator(".md-search__input").fill(words[:-1])
            page.keyboard.type(words[-1])
            wait_until(page, "href => [...document.querySelectorAll('.md-search-result__item a')]"
                             ".some(a => a.href === href)", base + name,
                       message=f"no result for {title!r} links to {name}", timeout_ms=SEARCH_TIMEOUT_MS)
        page.locator(f'.md-search-result__item > a[href="{base + name}"]').first.click()
        page.wait_for_url(base + name)
        page.wait_for_load_state("load")
        assert page.evaluate(TITLE_JS) == title
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
        links = search(page, word)
        assert links and all(link.startswith(base) for link in links), links
        texts = page.eval_on_selector_all(".md-search-result__item", "items => items.map(i => i.textContent)")
        assert any(word.lower() in text.lower() for text in texts)
        pages_with_word = [p for p in doc_pages() if word.lower() in built_html(site_dir, p).lower()]
        found = {link.split("#")[0].removeprefix(base) for link in links}
        assert found and found <= set(pages_with_word), found
        assert opened.problems() == []  # a request outside the site's folder or localhost is one
    finally:
        opened.close()
