"""mkdocs-material's script starts on the reader's first move, and nothing is lost or moves when it does.

``hooks/theme/theme_on_demand.py`` puts ``hooks/theme/theme_loader.js`` in each page in
place of the bundle's tag, and ``hooks/theme/table_wraps.py`` gives each table the
wrapping the bundle would.  Checked here, in the built HTML and in chromium:
a page loads without the bundle (nor the shim, nor the search index); each
kind of first move starts it; when it starts, nothing in the article moves;
a palette toggle, a tap on the search button and a key pressed before it runs
take effect; and the hooks refuse what they cannot handle.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from mkdocs.exceptions import PluginError

from browsing import all_pages, built_html
from htmlscan import Page as HtmlPage
from repocopy import REPO

sys.path.insert(0, str(REPO))
from hooks.theme import table_wraps, theme_on_demand  # noqa: E402
from hooks.theme.names import BUNDLE as BUNDLE_PATH  # noqa: E402

PAGES = all_pages()
BUNDLE = re.compile(f"/{BUNDLE_PATH}$")
LOADER = re.compile(r"<script>/\* mkdocs-material's bundle, started on the first move"
                    r".*?\}\)\((\{.*?\})\);\s*</script>", re.S)


def sources_of(html: str) -> dict[str, object]:
    """The addresses the page's loader loads, as the hook wrote them in."""
    found = LOADER.findall(html)
    assert len(found) == 1, f"{len(found)} loaders in the page"
    sources: dict[str, object] = json.loads(found[0])
    return sources


# ---------------------------------------------------------------- the built pages

@pytest.mark.parametrize("page", PAGES)
def test_a_page_loads_the_bundle_only_through_its_loader(site_dir: Path, page: str) -> None:
    html = built_html(site_dir, page)
    tags = [attrs["src"] for attrs in HtmlPage(html).find("script") if "src" in attrs]
    assert not [src for src in tags if BUNDLE.search(src)], f"{page} still has the bundle's tag"
    sources = sources_of(html)
    page_url = "http://site/" + page
    bundle = urlsplit(urljoin(page_url, str(sources["bundle"]))).path
    assert BUNDLE.search(bundle) and (site_dir / bundle.lstrip("/")).is_file(), bundle
    polyfills = [urlsplit(urljoin(page_url, str(src))).path for src in sources["polyfills"]]
    assert polyfills and all((site_dir / path.lstrip("/")).is_file() for path in polyfills), polyfills


@pytest.mark.parametrize("page", PAGES)
def test_every_table_arrives_in_its_scroll_box(site_dir: Path, page: str) -> None:
    html = built_html(site_dir, page)
    tables = re.findall(r"(.{0,90})<table(?![^>]*\sclass=)[^>]*>", html, re.S)
    unwrapped = [before for before in tables if not before.endswith(table_wraps.OPEN)]
    assert unwrapped == [], f"{page}: {len(unwrapped)} of {len(tables)} tables are not wrapped"


# ---------------------------------------------------------------- the hooks on their own

def test_wrap_tables_wraps_each_table_without_a_class_and_leaves_the_rest() -> None:
    html = ('<p>a</p><table>\n<tr><td>1</td></tr>\n</table><table class="highlighttable"><tr></tr></table>'
            '<table style="x"><tr></tr></table>')
    wrapped = table_wraps.wrap_tables(html)
    assert wrapped == ('<p>a</p>' + table_wraps.OPEN + '<table>\n<tr><td>1</td></tr>\n</table>' + table_wraps.CLOSE
                       + '<table class="highlighttable"><tr></tr></table>'
                       + table_wraps.OPEN + '<table style="x"><tr></tr></table>' + table_wraps.CLOSE)
    assert table_wraps.wrap_tables("<p>no table</p>") == "<p>no table</p>"


class _Config(dict):  # type: ignore[type-arg]
    """Just enough of MkDocsConfig for the hook: ``extra`` and ``theme``."""

    def __getattr__(self, name: str) -> object:
        return self[name]


@pytest.mark.parametrize("tags", [0, 2])
def test_a_page_without_exactly_one_bundle_tag_stops_the_build(tags: int) -> None:
    tag = '<script src="../assets/javascripts/bundle.0123abcd.min.js"></script>'
    with pytest.raises(PluginError, match=f"page.html: {tags} script tags"):
        theme_on_demand.with_loader("<body>" + tag * tags + "</body>", "page.html", _Config(extra={}))


def test_the_loader_takes_the_bundle_and_the_polyfills_relative_to_the_page() -> None:
    tag = '<script src="../assets/javascripts/bundle.0123abcd.min.js"></script>'
    config = _Config(extra={"polyfills": ["assets/shim.js", "https://example.org/x.js", "/root.js"]})
    html = theme_on_demand.with_loader(f"<body><p>x</p>{tag}</body>", "a/page.html", config)
    assert html.startswith("<body><p>x</p><script>") and html.endswith("</script></body>")
    assert sources_of(html) == {"bundle": "../assets/javascripts/bundle.0123abcd.min.js",
                                "polyfills": ["../assets/shim.js", "https://example.org/x.js", "/root.js"]}


def test_a_palette_that_follows_the_system_by_itself_stops_the_build() -> None:
    config = _Config(theme={"palette": [{"media": "(prefers-color-scheme)", "toggle": {}}]})
    with pytest.raises(PluginError, match="prefers-color-scheme"):
        theme_on_demand.on_config(config)


# ---------------------------------------------------------------- in chromium


