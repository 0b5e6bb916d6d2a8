"""The variance figure: relative error of four variance methods against κ = |mean| / sd, in FP32 and BF16.

Each row is ``n`` values offset + z, z standard normal (seeded), rounded to
the format and summed in it (every operation in the format,
:func:`fpsum.moments.mean_variance`); the offsets are powers of √2 from 1 up
to ``2**max_exponent``.  The error is against the exact variance of the
rounded row (:func:`fpsum.moments.exact_moments`), and the κ drawn is the
median over the rows of |exact mean| / √(exact variance) of the rounded
rows.  A row whose rounded values are all equal has no relative error and is
left out; a NaN or infinite variance counts as lost (error ≥ 1).

Each method's slope is measured: the least-squares slope of log error against
log κ over the points where its median error lies between ``FIT_FLOOR`` times
its error at the first offset and ``LOST`` / 2 (where it grows, before it is
lost).

Numbers of record ``variance-kappa``: ``n``, ``trials``; per format
(``fp32``, ``bf16``) ``kappa_max`` (the largest κ drawn) and per method key
(``textbook``, ``twopass``, ``welford``, ``chan``): ``slope`` (two decimals),
``published`` (the power of κ in the page's first-order bound: 2, 2 for
two-pass's second-order term, 1), ``first`` (median error at κ near 1, in per
cent) and ``lost_at`` (the first κ drawn at which the median error reaches
100 %, or ``none``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from fpsum.array_rounding import to_format
from fpsum.formats import Format, get_format
from fpsum.moments import MOMENT_METHODS, exact_moments, mean_variance

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import MOMENT_LOOKS, Palette
from .lost import LOST, drawn_until_lost
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import decade_tick, number, significant, superscript
from .variants import Layout, Sizes

SIZES = Sizes(wide=(9.2, 5.6), narrow=(4.5, 13.0))
"""Inches: the two formats side by side, or stacked on a phone."""
FIT_FLOOR = 3.0
"""A point joins a method's slope fit once its median error is this many times its error at κ near 1."""
PUBLISHED = {"textbook": 2, "two-pass": 2, "welford": 1, "chan": 1}
"""The power of κ in each method's bound (the page's Maths section): κ²u, (κu)² (two-pass, second order), κu."""
LEGEND_LINES = {False: 3.0, True: 8.8}
"""The legend's height in lines of text: wide (four columns) and narrow (one)."""
GUIDES = (("κ²u", 2, False, ":"), ("κu", 1, False, "--"), ("(κu)²", 2, True, "-."))
"""The bounds' shapes drawn in grey: label, power of κ, whether u is squared too, dash."""


@dataclass(frozen=True)
class VarianceKappaParams:
    """Formats, row length, rows per offset, seed, and the largest offset of each format as a power of two."""

    formats: tuple[str, ...] = ("fp32", "bf16")
    max_exponents: tuple[int, ...] = (20, 8)
    n: int = 64
    trials: int = 64
    seed: int = 0

    def __post_init__(self) -> None:
        for name in self.formats:
            get_format(name)
        if len(self.max_exponents) != len(self.formats) or min(self.max_exponents) < 2 or self.n < 2 \
                or self.trials < 3:
            raise ValueError(f"invalid variance parameters: {self}")


def records() -> list[Record]:
    """The one variance figure."""
    return [Record("variance-kappa", VarianceKappaParams(), build)]


@dataclass(frozen=True)
class Panel:
    """One format: κ per offset (median over rows) and each method's median relative error per offset."""

    fmt: Format
    kappa: np.ndarray
    medians: dict[str, np.ndarray]


def offsets(max_exponent: int) -> np.ndarray:
    """Powers of √2 from 1 to 2**max_exponent."""
    return np.asarray(2.0 ** (np.arange(2 * max_exponent + 1) / 2))


def rows(fmt: Format, offset: float, params: VarianceKappaParams) -> np.ndarray:
    """``trials`` rows of ``n`` values offset + z rounded to ``fmt`` (the same z for every offset)."""
    z = np.random.default_rng(params.seed).standard_normal((params.trials, params.n))
    return np.asarray(to_format(offset + z, fmt).astype(fmt.dtype))


def relative_errors(values: np.ndarray, fmt: Format) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per row, κ of the rounded row and each method's relative error (NaN where the row is constant, inf if lost)."""
    exact = [exact_moments(row) for row in values.astype(np.float64)]
    variance = np.array([float(v) for _, v in exact])
    mean = np.array([float(m) for m, _ in exact])
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(variance > 0, np.abs(mean) / np.sqrt(variance), np.nan)
        errors: dict[str, np.ndarray] = {}
        for method in MOMENT_METHODS:
            _, computed = mean_variance(values, fmt, method)
            error = np.abs(computed.astype(np.float64) - variance) / variance
            errors[method] = np.where(variance > 0, np.where(np.isfinite(error), error, np.inf), np.nan)
    return kappa, errors


def compute(params: VarianceKappaParams) -> list[Panel]:
    """One panel per format: medians over the rows at each offset."""
    panels = []
    for name, top in zip(params.formats, params.max_exponents):
        fmt = get_format(name)
        kappas: list[float] = []
        medians: dict[str, list[float]] = {m: [] for m in MOMENT_METHODS}
        for offset in offsets(top).tolist():
            kappa, errors = relative_errors(rows(fmt, offset, params), fmt)
            kappas.append(float(np.nanmedian(kappa)))
            for method in MOMENT_METHODS:
                medians[method].append(float(np.nanmedian(errors[method])))
        panels.append(Panel(fmt, np.array(kappas), {m: np.array(v) for m, v in medians.items()}))
    return panels


def fit_window(medians: np.ndarray) -> np.ndarray:
    """The points of a method's slope fit: median error from ``FIT_FLOOR`` times its first up to below ``LOST`` / 2."""
    return np.asarray((medians >= FIT_FLOOR * medians[0]) & (medians < LOST / 2))


def slope(panel: Panel, method: str) -> float:
    """The least-squares slope of log error against log κ over :func:`fit_window`; NaN with fewer than 3 points."""
    inside = fit_window(panel.medians[method])
    if inside.sum() < 3:
        return math.nan
    fitted = np.polyfit(np.log10(panel.kappa[inside]), np.log10(panel.medians[method][inside]), 1)
    return float(fitted[0])


def _panel(ax: Axes, panel: Panel, palette: Palette, layout: Layout) -> None:
    u = panel.fmt.unit_roundoff
    grid = np.geomspace(1.0, panel.kappa[-1], 100)
    for label, power, squared, dash in GUIDES:
        shape = (grid * u) ** power if squared else grid**power * u
        ax.plot(grid, np.where(shape < LOST, shape, np.nan), color=palette.muted, lw=1.0, ls=dash, zorder=1,
                label=f"{label} (slope {power})")
    for method in MOMENT_METHODS:
        method_line(ax, MOMENT_LOOKS[method], panel.kappa, drawn_until_lost(panel.medians[method]), palette, zorder=3)
    ax.axhline(LOST, color=palette.muted, lw=0.8, ls="-", zorder=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1.0, panel.kappa[-1])
    low = float(10 ** np.floor(np.log10(min(u, float(np.nanmin(panel.medians["chan"]))) / 3)))
    ax.set_ylim(low, 10.0)
    ax.set_title(f"every operation in {panel.fmt.label}, u = 2{superscript(-panel.fmt.precision)}")
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    lowest = round(math.log10(low))
    step = max(1, math.ceil(-lowest / 5))
    ax.yaxis.set_major_locator(FixedLocator([10.0**d for d in range(0, lowest - 1, -step)]))
    right = math.floor(math.log10(panel.kappa[-1]))
    ax.xaxis.set_major_locator(FixedLocator([10.0**d for d in range(0, right + 1, 2 if layout.narrow and right > 3
                                                                     else 1)]))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_locator(NullLocator())
        axis.set_major_formatter(FuncFormatter(decade_tick))


def draw(panels: list[Panel], palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    shape = (len(panels), 1) if layout.narrow else (1, len(panels))
    fig, axes = plt.subplots(*shape, figsize=layout.size, layout="constrained", squeeze=False)
    flat = list(axes.flat)
    for ax, panel in zip(flat, panels):
        _panel(ax, panel, palette, layout)
        if not layout.narrow:
            ax.set_xlabel("κ = |mean| / sd of the row")
    flat[0].set_ylabel("relative error of the variance")
    if layout.narrow:
        flat[1].set_ylabel("relative error of the variance")
        flat[0].set_xlabel("κ = |mean| / sd")
        flat[1].set_xlabel("κ = |mean| / sd")
    handles, labels = flat[0].get_legend_handles_labels()
    # The legend in a band of its own below the panels: the layout engine keeps the panels above it.
    band = LEGEND_LINES[layout.narrow] * layout.font_pt * 1.45 / 72 / layout.size[1]
    engine = fig.get_layout_engine()
    assert isinstance(engine, ConstrainedLayoutEngine)
    engine.set(rect=(0.0, band, 1.0, 1.0 - band))
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncols=1 if layout.narrow else 4,
               frameon=False)
    return fig


def csv_bytes(panels: list[Panel], params: VarianceKappaParams) -> bytes:
    """Per format, method and offset: the median κ and the median relative error."""
    out = []
    for panel, top in zip(panels, params.max_exponents):
        for method in MOMENT_METHODS:
            out += [[panel.fmt.name, method, repr(float(o)), repr(float(k)), params.n, params.trials, repr(float(e))]
                    for o, k, e in zip(offsets(top).tolist(), panel.kappa.tolist(), panel.medians[method].tolist())]
    return csv_file(["format", "method", "offset", "median_kappa", "n", "rows", "median_rel_error"], out)


def numbers(panels: list[Panel], params: VarianceKappaParams) -> NestedNumbers:
    """What the page quotes (see the module docstring)."""
    out: dict[str, NestedNumbers | str] = {"n": number(params.n), "trials": number(params.trials)}
    for panel in panels:
        by_method: dict[str, NestedNumbers | str] = {"kappa_max": number(float(panel.kappa[-1]), 0)}
        for method in MOMENT_METHODS:
            medians = panel.medians[method]
            lost = np.nonzero(medians >= LOST)[0]
            fitted = slope(panel, method)
            by_method[MOMENT_LOOKS[method]] = {
                "slope": "none" if math.isnan(fitted) else f"{fitted:.2f}",
                "published": str(PUBLISHED[method]),
                "first": significant(100 * float(medians[0])),
                "lost_at": number(float(panel.kappa[lost[0]]), 0) if lost.size else "none",
            }
        out[panel.fmt.name] = by_method
    return out


def build(figure_id: str, params: VarianceKappaParams) -> Built:
    """The figure, its CSV and fragment, and the measured slopes."""
    panels = compute(params)
    files = render(lambda palette, layout: draw(panels, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(panels, params)
    formats = " and ".join(p.fmt.label for p in panels)
    alt = (f"Two log-log panels, {formats}, of the relative error of the variance against κ, the mean over the "
           "standard deviation, for the textbook formula, two-pass, Welford and Chan's pairwise merges. The "
           "textbook error climbs with slope 2 and reaches 100 % first; Welford's and Chan's climb with slope 1; "
           "two-pass stays flat at first and then climbs with slope 2, far lower. Grey guides show the "
           "bounds' slopes κ²u, κu and (κu)².")
    caption = (f"Relative error of the population variance of rows of {params.n} values mean + z (z standard "
               f"normal), median over {params.trials} seeded rows, against κ = |mean| / sd, every operation in "
               "the row's format.")
    more = ("The error is against the exact variance of the rounded row, and κ is that of the rounded rows "
            "(median). A line stops where its median error reaches 100 % (the solid grey line). Grey: the shapes "
            "of the bounds of the page's Maths section, without their factors of n: κ²u for the textbook "
            "formula, κu for Welford and pairwise merges, (κu)² for two-pass's second-order term. The measured "
            "slopes are "
            "least-squares fits over the points where each error grows, before it is lost.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers(panels, params))
