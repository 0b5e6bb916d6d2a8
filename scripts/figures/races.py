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
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from fpsum.array_rounding import to_format
from fpsum.formats import get_format
from fpsum.inputs import INPUT_KINDS, INPUT_LABELS
from fpsum.race import RACE_N, Race, run_race

from .contract import ROOT, FigureFiles, NestedNumbers
from .html import figure_html
from .looks import LOOKS, Palette
from .mpl_lines import method_line
from .mpl_render import slide_png
from .mpl_text_sizes import text_sizes_json
from .playground import playground_link
from .race.errors import LINSCALE, LogScale, error_domain, power_of_ten, shown_errors, window
from .race.svg import race_figure_html, race_svg
from .record import Built, Record
from .text import number
from .variants import SLIDE_SIZE, Layout


@dataclass(frozen=True)
class RaceParams:
    """One race: format, inputs, length and seed."""

    format: str
    kind: str
    n: int = RACE_N
    seed: int = 0
    samples: int = 512

    def __post_init__(self) -> None:
        get_format(self.format)
        if self.kind not in INPUT_KINDS:
            raise ValueError(f"unknown input kind {self.kind!r} (known: {', '.join(INPUT_KINDS)})")
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


def race_csv(race: Race) -> bytes:
    """The sampled running totals: one row per sampled count, exact values as float64 reprs."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["inputs_added", "exact", *race.totals])
    for j, step in enumerate(race.steps):
        row = [repr(float(values[j])) for values in race.totals.values()]
        writer.writerow([int(step), repr(float(race.exact[j])), *row])
    return out.getvalue().encode()


def race_numbers(race: Race) -> NestedNumbers:
    """What the pages quote about a race: final totals, the exact one, the stall, Kahan's distance."""
    fmt = race.fmt
    nearest = float(to_format(race.exact_final, fmt))
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


def race_png(race: Race, figure_id: str) -> tuple[bytes, dict[str, Any]]:
    """The race's final frame as a 16:9 slide (light palette), lines in the table's looks, with what
    ``-text.json`` says of it (``figures.mpl_render.slide_png``, which checks its layout and text sizes).

    Two plots, as on the page: the running totals, and below them each
    method's error in ulps on the same log scale as the animation
    (:mod:`figures.race.errors`), with the naive sum's stall marked in both.
    """
    return slide_png(lambda palette, layout: _final_frame(race, palette, layout), figure_id, SLIDE_SIZE)


def _final_frame(race: Race, palette: Palette, layout: Layout) -> Figure:
    errors = shown_errors(race)
    scale = LogScale(*error_domain(errors), 0.0, 1.0)
    fig, (ax, err) = plt.subplots(2, 1, figsize=layout.size, sharex=True, layout="constrained",
                                  gridspec_kw={"height_ratios": [3, 2]})
    method_line(ax, "exact", race.steps, race.exact, palette, zorder=4)  # thin, on top: as on the page
    method_line(err, "exact", [0, race.n], [0, 0], palette, zorder=4, label=None)
    for j, (method, values) in enumerate(race.totals.items()):
        step = max(1, len(race.steps) // 10)
        every = (step * (j + 1) // (len(race.totals) + 1), step)  # ten markers a line, staggered as on the page
        method_line(ax, method, race.steps, values, palette, markevery=every,
                    label=f"{LOOKS[method].label}: {number(race.final[method])}")
        method_line(err, method, race.steps, errors[method], palette, markevery=every, label=None)
    ax.set_title(f"{race.fmt.label}, {number(race.n)} inputs, {INPUT_LABELS[race.kind]}: "
                 f"exact total {number(race.exact_final)}")
    ax.set_ylabel("running total")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside right upper")  # 16:9 is wide
    err.set_yscale("symlog", linthresh=scale.lo, linscale=LINSCALE)
    err.set_ylim(0, scale.hi)
    decades = scale.decade_ticks()
    err.set_yticks([0.0, *(10.0 ** e for e in decades)], ["0", *(power_of_ten(e) for e in decades)])
    err.minorticks_off()
    err.set_ylabel("error, ulps")
    err.set_title(f"error |total \u2212 exact|, in ulps (log scale); each point: the largest error in the last "
                  f"{number(window(race))} inputs;\n1 ulp: the {race.fmt.label} spacing at the largest "
                  "|exact total| so far", fontsize="medium", loc="left")
    err.set_xlabel("inputs added")
    for axes in (ax, err):
        axes.grid(True, color=palette.grid, lw=0.6)
    thousands = FuncFormatter(lambda value, _: number(value))
    ax.yaxis.set_major_formatter(thousands)
    err.xaxis.set_major_formatter(thousands)
    stall = race.stalls["naive"]
    if stall is not None:
        for axes in (ax, err):
            axes.axvline(stall, color=palette.axis, lw=1, ls=(0, (4, 3)), zorder=1)
        ax.axhline(race.fmt.stall_point, color=palette.axis, lw=1, ls=(0, (4, 3)), zorder=1)
        ax.annotate(f"{LOOKS['naive'].label} stalls at {number(race.final['naive'])}\n"
                    f"after {number(stall)} inputs", (stall, 0.97), xycoords=("data", "axes fraction"),
                    xytext=(6, 0), textcoords="offset points", va="top", color=palette.muted)
    return fig


def build(figure_id: str, params: RaceParams) -> Built:
    """The race's animated SVG, slide PNG, CSV, page fragment and numbers."""
    race = run_race(get_format(params.format), params.kind,  # type: ignore[arg-type]
                          n=params.n, seed=params.seed, samples=params.samples)
    paths = FigureFiles.of(figure_id)
    caption = (f"{escape(race.fmt.label)}, {number(race.n)} inputs, {escape(INPUT_LABELS[race.kind])}: the "
               "running total of each method (top) and its error in ulps (bottom, log scale) against the number "
               "of inputs added, revealed over about 10 s. ")
    caption += playground_link(race.fmt.name, race.kind, race.n, race.seed, tuple(race.totals),
                               f"{race.fmt.label}, {INPUT_LABELS[race.kind]}") + ". "
    downloads = {"SVG (animated)": paths.svg, "PNG (1920 × 1080, final frame)": paths.png, "CSV data": paths.csv}
    body = race_figure_html(race, figure_id, f"{ROOT}{paths.svg}")
    png, slide = race_png(race, figure_id)
    files = {
        paths.svg: race_svg(race, figure_id, standalone=True).encode(),
        paths.png: png,
        paths.text_sizes: text_sizes_json({"slide": slide}),
        paths.csv: race_csv(race),
        paths.fragment: figure_html(figure_id, body, caption, downloads).encode(),
    }
    return Built(files=files, numbers=race_numbers(race))
