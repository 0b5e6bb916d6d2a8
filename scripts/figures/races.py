"""The race figures: one animated SVG per format and input kind, its slide PNG, its data and its numbers.

Numbers of a race ``race-<format>-<kind>``: ``n``, the final total of each
series (``exact``, ``naive``, ``wide``, ``kahan``, ``pairwise``),
``exact_nearest`` (the exact total rounded to the format), ``stall_step``
(after how many inputs the naive sum stalled, or ``none``) and
``kahan_ulps`` (Kahan's distance from the exact total, in ulps of it).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from html import escape

import matplotlib.pyplot as plt

import fpsum

from .contract import ROOT, FigureFiles, NestedNumbers
from .html import figure_html
from .looks import LIGHT, LOOKS
from .mpl import RC, method_line, png_bytes, style_axes
from .race import race_figure_html, race_svg
from .record import Built, Record
from .text import number


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


def records() -> list[Record]:
    """The six races: FP16 and BF16, each input kind."""
    return [
        Record("race-fp16-uniform", RaceParams(format="fp16", kind="uniform"), build),
        Record("race-fp16-ones", RaceParams(format="fp16", kind="ones"), build),
        Record("race-fp16-normal", RaceParams(format="fp16", kind="normal"), build),
        Record("race-bf16-uniform", RaceParams(format="bf16", kind="uniform"), build),
        Record("race-bf16-ones", RaceParams(format="bf16", kind="ones"), build),
        Record("race-bf16-normal", RaceParams(format="bf16", kind="normal"), build),
    ]


def race_csv(race: fpsum.Race) -> bytes:
    """The sampled running totals: one row per sampled count, exact values as float64 reprs."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["inputs_added", "exact", *race.totals])
    for j, step in enumerate(race.steps):
        row = [repr(float(values[j])) for values in race.totals.values()]
        writer.writerow([int(step), repr(float(race.exact[j])), *row])
    return out.getvalue().encode()


def race_numbers(race: fpsum.Race) -> NestedNumbers:
    """What the pages quote about a race: final totals, the exact one, the stall, Kahan's distance."""
    fmt = race.fmt
    nearest = float(fpsum.to_format(race.exact_final, fmt))
    stall = race.stalls["naive"]
    kahan_ulps = abs(race.final["kahan"] - race.exact_final) / fmt.ulp(nearest)
    finals = {method: number(value) for method, value in race.final.items()}
    return finals | {
        "n": number(race.n),
        "exact": number(race.exact_final),
        "exact_nearest": number(nearest),
        "stall_step": number(stall) if stall is not None else "none",
        "kahan_ulps": f"{kahan_ulps:.2f}",
    }


def race_png(race: fpsum.Race) -> bytes:
    """The race's final frame at slide resolution (light palette), lines in the table's looks."""
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(8.0, 4.5), layout="constrained")
        method_line(ax, "exact", race.steps, race.exact, LIGHT, zorder=4)  # thin, on top: as on the page
        for method, values in race.totals.items():
            method_line(ax, method, race.steps, values, LIGHT,
                        label=f"{LOOKS[method].label}: {number(race.final[method])}")
        ax.set_title(f"{race.fmt.label}, {number(race.n)} inputs, {fpsum.INPUT_LABELS[race.kind]}: "
                     f"exact total {number(race.exact_final)}", fontsize=11)
        ax.set_xlabel("inputs added")
        ax.set_ylabel("running total")
        ax.grid(True, color=LIGHT.grid, lw=0.6)
        ax.legend(frameon=False, fontsize=9)
        style_axes(fig, LIGHT)
        data = png_bytes(fig)
        plt.close(fig)
    return data


def build(figure_id: str, params: RaceParams) -> Built:
    """The race's animated SVG, slide PNG, CSV, page fragment and numbers."""
    race = fpsum.run_race(fpsum.get_format(params.format), params.kind,  # type: ignore[arg-type]
                          n=params.n, seed=params.seed, samples=params.samples)
    paths = FigureFiles.of(figure_id)
    caption = (f"{escape(race.fmt.label)}, {number(race.n)} inputs, {escape(fpsum.INPUT_LABELS[race.kind])}: the "
               "running total of each method against the number of inputs added, revealed over about 10 s. ")
    downloads = {"SVG (animated)": paths.svg, "PNG (1920 px, final frame)": paths.png, "CSV data": paths.csv}
    body = race_figure_html(race, figure_id, f"{ROOT}{paths.svg}")
    files = {
        paths.svg: race_svg(race, figure_id, standalone=True).encode(),
        paths.png: race_png(race),
        paths.csv: race_csv(race),
        paths.fragment: figure_html(figure_id, body, caption, downloads).encode(),
    }
    return Built(files=files, numbers=race_numbers(race))
