"""The softmax figure: the denominator Σ exp(x − max) in FP16 and BF16, three orders, against the FP32 one.

Rows of logits (seeded standard normal times a spread, or all equal) are
rounded to the format; the denominator is summed in the format by the naive,
pairwise and online orders (:func:`fpsum.softmax.denominator`) and compared
with the same logits' denominator in FP32 (naive order): the relative
difference |d − d₃₂| / d₃₂, median over the rows.  An overflow (inf) is drawn
as a cross at the top; an exact match (0) has no place on the log axis.

Numbers of record ``softmax-error``: ``trials``, ``n_min``, ``n_max``,
``spread`` (the figure's), ``quote_n`` (4,096); per format and kind (``fp16.equal``,
``fp16.normal``, ``bf16.equal``, ``bf16.normal``) and order, ``at4096`` and
``at_max`` (per cent); ``fp16.equal.naive_denominator`` (at 4,096),
``fp16.equal.overflow`` (the first n at which pairwise gives inf, or ``none``),
``bf16.equal.naive_denominator``; and ``tract``: per spread key
(``sd05``, ``sd1``, ``sd2``) and row length (``n1024`` …), the FP16 naive
order's median difference in per cent, the setup of sonos/tract PR #2586's
table, and ``length`` (each row length as prose writes it).
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, NullFormatter

from fpsum.array_rounding import to_format
from fpsum.formats import FP32, Format, get_format
from fpsum.softmax import SOFTMAX_ORDERS, denominator

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(8.4, 7.0), narrow=(4.5, 14.0))
"""Inches: two by two panels (a row per format), or the four stacked on a phone."""
KINDS = ("equal", "normal")
Y_BOTTOM, Y_TOP, OVERFLOW_AT = 1e-5, 10.0, 4.0
QUOTE_N = 4096
"""The row length the page quotes (``at4096``), a length of the figure and of tract's table."""


@dataclass(frozen=True)
class SoftmaxErrorParams:
    """Formats, the figure's spread, row lengths (powers of two), rows per length, seed; tract's table."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    spread: float = 1.0
    n_min: int = 2**8
    n_max: int = 2**16
    trials: int = 4
    seed: int = 0
    tract_spreads: tuple[float, ...] = (0.5, 1.0, 2.0)
    tract_lengths: tuple[int, ...] = (1024, 2048, 4096, 8192)

    def __post_init__(self) -> None:
        for name in self.formats:
            get_format(name)
        ns = {self.n_min, self.n_max, *self.tract_lengths}
        if any(n & (n - 1) or n < 2 for n in ns) or not self.n_min <= min(self.tract_lengths) \
                or max(self.tract_lengths) > self.n_max or self.trials < 1 or self.spread <= 0:
            raise ValueError(f"invalid softmax parameters: {self}")

    def lengths(self) -> np.ndarray:
        """Every power of two from ``n_min`` to ``n_max``."""
        return np.asarray([1 << k for k in range(self.n_min.bit_length() - 1, self.n_max.bit_length())])


def records() -> list[Record]:
    """The one softmax figure."""
    return [Record("softmax-error", SoftmaxErrorParams(), build)]


def logits(fmt: Format, spread: float, n: int, params: SoftmaxErrorParams) -> np.ndarray:
    """``trials`` rows of ``n`` logits spread × z rounded to ``fmt`` (spread 0: one row of zeros, equal logits)."""
    if spread == 0:
        return np.zeros((1, n), dtype=fmt.dtype)
    z = np.random.default_rng(params.seed).standard_normal((params.trials, params.n_max))[:, :n]
    return np.asarray(to_format(spread * z, fmt).astype(fmt.dtype))


def differences(fmt: Format, spread: float, n: int, params: SoftmaxErrorParams) -> dict[str, np.ndarray]:
    """Per order, each row's |d − d₃₂| / d₃₂ (inf where d overflowed)."""
    values = logits(fmt, spread, n, params)
    reference = denominator(values.astype(np.float32), FP32, "naive").astype(np.float64)
    out: dict[str, np.ndarray] = {}
    for order in SOFTMAX_ORDERS:
        with np.errstate(over="ignore", invalid="ignore"):
            d = denominator(values, fmt, order).astype(np.float64)
            out[order] = np.where(np.isfinite(d), np.abs(d - reference) / reference, np.inf)
    return out


@dataclass(frozen=True)
class Panel:
    """One format and kind: per order, the median difference at each length."""

    fmt: Format
    kind: str
    ns: np.ndarray
    medians: dict[str, np.ndarray]


def compute(params: SoftmaxErrorParams) -> list[Panel]:
    """Panels row by row: each format, then each kind."""
    panels = []
    for name in params.formats:
        fmt = get_format(name)
        for kind in KINDS:
            spread = 0.0 if kind == "equal" else params.spread
            per_n = [differences(fmt, spread, int(n), params) for n in params.lengths()]
            medians: dict[str, np.ndarray] = {o: np.array([float(np.median(d[o])) for d in per_n])
                                              for o in SOFTMAX_ORDERS}
            panels.append(Panel(fmt, kind, params.lengths(), medians))
    return panels


def tract_table(params: SoftmaxErrorParams) -> dict[str, dict[str, str]]:
    """The FP16 naive order's median difference from FP32, in per cent, at tract's spreads and lengths."""
    fp16 = get_format("fp16")
    table = {}
    for spread in params.tract_spreads:
        key = "sd" + f"{spread:g}".replace(".", "")
        table[key] = {f"n{n}": significant(100 * float(np.median(differences(fp16, spread, n, params)["naive"])))
                      for n in params.tract_lengths}
    return table


def _title(panel: Panel, params: SoftmaxErrorParams) -> str:
    what = "equal logits" if panel.kind == "equal" else f"logits {number(params.spread)} × normal"
    return f"{panel.fmt.label} sums, {what}"


def _panel(ax: Axes, panel: Panel, params: SoftmaxErrorParams, palette: Palette, layout: Layout) -> None:
    for order in SOFTMAX_ORDERS:
        medians = panel.medians[order]
        finite = np.where(np.isfinite(medians) & (medians > 0), medians, np.nan)
        if not np.isnan(finite).all():  # pairwise on equal logits: exact (0) or inf throughout
            method_line(ax, order, panel.ns, finite, palette, zorder=3)
        over = np.isinf(medians)
        if over.any():
            ax.plot(panel.ns[over], np.full(int(over.sum()), OVERFLOW_AT), ls="none", marker="X", ms=9,
                    color=palette.text, zorder=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(panel.ns[0] / 1.25, panel.ns[-1] * 1.25)  # room for a cross at either end
    ax.set_ylim(Y_BOTTOM, Y_TOP)
    ax.set_title(_title(panel, params))
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    ax.xaxis.set_major_locator(FixedLocator([float(n) for n in panel.ns[:: 2]]))
    ax.xaxis.set_minor_locator(FixedLocator([float(n) for n in panel.ns]))
    ax.xaxis.set_minor_formatter(NullFormatter())


def draw(panels: list[Panel], params: SoftmaxErrorParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    rows, cols = len(params.formats), len(KINDS)
    if layout.narrow:
        rows, cols = rows * cols, 1
    fig, axes = plt.subplots(rows, cols, figsize=layout.size, sharey=True, layout="constrained", squeeze=False)
    for ax, panel in zip(axes.ravel(), panels):
        _panel(ax, panel, params, palette, layout)
    for ax in axes[-1]:
        ax.set_xlabel("n, length of the row")
    for ax in axes[:, 0]:
        ax.set_ylabel("difference from FP32")
    handles, labels = axes.ravel()[1].get_legend_handles_labels()  # FP16, normal logits: every order drawn
    handles.append(Line2D([], [], ls="none", marker="X", ms=9, color=palette.text))
    labels.append("inf: the sum overflowed")
    fig.legend(handles, labels, loc="outside lower center", ncols=2 if layout.narrow else 4, frameon=False)
    return fig


def csv_bytes(panels: list[Panel], params: SoftmaxErrorParams) -> bytes:
    """Per format, kind, order and length: the median relative difference from the FP32 denominator."""
    out = []
    for panel in panels:
        rows = 1 if panel.kind == "equal" else params.trials
        spread = 0.0 if panel.kind == "equal" else params.spread
        for order in SOFTMAX_ORDERS:
            out += [[panel.fmt.name, panel.kind, repr(spread), order, n, rows, repr(float(m))]
                    for n, m in zip(panel.ns.tolist(), panel.medians[order].tolist())]
    return csv_file(["format", "logits", "spread", "order", "n", "rows", "median_rel_difference"], out)


def percent(value: float) -> str:
    """A median difference in per cent for prose: ``∞`` for an overflow."""
    return "∞" if np.isinf(value) else significant(100 * value)


def numbers(panels: list[Panel], params: SoftmaxErrorParams) -> NestedNumbers:
    """What the page quotes (see the module docstring)."""
    out: dict[str, NestedNumbers | str] = {
        "trials": number(params.trials), "n_min": number(params.n_min), "n_max": number(params.n_max),
        "spread": number(params.spread), "quote_n": number(QUOTE_N),
    }
    at = int(np.nonzero(params.lengths() == QUOTE_N)[0][0])
    for panel in panels:
        quoted: dict[str, NestedNumbers | str] = {}
        for order in SOFTMAX_ORDERS:
            quoted[order] = {"at4096": percent(float(panel.medians[order][at])),
                             "at_max": percent(float(panel.medians[order][-1]))}
        if panel.kind == "equal":
            row = logits(panel.fmt, 0.0, QUOTE_N, params)
            quoted["naive_denominator"] = number(float(denominator(row, panel.fmt, "naive")[0]))
            over = np.nonzero(np.isinf(panel.medians["pairwise"]))[0]
            quoted["overflow"] = number(int(panel.ns[over[0]])) if over.size else "none"
        by_format = out.setdefault(panel.fmt.name, {})
        assert isinstance(by_format, dict)
        by_format[panel.kind] = quoted
    out["tract"] = tract_table(params) | {"length": {f"n{n}": number(n) for n in params.tract_lengths}}
    return out


def build(figure_id: str, params: SoftmaxErrorParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    panels = compute(params)
    files = render(lambda palette, layout: draw(panels, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(panels, params)
    alt = (f"Four log-log panels of the relative difference between a softmax denominator summed in FP16 or BF16 "
           f"and the same one summed in FP32, against the row length from {number(params.n_min)} to "
           f"{number(params.n_max)}, for equal logits and for normal logits, in the naive, pairwise and online "
           "orders. The naive and online sums drift to tens of per cent as the rows grow; pairwise stays near "
           "the format's unit roundoff, and on equal FP16 logits overflows to inf at the longest row.")
    caption = ("The softmax denominator Σ exp(x − max) summed in FP16 or BF16 in three orders: its relative "
               "difference from the same logits' denominator summed in FP32, against the length of the row.")
    more = (f"Normal logits: {number(params.spread)} × a standard normal, median over {params.trials} seeded rows; "
            "equal logits: one row of zeros, every term exactly 1. Each exp is correctly rounded to the format. "
            "Online is Milakov and Gimelshein's running max and rescaled sum. A line is absent where the sum "
            "equals the FP32 one (pairwise on equal logits); a cross marks an overflow to inf.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers(panels, params))
