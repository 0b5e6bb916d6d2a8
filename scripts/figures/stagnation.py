"""Stagnation before the stall: skewed inputs of one sign lose their small terms long before 2^p.

Numbers of record ``stagnation`` (one seeded run of ``n`` inputs, as
``fpsum race --format fp16 --inputs <kind> --n <n>`` reproduces it):
``n``, ``sqrt`` (√n·u at that n), ``stall`` (the format's stall point) and,
per input kind (``uniform``, ``squares``, ``exp``, ``constant``), ``exact``,
``naive``, ``error`` (relative, in per cent), ``ascending`` (the relative
error in per cent of the naive sum of the same inputs sorted by increasing
magnitude), ``largest`` (the largest partial sum, below the stall point) and
``command``, the ``fpsum`` command that repeats the run.
``constant_value`` is the constant input.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fpsum.exact import exact_running, exact_total
from fpsum.formats import get_format
from fpsum.methods import running_totals, total
from fpsum.sweep import log_grid

from .contract import FigureFiles
from .html import static_fragment
from .input_lines import input_line, kind_inputs
from .looks import INPUT_LOOKS, Palette
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 4.4), narrow=(4.5, 5.6))
"""Inches; the narrow plot has its legend below it, in two columns."""
KINDS = ("uniform", "squares", "exp", "constant")


@dataclass(frozen=True)
class StagnationParams:
    """The format, the constant input, the length of the sums, the trials drawn and the n the page quotes."""

    format: str = "fp16"
    constant: float = 0.3
    n_max: int = 4000
    trials: int = 16
    seed: int = 0
    quote_n: int = 4000

    def __post_init__(self) -> None:
        get_format(self.format)
        if not 2 <= self.quote_n <= self.n_max or self.trials < 1 or not 0 < self.constant < 1:
            raise ValueError(f"invalid stagnation parameters: {self}")


def records() -> list[Record]:
    """The stagnation figure and its numbers."""
    return [Record("stagnation", StagnationParams(), build)]


def draw_inputs(params: StagnationParams, kind: str, n: int, trials: int | None = None) -> np.ndarray:
    """The inputs of one kind in the format: the model's seeded kinds, or the constant repeated."""
    return kind_inputs(kind, get_format(params.format), n, params.seed, params.constant, trials)


@dataclass(frozen=True)
class Curves:
    """Median over the trials, at each n of the grid, of the naive sum's relative error."""

    ns: np.ndarray
    error: dict[str, np.ndarray]


def compute(params: StagnationParams) -> Curves:
    """Relative error of the naive sum, per kind, on a log grid of n."""
    fmt = get_format(params.format)
    ns = log_grid(params.n_max, per_octave=4)
    error = {}
    for kind in KINDS:
        values = draw_inputs(params, kind, params.n_max, params.trials)
        naive = running_totals("naive", values, fmt)[:, ns - 1].astype(np.float64)
        exact = exact_running(values, ns)
        error[kind] = np.median(np.abs(naive - exact) / exact, axis=0)
    return Curves(ns=ns, error=error)


def draw(curves: Curves, params: StagnationParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fmt = get_format(params.format)
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    ns = curves.ns
    for kind in KINDS:
        label = INPUT_LOOKS[kind].label if kind != "constant" else f"constant {number(params.constant)}"
        error = np.where(curves.error[kind] > 0, curves.error[kind], np.nan)  # an exact sum has no place on a log axis
        input_line(ax, kind, ns, error, palette, label=label, zorder=3)
    ax.plot(ns, np.sqrt(ns) * fmt.unit_roundoff, color=palette.muted, lw=1, ls=":", label="√n·u")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(ns[0], ns[-1])
    ax.set_xlabel(f"n, number of inputs summed ({fmt.label}, naive)")
    ax.set_ylabel("relative error |ŝ − s| / s")
    ax.grid(True, color=palette.grid, lw=0.6)
    ax.axhline(fmt.unit_roundoff, color=palette.muted, lw=0.8, ls="--", label="u")
    if layout.narrow:  # below the plot: at a phone's text size the legend would cover the lines' left half
        fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside lower center", ncols=2,
                   handlelength=1.8, columnspacing=1.0, handletextpad=0.5)
    else:
        ax.legend(frameon=False, loc="upper left")
    return fig


def quoted(params: StagnationParams) -> dict[str, str | dict[str, str]]:
    """The numbers the page quotes, from one seeded run of ``quote_n`` inputs per kind."""
    fmt = get_format(params.format)
    n = params.quote_n
    numbers: dict[str, str | dict[str, str]] = {
        "n": number(n), "sqrt": significant(100 * math.sqrt(n) * fmt.unit_roundoff),
        "stall": number(fmt.stall_point), "constant_value": number(params.constant),
    }
    for kind in KINDS:
        values = draw_inputs(params, kind, n)
        exact = exact_total(values)
        naive = float(total("naive", values, fmt))
        ascending = float(total("naive", np.sort(values), fmt))
        partial = running_totals("naive", values, fmt).astype(np.float64)
        command = (f"yes {params.constant!r} | head -n {n} | fpsum sum --format {fmt.name} --method naive"
                   if kind == "constant" else f"fpsum race --format {fmt.name} --inputs {kind} --n {n}")
        numbers[kind] = {
            "command": command,
            "exact": number(exact),
            "naive": number(naive),
            "error": significant(100 * abs(naive - exact) / exact),
            "ascending": significant(100 * abs(ascending - exact) / exact),
            "largest": number(float(partial.max())),
        }
    return numbers


def build(figure_id: str, params: StagnationParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    curves = compute(params)
    files = render(lambda palette, layout: draw(curves, params, palette, layout), figure_id, SIZES)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["kind", "n", "trials", "median_relative_error"])
    for kind in KINDS:
        for j, n in enumerate(curves.ns.tolist()):
            writer.writerow([kind, n, params.trials, repr(float(curves.error[kind][j]))])
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    fmt = get_format(params.format)
    alt = (f"Log-log plot of the relative error of the naive {fmt.label} sum against n, median of "
           f"{params.trials} trials, for uniform inputs, squares of uniforms, exp(−3U) and the constant "
           f"{number(params.constant)}: the skewed and constant inputs reach errors of several per cent "
           f"long before the running sum reaches the stall point {number(fmt.stall_point)}, while the uniform "
           "inputs stay below √n·u.")
    caption = (f"Naive summation in {fmt.label} of four kinds of input of one sign: the median relative error "
               f"over {params.trials} seeded trials against n.")
    more = (f"Dotted: √n·u; dashed: the unit roundoff u. Every sum shown stays below the stall point "
            f"{number(fmt.stall_point)}.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=quoted(params))
