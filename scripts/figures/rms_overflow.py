"""The RMSNorm figure: the FP16 sum of squares overflows, and a power-of-two prescale keeps it finite.

Rows of ``n`` FP16 inputs σ × z (z seeded standard normal), σ a power of √2
from ``2**sigma_low`` to ``2**sigma_high``.  RMSNorm's scale 1 / √(mean
square + eps) is computed three ways (:func:`fpsum.rms.rms`): every
operation in FP16; in FP16 after multiplying each row by the power of two c
that brings its largest magnitude into (1/2, 1] (the kernel's prescale; the
scale is then that of the scaled inputs); and in FP32.  The error is the
relative error of the scale against the exact one of the same inputs, median
over the rows; a scale of 0 (the mean square overflowed) has error 1.

Numbers of record ``rms-overflow``: ``n``, ``trials``, ``eps``, ``fp16_max`` (FP16's largest value);
``overflow_sigma`` (the first σ at which the FP16 median error is 100 %)
and ``overflow_sum`` (n σ² there, the exact sum of squares it stands for);
per way (``naive``, ``prescaled``, ``wide``) ``worst`` (the largest median
error over the σ drawn, per cent); and ``case``: eight inputs of ``value``,
their FP16 ``scale``, ``mean_square``, the prescale ``c`` and the prescaled
``scaled`` scale with its ``exact`` value and ``error`` (per cent), and
``command``, the ``fpsum sum`` line that shows the squares' sum overflow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from fpsum.array_rounding import to_format
from fpsum.formats import FP16, FP32
from fpsum.rms import rms

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant, superscript
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 4.4), narrow=(4.5, 5.8))
"""Inches; the narrow plot has its legend below it."""
WAYS = ("naive", "prescaled", "wide")
LABELS = {"naive": "FP16, as it is", "prescaled": "FP16, prescaled by a power of two", "wide": "FP32 accumulator"}
"""The legend's words: the FP16 sum of squares in the naive method's look, FP32 in the wide method's."""


@dataclass(frozen=True)
class RmsOverflowParams:
    """Row length, rows per σ, seed, eps, the σ range as powers of two, and the overflow case."""

    n: int = 1024
    trials: int = 16
    seed: int = 0
    eps: float = 1e-6
    sigma_low: int = -8
    sigma_high: int = 8
    case_value: float = 200.0
    case_n: int = 8

    def __post_init__(self) -> None:
        if self.n < 2 or self.trials < 1 or self.sigma_low >= self.sigma_high or self.case_n < 1:
            raise ValueError(f"invalid RMSNorm parameters: {self}")

    def sigmas(self) -> np.ndarray:
        """Powers of √2 from 2**sigma_low to 2**sigma_high."""
        return np.asarray(2.0 ** (np.arange(2 * self.sigma_low, 2 * self.sigma_high + 1) / 2))


def records() -> list[Record]:
    """The one RMSNorm figure."""
    return [Record("rms-overflow", RmsOverflowParams(), build)]


def prescale(row: np.ndarray) -> float:
    """The power of two c with c · max|x| in (1/2, 1]: exact, and it keeps every square at most 1 (1 for a zero row)."""
    top = float(np.max(np.abs(row)))
    return 1.0 if top == 0 else 2.0 ** -math.ceil(math.log2(top))


def scale_error(row: np.ndarray, way: str, eps: float) -> float:
    """The relative error of the scale of one row of FP16 values, computed ``way``."""
    if way == "wide":
        return rms(row, FP16, FP32, eps).scale_rel_error
    c = prescale(row) if way == "prescaled" else 1.0
    return rms(row, FP16, FP16, eps, prescale=c).scale_rel_error


def compute(params: RmsOverflowParams) -> dict[str, np.ndarray]:
    """Per way, the median scale error at each σ."""
    z = np.random.default_rng(params.seed).standard_normal((params.trials, params.n))
    medians: dict[str, list[float]] = {w: [] for w in WAYS}
    for sigma in params.sigmas().tolist():
        rows = to_format(sigma * z, FP16).astype(np.float64)
        for way in WAYS:
            medians[way].append(float(np.median([scale_error(row, way, params.eps) for row in rows])))
    return {w: np.array(m) for w, m in medians.items()}


def _power_of_two(value: float, _: object) -> str:
    exponent = round(math.log2(value))
    return "1" if exponent == 0 else "2" + superscript(exponent)


def draw(medians: dict[str, np.ndarray], params: RmsOverflowParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    sigmas = params.sigmas()
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    for way in WAYS:
        method_line(ax, way, sigmas, np.where(medians[way] > 0, medians[way], np.nan), palette, zorder=3,
                    label=LABELS[way])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(sigmas[0], sigmas[-1])
    ax.set_ylim(1e-8, 10.0)
    ax.axhline(1.0, color=palette.muted, lw=0.8, ls="--", zorder=1)
    ax.annotate("scale 0: the layer outputs zeros", (0.02, 1.0), xycoords=ax.get_yaxis_transform(),
                xytext=(0, 4), textcoords="offset points", color=palette.muted, va="bottom")
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(params.sigma_low, params.sigma_high + 1,
                                                                    4 if layout.narrow else 2)]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(_power_of_two))
    ax.yaxis.set_major_locator(FixedLocator([10.0**d for d in range(0, -9, -2)]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(f"σ, root mean square of the {number(params.n)} FP16 inputs")
    ax.set_ylabel("relative error of 1 / rms")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside lower center",
               ncols=1 if layout.narrow else 2)
    return fig


def case(params: RmsOverflowParams) -> dict[str, str]:
    """``case_n`` inputs of ``case_value`` in FP16: as they are, and prescaled."""
    row = np.full(params.case_n, params.case_value)
    plain = rms(row, FP16, FP16, params.eps)
    c = prescale(row)
    scaled = rms(row, FP16, FP16, params.eps, prescale=c)
    square = params.case_value**2
    return {
        "value": number(params.case_value), "n": number(params.case_n), "square": number(square),
        "scale": number(plain.scale), "mean_square": number(plain.mean_square),
        "c": f"2{superscript(round(math.log2(c)))}",
        "scaled": number(scaled.scale, 6), "exact": number(scaled.exact_scale, 6),
        "error": significant(100 * scaled.scale_rel_error),
        "command": f"yes {square:g} | head -n {params.case_n} | fpsum sum --format fp16 --method naive",
    }


def numbers(medians: dict[str, np.ndarray], params: RmsOverflowParams) -> NestedNumbers:
    """What the page quotes (see the module docstring)."""
    sigmas = params.sigmas()
    lost = np.nonzero(medians["naive"] >= 1.0)[0]
    first = float(sigmas[lost[0]]) if lost.size else math.nan
    out: dict[str, NestedNumbers | str] = {
        "n": number(params.n), "trials": number(params.trials), "eps": f"{params.eps:g}".replace("e-0", "e-"),
        "fp16_max": number(FP16.max_finite),
        "overflow_sigma": number(first, 1) if lost.size else "none",
        "overflow_sum": number(params.n * first**2) if lost.size else "none",
        "case": case(params),
    }
    for way in WAYS:
        out[way] = {"worst": significant(100 * float(np.max(medians[way])))}
    return out


def build(figure_id: str, params: RmsOverflowParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    medians = compute(params)
    files = render(lambda palette, layout: draw(medians, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_file(
        ["way", "sigma", "n", "rows", "median_scale_rel_error"],
        [[w, repr(float(s)), params.n, params.trials, repr(float(m))]
         for w in WAYS for s, m in zip(params.sigmas().tolist(), medians[w].tolist())])
    alt = (f"Log-log plot of the relative error of RMSNorm's scale against the root mean square σ of "
           f"{number(params.n)} FP16 inputs, for the sum of squares in FP16, in FP16 after a power-of-two "
           "prescale, and in FP32. The plain FP16 error jumps to 100 % once the sum of squares overflows; the "
           "prescaled one and FP32 stay small over the whole range.")
    caption = (f"RMSNorm's scale 1 / √(mean square + ε) of rows of {number(params.n)} FP16 inputs σ × z, "
               f"median relative error over {params.trials} seeded rows, against σ.")
    more = ("The prescale multiplies a row by the power of two c that brings its largest magnitude into (1/2, 1] "
            "(exact, and each square is then at most 1); the scale computed is then that of the scaled row. "
            f"ε = {params.eps:g}, scaled by c² with the inputs. Dashed: an error of 100 %, a scale of 0.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers(medians, params))
