"""What the reader sees about the site itself: version, build date, commit, and the BibTeX made from CITATION.cff.

Each fact of the citation has one home.  The title, the authors, the version
and the year come from ``CITATION.cff``; the address is mkdocs's ``site_url``
(``SITE_URL`` in the environment; ``mkdocs.yml`` sets none until the site has
a public address), read from the build's own config, so the BibTeX names the
address the pages' canonical links give.  Without an address the BibTeX has
no url and the cite page says what to give instead: no placeholder host
reaches a reader.  The address is one of the record's parameters, so the
cache key follows it.  So is the commit the site was built from
(:func:`source_commit`), which the BibTeX's note and the footer name.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import textwrap
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import yaml
from mkdocs.config import load_config
from mkdocs_gen_files.editor import FilesEditor

from fpsum import __version__

from .cache import REPO
from .record import Built, Record

CITATION = REPO / "CITATION.cff"
MKDOCS_YML = REPO / "mkdocs.yml"


UNKNOWN_COMMIT = "unknown commit"
"""What the site names as its commit when it was not built from a git checkout (``make archive``'s copy, the tests')."""
MODIFIED = " with uncommitted changes"
"""Added to the commit when tracked files differ from it: the site is not that commit's."""


@dataclass(frozen=True)
class SiteParams:
    """The build date, the site's address (None: not known) and the commit built (:func:`source_commit`) are
    parameters, so that the cache key changes with them.

    ``ValueError`` for a date that is not ISO, or an address that is not an
    absolute http(s) URL.
    """

    build_date: str
    site_url: str | None
    commit: str = UNKNOWN_COMMIT

    def __post_init__(self) -> None:
        datetime.date.fromisoformat(self.build_date)
        if self.site_url is None:
            return
        address = urllib.parse.urlsplit(self.site_url)
        if address.scheme not in ("http", "https") or not address.netloc:
            raise ValueError(f"site_url must be an absolute http(s) address, got {self.site_url!r}")


def records() -> list[Record]:
    """The site's version, build date and BibTeX; CITATION.cff is an input."""
    params = SiteParams(build_date_from_environment(), site_url_of_the_build(), source_commit())
    return [Record("site", params, build, inputs=(CITATION,))]


def site_url_of_the_build() -> str | None:
    """mkdocs's ``site_url`` for this build, as mkdocs has validated it (with its trailing slash); None if unset.

    During a build, from the config that mkdocs-gen-files hands the build
    scripts (``mkdocs serve`` puts its own local address there).  Outside
    one (tests, tools), from ``mkdocs.yml`` loaded by mkdocs itself, so
    ``SITE_URL`` in the environment applies in the same way.
    """
    building = FilesEditor._current  # set by mkdocs-gen-files while it runs the build scripts
    config = building.config if building is not None else load_config(str(MKDOCS_YML))
    return str(config.site_url) if config.site_url else None


def source_commit(repo: Path = REPO) -> str:
    """``git rev-parse HEAD`` of ``repo``, with :data:`MODIFIED` if a tracked file differs from it; never fails.

    :data:`UNKNOWN_COMMIT` when ``repo`` is not the top of a git checkout
    (a folder inside someone else's checkout is not: its HEAD is not what
    was built), when git is missing, or when it fails.
    """
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True,
                              timeout=30).stdout.strip()

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != repo.resolve():
            return UNKNOWN_COMMIT
        commit = git("rev-parse", "--verify", "HEAD")
        modified = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN_COMMIT
    return commit + (MODIFIED if modified else "")


def build_date_from_environment() -> str:
    """The ISO date of ``SOURCE_DATE_EPOCH`` (reproducible builds set it), else today's date (UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (datetime.datetime.fromtimestamp(int(epoch), datetime.UTC) if epoch
              else datetime.datetime.now(datetime.UTC))
    return moment.date().isoformat()


def read_citation() -> dict[str, object]:
    """CITATION.cff as data; ``ValueError`` naming the field if a required one is missing."""
    data = yaml.safe_load(CITATION.read_text(encoding="utf-8"))
    for field in ("title", "authors", "version", "date-released"):
        if field not in data:
            raise ValueError(f"{CITATION.name} has no {field!r}")
    return dict(data)


def bibtex(citation: dict[str, object], url: str | None, commit: str = UNKNOWN_COMMIT) -> str:
    """A BibTeX ``@software`` entry: title, authors, version and year from the CFF; ``url``, the site's address;
    the note names ``commit``, the commit the site was built from (:func:`source_commit`).

    No ``url`` field when the address is None (a build without ``SITE_URL``).
    """
    authors = citation["authors"]
    assert isinstance(authors, list)
    names = " and ".join(
        "{" + a["name"] + "}" if "name" in a else f"{a['family-names']}, {a['given-names']}" for a in authors
    )
    year = str(citation["date-released"])[:4]
    fields: dict[str, str | None] = {
        "author": names,
        "title": "{" + str(citation["title"]) + "}",
        "year": year,
        "version": str(citation["version"]),
        "url": url,
        "note": f"{commit_phrase(commit)}. Text and figures CC BY 4.0, code MIT",
    }
    body = ",\n".join(_field(key, value) for key, value in fields.items() if value is not None)
    return f"@software{{accumulation_error_{year},\n{body}\n}}"


def commit_phrase(commit: str) -> str:
    """``Built from commit <sha>``, or ``Built from an unknown commit``: the BibTeX's note and the footer say it."""
    return "Built from an unknown commit" if commit == UNKNOWN_COMMIT else f"Built from commit {commit}"


BIBTEX_COLUMNS = 60
"""The entry fits the 60 columns a phone shows of a code block (issue 24): a long value goes on below itself."""


def _field(key: str, value: str) -> str:
    """``  key     = {value}``, wrapped at spaces to :data:`BIBTEX_COLUMNS` (BibTeX reads a line break as a space).

    A single word longer than the line (a long URL) is left whole: it is never broken inside.
    """
    head = f"  {key:8s}= "
    return textwrap.fill("{" + value + "}", BIBTEX_COLUMNS, initial_indent=head, subsequent_indent=" " * len(head),
                         break_long_words=False, break_on_hyphens=False)


def build(record_id: str, params: SiteParams) -> Built:
    """Numbers ``version``, ``build_date``, ``commit``, ``built_from`` (the commit, in words), ``bibtex`` and
    ``address`` (a sentence on the entry's url); ``ValueError``
    if CITATION.cff's version is not fpsum's.
    """
    citation = read_citation()
    if str(citation["version"]) != __version__:
        raise ValueError(f"{CITATION.name} says version {citation['version']}, fpsum is {__version__}")
    return Built(files={}, numbers={
        "version": __version__,
        "build_date": params.build_date,
        "commit": params.commit,
        "built_from": commit_phrase(params.commit),
        "bibtex": bibtex(citation, params.site_url, params.commit),
        "address": address_sentence(params.site_url),
    })


def address_sentence(url: str | None) -> str:
    """What the cite page says about the entry's address: the site's, or, for a copy built without one, what to give."""
    if url is not None:
        return f"The entry's url is the address this copy was published at, {url}."
    return ("This copy was built without a public address, so the entry has no url field: add the address "
            "you read it at (a `url` field); its note names the commit it was built from.")
