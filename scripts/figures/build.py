"""Every figure of the site, built (or taken from the cache) in one call.

The registry below is the one list of figures and number sets.  Each entry
names its builder files (whose source goes into the cache key with the
model's), its parameters and the function that turns them into files and
numbers.  What the cache lacks is built in parallel, one process per core.
"""

from __future__ import annotations

import dataclasses
import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import (blocked, error_vs_n, formats_table, neumaier, numbers, races, site_info, snippets, spacing,
               stochastic_race)
from .cache import REPO, SCRIPTS_DIR, Built, cache_key, lookup, store
from .errors import located

FIGURES_PACKAGE = SCRIPTS_DIR / "figures"
SHARED = [FIGURES_PACKAGE / name for name in ("cache.py", "style.py", "text.py", "html.py", "mpl.py")]


@dataclass(frozen=True)
class FigureSpec:
    """One thing to build: a name for messages, its builder files, its parameters and the builder."""

    name: str
    sources: list[Path]
    params: Any
    build: Callable[[Any], Built]

    @property
    def key(self) -> str:
        return cache_key(self.name, self.sources + SHARED, dataclasses.asdict(self.params))


def _spec(module: Any, params: Any, name: str | None = None, extra: list[Path] | None = None) -> FigureSpec:
    source = Path(module.__file__)
    return FigureSpec(name or source.stem.replace("_", "-"), [source, *(extra or [])], params, module.build)


def registry() -> list[FigureSpec]:
    """All figures and number sets of the site."""
    race_sources = [FIGURES_PACKAGE / "race.py"]
    specs = [
        _spec(races, races.RaceParams(format=fmt, kind=kind), f"race-{fmt}-{kind}", race_sources)
        for fmt in ("fp16", "bf16")
        for kind in ("uniform", "ones", "normal")
    ]
    specs += [
        _spec(error_vs_n, error_vs_n.ErrorVsNParams(), "error-vs-n"),
        _spec(error_vs_n, error_vs_n.ErrorVsNParams(
            figure_id="error-vs-n-fp32", formats=("fp32",), methods=("naive", "pairwise"), n_max=48_000_000,
            trials=3, per_octave=2, number_prefix="sweep.fp32"), "error-vs-n-fp32"),
        _spec(formats_table, formats_table.FormatsParams()),
        _spec(spacing, spacing.SpacingParams()),
        _spec(neumaier, neumaier.NeumaierParams()),
        _spec(stochastic_race, stochastic_race.StochasticParams()),
        _spec(blocked, blocked.BlockedParams()),
        _spec(numbers, numbers.NumbersParams()),
        _spec(snippets, snippets.SnippetParams(), extra=snippets.SnippetParams().files),
        _spec(site_info, site_info.SiteParams(site_info.build_date_from_environment()),
              extra=[site_info.CITATION]),
    ]
    return specs


class FigureError(RuntimeError):
    """A figure could not be built; the message names the figure, its builder and where it failed."""


def _make(spec: FigureSpec) -> Built:
    """Build one figure and store it in the cache (possibly in a worker process).

    A failure comes back as a plain message with its location: a worker's
    traceback does not survive the trip between processes.
    """
    try:
        built = spec.build(spec.params)
    except Exception as error:
        raise RuntimeError(f"{type(error).__name__}: {error} [at {located(error)}]") from None
    store(spec.key, spec.name, built)
    return built


def _fail(spec: FigureSpec, error: BaseException) -> FigureError:
    where = ", ".join(str(p.relative_to(REPO)) for p in spec.sources)
    return FigureError(f"figure {spec.name!r} ({where}) failed: {error}")


def build_all(specs: list[FigureSpec] | None = None, workers: int | None = None
              ) -> tuple[dict[str, bytes], dict[str, str], list[str]]:
    """Build every figure: all files, all numbers (plus ``data/numbers.json``), and the names rebuilt.

    Two figures writing the same file or setting one number differently is
    an error: each thing on the site has one maker.
    """
    try:
        specs = specs if specs is not None else registry()
    except Exception as error:  # an invalid parameter is caught when the registry is made
        raise FigureError(f"the figure registry is invalid: {type(error).__name__}: {error} "
                          f"[at {located(error, within='scripts/figures/build.py')}]") from None
    results: dict[str, Built] = {}
    missing = []
    for spec in specs:
        hit = lookup(spec.key)
        if hit is not None:
            results[spec.name] = hit
        else:
            missing.append(spec)
    workers = workers if workers is not None else min(len(missing), os.cpu_count() or 1)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {spec.name: (spec, pool.submit(_make, spec)) for spec in missing}
            for name, (spec, future) in futures.items():
                try:
                    results[name] = future.result()
                except Exception as error:
                    raise _fail(spec, error) from None
    else:
        for spec in missing:
            try:
                results[spec.name] = _make(spec)
            except Exception as error:
                raise _fail(spec, error) from None
    files: dict[str, bytes] = {}
    all_numbers: dict[str, str] = {}
    for spec in specs:
        built = results[spec.name]
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
    return files, all_numbers, [spec.name for spec in missing]
