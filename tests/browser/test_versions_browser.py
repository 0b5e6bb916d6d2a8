"""The published versions in chromium: the root and latest lead to the version, whose header has the selector."""

from __future__ import annotations

import subprocess
import tarfile
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from browsing import Visit, serving
from conftest import VERSION
from publishing import Published


@pytest.fixture(scope="module")
def gh_pages_url(published: Published, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The gh-pages branch checked out into a folder and served on localhost, as a static host would."""
    served = tmp_path_factory.mktemp("gh-pages")
    tar = served / "gh-pages.tar"
    subprocess.run(["git", "-C", str(published.repo), "archive", "--output", str(tar), "gh-pages"], check=True)
    with tarfile.open(tar) as archive:
        archive.extractall(served / "root", filter="data")
    with serving(served / "root") as url:
        yield url


def test_the_root_and_latest_lead_to_the_version(browser: Browser, gh_pages_url: str) -> None:
    redirected = Visit(browser, gh_pages_url)
    try:
        redirected.page.goto(gh_pages_url)  # the root redirects to latest/, which redirects to the version
        redirected.page.wait_for_url(f"{gh_pages_url}{VERSION}/index.html")
        redirected.page.goto(f"{gh_pages_url}latest/formats.html#top")
        redirected.page.wait_for_url(f"{gh_pages_url}{VERSION}/formats.html#top")
    finally:
        redirected.close()


def test_the_header_of_a_version_shows_the_version_selector(browser: Browser, gh_pages_url: str) -> None:
    opened = Visit(browser, gh_pages_url, f"{VERSION}/index.html")
    try:
        page = opened.page
        current = page.locator(".md-header .md-version__current")
        current.wait_for(state="visible", timeout=15_000)
        assert current.evaluate("button => button.firstChild.textContent").strip() == VERSION
        assert current.locator(".md-version__alias").inner_text().strip() == "latest"
        items = page.eval_on_selector_all(".md-version__item", "items => items.map(i => i.textContent.trim())")
        assert len(items) == 1 and items[0].startswith(VERSION) and items[0].endswith("latest"), items
        opened.settle()
        assert opened.problems() == []  # versions.json was found: no failed request, no console error
    finally:
        opened.close()
