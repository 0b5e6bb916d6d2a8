"""The micro-batch figure: relative error of a gradient accumulated over k micro-batches, in BF16 and in FP32.

Each of ``trials`` weights has one gradient per micro-batch: normal with
mean ``mean`` and standard deviation ``sd`` (seeded; a gradient that points
the same way in every micro-batch, plus noise), rounded to BF16, as a BF16
backward pass gives it.  The first k are summed left to right, every
addition rounded to the accumulation format
(:func:`fpsum.training_sums.accumulate_microbatches`), for k from 1 to
``k_max`` (powers of √2, rounded).  The error is against the exact sum of the
same BF16 gradients: the median over the weights.

Numbers of record ``microbatch-error``: ``trials``, ``mean``, ``sd``,
``k_max``; ``low.k`` and ``high.k`` (16 and 256); per accumulation format (``bf16``, ``fp32``) ``at16``, ``at256``
and ``last`` (the median error at k = 16, 256 and ``k_max``, per cent);
``fp32.exact_to`` (the largest k up to which the FP32 median error is 0) and
``bf16.percent_at`` (the first k drawn at which the BF16 median error
reaches 1 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from fpsum.array_rounding import to_format
from fpsum.formats import BF16, FP32, Format
from fpsum.training_sums import accumulate_microbatches

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import decade_tick, number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 4.4), narrow=(4.5, 5.8))
"""Inches; the legend sits below the plot."""
WAYS = {"bf16": ("naive", "accumulated in BF16"), "fp32": ("wide", "accumulated in FP32")}
"""Each accumulation format: its look (the naive sum's for BF16, the wide one's for FP32) and its label."""
QUOTED = (16, 256)


@dataclass(frozen=True)
class MicrobatchErrorParams:
    """Weights, seed, the gradients' mean and spread, and the largest number of micro-batches (a power of two)."""

    trials: int = 1024
    seed: int = 0
    mean: float = 1e-3
    sd: float = 1e-3
    k_max: int = 1024

    def __post_init__(self) -> None:
        if self.trials < 16 or not self.sd > 0 or self.k_max < 256 or self.k_max & (self.k_max - 1):
            raise ValueError(f"invalid micro-batch parameters: {self}")

    def ks(self) -> np.ndarray:
        """1 to ``k_max`` in powers of √2, rounded to whole numbers."""
        top = round(math.log2(self.k_max))
        return np.unique(np.round(2.0 ** (np.arange(2 * top + 1) / 2)).astype(np.int64))


def records() -> list[Record]:
    """The one micro-batch figure."""
    return [Record("microbatch-error", MicrobatchErrorParams(), build)]


def gradients(params: MicrobatchErrorParams) -> np.ndarray:
    """``trials`` weights by ``k_max`` micro-batches of gradients rounded to BF16, as float64."""
    rng = np.random.default_rng(params.seed)
    return np.asarray(to_format(rng.normal(params.mean, params.sd, (params.trials, params.k_max)), BF16))


def median_error(grads: np.ndarray, fmt: Format) -> float:
    """The median relative error of the accumulated gradient (every row has a nonzero exact sum here)."""
    exact = np.array([math.fsum(row) for row in grads.tolist()])
    total = accumulate_microbatches(grads.astype(fmt.dtype), fmt).astype(np.float64)
    return float(np.median(np.abs(total - exact) / np.abs(exact)))


def compute(params: MicrobatchErrorParams) -> dict[str, np.ndarray]:
    """Per accumulation format, the median error at each k."""
    grads = gradients(params)
    formats = {"bf16": BF16, "fp32": FP32}
    return {name: np.array([median_error(grads[:, :k], fmt) for k in params.ks().tolist()])
            for name, fmt in formats.items()}


def draw(medians: dict[str, np.ndarray], params: MicrobatchErrorParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it (errors of 0 are not drawn)."""
    ks = params.ks()
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    for name, (look, label) in WAYS.items():
        method_line(ax, look, ks, np.where(medians[name] > 0, medians[name], np.nan), palette, zorder=3,
                    label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(1, ks[-1])
    ax.set_ylim(1e-9, 1.0)
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    top = round(math.log2(ks[-1]))
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, top + 1, 2)]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}"))
    ax.yaxis.set_major_locator(FixedLocator([10.0**d for d in range(-9, 1, 3 if layout.narrow else 1)]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(decade_tick))
    ax.set_xlabel("k, the number of micro-batches")
    ax.set_ylabel("median relative error of the gradient")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside lower center",
               ncols=1 if layout.narrow else 2)
    return fig


def numbers(medians: dict[str, np.ndarray], params: MicrobatchErrorParams) -> NestedNumbers:
    """What the page quotes (see the module docstring)."""
    ks = params.ks()
    out: dict[str, NestedNumbers | str] = {
        "trials": number(params.trials), "mean": f"{params.mean:g}".replace("e-0", "e-"),
        "sd": f"{params.sd:g}".replace("e-0", "e-"), "k_max": number(params.k_max),
    }
    for name in WAYS:
        entry: dict[str, NestedNumbers | str] = {
            f"at{k}": significant(100 * float(medians[name][int(np.nonzero(ks == k)[0][0])])) for k in QUOTED}
        entry["last"] = significant(100 * float(medians[name][-1]))
        out[name] = entry
    out |= {"low": {"k": number(QUOTED[0])}, "high": {"k": number(QUOTED[1])}}
    fp32, bf16 = out["fp32"], out["bf16"]
    assert isinstance(fp32, dict) and isinstance(bf16, dict)
    nonzero = np.nonzero(medians["fp32"] > 0)[0]
    fp32["exact_to"] = number(int(ks[nonzero[0] - 1]) if nonzero.size else params.k_max)
    percent = np.nonzero(medians["bf16"] >= 0.01)[0]
    bf16["percent_at"] = number(int(ks[percent[0]])) if percent.size else "none"
    return out


def build(figure_id: str, params: MicrobatchErrorParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    medians = compute(params)
    files = render(lambda palette, layout: draw(medians, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_file(
        ["accumulate", "k", "weights", "median_rel_error"],
        [[name, int(k), params.trials, repr(float(m))] for name in WAYS
         for k, m in zip(params.ks().tolist(), medians[name].tolist())])
    alt = (f"Log-log plot of the median relative error of a gradient accumulated over k micro-batches, k from 1 "
           f"to {number(params.k_max)}. Accumulated in BF16 the error climbs steadily and then steeply once the "
           "sum outgrows the gradients; accumulated in FP32 it is zero at first and stays millions of times "
           "smaller.")
    caption = (f"A gradient accumulated over k micro-batches, each micro-batch's gradient normal with mean "
               f"{params.mean:g} and standard deviation {params.sd:g}, rounded to BF16: median relative error over "
               f"{number(params.trials)} seeded weights, against k.")
    more = ("The error is against the exact sum of the same BF16 gradients. An error of 0 is not drawn on the "
            "log scale: the FP32 line starts where its median error is first above 0.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers(medians, params))
