"""Every figure of the site, built (or taken from the cache) in one call.

The registry below is the one list of figures.  Each entry names the
builder module (whose source goes into the cache key with the model's),
the parameters and the function that turns them into files and numbers.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import error_vs_n, numbers, races
from .cache import SCRIPTS_DIR, Built, cached

FIGURES_PACKAGE = SCRIPTS_DIR / "figures"
SHARED = [FIGURES_PACKAGE / "cache.py", FIGURES_PACKAGE / "style.py", FIGURES_PACKAGE / "text.py"]


@dataclass(frozen=True)
class FigureSpec:
    """One thing to build: a name for messages, its builder files, its parameters and the builder."""

    name: str
    sources: list[Path]
    params: Any
    build: Callable[[Any], Built]


def registry() -> list[FigureSpec]:
    """All figures and number sets of the site, in build order."""
    specs = [
        FigureSpec(
            name=f"race-{fmt}-{kind}",
            sources=[FIGURES_PACKAGE / "races.py", FIGURES_PACKAGE / "race.py"],
            params=races.RaceParams(format=fmt, kind=kind),
            build=races.build,
        )
        for fmt in ("fp16", "bf16")
        for kind in ("uniform", "ones", "normal")
    ]
    specs.append(FigureSpec("error-vs-n", [FIGURES_PACKAGE / "error_vs_n.py"], error_vs_n.ErrorVsNParams(),
                            error_vs_n.build))
    specs.append(FigureSpec("numbers", [FIGURES_PACKAGE / "numbers.py"], numbers.NumbersParams(), numbers.build))
    return specs


class FigureError(RuntimeError):
    """A figure could not be built; the message names the figure and its builder."""


def build_all(specs: list[FigureSpec] | None = None) -> tuple[dict[str, bytes], dict[str, str], list[str]]:
    """Build every figure: all files, all numbers (plus ``data/numbers.json``), and the names rebuilt.

    Two figures writing the same file or the same number is an error: each
    thing on the site has one maker.
    """
    files: dict[str, bytes] = {}
    all_numbers: dict[str, str] = {}
    rebuilt: list[str] = []
    for spec in specs if specs is not None else registry():
        params = dataclasses.asdict(spec.params)
        try:
            built, hit = cached(spec.name, spec.sources + SHARED, params, lambda s=spec: s.build(s.params))
        except Exception as error:  # re-raised with the figure's name and builder in front
            where = ", ".join(str(p.relative_to(SCRIPTS_DIR.parent)) for p in spec.sources)
            raise FigureError(f"figure {spec.name!r} ({where}) failed: {error}") from error
        if not hit:
            rebuilt.append(spec.name)
        for path, data in built.files.items():
            if path in files:
                raise FigureError(f"figure {spec.name!r} writes {path}, which another figure wrote too")
            files[path] = data
        for key, text in built.numbers.items():
            if key in all_numbers and all_numbers[key] != text:
                raise FigureError(f"figure {spec.name!r} sets number {key!r} to {text!r}, "
                                  f"another figure set it to {all_numbers[key]!r}")
            all_numbers[key] = text
    files["data/numbers.json"] = (json.dumps(all_numbers, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()
    return files, all_numbers, rebuilt
