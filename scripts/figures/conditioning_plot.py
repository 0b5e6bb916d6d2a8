"""The conditioning figure drawn: one log-log panel per format of the medians against kappa, bounds dotted.

Each method's median error per bin of kappa (:mod:`figures.conditioning_sums`)
is drawn in its look up to the bin where it reaches 100 %; each method's
worst-case bound is a dotted line in its colour; medians that are exact
(error 0), which a log axis cannot show, are markers on a grey strip below
the lowest decade.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

from .conditioning_sums import METHODS, ConditioningParams, Panel, bounds
from .looks import LOOKS, MARKERS, Palette
from .lost import LOST, drawn_until_lost
from .mpl_lines import method_line
from .text import decade_tick, superscript
from .variants import Layout, Sizes

SIZES = Sizes(wide=(9.2, 5.2), narrow=(4.5, 10.2))
"""Inches: the panels side by side, or stacked on a phone."""
STRIP_ROW = 2.5
"""Rows of the strip of exact medians (error 0) lie this factor apart, below the lowest decade drawn."""


def drawn_medians(panel: Panel, method: str) -> np.ndarray:
    """A method's medians as drawn (:func:`figures.lost.drawn_until_lost`)."""
    return drawn_until_lost(panel.medians[method])


def _exact_strip(ax: Axes, panel: Panel, base: float, palette: Palette) -> float:
    """Markers on a grey strip below ``base``, one row per method with an exact median (error 0) there.

    Returns the bottom of the strip (``base`` if no median is exact).
    """
    exact = [m for m in METHODS if (drawn_medians(panel, m) == 0).any()]
    if not exact:
        return base
    for k, method in enumerate(exact):
        look = LOOKS[method]
        where = drawn_medians(panel, method) == 0
        ax.plot(panel.centres[where], np.full(int(where.sum()), base / STRIP_ROW ** (k + 1)), ls="none",
                marker=MARKERS[look.marker].matplotlib, ms=5, color=look.colour(palette),
                markeredgecolor=palette.background, markeredgewidth=0.6, zorder=3)
    bottom = base / STRIP_ROW ** (len(exact) + 1)
    ax.axhspan(bottom, base / STRIP_ROW**0.5, color=palette.grid, alpha=0.6, lw=0, zorder=0)
    ax.annotate("exact (error 0)", (0.02, base / STRIP_ROW ** ((len(exact) + 1) / 2)),
                xycoords=ax.get_yaxis_transform(), ha="left", va="center", color=palette.muted)
    return bottom


def _panel(ax: Axes, panel: Panel, params: ConditioningParams, palette: Palette, layout: Layout) -> None:
    fmt = panel.fmt
    u = fmt.unit_roundoff
    right = float(10 ** np.ceil(np.log10(panel.centres[-1])))
    grid = np.geomspace(1.0, right, 200)
    for method, bound in bounds(fmt, params.n, params.folds, grid).items():
        ax.plot(grid, bound, color=LOOKS[method].colour(palette), lw=1.0, ls=":", zorder=1)
    for method in METHODS:
        label = f"SumK, K = {params.folds}" if method == "sumk" else None
        shift = {"sumtwo": (0.05, 0.1)}.get(method, 0.1)  # Sum2's markers between Neumaier's, on the same line
        medians = drawn_medians(panel, method)
        method_line(ax, method, panel.centres, np.where(medians > 0, medians, np.nan), palette, zorder=3,
                    markevery=shift, **({"label": label} if label else {}))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1.0, right)
    floor = min(float(np.nanmin(np.where(m > 0, m, np.nan))) for m in panel.medians.values())
    base = float(10 ** np.floor(np.log10(min(floor, u) / 2)))  # the lowest decade drawn
    ax.set_ylim(_exact_strip(ax, panel, base, palette), 10.0)
    ax.axhline(LOST, color=palette.muted, lw=0.8, ls="--", zorder=1)
    ax.set_title(f"{fmt.label}, n = {params.n} (u = 2{superscript(-fmt.precision)})")
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    lowest = round(math.log10(base))
    step = max(1, math.ceil(-lowest / 6))
    ax.yaxis.set_major_locator(FixedLocator([10.0**d for d in range(0, lowest - 1, -step)]))  # none in the strip
    ax.xaxis.set_major_locator(LogLocator(base=10, numticks=5 if layout.narrow else 8))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_locator(NullLocator())
        axis.set_major_formatter(FuncFormatter(decade_tick))  # plain text: mathtext labels cost seconds


def draw(panels: dict[str, Panel], params: ConditioningParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout: one panel per drawn format (stacked on a phone); the caller
    saves and closes it.
    """
    shape = (len(params.formats), 1) if layout.narrow else (1, len(params.formats))
    fig, axes = plt.subplots(*shape, figsize=layout.size, layout="constrained", squeeze=False)
    flat = list(axes.flat)
    for ax, name in zip(flat, params.formats):
        _panel(ax, panels[name], params, palette, layout)
        if layout.narrow:
            ax.set_ylabel("relative error")
    if layout.narrow:
        flat[-1].set_xlabel("condition number κ = Σ|xᵢ| / |Σxᵢ|")
    else:
        for ax in flat:
            ax.set_xlabel("κ = Σ|xᵢ| / |Σxᵢ|, condition number of the sum")
        flat[0].set_ylabel("relative error |ŝ − s| / |s|")
    handles, labels = flat[0].get_legend_handles_labels()
    handles.append(Line2D([], [], color=palette.muted, lw=1.0, ls=":"))
    labels.append("bound (method's colour)" if layout.narrow else "worst-case bound (in the method's colour)")
    fig.legend(handles, labels, loc="outside lower center", ncols=2 if layout.narrow else 4, frameon=False)
    return fig
