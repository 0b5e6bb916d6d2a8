"""The spacing figure: the gap between neighbouring values against magnitude, with each stall point."""

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
from .style import Palette
from .text import number

FIGURE_ID = "spacing"
STEM = f"figures/{FIGURE_ID}"
SIZE = (8.0, 4.8)
# One look per format: colour (light, dark) and dash, distinct without colour too.
LOOKS = {
    "fp16": (("#c62828", "#ff8a80"), "-"),
    "bf16": (("#1565c0", "#82b1ff"), "--"),
    "fp32": (("#2e7d32", "#81c784"), "-."),
    "e4m3": (("#6a1b9a", "#ce93d8"), ":"),
    "e5m2": (("#e65100", "#ffb74d"), (0, (6, 2, 1, 2, 1, 2))),
}


@dataclass(frozen=True)
class SpacingParams:
    formats: tuple[str, ...] = ("fp16", "bf16", "fp32", "e4m3", "e5m2")
    low_exponent: int = -12
    high_exponent: int = 30

    def __post_init__(self) -> None:
        for name in self.formats:
            fpsum.get_format(name)
        if self.low_exponent >= self.high_exponent:
            raise ValueError("the spacing figure needs low_exponent < high_exponent")


def binades(fmt: fpsum.Format, params: SpacingParams) -> tuple[np.ndarray, np.ndarray]:
    """Start of each binade 2**e in range and the gap (ulp) inside it, up to the largest finite value."""
    top = min(params.high_exponent, fmt.emax)
    exponents = np.arange(params.low_exponent, top + 1)
    starts = 2.0 ** exponents
    gaps = np.array([fmt.ulp(float(s)) for s in starts])
    return starts, gaps


def draw(params: SpacingParams, palette: Palette) -> Figure:
    fig, ax = plt.subplots(figsize=SIZE, layout="constrained")
    for name in params.formats:
        fmt = fpsum.get_format(name)
        starts, gaps = binades(fmt, params)
        colours, dash = LOOKS[name]
        colour = colours[palette.index]
        end = min(fmt.max_finite, 2.0 ** (params.high_exponent + 1))
        ax.step(np.append(starts, end), np.append(gaps, gaps[-1]), where="post", color=colour, ls=dash, lw=2,
                label=fmt.label)
        ax.plot([fmt.stall_point], [fmt.ulp(fmt.stall_point)], marker="o", ms=7, color=colour, zorder=4)
        ax.annotate(f"{number(fmt.stall_point)}", (fmt.stall_point, fmt.ulp(fmt.stall_point)), xytext=(-4, 6),
                    textcoords="offset points", ha="right", fontsize=8, color=colour)
    ax.axhline(2, color=palette.muted, lw=1, ls=":")
    ax.annotate("gap 2: every input in [0, 1) is lost (stall)", (2.0 ** params.low_exponent, 2), xytext=(2, 4),
                textcoords="offset points", fontsize=8, color=palette.muted)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlim(2.0 ** params.low_exponent, 2.0 ** (params.high_exponent + 1))
    ax.set_xlabel("magnitude |x|")
    ax.set_ylabel("gap to the next value, ulp(x)")
    ax.grid(True, color=palette.grid, lw=0.6)
    ax.legend(frameon=False, loc="upper left", fontsize=9)
    return fig


def build(params: SpacingParams) -> Built:
    files = render(lambda palette: draw(params, palette), STEM)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "binade_start", "ulp", "stall_point"])
    for name in params.formats:
        fmt = fpsum.get_format(name)
        for start, gap in zip(*binades(fmt, params)):
            writer.writerow([name, repr(float(start)), repr(float(gap)), repr(fmt.stall_point)])
    files[f"{STEM}.csv"] = out.getvalue().encode()
    stalls = "; ".join(f"{fpsum.get_format(n).label} at {number(fpsum.get_format(n).stall_point)}"
                       for n in params.formats)
    alt = ("Log-log step plot of the gap between neighbouring values against magnitude for each format: the gap "
           "doubles at every power of two, and each format reaches a gap of 2, where inputs below 1 stop "
           f"counting, at its stall point: {stalls}.")
    caption = ("The gap between neighbouring representable values (ulp) against magnitude: constant within a "
               "binade, doubling at each power of two. Dots: where the gap reaches 2, the stall point of a "
               "running sum of inputs in [0, 1). ")
    files |= static_fragment(FIGURE_ID, STEM, SIZE, alt, caption)
    return Built(files=files)
