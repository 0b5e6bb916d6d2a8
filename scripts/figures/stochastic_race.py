"""The stochastic-rounding race: round to nearest stalls, stochastic rounding does not."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

import fpsum

from .contract import FigureFiles
from .html import legacy_fragment as static_fragment
from .looks import LOOKS, Palette
from .mpl import method_line
from .mpl import render_legacy as render
from .record import Built, Record
from .text import number

SIZE = (10.4, 4.0)


@dataclass(frozen=True)
class Result:
    """One format's running totals at ``steps``: exact, round to nearest, and each stochastic run."""

    fmt: fpsum.Format
    steps: np.ndarray
    exact: np.ndarray
    nearest: np.ndarray
    stochastic: np.ndarray  # (runs, samples)


@dataclass(frozen=True)
class StochasticParams:
    """The formats (one panel each), the inputs, how many stochastic runs, and how many points are drawn."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    n: int = fpsum.RACE_N
    runs: int = 16
    input_seed: int = 0
    samples: int = 256

    def __post_init__(self) -> None:
        for name in self.formats:
            fpsum.get_format(name)
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
        fmt = fpsum.get_format(name)
        values = fpsum.make_inputs("uniform", params.n, fmt, params.input_seed)
        # The same inputs in every row: one vectorised pass, each row with its own random draws.
        runs = np.ascontiguousarray(np.broadcast_to(values, (params.runs, params.n)))
        stochastic = fpsum.running_totals("stochastic", runs, fmt, seed=params.input_seed)[:, steps - 1]
        results.append(Result(fmt=fmt, steps=steps, exact=fpsum.exact_running(values, steps),
                              nearest=fpsum.running_totals("naive", values, fmt)[steps - 1].astype(np.float64),
                              stochastic=stochastic.astype(np.float64)))
    return results


def draw(results: list[Result], palette: Palette) -> Figure:
    """The figure in one palette; the caller saves and closes it."""
    fig, axes = plt.subplots(1, len(results), figsize=SIZE, layout="constrained")
    for ax, r in zip(np.atleast_1d(axes), results):
        for i, run in enumerate(r.stochastic):
            # Thin and unmarked: sixteen runs on top of each other would be a wall of markers.
            method_line(ax, "stochastic", r.steps, run, palette, lw=0.9, marker=None,
                        label="stochastic rounding (each run)" if i == 0 else None)
        method_line(ax, "naive", r.steps, r.nearest, palette, label="round to nearest")
        method_line(ax, "exact", r.steps, r.exact, palette, zorder=4)
        ax.axhline(r.fmt.stall_point, color=palette.muted, lw=0.8, ls=":")
        # Over the flat end of round to nearest, where the stochastic runs have long since climbed away.
        ax.annotate(f"round to nearest stalls at {number(r.fmt.stall_point)}", (r.steps[-1], r.fmt.stall_point),
                    xytext=(-4, 5), textcoords="offset points", ha="right", va="bottom", fontsize=8,
                    color=LOOKS["naive"].colour(palette))
        ax.set_title(f"{r.fmt.label}: naive summation, {len(r.stochastic)} stochastic runs", fontsize=11)
        ax.set_xlabel("inputs added")
        ax.set_xlim(0, r.steps[-1])
        ax.grid(True, color=palette.grid, lw=0.6)
    np.atleast_1d(axes)[0].set_ylabel("running total")
    np.atleast_1d(axes)[0].legend(frameon=False, loc="upper left", fontsize=9)
    return fig


def build(figure_id: str, params: StochasticParams) -> Built:
    """The figure, its CSV and fragment; numbers ``n``, ``seeds`` and, per format, ``exact``, ``naive``
    (round to nearest) and the ``median``, ``min`` and ``max`` of the stochastic runs' totals.
    """
    results = compute(params)
    files = render(lambda palette: draw(results, palette), figure_id)
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
    caption = (f"Naive summation of the same {number(params.n)} uniform inputs with round to nearest (thick, with "
               f"markers) and with stochastic rounding ({params.runs} runs with different random streams, thin "
               "dashed lines); thin solid line, drawn on top: the exact running total; dotted: the stall point, "
               "where round to nearest stops. ")
    files |= static_fragment(figure_id, SIZE, alt, caption)
    return Built(files=files, numbers=numbers)
