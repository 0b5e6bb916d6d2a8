"""The block-outliers figure: one large value among 32 flushes its neighbours to zero.

Each trial is 32 standard normal values with the first replaced by an outlier of size R (the others
have a root mean square of 1); the figure shows, against R, the median share of the 31 others that
the block format stores as zero.  MX formats put all 32 in one block under one power-of-two scale;
NVFP4 puts them in two blocks of 16, each with an E4M3 scale, under the FP32 scale set by the outlier.

Numbers of record ``block-outliers``: ``trials``, ``size``, and per block format (``mxfp8``,
``mxfp6_e2m3``, ``mxfp4``, ``nvfp4``) ``label`` and the share flushed (per cent) at each quoted R
(``r64``, ``r4096``, ``r4194304``); and ``quoted``, those R.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fpsum.blocks import get_block_format, quantize

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import BLOCK_LOOKS, Palette
from .mpl_lines import look_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant, superscript
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 3.6), narrow=(4.5, 5.2))
"""Inches: one panel, the legend beside it on a desktop and below it on a phone."""
QUOTED = (64, 4096, 1 << 22)
"""The outlier sizes the page quotes."""


@dataclass(frozen=True)
class OutliersParams:
    """The block formats, the outlier sizes 2**0 .. 2**largest, the vector length, trials and seed."""

    formats: tuple[str, ...] = ("mxfp8", "mxfp6-e2m3", "mxfp4", "nvfp4")
    largest: int = 24
    size: int = 32
    trials: int = 400
    seed: int = 83

    def __post_init__(self) -> None:
        for name in self.formats:
            get_block_format(name)
        if self.size < 2 or self.trials < 1 or any(r > 2**self.largest for r in QUOTED):
            raise ValueError(f"invalid block-outliers parameters: {self}")

    @property
    def sizes(self) -> np.ndarray:
        """The outlier sizes R drawn: every power of two from 1 to 2**largest."""
        return np.exp2(np.arange(self.largest + 1, dtype=np.float64))


def records() -> list[Record]:
    """The one outliers figure."""
    return [Record("block-outliers", OutliersParams(), build)]


def flushed(params: OutliersParams) -> dict[str, np.ndarray]:
    """Per block format and outlier size, the median share of the other values stored as zero."""
    rng = np.random.default_rng(params.seed)
    others = rng.standard_normal((params.trials, params.size))
    out = {}
    for name in params.formats:
        fmt = get_block_format(name)
        shares = []
        for r in params.sizes.tolist():
            values = others.copy()
            values[:, 0] = r
            stored = quantize(values, fmt).values
            shares.append(float(np.median(np.mean(stored[:, 1:] == 0, axis=1))))
        out[name] = np.array(shares)
    return out


def draw(shares: dict[str, np.ndarray], params: OutliersParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    for name in params.formats:
        look_line(ax, name, BLOCK_LOOKS[name], params.sizes, 100 * shares[name], palette, markevery=2)
    ax.set_xscale("log", base=2)
    step = 4
    exponents = list(range(0, params.largest + 1, step))
    ax.set_xticks([2.0**k for k in exponents], [f"2{superscript(k)}" if k else "1" for k in exponents])
    ax.minorticks_off()
    ax.set_ylim(-3, 103)
    ax.set_xlabel("R, the outlier's size (the others: standard normal)")
    ax.set_ylabel("others stored as 0 (%)")
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    if layout.narrow:
        fig.legend(loc="outside lower center", ncols=1, frameon=False)
    else:
        fig.legend(loc="outside right center", ncols=1, frameon=False)
    return fig


def headline(shares: dict[str, np.ndarray], params: OutliersParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {"trials": number(params.trials), "size": number(params.size),
                                               "quoted": ", ".join(number(r) for r in QUOTED)}
    for name in params.formats:
        index = {r: int(np.log2(r)) for r in QUOTED}
        numbers[name.replace("-", "_")] = {"label": get_block_format(name).label,
                         **{f"r{r}": significant(100 * float(shares[name][i])) for r, i in index.items()}}
    return numbers


def csv_bytes(shares: dict[str, np.ndarray], params: OutliersParams) -> bytes:
    """Per block format and outlier size R: the median share of the other values stored as zero."""
    rows: list[list[object]] = [[name, repr(float(r)), params.size, params.trials, repr(float(shares[name][i]))]
                                for name in params.formats for i, r in enumerate(params.sizes.tolist())]
    return csv_file(["block_format", "outlier", "values", "trials", "median_share_flushed_to_zero"], rows)


def build(figure_id: str, params: OutliersParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    shares = flushed(params)
    files = render(lambda palette, layout: draw(shares, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(shares, params)
    labels = ", ".join(get_block_format(name).label for name in params.formats)
    alt = (f"Lines for {labels}: the share of {params.size - 1} standard normal values stored as zero when a "
           f"{params.size}th value of size R joins them, against R from 1 to 2{superscript(params.largest)} on a "
           "logarithmic axis. MXFP4's line rises first and reaches 100 %, MXFP6's and NVFP4's later, MXFP8's last.")
    caption = (f"One outlier among {params.size} values: the median share of the other {params.size - 1} that each "
               f"block format stores as zero, over {params.trials} seeded trials, against the outlier's size R.")
    more = ("The MX formats put all 32 values in one block under one power-of-two scale, set by the outlier. "
            "NVFP4 splits them into two blocks of 16, each with its own E4M3 scale, under an FP32 scale set by "
            "the outlier; once R is so large that the other block's scale falls below E4M3's smallest value, "
            "that block is stored as zeros too.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(shares, params))
