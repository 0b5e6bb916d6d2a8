"""Issue 39, 4a: the site's search finds what an engineer types, and its results read as text, not TeX.

mkdocs-material's search runs lunr in the reader's browser over ``search/search_index.json``.
The fast tests read that built index as lunr reads it there: every entry's title and text, its
markup left out, lower-cased and split with the index's own ``separator``; mkdocs-material's
query splits each word of the query with the same separator and gives each part a trailing
wildcard, so a part matches a word of the index that starts with it.  An entry that holds every
part of a query is one lunr returns for it, whatever the rest of the query matches.  (Stop words
are left in: no query here has one.)  The browser test types a query into the search box.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path

import pytest

from browsing import built_html, doc_pages

QUERIES = {
    "torch.sum": ("in-practice.html", "dot-products.html"),
    "jnp.sum": ("in-practice.html", "dot-products.html"),
    "jax.lax.reduce_sum": ("in-practice.html",),
    "torch.use_deterministic_algorithms": ("in-practice.html",),
    "H100": ("in-practice.html", "dot-products.html"),
    "H800": ("dot-products.html",),
    "Hopper": ("in-practice.html", "dot-products.html"),
    "use_fast_accum": ("dot-products.html",),
}
"""What an engineer types, and the pages that must answer it."""
TEX = re.compile(r"\\[A-Za-z]+|[_^]\{")
"""A TeX control word (``\\sqrt``) or a braced sub- or superscript: no reader's text holds one."""


@cache
def index(site: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    return data


def entries(site: Path) -> list[dict[str, str]]:
    docs = index(site)["docs"]
    assert isinstance(docs, list)
    return docs


def separator(site: Path) -> re.Pattern[str]:
    config = index(site)["config"]
    assert isinstance(config, dict)
    return re.compile(config["separator"], re.ASCII)  # as JavaScript reads \\w


def words(text: str, split: re.Pattern[str]) -> list[str]:
    """The words lunr indexes of an entry's title or text: markup left out, lower-cased, split by the separator."""
    return [w for w in split.split(re.sub(r"<[^>]*>", " ", text).lower()) if w]


def answers(entry: dict[str, str], query: str, split: re.Pattern[str]) -> bool:
    """Whether every part of ``query``, as mkdocs-material splits it, starts a word of ``entry``."""
    held = words(entry["title"], split) + words(entry["text"], split)
    parts = [p for word in query.split() for p in words(word, split)]
    return bool(parts) and all(any(w.startswith(p) for w in held) for p in parts)


@pytest.mark.parametrize("query", QUERIES)
def test_a_query_finds_the_pages_that_answer_it(site_dir: Path, query: str) -> None:
    split = separator(site_dir)
    found = {e["location"].split("#")[0] for e in entries(site_dir) if answers(e, query, split)}
    missing = [page for page in QUERIES[query] if page not in found]
    assert missing == [], f"{query!r} finds {sorted(found)}"


def test_a_dot_splits_a_call_but_not_a_number(site_dir: Path) -> None:
    """A dot that starts a name starts a word of its own, so a query for ``.sum`` is not one for every ``sum…``."""
    split = separator(site_dir)
    assert words("torch.sum(t) ends. 1.5 and x._y", split) == ["torch", ".sum", "t", "ends", "1.5", "and", "x", "._y"]


def test_the_index_holds_no_tex_outside_code(site_dir: Path) -> None:
    left = []
    for entry in entries(site_dir):
        prose = re.sub(r"<(code|pre)>.*?</\1>", " ", entry["title"] + " " + entry["text"], flags=re.S)
        left += [(entry["location"], token) for token in TEX.findall(prose)]
    assert len(left) == 0, left[:20]


@pytest.mark.parametrize("name", doc_pages())
def test_the_index_holds_every_formula_of_a_page_in_words(site_dir: Path, name: str) -> None:
    """Each formula's name in words, its ``aria-label`` in the built page, is in that page's entries, in order."""
    # One name a formula: a long display formula's narrow form, drawn beside it, carries the same name.
    labels = [html.unescape(label) for label in
              re.findall(r'<mjx-container (?![^>]*fpsum-narrow)[^>]*?aria-label="([^"]*)"', built_html(site_dir, name))]
    text = html.unescape(" ".join(e["text"] for e in entries(site_dir) if e["location"].split("#")[0] == name))
    at = 0
    for label in labels:
        found = text.find(label, at)
        assert found >= 0, f"{name}: no {label!r} in the index after position {at}"
        at = found + len(label)


