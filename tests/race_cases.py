"""The race figures the tests build: each case's race computed once, its SVG, and the files a page adds.

Shared by the build layer's structural checks and the browser layer's.
"""

from __future__ import annotations

import functools
from typing import cast

from figures.race.svg import race_svg
from figures.races import records as race_records
from fpsum.formats import get_format
from fpsum.inputs import InputKind
from fpsum.race import Race, run_race
from repocopy import REPO

CASES = [(record.params.format, record.params.kind) for record in race_records()]
"""The races the site shows, (format, input kind), as the race builder's records name them."""
CSS_FILE = REPO / "docs" / "assets" / "stylesheets" / "race.css"
JS_FILE = REPO / "docs" / "assets" / "javascripts" / "race.js"


@functools.cache
def race(fmt: str, kind: str) -> Race:
    """One race per case, computed once."""
    return run_race(get_format(fmt), cast(InputKind, kind))


def fid(fmt: str, kind: str) -> str:
    """The figure id a page would use."""
    return f"race-{fmt}-{kind}"


@functools.cache
def svg(fmt: str, kind: str, standalone: bool) -> str:
    """The figure's SVG text, built once per case and variant."""
    return race_svg(race(fmt, kind), fid(fmt, kind), standalone)
