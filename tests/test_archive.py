"""The site as one zip for a classroom (``make archive``): unpacked, it works from disk, search included.

``make archive`` builds the site and packs it (``scripts/site_archive.py``).
The packing is all the archive adds to the build, so these tests pack the
run's one build (``site_dir``) with the same function instead of building
again: the zip holds the whole site in one folder named after the cited
version, the same site packs to the same bytes, and a student who unpacks it
and opens ``index.html`` from disk (file://) finds each page by searching for
it, and follows the result to the page, with nothing fetched from outside the
unpacked folder.
"""

from __future__ import annotations

import html
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser

from browsing import REPO, Visit, built_html, doc_pages
from site_archive import archive_folder, pack

pytestmark = pytest.mark.xdist_group("site")

VERSION = str(yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))["version"])
EPOCH = 1_700_000_000  # 2023-11-14 22:13:20 UTC
FOLDER = archive_folder(VERSION)


def site_files(site: Path) -> set[str]:
    return {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def archive(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's built site packed as ``make archive`` packs it."""
    return pack(site_dir, VERSION, tmp_path_factory.mktemp("archive"), EPOCH)


@pytest.fixture(scope="module")
def unpacked(archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The archive unpacked, as a student would: the one folder it holds."""
    target = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(target)
    return target / FOLDER


def test_the_archive_is_named_after_the_cited_version_and_holds_the_whole_site_in_one_folder(
        archive: Path, site_dir: Path) -> None:
    assert archive.name == f"accumulation-error-site-{VERSION}.zip"
    with zipfile.ZipFile(archive) as zipped:
        assert zipped.testzip() is None
        names = zipped.namelist()
    assert len(names) == len(set(names))
    assert all(name.startswith(f"{FOLDER}/") for name in names), names[:5]
    inside = {name.removeprefix(f"{FOLDER}/") for name in names}
    assert inside == site_files(site_dir)
    # What the search from disk needs: the index as a script, and iframe-worker's shim.
    assert {"index.html", "search/search_index.js", "assets/javascripts/iframe-worker-shim.js"} <= inside
    assert set(doc_pages()) <= inside


def test_the_same_site_packs_to_the_same_bytes(site_dir: Path, archive: Path, tmp_path: Path) -> None:
    again = pack(site_dir, VERSION, tmp_path, EPOCH)
    assert again.read_bytes() == archive.read_bytes()
    assert not list(tmp_path.glob("*.part")), "a partial archive was left behind"
    with zipfile.ZipFile(archive) as zipped:
        entries = zipped.infolist()
    assert [e.filename for e in entries] == sorted(e.filename for e in entries)
    assert {e.date_time for e in entries} == {(2023, 11, 14, 22, 13, 20)}
    assert {e.external_attr >> 16 for e in entries} == {0o100644}


def test_packing_a_folder_without_a_built_site_fails_and_says_so(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make site"):
        pack(tmp_path, VERSION, tmp_path / "out", EPOCH)
    assert not (tmp_path / "out").exists()


def test_make_archive_builds_the_site_then_packs_it_under_the_cited_version() -> None:
    dry = subprocess.run(["make", "--dry-run", "--always-make", "--silent", "archive"],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout.splitlines()
    build = next(i for i, line in enumerate(dry) if "mkdocs build --strict --site-dir site" in line)
    packing = next(i for i, line in enumerate(dry) if "scripts/site_archive.py" in line)
    assert build < packing
    assert f"--version {VERSION}" in dry[packing] and "--site site" in dry[packing]


@pytest.mark.browser
@pytest.mark.parametrize("name", doc_pages())
def test_a_page_is_found_by_searching_the_unpacked_archive_from_disk(
        browser: Browser, unpacked: Path, site_dir: Path, name: str) -> None:
    base = unpacked.resolve().as_uri() + "/"
    title = html.unescape(built_html(site_dir, name).split("<h1", 1)[1].split(">", 1)[1].split("<", 1)[0]).strip()
    opened = Visit(browser, base, "index.html")
    try:
        page = opened.page
        page.locator(".md-search__input").click()
        page.keyboard.type(re.sub(r"[^\w\s]", " ", title))  # the page's title, in words (":" is lunr syntax)
        page.locator(".md-search-result__item").first.wait_for(state="visible", timeout=15_000)
        links = page.eval_on_selector_all(".md-search-result__item > a", "links => links.map(a => a.href)")
        target = base + name
        assert target in links, f"no result for {title!r} links to {name}: {links}"
        page.locator(f'.md-search-result__item > a[href="{target}"]').first.click()
        page.wait_for_url(target)
        page.wait_for_load_state("load")
        assert page.evaluate("document.querySelector('article h1').firstChild.textContent").strip() == title
        assert opened.problems() == []  # a request outside the unpacked folder is one
    finally:
        opened.close()
