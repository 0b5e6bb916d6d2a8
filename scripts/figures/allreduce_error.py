"""The all-reduce figure: relative error of one element's all-reduce in BF16 against the number of ranks N.

For each N, ``trials`` elements, each with one gradient-like value per rank:
normal with mean 0 and standard deviation ``sd`` (seeded), rounded to BF16.
Element i lies in the ring's chunk i mod N.  Each element is reduced
(:func:`fpsum.allreduce.reduce_ranks`) by the ring, the tree and the switch
in BF16, by the all-to-all with a BF16 wire and an FP32 sum, and by the ring
with the same values held and sent in FP32 (``ringwide``).  The ring with a
BF16 wire and FP32 accumulation (``ringacc``) is computed too, and compared
bit for bit with the plain BF16 ring.  The error is against the exact sum of
the values as sent (BF16, or FP32 for ``ringwide``): the median over the
elements (an element whose exact sum is 0 counts 0 if met exactly).

Each line's growth with N is measured: the least-squares slope of log error
against log N over every N drawn.  Megatron-LM#6199 says the ring's error
grows as √N, a slope of 1/2.

Numbers of record ``allreduce-error``: ``trials``, ``sd`` (the values'
standard deviation), ``n_min``, ``n_max``, ``counts`` (how many N);
per line key (``ring``, ``tree``, ``alltoall``, ``switch``, ``ringwide``,
``ringacc``): ``slope`` (two decimals), ``first`` and ``last`` (the median
error at ``n_min`` and ``n_max``, per cent) and ``growth`` (last over
first, one decimal); ``ringacc.same`` (the share of the elements, over
every N, on which it gives the plain BF16 ring's bits, per cent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from fpsum.allreduce import reduce_ranks
from fpsum.array_rounding import to_format
from fpsum.formats import BF16, FP32

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import decade_tick, number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 4.8), narrow=(4.5, 6.8))
"""Inches; the legend sits below the plot."""
DRAWN = ("ring", "tree", "alltoall", "switch", "ringwide")
"""The lines drawn, each in its look; ``ringacc`` lies on the ring's and is quoted, not drawn."""
LINES = (*DRAWN, "ringacc")
SETUP = {"ring": ("bf16", "bf16"), "tree": ("bf16", "bf16"), "alltoall": ("bf16", "fp32"),
         "switch": ("bf16", "exact"), "ringwide": ("fp32", "fp32"), "ringacc": ("bf16", "fp32")}
"""Each line's wire format and accumulation format, as the CSV names them."""


@dataclass(frozen=True)
class AllreduceErrorParams:
    """The rank counts, elements per count, seed, and the values' standard deviation."""

    ns: tuple[int, ...] = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
    trials: int = 2048
    seed: int = 0
    sd: float = 1e-3

    def __post_init__(self) -> None:
        if min(self.ns) < 2 or list(self.ns) != sorted(set(self.ns)) or self.trials < 16 or not self.sd > 0:
            raise ValueError(f"invalid all-reduce parameters: {self}")


def records() -> list[Record]:
    """The one all-reduce figure."""
    return [Record("allreduce-error", AllreduceErrorParams(), build)]


def rank_values(n: int, params: AllreduceErrorParams) -> np.ndarray:
    """``trials`` elements of ``n`` values normal(0, sd), as float64 (seeded by N, so each N has its own draw)."""
    rng = np.random.default_rng([params.seed, n])
    return np.asarray(rng.normal(0.0, params.sd, (params.trials, n)))


def reduced(n: int, params: AllreduceErrorParams) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Per line, each element's all-reduced value and the exact sum of its values as sent (float64 both)."""
    wide = rank_values(n, params)
    bf16 = to_format(wide, BF16)
    fp32 = to_format(wide, FP32)
    chunks = np.arange(params.trials) % n
    held = bf16.astype(BF16.dtype)
    out = {
        "ring": reduce_ranks(held, "ring", BF16, chunk=chunks),
        "tree": reduce_ranks(held, "tree", BF16),
        "alltoall": reduce_ranks(held, "alltoall", BF16, FP32),
        "switch": reduce_ranks(held, "switch", BF16),
        "ringwide": reduce_ranks(fp32.astype(FP32.dtype), "ring", FP32, chunk=chunks),
        "ringacc": reduce_ranks(held, "ring", BF16, FP32, chunk=chunks),
    }
    exact_bf16 = np.array([math.fsum(row) for row in bf16.tolist()])
    exact_fp32 = np.array([math.fsum(row) for row in fp32.tolist()])
    exact = {line: exact_fp32 if line == "ringwide" else exact_bf16 for line in LINES}
    return {line: v.astype(np.float64) for line, v in out.items()}, exact


def relative_errors(results: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|result - exact| / |exact| per element; 0 where both are 0, inf for an error on an exact 0."""
    error = np.abs(results - exact)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(exact == 0, np.where(error == 0, 0.0, np.inf), error / np.abs(exact))


@dataclass(frozen=True)
class Sweep:
    """Per line, the median relative error at each N; and how many elements the two BF16 rings gave alike."""

    ns: np.ndarray
    medians: dict[str, np.ndarray]
    same: int
    elements: int


def compute(params: AllreduceErrorParams) -> Sweep:
    """The medians over the elements at each N, for every line."""
    medians: dict[str, list[float]] = {line: [] for line in LINES}
    same = 0
    for n in params.ns:
        results, exact = reduced(n, params)
        for line in LINES:
            medians[line].append(float(np.median(relative_errors(results[line], exact[line]))))
        same += int(np.sum(results["ring"] == results["ringacc"]))
    return Sweep(np.array(params.ns, dtype=np.float64), {k: np.array(v) for k, v in medians.items()}, same,
                 params.trials * len(params.ns))


def slope(sweep: Sweep, line: str) -> float:
    """The least-squares slope of log median error against log N over every N drawn."""
    return float(np.polyfit(np.log(sweep.ns), np.log(sweep.medians[line]), 1)[0])


def draw(sweep: Sweep, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    ns = sweep.ns
    guide = sweep.medians["ring"][-1] * np.sqrt(ns / ns[-1])
    ax.plot(ns, guide, color=palette.muted, lw=1.0, ls=":", zorder=1, label="∝ √N, through the ring's last point")
    for line in DRAWN:
        method_line(ax, line, ns, sweep.medians[line], palette, zorder=3)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(ns[0], ns[-1])
    ax.set_ylim(1e-9, 1e-1)
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    top = round(math.log2(ns[-1]))
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(1, top + 1, 3 if layout.narrow else 1)]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}"))
    ax.yaxis.set_major_locator(FixedLocator([10.0**d for d in range(-9, 0, 2)]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(decade_tick))
    ax.set_xlabel("N, the number of ranks")
    ax.set_ylabel("median relative error of the sum")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside lower center",
               ncols=1 if layout.narrow else 2)
    return fig


def numbers(sweep: Sweep, params: AllreduceErrorParams) -> NestedNumbers:
    """What the page quotes (see the module docstring)."""
    out: dict[str, NestedNumbers | str] = {
        "trials": number(params.trials), "sd": f"{params.sd:g}".replace("e-0", "e-"),
        "n_min": number(params.ns[0]), "n_max": number(params.ns[-1]), "counts": number(len(params.ns)),
    }
    for line in LINES:
        medians = sweep.medians[line]
        out[line] = {"slope": f"{slope(sweep, line):.2f}", "first": significant(100 * float(medians[0])),
                     "last": significant(100 * float(medians[-1])),
                     "growth": number(float(medians[-1] / medians[0]), 1)}
    ringacc = out["ringacc"]
    assert isinstance(ringacc, dict)
    ringacc["same"] = number(100 * sweep.same / sweep.elements, 2)
    return out


def build(figure_id: str, params: AllreduceErrorParams) -> Built:
    """The figure, its CSV and fragment, and the measured slopes."""
    sweep = compute(params)
    files = render(lambda palette, layout: draw(sweep, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_file(
        ["line", "wire", "accumulate", "n", "elements", "median_rel_error"],
        [[line, *SETUP[line], int(n), params.trials, repr(float(m))]
         for line in LINES for n, m in zip(sweep.ns.tolist(), sweep.medians[line].tolist())])
    alt = (f"Log-log plot of the median relative error of an all-reduce against the number of ranks, from "
           f"{params.ns[0]} to {number(params.ns[-1])}. The BF16 ring's error climbs along a grey √N guide; the "
           "tree's climbs far more slowly; the all-to-all with an FP32 sum and the switch stay flat at one BF16 "
           "rounding; the ring with FP32 on the wire climbs like the BF16 ring, tens of thousands of times "
           "lower.")
    caption = (f"One element's all-reduce over N ranks, each rank's value normal with mean 0 and standard "
               f"deviation {params.sd:g}, rounded to BF16: median relative error over {number(params.trials)} "
               "seeded elements, against N.")
    more = ("Ring, tree and switch send and add in BF16; the all-to-all sends BF16 and sums in FP32, rounding "
            "once; the ring with FP32 on the wire holds, sends and adds the same draws rounded to FP32 instead. "
            "The error is against the exact sum of the values as sent. The ring with a BF16 wire and FP32 "
            "accumulation is not drawn: it lies on the BF16 ring's line. Element i lies in chunk i mod N.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers(sweep, params))
