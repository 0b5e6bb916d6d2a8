"""The 404 page's links reach the site's pages wherever the site is: under a sub-path, and from disk.

A host serves ``404.html`` at any address the site lacks.  Its links were written from the host's
root (``/index.html``): under a sub-path (``https://host/path/``) and from disk they led nowhere
(issue 39).  ``hooks/theme/not_found.py`` writes them from the site's root, and a script in the head gives
the served page the root to resolve them from.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from browsing import NOT_FOUND_PAGE

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


