"""The footer of every page and the cite page's BibTeX name the version and the commit the site was built from.

The version is CITATION.cff's; the commit is ``git rev-parse HEAD`` of the
repository the site was built from, or "an unknown commit" for a copy that is
not a git checkout (the tests' copy, ``make archive``'s), which must not
fail the build (issue 39).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from figures import site_info
from htmlscan import Page, bibtex_fields
from repocopy import BuiltCopy

REPO = Path(__file__).resolve().parents[2]
VERSION = str(yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))["version"])


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=folder,
                          capture_output=True, text=True, check=True).stdout.strip()


def _is_checkout(folder: Path) -> bool:
    return subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True).returncode == 0


def test_the_commit_is_head_of_the_checkout_built(tmp_path: Path) -> None:
    """HEAD's hash; marked when a tracked file differs from it; unknown outside a checkout or inside another's."""
    outside = tmp_path / "plain"
    outside.mkdir()
    assert not _is_checkout(outside)
    assert site_info.source_commit(outside) == "unknown commit"
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "first")
    head = _git(repo, "rev-parse", "HEAD")
    assert len(head) == 40 and site_info.source_commit(repo) == head
    (repo / "untracked.txt").write_text("not part of the commit, not built from\n")
    assert site_info.source_commit(repo) == head
    (repo / "a.txt").write_text("two\n")
    assert site_info.source_commit(repo) == f"{head} with uncommitted changes"
    (repo / "inner").mkdir()
    assert site_info.source_commit(repo / "inner") == "unknown commit"


def footers(site: Path) -> dict[str, list[str]]:
    """Each page's build line in its footer, by page name."""
    found = {}
    for page in sorted(site.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        footer = html[html.index('<div class="md-copyright">'):]
        build = re.findall(r'<div class="fpsum-build">(.*?)</div>', footer[:footer.index("</footer>")], re.S)
        found[page.name] = [" ".join(text.split()) for text in build]
    return found


def test_every_footer_names_the_version_and_the_commit(site_dir: Path, built_copy: BuiltCopy) -> None:
    """The site built from the repository names its commit; the tests' copy is no checkout, and its footer says
    so rather than naming a commit it was not built from.
    """
    assert not _is_checkout(built_copy.repo)
    built_from = site_info.commit_phrase(site_info.source_commit(REPO))
    for site, phrase in ((site_dir, built_from), (built_copy.site, "Built from an unknown commit")):
        pages = footers(site)
        assert len(pages) >= 10
        for name, build in pages.items():
            assert build == [f"Version {VERSION}. {phrase}."], f"{site.name}/{name}"


def test_the_bibtex_note_names_the_commit(site_dir: Path, built_copy: BuiltCopy) -> None:
    """The entry's note says which commit the site was built from (none known for the copy), beside the licences."""
    for site, phrase in ((site_dir, site_info.commit_phrase(site_info.source_commit(REPO))),
                         (built_copy.site, "Built from an unknown commit")):
        note = " ".join(bibtex_fields(site)["note"].split())
        assert note.startswith(f"{phrase}.") and "CC BY 4.0" in note, note
        cite = Page((site / "cite.html").read_text(encoding="utf-8")).text
        assert f"This is version {VERSION} of the site" in cite and f"{phrase}." in cite
