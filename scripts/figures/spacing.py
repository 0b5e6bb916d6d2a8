"""The spacing figure: the gap between neighbouring values against magnitude, with each stall point."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullFormatter

from fpsum.formats import Format, get_format

from .contract import FigureFiles
from .html import static_fragment
from .looks import Palette, format_colour
from .mpl_render import render
from .record import Built, Record
from .text import number
from .variants import Layout, Sizes

SIZES = Sizes(wide=(8.0, 4.8), narrow=(4.5, 5.6))
"""Inches; the narrow plot names each stall point in its legend, where the wide one has a top axis."""
# One dash per format, beside its colour (figures.looks.format_colour): distinct without colour too.
DASHES = {"fp16": "-", "bf16": "--", "fp32": "-.", "e4m3": ":", "e5m2": (0, (6, 2, 1, 2, 1, 2))}


@dataclass(frozen=True)
class SpacingParams:
    """The formats drawn and the binades shown (2**low_exponent to 2**high_exponent)."""

    formats: tuple[str, ...] = ("fp16", "bf16", "fp32", "e4m3", "e5m2")
    low_exponent: int = -12
    high_exponent: int = 30

    def __post_init__(self) -> None:
        for name in self.formats:
            get_format(name)
        if self.low_exponent >= self.high_exponent:
            raise ValueError("the spacing figure needs low_exponent < high_exponent")


def records() -> list[Record]:
    """The one spacing figure."""
    return [Record("spacing", SpacingParams(), build)]


def binades(fmt: Format, params: SpacingParams) -> tuple[np.ndarray, np.ndarray]:
    """Start of each binade 2**e in range and the gap (ulp) inside it, up to the largest finite value."""
    top = min(params.high_exponent, fmt.emax)
    exponents = np.arange(params.low_exponent, top + 1)
    starts = 2.0 ** exponents
    gaps = np.array([fmt.ulp(float(s)) for s in starts])
    return starts, gaps


def draw(params: SpacingParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it.

    Each format's stall point is a dot where its staircase meets gap 2, and a
    tick in its colour on the top axis, with the number: beside the dots the
    staircases, a binade or three apart, leave no room for a label.  A narrow
    plot has no room on the top axis either (FP8's stall points are a binade
    apart): its legend gives each format's stall point.
    """
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    stalls: list[tuple[float, str]] = []
    for name in params.formats:
        fmt = get_format(name)
        starts, gaps = binades(fmt, params)
        colour, dash = format_colour(name, palette), DASHES[name]
        end = min(fmt.max_finite, 2.0 ** (params.high_exponent + 1))
        named = f"{fmt.label}, stalls at {number(fmt.stall_point)}" if layout.narrow else fmt.label
        ax.step(np.append(starts, end), np.append(gaps, gaps[-1]), where="post", color=colour, ls=dash, lw=2,
                label=named)
        ax.plot([fmt.stall_point], [fmt.ulp(fmt.stall_point)], marker="o", ms=7, color=colour, zorder=4)
        stalls.append((fmt.stall_point, colour))
    ax.set_ylim(ax.get_ylim())  # the staircases' range, before the guides below reach the top
    for x, colour in stalls if not layout.narrow else []:  # from each stall point up to its tick on the top axis
        ax.plot([x, x], [2, ax.get_ylim()[1]], color=colour, lw=0.8, ls=":", alpha=0.8, zorder=1)
    # A narrow plot names the line in its legend: a label on it would cross the staircases.
    said = "gap 2: inputs in [0, 1) are lost"
    ax.axhline(2, color=palette.muted, lw=1, ls=":", label=said if layout.narrow else None)
    if not layout.narrow:  # short: it must end before the first stall's guide (FP8 E5M2's, at 8)
        ax.annotate(said, (2.0 ** params.low_exponent, 2), xytext=(2, 4), textcoords="offset points",
                    color=palette.muted)
    ax.set_xlim(2.0 ** params.low_exponent, 2.0 ** (params.high_exponent + 1))
    ax.xaxis.set_major_locator(FixedLocator(_powers(ax.get_xlim(), 4)))
    ax.xaxis.set_minor_locator(FixedLocator(_powers(ax.get_xlim(), 1)))
    ax.yaxis.set_major_locator(FixedLocator(_powers(ax.get_ylim(), 8)))
    ax.yaxis.set_minor_locator(FixedLocator(_powers(ax.get_ylim(), 2)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("magnitude |x|")
    ax.set_ylabel("gap to the next value, ulp(x)")
    ax.grid(True, color=palette.grid, lw=0.6)
    if layout.narrow:
        fig.legend(loc="outside lower center", frameon=False, ncols=1)
        return fig
    ax.legend(frameon=False, loc="upper left")
    top = ax.secondary_xaxis("top")
    top.set_xticks([x for x, _ in stalls], [number(x) for x, _ in stalls])
    top.set_xlabel("stall point: the gap reaches 2", color=palette.text)
    top.tick_params(colors=palette.axis)
    top.spines["top"].set_color(palette.axis)
    for label, (_, colour) in zip(top.get_xticklabels(), stalls):
        label.set_color(colour)
    return fig


def _powers(limits: tuple[float, float], step: int) -> list[float]:
    """The powers of two within ``limits`` whose exponent is a multiple of ``step``."""
    low, high = (int(np.ceil(np.log2(min(limits)) / step)), int(np.floor(np.log2(max(limits)) / step)))
    return [2.0 ** (k * step) for k in range(low, high + 1)]


def build(figure_id: str, params: SpacingParams) -> Built:
    """The figure, its CSV and its fragment (no numbers)."""
    files = render(lambda palette, layout: draw(params, palette, layout), figure_id, SIZES)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "binade_start", "ulp", "stall_point"])
    for name in params.formats:
        fmt = get_format(name)
        for start, gap in zip(*binades(fmt, params)):
            writer.writerow([name, repr(float(start)), repr(float(gap)), repr(fmt.stall_point)])
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    stalls = "; ".join(f"{get_format(n).label} at {number(get_format(n).stall_point)}"
                       for n in params.formats)
    alt = ("Log-log step plot of the gap between neighbouring values against magnitude for each format: the gap "
           "doubles at every power of two, and each format reaches a gap of 2, where inputs below 1 stop "
           f"counting, at its stall point: {stalls}.")
    caption = ("The gap between neighbouring representable values (ulp) against magnitude: constant within a "
               "binade, doubling at each power of two.")
    more = ("Dots: where the gap reaches 2, the stall point of a running sum of inputs in [0, 1), each read off "
            "on the top axis (on a phone, in the legend).")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files)
