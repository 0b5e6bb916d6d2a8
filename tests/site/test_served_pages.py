"""Every page the build makes is tested, and every download link of a page resolves on the served site."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from urllib.parse import urljoin

import pytest

from browsing import (
    NOT_FOUND_PAGE,
    all_pages,
    built_html,
    doc_pages,
    has_formulas,
    has_races,
    sitemap_pages,
)
from htmlscan import Page as HtmlPage
from repocopy import ADDRESS

PAGES = all_pages()


def test_the_pages_tested_are_the_pages_built(site_dir: Path, addressed_site: Path) -> None:
    """The pages found from docs/ are the pages the sitemap lists (of the build with an address: without one it
    lists none) and the HTML files built.
    """
    assert sitemap_pages(addressed_site / "site", ADDRESS) == doc_pages()
    assert sorted(p.name for p in site_dir.glob("*.html") if p.name != NOT_FOUND_PAGE) == doc_pages()
    assert (site_dir / NOT_FOUND_PAGE).is_file()
    assert any(has_formulas(site_dir, p) for p in PAGES) and any(has_races(site_dir, p) for p in PAGES)


DOWNLOADABLE = re.compile(r"(^|/)(figures/[^/]+\.(svg|png|csv)|data/[^/]+\.json)$")


@pytest.mark.parametrize("name", PAGES)
def test_every_download_link_resolves(site_url: str, site_dir: Path, name: str) -> None:
    parsed = HtmlPage(built_html(site_dir, name))
    links = {a["href"] for tag, a in parsed.tags if tag == "a" and a.get("href")
             and ("download" in a or DOWNLOADABLE.search(a["href"].split("#")[0]))}
    for href in sorted(links):
        url = urljoin(site_url + name, href)
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200, url
            assert len(response.read()) > 0, f"{url} is empty"
