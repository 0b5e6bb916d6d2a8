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
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from browsing import REPO, Visit, all_pages, built_html, doc_pages, serving
from conftest import VERSION, once_per_run
from repocopy import BuiltCopy

VENV = REPO / ".venv"
IDENTITY = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}
PUBLISH_TIMEOUT_S = 600


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, **IDENTITY)
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True,
                          check=True).stdout


def page_config(html: str) -> dict[str, Any]:
    """mkdocs-material's configuration of a built page (its ``__config`` script)."""
    start = html.index('id="__config"')
    body = html[html.index(">", start) + 1:html.index("</script>", start)]
    config: dict[str, Any] = json.loads(body)
    return config


@dataclass(frozen=True)
class Published:
    """The clone ``make publish-version`` ran in, its bare remote, and what was there before."""

    repo: Path
    origin: Path
    remote_refs_before: str
    head_before: str
    output: str

    def files(self) -> set[str]:
        return set(git(self.repo, "ls-tree", "-r", "--name-only", "gh-pages").splitlines())

    def read(self, path: str) -> str:
        return git(self.repo, "show", f"gh-pages:{path}")


def publish(folder: Path, copy: BuiltCopy) -> str | None:
    """Run ``make publish-version`` in a clone of ``copy`` in ``folder``; what went wrong, or None.

    The clone is the copy's working tree committed to a fresh repository, whose
    remote ``origin`` is a bare repository beside it.  What was there before
    and the target's output are written beside them, for ``Published``.
    """
    repo, origin = folder / "repo", folder / "origin.git"
    shutil.copytree(copy.repo, repo, symlinks=True)  # with its figure cache: a warm build
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message=The working tree, for make publish-version")
    subprocess.run(["git", "init", "--quiet", "--bare", str(origin)], check=True)
    git(repo, "remote", "add", "origin", origin.as_uri())
    git(repo, "push", "--quiet", "origin", "main")
    git(repo, "fetch", "--quiet", "origin")
    (folder / "remote-refs-before").write_text(git(origin, "for-each-ref"))
    (folder / "head-before").write_text(git(repo, "rev-parse", "main"))
    # The repository's environment, not one of the clone's own (its stamp is taken as up to date),
    # and the clone's model on the path, as in every build of a copy (repocopy.build_copy).
    env = dict(os.environ, **IDENTITY, PYTHONPATH=str(repo / "src"))
    result = subprocess.run(
        ["make", f"--old-file={VENV}/.installed", "publish-version", f"VENV={VENV}"],
        cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=PUBLISH_TIMEOUT_S,
    )
    (folder / "output").write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        return f"make publish-version failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return None


@pytest.fixture(scope="session")
def published(built_copy: BuiltCopy, tmp_path_factory: pytest.TempPathFactory) -> Published:
    """``make publish-version`` run once per test run, whichever pytest-xdist workers ask for it."""
    folder = once_per_run(tmp_path_factory, "publish", lambda target: publish(target, built_copy))
    return Published(repo=folder / "repo", origin=folder / "origin.git",
                     remote_refs_before=(folder / "remote-refs-before").read_text(),
                     head_before=(folder / "head-before").read_text(), output=(folder / "output").read_text())


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


@pytest.mark.browser
def test_the_root_and_latest_lead_to_the_version(browser: Browser, gh_pages_url: str) -> None:
    redirected = Visit(browser, gh_pages_url)
    try:
        redirected.page.goto(gh_pages_url)  # the root redirects to latest/, which redirects to the version
        redirected.page.wait_for_url(f"{gh_pages_url}{VERSION}/index.html")
        redirected.page.goto(f"{gh_pages_url}latest/formats.html#top")
        redirected.page.wait_for_url(f"{gh_pages_url}{VERSION}/formats.html#top")
    finally:
        redirected.close()


@pytest.mark.browser
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
