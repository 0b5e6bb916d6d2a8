"""The citation: each fact in one place, and the BibTeX's address is the address of the built site.

The title, authors, version and year come from CITATION.cff; the address is
mkdocs's ``site_url`` (``SITE_URL`` in the environment overrides it).  The
one copy kept on purpose, CITATION.cff's own ``url`` (read by tools other
than the site), is held to the default ``site_url`` here.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from mkdocs.config import load_config

from figures import site_info
from htmlscan import Page, bibtex_fields
from repocopy import BuiltCopy, build_copy

REPO = Path(__file__).resolve().parents[1]
ELSEWHERE = "https://mirror.example.org/accumulation"  # no trailing slash: mkdocs adds it


def canonical(site: Path, name: str) -> str:
    """The page's ``<link rel="canonical">`` address."""
    links = Page((site / name).read_text(encoding="utf-8")).find("link", rel="canonical")
    assert len(links) == 1, f"{name} has {len(links)} canonical links"
    return links[0]["href"]


def cff() -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    return data


def test_the_bibtex_url_is_the_address_of_the_built_site(site_dir: Path) -> None:
    url = bibtex_fields(site_dir)["url"]
    assert url == site_info.site_url_of_the_build()
    for name in ("cite.html", "index.html", "accumulation-error.html"):
        assert canonical(site_dir, name) == url + name


def test_citation_cff_url_is_the_default_site_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """CITATION.cff keeps the address for tools that read it; it must be the address the site builds with."""
    monkeypatch.delenv("SITE_URL", raising=False)
    assert cff()["url"] == site_info.site_url_of_the_build()


def test_the_authors_are_written_in_citation_cff_only() -> None:
    """No second copy in mkdocs.yml (mkdocs-material would put ``site_author`` in a <meta name="author">)."""
    assert load_config(str(REPO / "mkdocs.yml")).site_author is None
    authors = cff()["authors"]
    assert isinstance(authors, list) and authors


def test_site_url_from_the_environment_moves_the_bibtex_and_the_canonical_links(
        built_copy: BuiltCopy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Published elsewhere: one variable changes the address everywhere, and only the site record is rebuilt."""
    repo = tmp_path / "repo"
    shutil.copytree(built_copy.repo, repo, symlinks=True)  # with the figure cache the cold build filled
    monkeypatch.setenv("SITE_URL", ELSEWHERE)
    site = tmp_path / "site"
    result = build_copy(repo, site)
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(r"rebuilt 1 \(site [\d.]+ s\)", result.stderr), \
        "the address is a parameter of the site record, and of it alone"
    moved, before = bibtex_fields(site), bibtex_fields(built_copy.site)
    assert moved["url"] == ELSEWHERE + "/" != before["url"]
    assert {k: v for k, v in moved.items() if k != "url"} == {k: v for k, v in before.items() if k != "url"}
    assert canonical(site, "cite.html") == ELSEWHERE + "/cite.html"


def test_the_version_is_the_same_in_citation_cff_pyproject_and_the_package() -> None:
    """Three copies that tools read separately (citation managers, pip, the site's footer): they must agree."""
    import tomllib

    import fpsum

    cited = str(yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))["version"])
    packaged = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert cited == packaged == fpsum.__version__
