"""The 404 page's links reach the site's pages wherever the site is: under a sub-path, and from disk.

A host serves ``404.html`` at any address the site lacks.  Its links were written from the host's
root (``/index.html``): under a sub-path (``https://host/path/``) and from disk they led nowhere
(issue 39).  ``hooks/theme/not_found.py`` writes them from the site's root, and a script in the head gives
the served page the root to resolve them from.
"""

from __future__ import annotations

import http.server
import mimetypes
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser

from browsing import NOT_FOUND_PAGE
from gzip_server import QuietServer, running
from repocopy import ADDRESS

LINKING = {"a": "href", "link": "href", "script": "src", "img": "src"}


class Links(HTMLParser):
    """Every address a page links to or loads (``a``, ``link``, ``script``, ``img``), in order."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        value = dict(attrs).get(LINKING.get(tag, ""))
        if value:
            self.addresses.append(value)


def in_site(address: str) -> bool:
    """An address of the site itself: no scheme, no host, not a fragment of the page."""
    parts = urlsplit(address)
    return not parts.scheme and not parts.netloc and not address.startswith("#")


def test_the_404_page_links_from_the_sites_root_to_files_it_has(site_dir: Path) -> None:
    """No address from the host's root; each resolves, from the root (where 404.html sits), to a file of the site,
    and the page links every page of the site's navigation.
    """
    addresses = [a for a in Links((site_dir / NOT_FOUND_PAGE).read_text(encoding="utf-8")).addresses if in_site(a)]
    assert len(addresses) > 10
    rooted = [a for a in addresses if a.startswith("/")]
    assert rooted == [], f"addresses from the host's root: {rooted[:5]}"
    missing = [a for a in addresses if not (site_dir / urlsplit(a).path).is_file()]
    assert missing == [], f"links to no file of the site: {missing}"
    assert {"index.html", "formats.html", "cite.html"} <= {urlsplit(a).path.removeprefix("./") for a in addresses}


@contextmanager
def served_under(site: Path, prefix: str) -> Iterator[str]:
    """``site`` served under the path ``prefix`` (``/sub/``), as a static host serves it: any address it lacks
    gets its 404.html, with status 404.  Yields the URL of the site's root.
    """

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            path = urlsplit(self.path).path
            target = site / path.removeprefix(prefix) if path.startswith(prefix) else None
            if target is not None and target.is_dir():
                target = target / "index.html"
            status = 200 if target is not None and target.is_file() else 404
            if target is None or status == 404:
                target = site / NOT_FOUND_PAGE
            body = target.read_bytes()
            self.send_response(status)
            self.send_header("Content-Type", mimetypes.guess_type(target.name)[0] or "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    with running(QuietServer(("127.0.0.1", 0), Handler)) as url:
        yield url.rstrip("/") + prefix


def follow_every_link(browser: Browser, root: str, missing: str) -> None:
    """Open the address ``missing`` under ``root``: the 404 page, styled; each of its links inside the site answers
    200 under ``root``, and clicking the header's link to the home page opens it.
    """
    context = browser.new_context()
    page = context.new_page()
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.url} ({r.status})") if r.status >= 400 and r.url != root + missing
            else None)
    try:
        landed = page.goto(root + missing)
        assert landed is not None and landed.status == 404
        assert page.locator("article h1").inner_text().startswith("404")
        links = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
        inside = [link for link in links if link.startswith(root.split("/", 3)[0] + "//" + urlsplit(root).netloc)]
        assert len(inside) > 10
        wrong = [link for link in inside if not link.startswith(root)]
        assert wrong == [], f"links out of the site's root {root}: {wrong[:5]}"
        answers = {link: context.request.get(link).status for link in dict.fromkeys(inside)}
        assert {link: s for link, s in answers.items() if s != 200} == {}
        page.locator("a.md-header__button.md-logo").click()
        page.wait_for_load_state("load")
        assert urlsplit(page.url).path in (urlsplit(root).path, urlsplit(root).path + "index.html"), page.url
        assert page.locator("article h1").count() == 1 and failed == [], failed
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("missing", ["gone.html", "formats.htm"])
def test_served_under_a_sub_path_the_404_pages_links_resolve(browser: Browser, site_dir: Path, missing: str) -> None:
    """The site as ``make site`` builds it (no address), served under ``/sub/``: a missing page in its root."""
    with served_under(site_dir, "/sub/") as root:
        follow_every_link(browser, root, missing)


@pytest.mark.browser
@pytest.mark.parametrize("missing", ["gone.html", "old/deeper/gone"])
def test_served_at_its_address_the_404_pages_links_resolve_at_any_depth(browser: Browser, addressed_site: Path,
                                                                       missing: str) -> None:
    """Built with ``SITE_URL`` and served under its path: any missing address, however deep."""
    with served_under(addressed_site / "site", urlsplit(ADDRESS).path) as root:
        follow_every_link(browser, root, missing)
