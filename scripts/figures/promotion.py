"""The promotion figure: the truncating accumulator's error against the promotion interval N_c.

Numbers of record ``promotion``: ``format``, ``k``, ``trials``, ``bits``,
``hw_block`` and, per input kind (``uniform``, ``normal``), the median relative
error in per cent with no promotion (``none``), with promotion every 128
(``every128``), at the largest interval drawn (``widest``) and with an FP32
accumulator (``fp32``).
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fpsum.dot import dot, exact_products
from fpsum.exact import exact_running
from fpsum.formats import FP32, get_format
from fpsum.hardware import TruncatedAccumulator, truncated_sums
from fpsum.inputs import INPUT_LABELS, make_inputs

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import LOOKS, Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 3.9), narrow=(4.5, 6.8))
"""Inches: the panels side by side, or stacked on a phone (the legend below both, one entry a line)."""
KINDS = ("uniform", "normal")
INTERVAL = "N_c"
"""The promotion interval as the figure writes it: plain text with a TeX subscript, which the SVG draws lowered
(figures.mpl_subscripts: mathtext would draw it at 70 % of the font, under the smallest size a layout allows)."""
INTERVAL_HTML = "N<sub>c</sub>"
"""The interval in a caption, whose HTML draws the subscript."""


@dataclass(frozen=True)
class PromotionParams:
    """The input format, the length of the dot products, trials, seed and the hardware model."""

    format: str = "e4m3"
    k: int = 4096
    trials: int = 64
    seed: int = 53
    bits: int = 14
    hw_block: int = 4

    def __post_init__(self) -> None:
        get_format(self.format)
        if self.trials < 1 or self.k < 2 * self.hw_block:
            raise ValueError(f"invalid promotion parameters: {self}")
        TruncatedAccumulator(bits=self.bits, block=self.hw_block)

    @property
    def intervals(self) -> np.ndarray:
        """Every power of two from the block size to K: the promotion intervals drawn."""
        first = self.hw_block.bit_length() - 1
        return np.asarray(2 ** np.arange(first, self.k.bit_length()), dtype=np.int64)


def records() -> list[Record]:
    """The one promotion figure."""
    return [Record("promotion", PromotionParams(), build)]


@dataclass(frozen=True)
class Errors:
    """Per kind: relative errors per trial for each interval ``(trials, intervals)``, never promoted, and FP32."""

    promoted: dict[str, np.ndarray]
    never: dict[str, np.ndarray]
    fp32: dict[str, np.ndarray]


def compute(params: PromotionParams) -> Errors:
    """The three kinds of result for each kind of input, against the exact dot products.

    The products of both kinds go through each hardware model together, formed once.
    """
    fmt = get_format(params.format)
    k = np.array([params.k])
    pairs = {kind: (make_inputs(kind, params.k, fmt, params.seed, trials=params.trials),  # type: ignore[arg-type]
                    make_inputs(kind, params.k, fmt, params.seed + 1, trials=params.trials))  # type: ignore[arg-type]
             for kind in KINDS}
    products = np.stack([exact_products(x, y) for x, y in pairs.values()])  # (kinds, trials, k), exact
    exact = exact_running(products, k)[..., 0]

    def error(result: np.ndarray) -> np.ndarray:
        return np.asarray(np.abs(result.astype(np.float64) - exact) / np.abs(exact))

    def truncated(every: int | None) -> np.ndarray:
        return error(truncated_sums(products, TruncatedAccumulator(params.bits, params.hw_block, every), k)[..., 0])

    promoted = np.stack([truncated(every) for every in params.intervals.tolist()], axis=-1)
    never = truncated(None)
    fp32 = error(np.stack([dot(x, y, fmt, FP32) for x, y in pairs.values()]))
    return Errors(promoted=dict(zip(KINDS, promoted)), never=dict(zip(KINDS, never)), fp32=dict(zip(KINDS, fp32)))


def draw(errors: Errors, params: PromotionParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fmt = get_format(params.format)
    shape = (len(KINDS), 1) if layout.narrow else (1, len(KINDS))
    fig, axes = plt.subplots(*shape, figsize=layout.size, sharey=True, sharex=layout.narrow, layout="constrained")
    intervals = params.intervals
    for ax, kind in zip(axes, KINDS):
        method_line(ax, "promoted", intervals, np.median(errors.promoted[kind], axis=0), palette, markevery=1,
                    label=f"{params.bits}-bit, promoted to FP32 every {INTERVAL}")
        method_line(ax, "truncated", intervals, np.full(len(intervals), np.median(errors.never[kind])), palette,
                    marker="", label=f"{params.bits}-bit, never promoted")
        fp32 = float(np.median(errors.fp32[kind]))
        if fp32 > 0:  # an exact median has no place on a log axis; the caption says so
            method_line(ax, "wide", intervals, np.full(len(intervals), fp32), palette, marker="",
                        label="FP32 accumulator")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{fmt.label}, {INPUT_LABELS[kind]}, K = {number(params.k)}")  # type: ignore[index]
        ax.grid(True, which="major", color=palette.grid, lw=0.6)
    # Stacked panels share the x axis, labelled once under the lower one; each has its y label.
    for ax in axes[-1:] if layout.narrow else axes:
        ax.set_xlabel(f"{INTERVAL}, products between promotions")
    for ax in axes if layout.narrow else axes[:1]:
        ax.set_ylabel("relative error")
    shown = {label: handle for ax in axes for handle, label in zip(*ax.get_legend_handles_labels())}
    fig.legend(list(shown.values()), list(shown), loc="outside lower center", ncols=1 if layout.narrow else 3,
               frameon=False)
    return fig


def csv_bytes(errors: Errors, params: PromotionParams) -> bytes:
    """Per kind and accumulator (N_c, ``never`` or ``fp32``): the median relative error over the trials."""
    rows: list[list[object]] = []
    for kind in KINDS:
        lead = [params.format, kind, params.k]
        rows += [lead + ["truncated", every, params.trials, repr(float(np.median(errors.promoted[kind][:, j])))]
                 for j, every in enumerate(params.intervals.tolist())]
        rows.append(lead + ["truncated", "never", params.trials, repr(float(np.median(errors.never[kind])))])
        rows.append(lead + ["fp32", "", params.trials, repr(float(np.median(errors.fp32[kind])))])
    return csv_file(["format", "inputs", "k", "accumulate", "promote_every", "trials", "median_relative_error"], rows)


def headline(errors: Errors, params: PromotionParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    at128 = int(np.nonzero(params.intervals == 128)[0][0])
    numbers: dict[str, NestedNumbers | str] = {
        "format": get_format(params.format).label, "k": number(params.k), "trials": number(params.trials),
        "bits": number(params.bits), "hw_block": number(params.hw_block),
    }
    for kind in KINDS:
        numbers[kind] = {
            "none": significant(100 * float(np.median(errors.never[kind]))),
            "every128": significant(100 * float(np.median(errors.promoted[kind][:, at128]))),
            "widest": significant(100 * float(np.median(errors.promoted[kind][:, -1]))),
            "fp32": significant(100 * float(np.median(errors.fp32[kind]))),
        }
    return numbers


def exact_note(errors: Errors) -> str:
    """A caption sentence for each kind whose FP32 median is exact, so has no line."""
    exact = [INPUT_LABELS[kind] for kind in KINDS if np.median(errors.fp32[kind]) == 0]  # type: ignore[index]
    return "".join(f"With {kind} inputs the FP32 accumulator's median result is exact (error 0), so it has "
                   "no line. " for kind in exact)


def build(figure_id: str, params: PromotionParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    errors = compute(params)
    files = render(lambda palette, layout: draw(errors, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(errors, params)
    fmt = get_format(params.format)
    alt = (f"Two log-log panels of the median relative error of {number(params.k)}-term {fmt.label} dot products "
           f"summed by a {params.bits}-bit truncating accumulator, against the number of products between "
           "promotions into FP32, for inputs uniform on [0, 1) and standard normal, with the never-promoted and "
           "the FP32 errors as horizontal lines: the shorter the interval, the closer the error comes to FP32's.")
    caption = (f"Dot products of K = {number(params.k)} pairs of {fmt.label} inputs summed by a {params.bits}-bit "
               f"truncating accumulator that is promoted into FP32 every {INTERVAL_HTML} products: the median relative "
               f"error over {params.trials} seeded trials against {INTERVAL_HTML}.")
    more = (f"The model of the truncating accumulator takes {params.hw_block} products per step; every "
            f"{INTERVAL_HTML} products it is added into an FP32 accumulator and cleared. Horizontal lines: the "
            f"same accumulator never promoted ({LOOKS['truncated'].label}), and an FP32 accumulator. "
            + exact_note(errors))
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(errors, params))
