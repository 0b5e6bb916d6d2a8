"""The build-to-page contract: every name and path the figure builders write and the hooks read.

Both sides import this module (the builders as ``figures.contract``, the
hooks in ``hooks/`` likewise), so no path or token syntax is spelled twice.

A *record* is one thing the build makes, named by its id: a figure
(``race-fp16-uniform``), a table (``formats-table``) or a set of numbers
(``bounds``).  Its id names

- its files: ``figures/<id>.svg`` (the light or only SVG, the default
  download), ``figures/<id>-dark.svg``, the narrow layout of a static plot
  ``figures/<id>-narrow.svg`` and ``figures/<id>-narrow-dark.svg``,
  ``figures/<id>.png`` (a slide), ``figures/<id>.csv`` (its data) and
  ``figures/<id>-text.json`` (the smallest text of each layout, as drawn);
- its page fragment, ``_fragments/<id>.html``, which a page places with a
  paragraph holding only ``{{ figure <id> }}``;
- its numbers: a page writes ``{{ <id>.<key> }}``, where ``<key>`` is the
  path of the value in the nested mapping the builder returns
  (``{{ race-fp16-uniform.naive }}``, ``{{ bounds.fp16.kahan }}``).

Inside a fragment, links to site files start with :data:`ROOT` and the
figure's number is :data:`FIGURE_NUMBER`; the hook resolves both for the
page that shows it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

FIGURES_DIR = "figures"
FRAGMENTS_DIR = "_fragments"
"""Fragments are inlined into pages by the hook, never published as files."""
NUMBERS_PATH = "data/numbers.json"
"""Every number of every record, flattened to ``<id>.<key>``: the hook's source, and a download."""
LOOKS_CSS = "assets/stylesheets/looks.css"
"""The method colours as CSS custom properties for both palettes, generated from ``figures.looks``."""

ROOT = "@root@/"
"""Prefix of a site-root path inside a fragment (``@root@/figures/x.png``)."""
FIGURE_NUMBER = "@number@"
"""Where a fragment's caption wants its figure (or table) number on the page."""

ID = r"[a-z0-9][a-z0-9-]*"
NUMBER_TOKEN = re.compile(r"\{\{\s*(" + ID + r"(?:\.[a-z0-9_]+)+)\s*\}\}")
"""``{{ <id>.<key> }}`` in a page's Markdown."""
FIGURE_PARAGRAPH = re.compile(r"<p>\s*\{\{\s*figure\s+(" + ID + r")\s*\}\}\s*</p>")
"""``{{ figure <id> }}`` as a paragraph of its own, after Markdown."""
ANY_TOKEN = re.compile(r"\{\{.*?\}\}")
ROOT_LINK = re.compile(re.escape(ROOT) + r"([^\"'\s#]+)")
VALID_ID = re.compile(ID + r"\Z")

NestedNumbers = Mapping[str, "str | NestedNumbers"]
"""What a builder returns as numbers: literal keys, text values, nested as deep as it likes."""


@dataclass(frozen=True)
class FigureFiles:
    """The site paths of a record's files, all named by its id (``FigureFiles.of("spacing").png``).

    ``svg`` is the light (or only) SVG and the default download; ``dark_svg``
    the dark-palette SVG of a static plot; ``narrow_svg`` and
    ``narrow_dark_svg`` its narrow (phone) layout in both palettes; ``png``
    the slide (light palette); ``csv`` the data; ``text_sizes`` the smallest
    text of each layout (JSON); ``fragment`` the page fragment the hook consumes.
    """

    svg: str
    dark_svg: str
    narrow_svg: str
    narrow_dark_svg: str
    png: str
    csv: str
    text_sizes: str
    fragment: str

    @classmethod
    def of(cls, record_id: str) -> FigureFiles:
        """The paths of record ``record_id``."""
        stem = f"{FIGURES_DIR}/{record_id}"
        return cls(svg=f"{stem}.svg", dark_svg=f"{stem}-dark.svg", narrow_svg=f"{stem}-narrow.svg",
                   narrow_dark_svg=f"{stem}-narrow-dark.svg", png=f"{stem}.png", csv=f"{stem}.csv",
                   text_sizes=f"{stem}-text.json", fragment=f"{FRAGMENTS_DIR}/{record_id}.html")


def check_id(record_id: str) -> str:
    """``record_id`` itself; ``ValueError`` unless it is lower-case letters, digits and inner hyphens."""
    if not VALID_ID.match(record_id):
        raise ValueError(f"invalid record id {record_id!r}: use lower-case letters, digits and hyphens")
    return record_id


def flatten(record_id: str, numbers: NestedNumbers) -> dict[str, str]:
    """``{"fp16": {"naive": "2,048"}}`` of record ``bounds`` as ``{"bounds.fp16.naive": "2,048"}``.

    ``ValueError`` for a key that is empty or holds a dot (a dot would make
    two paths spell one token) and for a value that is neither text nor a mapping.
    """
    flat: dict[str, str] = {}
    for key, value in numbers.items():
        if not key or "." in key:
            raise ValueError(f"record {record_id!r}: number key {key!r} must be non-empty and dot-free")
        path = f"{record_id}.{key}"
        if isinstance(value, str):
            flat[path] = value
        elif isinstance(value, Mapping):
            flat |= flatten(path, value)
        else:
            raise ValueError(f"number {path!r} is {type(value).__name__}, not text")
    return flat
