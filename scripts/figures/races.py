"""The race figures: one animated SVG per format and input kind, its data and its numbers."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import fpsum

from .cache import Built
from .race import race_figure_html, race_svg
from .text import number

FRAGMENTS = "_fragments"  # inlined into pages by hooks/figures.py, never published as files


@dataclass(frozen=True)
class RaceParams:
    """One race: format, inputs, length and seed."""

    format: str
    kind: str
    n: int = fpsum.RACE_N
    seed: int = 0
    samples: int = 512

    def __post_init__(self) -> None:
        fpsum.get_format(self.format)
        if self.kind not in fpsum.INPUT_KINDS:
            raise ValueError(f"unknown input kind {self.kind!r} (known: {', '.join(fpsum.INPUT_KINDS)})")
        if self.n < 2 or self.samples < 2:
            raise ValueError(f"a race needs n >= 2 and samples >= 2: {self}")

    @property
    def figure_id(self) -> str:
        return f"race-{self.format}-{self.kind}"


def race_csv(race: fpsum.Race) -> bytes:
    """The sampled running totals: one row per sampled count, exact values as float64 reprs."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["inputs_added", "exact", *race.totals])
    for j, step in enumerate(race.steps):
        row = [repr(float(values[j])) for values in race.totals.values()]
        writer.writerow([int(step), repr(float(race.exact[j])), *row])
    return out.getvalue().encode()


def race_numbers(race: fpsum.Race, prefix: str) -> dict[str, str]:
    """What the pages quote about a race: final totals, the exact one, the stall, Kahan's distance."""
    fmt = race.fmt
    nearest = float(fpsum.to_format(race.exact_final, fmt))
    numbers = {f"{prefix}.{m}": number(value) for m, value in race.final.items()}
    stall = race.stalls["naive"]
    kahan_ulps = abs(race.final["kahan"] - race.exact_final) / fmt.ulp(nearest)
    numbers |= {
        f"{prefix}.exact": number(race.exact_final),
        f"{prefix}.exact_nearest": number(nearest),
        f"{prefix}.stall_step": number(stall) if stall is not None else "none",
        f"{prefix}.kahan_ulps": f"{kahan_ulps:.2f}",
        "race.n": number(race.n),
    }
    return numbers


def build(params: RaceParams) -> Built:
    race = fpsum.run_race(fpsum.get_format(params.format), params.kind,  # type: ignore[arg-type]
                          n=params.n, seed=params.seed, samples=params.samples)
    fid = params.figure_id
    files = {
        f"figures/{fid}.svg": race_svg(race, fid, standalone=True).encode(),
        f"figures/{fid}.csv": race_csv(race),
        f"{FRAGMENTS}/{fid}.html": race_figure_html(race, fid).encode(),
    }
    return Built(files=files, numbers=race_numbers(race, f"race.{params.format}.{params.kind}"))
