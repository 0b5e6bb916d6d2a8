"""The citation: each fact in one place, and the BibTeX's address is the address of the built site, or none.

The title, authors, version and year come from CITATION.cff; the address is
mkdocs's ``site_url``, which only ``SITE_URL`` in the environment sets: until
the site has a public address, no placeholder may reach a reader (issue 28).
A build without an address has no canonical links, no page in its sitemap, no
url in its BibTeX and no instant navigation (``hooks/theme/address.py``), and says on
the cite page what to give instead; the tests' build with an address
(``addressed_site``) has them all, at that address.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import yaml
from mkdocs.config import load_config

from figures import site_info
from htmlscan import Page, bibtex_fields
from repocopy import ADDRESS, BuiltCopy

REPO = Path(__file__).resolve().parents[2]


def canonical(site: Path, name: str) -> str:
    """The page's ``<link rel="canonical">`` address."""
    links = Page((site / name).read_text(encoding="utf-8")).find("link", rel="canonical")
    assert len(links) == 1, f"{name} has {len(links)} canonical links"
    return links[0]["href"]


def cff() -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    return data


PLACEHOLDER = re.compile(r"accumulation-error\.example|https?://[\w.-]*\.(?:example|invalid|test)\b")
"""Addresses that are no one's: the old default, and the hosts RFC 2606 reserves for examples and tests."""


def features(site: Path, name: str) -> list[str]:
    """mkdocs-material's theme features on a page (its ``__config`` script)."""
    script = re.search(r'<script id="__config" type="application/json">(.*?)</script>',
                       (site / name).read_text(encoding="utf-8"), re.S)
    assert script, f"{name}: no __config"
    found: list[str] = json.loads(script.group(1))["features"]
    return found


def test_without_an_address_no_placeholder_reaches_a_reader(site_dir: Path) -> None:
    """No page, sitemap, BibTeX, data file or figure of the default build names a host that is not the site's."""
    assert site_info.site_url_of_the_build() is None or os.environ.get("SITE_URL")
    for path in sorted(site_dir.rglob("*")):
        if path.is_file() and path.suffix in {".html", ".xml", ".json", ".txt", ".js", ".svg", ".csv", ".bib"}:
            assert not PLACEHOLDER.search(path.read_text(encoding="utf-8", errors="replace")), path.name
    assert "url" not in bibtex_fields(site_dir)
    assert "<loc>" not in (site_dir / "sitemap.xml").read_text(encoding="utf-8")
    for name in ("cite.html", "index.html", "accumulation-error.html"):
        assert not Page((site_dir / name).read_text(encoding="utf-8")).find("link", rel="canonical"), name
    cite = Page((site_dir / "cite.html").read_text(encoding="utf-8")).text
    assert "built without a public address" in cite and "add the address you read it at" in cite


def test_citation_cff_names_no_placeholder_address() -> None:
    """CFF's url is optional: left out until the site has a public address, never a placeholder."""
    text = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    assert not PLACEHOLDER.search(text)
    url = cff().get("url")
    assert url is None or isinstance(url, str) and url.startswith("https://")


def test_instant_navigation_is_off_without_an_address_and_on_with_one(site_dir: Path, addressed_site: Path) -> None:
    """Its sitemap is empty without an address, so the feature would do nothing: hooks/theme/address.py drops it."""
    for name in ("index.html", "cite.html"):
        assert not any(f.startswith("navigation.instant") for f in features(site_dir, name)), name
        assert "navigation.instant" in features(addressed_site / "site", name), name


def test_the_authors_are_written_in_citation_cff_only() -> None:
    """No second copy in mkdocs.yml (mkdocs-material would put ``site_author`` in a <meta name="author">)."""
    assert load_config(str(REPO / "mkdocs.yml")).site_author is None
    authors = cff()["authors"]
    assert isinstance(authors, list) and authors


def test_site_url_from_the_environment_gives_the_address_everywhere(built_copy: BuiltCopy,
                                                                    addressed_site: Path) -> None:
    """Published at an address: one variable gives it to the BibTeX, the canonical links and the sitemap, and only
    the site record is rebuilt for it (the address build is of the copy, so it is held to the copy's build).
    """
    log = (addressed_site / "build.log").read_text()
    assert re.search(r"rebuilt 1 \(site [\d.]+ s\)", log), "the address is the site record's parameter, and its alone"
    site = addressed_site / "site"
    moved, before = bibtex_fields(site), bibtex_fields(built_copy.site)
    assert moved["url"] == ADDRESS and "url" not in before
    assert {k: v for k, v in moved.items() if k != "url"} == before
    for name in ("cite.html", "index.html", "block-formats.html"):
        assert canonical(site, name) == ADDRESS + name
    locs = re.findall(r"<loc>\s*(.*?)\s*</loc>", (site / "sitemap.xml").read_text(encoding="utf-8"))
    assert locs and all(loc.startswith(ADDRESS) for loc in locs)
    assert f"published at, {ADDRESS}" in Page((site / "cite.html").read_text(encoding="utf-8")).text


def test_the_version_is_the_same_in_citation_cff_pyproject_and_the_package() -> None:
    """Three copies that tools read separately (citation managers, pip, the site's footer): they must agree."""
    import tomllib

    import fpsum

    cited = str(yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))["version"])
    packaged = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert cited == packaged == fpsum.__version__
