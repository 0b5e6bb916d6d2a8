"""The stochastic-rounding race: round to nearest stalls, stochastic rounding does not."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fpsum.exact import exact_running
from fpsum.formats import Format, get_format
from fpsum.inputs import make_inputs
from fpsum.methods import running_totals
from fpsum.race import RACE_N

from .contract import FigureFiles
from .html import static_fragment
from .looks import LOOKS, Palette
from .mpl_lines import method_line
from .mpl_render import render
from .playground import playground_link
from .record import Built, Record
from .text import number
from .variants import Layout, Sizes

SIZES = Sizes(wide=(9.0, 4.2), narrow=(4.5, 7.6))
"""Inches: the panels side by side, or stacked on a phone with the legend below them."""


@dataclass(frozen=True)
class Result:
    """One format's running totals at ``steps``: exact, round to nearest, and each stochastic run."""

    fmt: Format
    steps: np.ndarray
    exact: np.ndarray
    nearest: np.ndarray
    stochastic: np.ndarray  # (runs, samples)


@dataclass(frozen=True)
class StochasticParams:
    """The formats (one panel each), the inputs, how many stochastic runs, and how many points are drawn."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    n: int = RACE_N
    runs: int = 16
    input_seed: int = 0
    samples: int = 256

    def __post_init__(self) -> None:
        for name in self.formats:
            get_format(name)
        if self.n < 2 or self.runs < 1 or self.samples < 2:
            raise ValueError(f"invalid stochastic race parameters: n={self.n}, runs={self.runs}")


def records() -> list[Record]:
    """The one stochastic-rounding race."""
    return [Record("stochastic-race", StochasticParams(), build)]


def compute(params: StochasticParams) -> list[Result]:
    """The same seeded uniform inputs summed naively with each rounding, per format."""
    results = []
    steps = np.unique(np.linspace(1, params.n, params.samples).round().astype(np.int64))
    for name in params.formats:
        fmt = get_format(name)
        values = make_inputs("uniform", params.n, fmt, params.input_seed)
        # The same inputs in every row: one vectorised pass, each row with its own random draws.
        runs = np.ascontiguousarray(np.broadcast_to(values, (params.runs, params.n)))
        stochastic = running_totals("stochastic", runs, fmt, seed=params.input_seed)[:, steps - 1]
        results.append(Result(fmt=fmt, steps=steps, exact=exact_running(values, steps),
                              nearest=running_totals("naive", values, fmt)[steps - 1].astype(np.float64),
                              stochastic=stochastic.astype(np.float64)))
    return results


def draw(results: list[Result], palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    shape = (len(results), 1) if layout.narrow else (1, len(results))
    fig, axes = plt.subplots(*shape, figsize=layout.size, layout="constrained", sharex=layout.narrow)
    panels = list(np.atleast_1d(axes))
    for ax, r in zip(panels, results):
        for i, run in enumerate(r.stochastic):
            # Thin and unmarked: sixteen runs on top of each other would be a wall of markers.
            method_line(ax, "stochastic", r.steps, run, palette, lw=0.9, marker=None,
                        label="stochastic rounding (each run)" if i == 0 else None)
        method_line(ax, "naive", r.steps, r.nearest, palette, label="round to nearest")
        method_line(ax, "exact", r.steps, r.exact, palette, zorder=4)
        ax.axhline(r.fmt.stall_point, color=palette.muted, lw=0.8, ls=":")
        # By the flat end of round to nearest, where the stochastic runs have long since climbed away: over
        # it for a low stall, under it for a high one (the runs climb past it just before the end).
        said = "stalls" if layout.narrow else "round to nearest\nstalls"
        high = r.fmt.stall_point > r.exact[-1] / 4
        ax.annotate(f"{said} at {number(r.fmt.stall_point)}", (r.steps[-1], r.fmt.stall_point),
                    xytext=(-4, -5 if high else 5), textcoords="offset points", ha="right",
                    va="top" if high else "bottom", color=LOOKS["naive"].colour(palette))
        title = f"{r.fmt.label}: naive summation, {len(r.stochastic)} stochastic runs"
        ax.set_title(r.fmt.label if layout.narrow else title)
        ax.set_xlim(0, r.steps[-1])
        ax.grid(True, color=palette.grid, lw=0.6)
        if layout.narrow:
            ax.xaxis.set_major_locator(MaxNLocator(4))
            ax.set_ylabel("running total")
    for ax in panels[-1:] if layout.narrow else panels:
        ax.set_xlabel("inputs added")
    if layout.narrow:
        fig.legend(*panels[0].get_legend_handles_labels(), loc="outside lower center", frameon=False, ncols=1)
    else:
        panels[0].set_ylabel("running total")
        panels[0].legend(frameon=False, loc="upper left")
    return fig


def build(figure_id: str, params: StochasticParams) -> Built:
    """The figure, its CSV and fragment; numbers ``n``, ``seeds`` and, per format, ``exact``, ``naive``
    (round to nearest) and the ``median``, ``min`` and ``max`` of the stochastic runs' totals.
    """
    results = compute(params)
    files = render(lambda palette, layout: draw(results, palette, layout), figure_id, SIZES)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    runs = [f"stochastic_{i}" for i in range(params.runs)]
    writer.writerow(["format", "inputs_added", "exact", "round_to_nearest", *runs])
    numbers: dict[str, str | dict[str, str]] = {"seeds": number(params.runs), "n": number(params.n)}
    said = []
    for r in results:
        for j, step in enumerate(r.steps.tolist()):
            writer.writerow([r.fmt.name, step, repr(float(r.exact[j])), repr(float(r.nearest[j])),
                             *(repr(float(v)) for v in r.stochastic[:, j])])
        finals = r.stochastic[:, -1]
        numbers[r.fmt.name] = {
            "exact": number(float(r.exact[-1])),
            "naive": number(float(r.nearest[-1])),
            "median": number(float(np.median(finals))),
            "min": number(float(finals.min())),
            "max": number(float(finals.max())),
        }
        said.append(f"{r.fmt.label}: round to nearest stalls at {number(float(r.nearest[-1]))}, the stochastic "
                    f"runs end between {number(float(finals.min()))} and {number(float(finals.max()))} around "
                    f"the exact {number(float(r.exact[-1]))}")
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    alt = (f"Running totals of {number(params.n)} uniform inputs, one panel per format. " + "; ".join(said) + ".")
    caption = (f"Naive summation of the same {number(params.n)} uniform inputs with round to nearest and with "
               f"stochastic rounding ({params.runs} runs). ")
    caption += playground_link(params.formats[0], "uniform", params.n, params.input_seed, ("naive", "stochastic"),
                               f"{get_format(params.formats[0]).label}, one stochastic run") + "."
    more = ("Round to nearest is the thick line with markers; each stochastic run, with its own random stream, "
            "a thin dashed line; the thin solid line drawn on top is the exact running total; dotted: the stall "
            "point, where round to nearest stops.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers)
