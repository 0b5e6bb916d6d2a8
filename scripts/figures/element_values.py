"""The element-values figure: every positive value of FP4, FP6 and FP8 on one axis; where FP4 and FP6 sums stall.

Numbers of record ``element-values``, per format (``e2m1``, ``e2m3``,
``e3m2``, ``e4m3``, ``e5m2``): ``label``, ``count`` (positive values),
``smallest`` and ``largest``; and, for the FP4 and FP6 formats, the naive
running sum of ``n`` seeded uniform [0, 1) inputs (``fpsum race``):
``stall`` (the value it stops at), ``stalled_after`` (inputs until then)
and ``exact`` (the exact total), and ``command``, the ``fpsum
race`` command that prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fpsum.formats import Format, get_format
from fpsum.race import run_race

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette, format_colour
from .mpl_render import render
from .record import Built, Record
from .text import number, superscript
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 2.9), narrow=(4.5, 4.2))
"""Inches: five rows of values under one axis; on a phone the same, taller, with fewer ticks."""
SMALL = ("e2m1", "e2m3", "e3m2")
"""The formats whose running sum the page follows: FP4 and FP6."""


@dataclass(frozen=True)
class ValuesParams:
    """The formats drawn (narrowest first), and the running sums' length and seed."""

    formats: tuple[str, ...] = ("e2m1", "e2m3", "e3m2", "e4m3", "e5m2")
    n: int = 64
    seed: int = 0

    def __post_init__(self) -> None:
        for name in self.formats:
            get_format(name)
        if self.n < 2:
            raise ValueError(f"invalid element-values parameters: {self}")


def records() -> list[Record]:
    """The one figure of element values."""
    return [Record("element-values", ValuesParams(), build)]


def positive_values(fmt: Format) -> np.ndarray:
    """Every positive finite value of ``fmt``, ascending, read off its codes."""
    codes = np.arange(1 << fmt.bits, dtype=np.uint64).astype(np.uint8 if fmt.bits <= 8 else np.uint16)
    values = codes.view(fmt.dtype).astype(np.float64)
    return np.unique(values[np.isfinite(values) & (values > 0)])


def draw(params: ValuesParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    formats = [get_format(name) for name in params.formats]
    for row, fmt in enumerate(formats):
        values = positive_values(fmt)
        ax.vlines(values, row - 0.32, row + 0.32, color=format_colour(fmt.name, palette), lw=1.2)
    ax.set_xscale("log", base=2)
    low = min(int(np.floor(np.log2(positive_values(f)[0]))) for f in formats)
    high = max(int(np.ceil(np.log2(f.max_finite))) for f in formats)
    step = 8 if layout.narrow else 4
    ticks = [k for k in range(low - low % step, high + 1, step)]
    ax.set_xticks([2.0**k for k in ticks], [f"2{superscript(k)}" if k else "1" for k in ticks])
    ax.minorticks_off()
    ax.set_xlim(2.0 ** (low - 0.5), 2.0 ** (high + 0.5))
    ax.set_yticks(range(len(formats)), [f.label.replace("FP8 ", "FP8\n") if layout.narrow else f.label
                                        for f in formats])
    ax.set_ylim(-0.6, len(formats) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("value (positive side; each mark is one value)")
    ax.grid(True, axis="x", color=palette.grid, lw=0.6)
    return fig


def running_sums(params: ValuesParams) -> dict[str, dict[str, str]]:
    """The naive running sum of seeded uniform inputs in each FP4 and FP6 format, from ``fpsum race``."""
    out = {}
    for name in SMALL:
        fmt = get_format(name)
        race = run_race(fmt, "uniform", n=params.n, seed=params.seed, samples=2, methods=("naive",))
        stalled = race.stalls["naive"]
        out[name] = {
            "stall": number(race.final["naive"]),
            "stalled_after": "never" if stalled is None else number(stalled), "exact": number(race.exact_final, 2),
            "command": f"fpsum race --format {name} --inputs uniform --n {params.n} --seed {params.seed}",
        }
    return out


def headline(params: ValuesParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    sums = running_sums(params)
    numbers: dict[str, NestedNumbers | str] = {"n": number(params.n)}
    for name in params.formats:
        fmt = get_format(name)
        values = positive_values(fmt)
        smallest = int(np.log2(values[0]))  # every format's smallest value is a power of two
        numbers[name] = {"label": fmt.label, "count": number(values.size), "smallest": f"2{superscript(smallest)}",
                         "largest": number(values[-1]), **sums.get(name, {})}
    return numbers


def csv_bytes(params: ValuesParams) -> bytes:
    """Every positive value of each format, one a row."""
    rows: list[list[object]] = [[get_format(name).label, repr(float(v))]
                                for name in params.formats for v in positive_values(get_format(name))]
    return csv_file(["format", "value"], rows)


def build(figure_id: str, params: ValuesParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    files = render(lambda palette, layout: draw(params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(params)
    labels = ", ".join(get_format(name).label for name in params.formats)
    alt = (f"Rows of short vertical marks, one row per format ({labels}), one mark per positive value, on a "
           "logarithmic axis of powers of two: FP4 has 7 marks between 0.5 and 6, the FP8 formats hundreds spread "
           "over many more binades, and in every row the marks thin out towards larger values.")
    caption = ("Every positive value of the FP4, FP6 and FP8 element formats, on one logarithmic axis: "
               "the narrower the format, the fewer values and the shorter its range.")
    more = ("Each format also has zero and the negatives of these values. FP4 E2M1, FP6 E2M3 and E3M2 have no "
            "infinity and no NaN; FP8 E4M3 has NaN and E5M2 infinities. In each binade the values are evenly "
            "spaced, so on a logarithmic axis they bunch towards the top of the binade.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(params))
