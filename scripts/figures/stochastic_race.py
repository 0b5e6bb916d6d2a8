"""The stochastic-rounding race: round to nearest stalls, stochastic rounding does not."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

import fpsum

from .cache import Built
from .html import static_fragment
from .mpl import render
from .style import Palette, method_colour
from .text import number

FIGURE_ID = "stochastic-race"
STEM = f"figures/{FIGURE_ID}"
SIZE = (10.4, 4.0)


@dataclass(frozen=True)
class StochasticParams:
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


@dataclass(frozen=True)
class Result:
    fmt: fpsum.Format
    steps: np.ndarray
    exact: np.ndarray
    nearest: np.ndarray
    stochastic: np.ndarray  # (runs, samples)


def compute(params: StochasticParams) -> list[Result]:
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
    fig, axes = plt.subplots(1, len(results), figsize=SIZE, layout="constrained")
    for ax, r in zip(np.atleast_1d(axes), results):
        for i, run in enumerate(r.stochastic):
            ax.plot(r.steps, run, color=method_colour("pairwise", palette), lw=0.8, alpha=0.45,
                    label="stochastic rounding (each run)" if i == 0 else None)
        ax.plot(r.steps, r.exact, color=method_colour("exact", palette), lw=1.5, ls="--", label="exact")
        ax.plot(r.steps, r.nearest, color=method_colour("naive", palette), lw=2, label="round to nearest")
        ax.axhline(r.fmt.stall_point, color=palette.muted, lw=0.8, ls=":")
        ax.set_title(f"{r.fmt.label}: naive summation, {len(r.stochastic)} stochastic runs", fontsize=11)
        ax.set_xlabel("inputs added")
        ax.set_xlim(0, r.steps[-1])
        ax.grid(True, color=palette.grid, lw=0.6)
    np.atleast_1d(axes)[0].set_ylabel("running total")
    np.atleast_1d(axes)[0].legend(frameon=False, loc="upper left", fontsize=9)
    return fig


def build(params: StochasticParams) -> Built:
    results = compute(params)
    files = render(lambda palette: draw(results, palette), STEM)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "inputs_added", "exact", "round_to_nearest", *(f"stochastic_{i}" for i in range(params.runs))])
    numbers = {"stochastic.seeds": number(params.runs), "stochastic.n": number(params.n)}
    said = []
    for r in results:
        for j, step in enumerate(r.steps.tolist()):
            writer.writerow([r.fmt.name, step, repr(float(r.exact[j])), repr(float(r.nearest[j])),
                             *(repr(float(v)) for v in r.stochastic[:, j])])
        finals = r.stochastic[:, -1]
        prefix = f"stochastic.{r.fmt.name}"
        numbers |= {
            f"{prefix}.exact": number(float(r.exact[-1])),
            f"{prefix}.naive": number(float(r.nearest[-1])),
            f"{prefix}.median": number(float(np.median(finals))),
            f"{prefix}.min": number(float(finals.min())),
            f"{prefix}.max": number(float(finals.max())),
        }
        said.append(f"{r.fmt.label}: round to nearest stalls at {number(float(r.nearest[-1]))}, the stochastic "
                    f"runs end between {number(float(finals.min()))} and {number(float(finals.max()))} around "
                    f"the exact {number(float(r.exact[-1]))}")
    files[f"{STEM}.csv"] = out.getvalue().encode()
    alt = (f"Running totals of {number(params.n)} uniform inputs, one panel per format. " + "; ".join(said) + ".")
    caption = (f"Naive summation of the same {number(params.n)} uniform inputs with round to nearest (solid) and "
               f"with stochastic rounding ({params.runs} runs with different random streams, thin lines); "
               "dashed: the exact running total; dotted: the stall point. ")
    files |= static_fragment(FIGURE_ID, STEM, SIZE, alt, caption)
    return Built(files=files, numbers=numbers)
