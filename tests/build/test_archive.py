"""The site as one zip for a classroom (``make archive``): unpacked, it is the built site, file for file.

``make archive`` builds the site and packs it (``scripts/site_archive.py``).
The packing is all the archive adds to the build, so these tests pack the
run's one build (``site_dir``) with the same function instead of building
again (the ``archive`` and ``unpacked`` fixtures): the zip holds the whole
site in one folder named after the cited version, unpacked it gives back the
site's files byte for byte, and the same site packs to the same bytes.  What a
student then does with it, opening every page from disk (file://) and finding
each by searching, is ``test_offline``'s, on this unpacked archive.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from browsing import doc_pages
from conftest import ARCHIVE_EPOCH, VERSION
from repocopy import REPO
from site_archive import archive_folder, pack

FOLDER = archive_folder(VERSION)


def site_files(site: Path) -> set[str]:
    return {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}


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


def test_unpacked_the_archive_is_the_built_site_byte_for_byte(unpacked: Path, site_dir: Path) -> None:
    files = site_files(site_dir)
    assert site_files(unpacked) == files
    differ = [name for name in sorted(files) if (unpacked / name).read_bytes() != (site_dir / name).read_bytes()]
    assert differ == [], f"unpacked, these files are not the site's: {differ[:5]}"


def test_the_same_site_packs_to_the_same_bytes(site_dir: Path, archive: Path, tmp_path: Path) -> None:
    again = pack(site_dir, VERSION, tmp_path, ARCHIVE_EPOCH)
    assert again.read_bytes() == archive.read_bytes()
    assert not list(tmp_path.glob("*.part")), "a partial archive was left behind"
    with zipfile.ZipFile(archive) as zipped:
        entries = zipped.infolist()
    assert [e.filename for e in entries] == sorted(e.filename for e in entries)
    assert {e.date_time for e in entries} == {(2023, 11, 14, 22, 13, 20)}
    assert {e.external_attr >> 16 for e in entries} == {0o100644}


def test_packing_a_folder_without_a_built_site_fails_and_says_so(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make site"):
        pack(tmp_path, VERSION, tmp_path / "out", ARCHIVE_EPOCH)
    assert not (tmp_path / "out").exists()


def test_make_archive_builds_the_site_then_packs_it_under_the_cited_version() -> None:
    dry = subprocess.run(["make", "--dry-run", "--always-make", "--silent", "archive"],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout.splitlines()
    build = next(i for i, line in enumerate(dry) if "mkdocs build --strict --site-dir site" in line)
    packing = next(i for i, line in enumerate(dry) if "scripts/site_archive.py" in line)
    assert build < packing
    assert f"--version {VERSION}" in dry[packing] and "--site site" in dry[packing]
