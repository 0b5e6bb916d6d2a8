"""What the reader sees about the site itself: version, build date, and the BibTeX made from CITATION.cff."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass

import yaml

import fpsum

from .cache import REPO
from .record import Built, Record

CITATION = REPO / "CITATION.cff"


@dataclass(frozen=True)
class SiteParams:
    """The build date is a parameter so that the cache key changes with it."""

    build_date: str

    def __post_init__(self) -> None:
        datetime.date.fromisoformat(self.build_date)


def records() -> list[Record]:
    """The site's version, build date and BibTeX; CITATION.cff is an input."""
    return [Record("site", SiteParams(build_date_from_environment()), build, inputs=(CITATION,))]


def build_date_from_environment() -> str:
    """The ISO date of ``SOURCE_DATE_EPOCH`` (reproducible builds set it), else today's date (UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (datetime.datetime.fromtimestamp(int(epoch), datetime.UTC) if epoch
              else datetime.datetime.now(datetime.UTC))
    return moment.date().isoformat()


def read_citation() -> dict[str, object]:
    """CITATION.cff as data; ``ValueError`` naming the field if a required one is missing."""
    data = yaml.safe_load(CITATION.read_text(encoding="utf-8"))
    for field in ("title", "authors", "version", "date-released", "url"):
        if field not in data:
            raise ValueError(f"{CITATION.name} has no {field!r}")
    return dict(data)


def bibtex(citation: dict[str, object]) -> str:
    """A BibTeX ``@software`` entry with the same title, authors, version, year and URL as the CFF."""
    authors = citation["authors"]
    assert isinstance(authors, list)
    names = " and ".join(
        "{" + a["name"] + "}" if "name" in a else f"{a['family-names']}, {a['given-names']}" for a in authors
    )
    year = str(citation["date-released"])[:4]
    fields = {
        "author": names,
        "title": "{" + str(citation["title"]) + "}",
        "year": year,
        "version": str(citation["version"]),
        "url": str(citation["url"]),
        "note": "Text and figures CC BY 4.0, code MIT",
    }
    body = ",\n".join(f"  {key:8s}= {{{value}}}" for key, value in fields.items())
    return f"@software{{accumulation_error_{year},\n{body}\n}}"


def build(record_id: str, params: SiteParams) -> Built:
    """Numbers ``version``, ``build_date`` and ``bibtex``; ``ValueError`` if CITATION.cff's version is not fpsum's."""
    citation = read_citation()
    if str(citation["version"]) != fpsum.__version__:
        raise ValueError(f"{CITATION.name} says version {citation['version']}, fpsum is {fpsum.__version__}")
    return Built(files={}, numbers={
        "version": fpsum.__version__,
        "build_date": params.build_date,
        "bibtex": bibtex(citation),
    })
