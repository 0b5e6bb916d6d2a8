"""The blocked-summation figure: relative error against block size, with the (b + n/b)u bound."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullFormatter

from fpsum.blocked import DEFAULT_BLOCK
from fpsum.exact import exact_running
from fpsum.formats import Format, get_format
from fpsum.inputs import make_inputs
from fpsum.methods import total

from .contract import FigureFiles
from .html import static_fragment
from .looks import LOOKS, Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 4.2), narrow=(4.5, 5.0))
"""Inches; the narrow plot labels every fourth power of two and stacks its legend in two columns."""


@dataclass(frozen=True)
class BlockedParams:
    """The format, the number of inputs, the trials and seed, and the model's default block size."""

    format: str = "fp16"
    n: int = 2**16
    trials: int = 16
    seed: int = 7
    default_block: int = DEFAULT_BLOCK

    def __post_init__(self) -> None:
        get_format(self.format)
        if self.n < 4 or self.trials < 1 or not 1 <= self.default_block <= self.n:
            raise ValueError(f"invalid blocked parameters: n={self.n}, trials={self.trials}, "
                             f"default_block={self.default_block}")

    @property
    def blocks(self) -> np.ndarray:
        """Every power of two from 1 to n."""
        return np.asarray(2 ** np.arange(self.n.bit_length()), dtype=np.int64)


def records() -> list[Record]:
    """The one blocked-summation figure."""
    return [Record("blocked", BlockedParams(), build)]


@dataclass(frozen=True)
class Result:
    """Relative errors of blocked summation per trial and block size, and of naive and pairwise per trial."""

    fmt: Format
    blocks: np.ndarray
    errors: np.ndarray  # (trials, len(blocks))
    naive: np.ndarray
    pairwise: np.ndarray


def _relative(totals: np.ndarray, exact: np.ndarray) -> np.ndarray:
    relative: np.ndarray = np.abs(totals.astype(np.float64) - exact) / np.abs(exact)
    return relative


def compute(params: BlockedParams) -> Result:
    """Blocked sums for every block size, and naive and pairwise sums, of the same seeded inputs."""
    fmt = get_format(params.format)
    values = make_inputs("uniform", params.n, fmt, params.seed, trials=params.trials)
    exact = exact_running(values, np.array([params.n]))[:, 0]
    errors = np.stack([_relative(total("blocked", values, fmt, block=int(b)), exact) for b in params.blocks],
                      axis=-1)
    return Result(fmt=fmt, blocks=params.blocks, errors=errors,
                  naive=_relative(total("naive", values, fmt), exact),
                  pairwise=_relative(total("pairwise", values, fmt), exact))


def bound(params: BlockedParams, fmt: Format, blocks: np.ndarray) -> np.ndarray:
    """First-order worst case of blocked summation, relative, for non-negative data: (b + n/b) u."""
    return (blocks + params.n / blocks) * fmt.unit_roundoff


def draw(result: Result, params: BlockedParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    low, mid, high = np.percentile(result.errors, [10, 50, 90], axis=0)
    ax.fill_between(result.blocks, low, high, color=LOOKS["blocked"].colour(palette), alpha=0.2, lw=0)
    method_line(ax, "blocked", result.blocks, mid, palette, markevery=1, ms=5,
                label=f"blocked, median of {params.trials}")
    ax.plot(result.blocks, bound(params, result.fmt, result.blocks), color=palette.muted, ls="--", lw=1,
            label="bound (b + n/b)u")
    for method, errors in (("naive", result.naive), ("pairwise", result.pairwise)):
        level = np.full(2, float(np.median(errors)))
        method_line(ax, method, result.blocks[[0, -1]], level, palette, marker=None,
                    label=f"{LOOKS[method].label} (median)")
    ax.axvline(np.sqrt(params.n), color=palette.muted, lw=0.8, ls=":")
    ax.annotate("b = √n", (np.sqrt(params.n), 0), xycoords=("data", "axes fraction"), xytext=(3, 4),
                textcoords="offset points", color=palette.muted)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    if layout.narrow:  # every fourth power of two labelled: eight labels of 2ⁿ do not fit across a phone
        ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, params.n.bit_length(), 4)]))
        ax.xaxis.set_minor_locator(FixedLocator([float(b) for b in result.blocks]))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"block size b ({number(params.n)} inputs)")
    ax.set_ylabel("relative error")
    ax.set_title(f"Blocked summation in {result.fmt.label}", fontsize="large")
    ax.grid(True, color=palette.grid, lw=0.6)
    # Below the plot: inside it, the naive and pairwise lines cross the whole width and the bound most of it.
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside lower center",
               ncols=2 if layout.narrow else 4)
    return fig


def build(figure_id: str, params: BlockedParams) -> Built:
    """The figure, its CSV and fragment, and its numbers (block sizes and median errors)."""
    result = compute(params)
    files = render(lambda palette, layout: draw(result, params, palette, layout), figure_id, SIZES)
    medians = np.median(result.errors, axis=0)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["block", "trials", "p10", "median", "p90", "bound"])
    low, high = np.percentile(result.errors, [10, 90], axis=0)
    bounds = bound(params, result.fmt, result.blocks)
    for j, b in enumerate(result.blocks.tolist()):
        writer.writerow([b, params.trials, repr(float(low[j])), repr(float(medians[j])), repr(float(high[j])),
                         repr(float(bounds[j]))])
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    best = int(np.argmin(medians))
    default = int(np.nonzero(result.blocks == params.default_block)[0][0])
    numbers = {
        "n": number(params.n),
        "trials": number(params.trials),
        "default_b": number(params.default_block),
        "default_error": significant(float(medians[default])),
        "best_b": number(int(result.blocks[best])),
        "best_error": significant(float(medians[best])),
        "naive_error": significant(float(np.median(result.naive))),
        "pairwise_error": significant(float(np.median(result.pairwise))),
        "bound_default": significant(float(bounds[default])),
    }
    alt = (f"Log-log plot of the relative error of blocked summation of {number(params.n)} uniform inputs in "
           f"{result.fmt.label} against the block size b: the median error is {numbers['naive_error']} "
           f"for naive summation, falls to {numbers['best_error']} at b = {numbers['best_b']} "
           f"(pairwise: {numbers['pairwise_error']}), and the bound (b + n/b)u is smallest at b = √n.")
    caption = (f"Relative error of blocked summation of {number(params.n)} uniform inputs in {result.fmt.label} "
               f"against the block size b: the median over {params.trials} trials.")
    more = ("Blocked summation sums naively within blocks of b inputs, then naively over the block sums. The line "
            "is the median, the shade the 10-90 % band; dashed: the first-order bound (b + n/b)u, smallest at "
            "b = √n (dotted), where the two terms are equal; horizontal lines: naive and pairwise summation of the "
            "same inputs.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers)
