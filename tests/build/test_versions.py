"""Versions that stay (``make publish-version``): mike commits each version of the site to the local gh-pages branch.

The target runs once, in a throwaway clone of the repository (a copy of the
working tree committed to a fresh git repository, whose remote ``origin`` is a
bare repository on disk; the copy starts from the figure cache of the run's
cold build, ``built_copy``).  It must leave, in the clone's gh-pages branch,
the site under ``<version>/`` (CITATION.cff's version), ``latest/`` redirecting
each page there, the root redirecting to ``latest/`` and ``versions.json``
naming the version and its alias; the versioned pages carry mkdocs-material's
version selector, which shows the version in the header.  It must push
nothing: the remote's refs are as they were, and the clone's own branch and
working tree are untouched.  The plain build (``make site``, ``site_dir``) has
no selector, so it never asks for a versions.json that is not there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from browsing import all_pages, built_html, doc_pages
from conftest import VERSION
from publishing import Published, git


def page_config(html: str) -> dict[str, Any]:
    """mkdocs-material's configuration of a built page (its ``__config`` script)."""
    start = html.index('id="__config"')
    body = html[html.index(">", start) + 1:html.index("</script>", start)]
    config: dict[str, Any] = json.loads(body)
    return config


def test_gh_pages_holds_the_version_the_latest_alias_and_versions_json(published: Published) -> None:
    files = published.files()
    assert {f"{VERSION}/{page}" for page in all_pages()} <= files
    assert f"{VERSION}/search/search_index.json" in files
    versions = json.loads(published.read("versions.json"))
    assert versions == [{"version": VERSION, "title": VERSION, "aliases": ["latest"]}]
    # latest/ is a redirect of every page to the same page of the version.
    for page in all_pages():
        assert f"../{VERSION}/{page}" in published.read(f"latest/{page}"), page
    assert "latest/" in published.read("index.html")  # the site's root goes to latest/


def test_the_published_pages_carry_the_version_selector(published: Published) -> None:
    for page in doc_pages():
        assert page_config(published.read(f"{VERSION}/{page}"))["version"]["provider"] == "mike", page


def test_publishing_pushes_nothing_and_leaves_the_branch_and_working_tree_alone(published: Published) -> None:
    assert git(published.origin, "for-each-ref") == published.remote_refs_before
    assert "gh-pages" not in git(published.origin, "for-each-ref")
    assert git(published.repo, "rev-parse", "main") == published.head_before
    assert git(published.repo, "status", "--porcelain") == ""  # mike's temporary config is gone too
    assert "nothing was pushed" in published.output


def test_the_plain_build_has_no_version_selector(site_dir: Path) -> None:
    assert not (site_dir / "versions.json").exists()
    for page in all_pages():
        html = built_html(site_dir, page)
        assert page_config(html)["version"] is None, page
        assert "md-version" not in html, page


