"""The style sheet of the method looks: each palette's colours as CSS custom properties.

Generated from :mod:`figures.looks` at build time, so the colours a page
gives the race's lines are the table's, never a copy kept by hand.  The
hook adds the file to every page (``contract.LOOKS_CSS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .contract import LOOKS_CSS
from .looks import PALETTES, css_properties
from .record import Built, Record

SCHEMES = {"light": "default", "dark": "slate"}
"""mkdocs-material's ``data-md-color-scheme`` of each palette."""


@dataclass(frozen=True)
class LooksCssParams:
    """Nothing to choose: the table itself is hashed into the cache key with the builder package."""


def records() -> list[Record]:
    """The one generated style sheet."""
    return [Record("looks", LooksCssParams(), build)]


def build(record_id: str, params: LooksCssParams) -> Built:
    """``--look-<name>: <colour>`` for every method and ink, one rule per mkdocs-material colour scheme."""
    rules = []
    for palette in PALETTES:
        declarations = "".join(f"  --look-{name}: {colour};\n" for name, colour in css_properties(palette).items())
        rules.append(f'[data-md-color-scheme="{SCHEMES[palette.name]}"] {{\n{declarations}}}\n')
    header = "/* Generated from scripts/figures/looks.py at build time: edit the table there. */\n"
    return Built(files={LOOKS_CSS: (header + "\n".join(rules)).encode()})
