"""Error-versus-n figures: relative error of each method against n, log-log.

One panel per format; for each method the median over the trials and a
10-90 % band; the worst-case bounds dashed and the sqrt(n) u behaviour of
random data dotted; the stall marked.  Exact results (error 0) cannot sit on
a log axis: a median of 0 is a marker on a strip at the bottom (a row per
method), never joined to the line, and a band stops where a tenth or more of the
trials are exact.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from fpsum.formats import Format, get_format
from fpsum.names import METHOD_LABELS, METHODS, Method
from fpsum.sweep import Sweep, run_sweep

from .contract import FigureFiles, NestedNumbers
from .html import static_fragment
from .looks import LOOKS, MARKERS, Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant, superscript
from .variants import Layout, Sizes

Y_TOP = 40.0
"""Top of the y axis: a decade of room above the worst-case line's value at the stall (2) for the labels."""
STRIP_ROW = 10**0.35
"""The exact strip holds one row of markers per method, each row this factor below the one above."""
SHARED_BAND = "kahan"
"""Kahan's band lies on pairwise's (both stay near u): it is hatched, the others are shaded."""
WORST_CASE = {"naive": "(n−1)u", "pairwise": "⌈log₂n⌉u", "kahan": "2u"}
"""The first-order worst-case bound of each method that has one, for non-negative data, relative."""
BOUND_OF = {method: f"{formula}, {LOOKS[method].label} bound" for method, formula in WORST_CASE.items()}
"""The label of each bound's line."""
RANDOM = "√n·u, random data"
BOUND_DASH: dict[str, str | tuple[float, tuple[float, ...]]] = {
    BOUND_OF["naive"]: "--", BOUND_OF["pairwise"]: "-.", BOUND_OF["kahan"]: (0, (7.0, 1.5, 1.5, 1.5, 1.5, 1.5)),
    RANDOM: ":"}
"""The dash of each bound's line (all in the muted colour): the legend tells them apart."""
GROWTH_FROM = 256
"""The n from which ``growth``, each median's growth up to ``n_max``, is measured (a point of every grid)."""


@dataclass(frozen=True)
class ErrorVsNParams:
    """What a figure is computed from; all of it goes into the cache key."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    methods: tuple[str, ...] = ("naive", "wide", "kahan", "pairwise")
    n_max: int = 2**16
    trials: int = 32
    seed: int = 2024
    per_octave: int = 4

    def __post_init__(self) -> None:
        if self.n_max < 2 or self.trials < 1 or self.per_octave < 1:
            raise ValueError(f"invalid error-versus-n parameters: n_max={self.n_max}, trials={self.trials}, "
                             f"per_octave={self.per_octave}")
        for name in self.formats:
            get_format(name)
        unknown = set(self.methods) - set(METHODS)
        if unknown:
            raise ValueError(f"unknown methods {sorted(unknown)} (known: {', '.join(METHODS)})")


def records() -> list[Record]:
    """FP16 and BF16 with four methods; FP32 naive and pairwise far past FP32's stall point.

    FP32 takes eight points per octave, so the half octave past its stall has
    a curve, not a jump: the naive running totals give every n at once, and
    only the pairwise sums cost more.
    """
    return [
        Record("error-vs-n", ErrorVsNParams(), build),
        Record("error-vs-n-fp32", ErrorVsNParams(formats=("fp32",), methods=("naive", "pairwise"),
                                                 n_max=48_000_000, trials=3, per_octave=8), build),
    ]


def compute(params: ErrorVsNParams) -> dict[str, Sweep]:
    """One sweep per format."""
    methods: tuple[Method, ...] = tuple(params.methods)  # type: ignore[arg-type]
    return {
        name: run_sweep(get_format(name), methods, params.n_max, params.trials, params.seed,
                              per_octave=params.per_octave)
        for name in params.formats
    }


def floor_for(sweeps: dict[str, Sweep]) -> float:
    """Where exact zeros are drawn: a power of ten at least 4x below the smallest nonzero error."""
    nonzero = [e[(e > 0) & np.isfinite(e)] for s in sweeps.values() for e in s.errors.values()]
    smallest = min((float(v.min()) for v in nonzero if v.size), default=1e-8)
    return float(10.0 ** np.floor(np.log10(smallest / 4)))


def bounds(fmt: Format, ns: np.ndarray, methods: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
    """The first-order bounds of ``methods`` (all that have one by default) as relative errors for
    non-negative data, by label, and sqrt(n) u, the typical error of random data.
    """
    u = fmt.unit_roundoff
    n = ns.astype(np.float64)
    worst = {"naive": (n - 1) * u, "pairwise": np.ceil(np.log2(n)) * u, "kahan": np.full_like(n, 2 * u)}
    chosen = BOUND_OF if methods is None else [m for m in BOUND_OF if m in methods]
    return {BOUND_OF[m]: worst[m] for m in chosen} | {RANDOM: np.sqrt(n) * u}


def strip_rows(floor: float, methods: int) -> np.ndarray:
    """The heights of the exact strip's marker rows, the first at ``floor``."""
    return np.asarray(floor / STRIP_ROW ** np.arange(methods), dtype=np.float64)


def _panel(ax: Axes, sweep: Sweep, floor: float, palette: Palette, layout: Layout) -> None:
    fmt = sweep.fmt
    ns = sweep.ns
    methods = tuple(sweep.errors)
    stall_n = int(2 * fmt.stall_point)  # uniform inputs average 1/2: the sum reaches 2**p near n = 2**(p+1)
    rows = strip_rows(floor, len(methods))
    # The bounds are told apart by their dashes, named in the legend: a label on a line would sit where
    # the naive line climbs after its stall, in the narrow panels as in the wide ones.
    for name, values in bounds(fmt, ns, methods).items():
        ax.plot(ns, np.where(values > 0, values, np.nan), color=palette.muted, lw=1, ls=BOUND_DASH[name],
                label=name, zorder=1)
    for row, method in zip(rows, methods):
        look, colour = LOOKS[method], LOOKS[method].colour(palette)
        errors = sweep.errors[method]
        low, mid, high = np.percentile(errors, [10, 50, 90], axis=0)
        # The band where at least 90 % of the trials are inexact, so it has a bottom on a log axis.
        if method == SHARED_BAND:
            ax.fill_between(ns, low, high, where=low > 0, facecolor="none", edgecolor=colour, hatch="////",
                            lw=0, alpha=0.55, zorder=2)
        else:
            ax.fill_between(ns, low, high, where=low > 0, color=colour, alpha=0.16, lw=0, zorder=2)
        method_line(ax, method, ns, np.where(mid > 0, mid, np.nan), palette, zorder=3)
        exact = mid == 0  # at least half the trials exact: a marker on the method's row of the strip
        ax.plot(ns[exact], np.full(int(exact.sum()), row), ls="none", marker=MARKERS[look.marker].matplotlib,
                ms=4.5, color=colour, markeredgecolor=palette.background, markeredgewidth=0.6, zorder=3)
    bottom, top = rows[-1] / STRIP_ROW, floor * STRIP_ROW
    if stall_n <= ns[-1]:
        # Down to the strip, not through it: its label is at the right, where a late stall would cross it.
        above = float(np.log(top / bottom) / np.log(Y_TOP / bottom))
        ax.axvline(stall_n, ymin=above, color=LOOKS["naive"].colour(palette), lw=1, alpha=0.6, zorder=1)
        # Above the worst-case line, which reaches 2 just at the stall: nothing else is drawn there.
        said = f"naive stalls at {number(fmt.stall_point)}"
        ax.annotate(said if layout.narrow else f"{said} (n ≈ {number(stall_n)})", (stall_n, 2.0),
                    xytext=(-4, 4), textcoords="offset points", ha="right", va="bottom",
                    color=LOOKS["naive"].colour(palette))
    ax.axhspan(bottom, top, color=palette.grid, alpha=0.6, lw=0, zorder=0)
    ax.annotate("exact (error 0)", (float(ns[-1]), float(np.sqrt(bottom * top))), xytext=(-3, 0),
                textcoords="offset points", ha="right", va="center", color=palette.muted)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(2**-0.3, ns[-1] * 2**0.3)  # room for the whole of the markers at n = 1, and the last tick label
    ax.set_ylim(bottom, Y_TOP)
    # Decades above the strip only: inside it the height is a row, not a value.
    decades = np.arange(0, np.floor(np.log10(top)), -2)
    ax.yaxis.set_major_locator(FixedLocator([10.0**d for d in decades.tolist()]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_title(f"{fmt.label} (u = 2{superscript(-fmt.precision)})")
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    if layout.narrow:  # a tick every four octaves, each labelled (the minor ones left bare)
        octaves = np.arange(0, np.log2(ns[-1]) + 1, 4)
        ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in octaves.tolist()]))
        ax.xaxis.set_minor_formatter(NullFormatter())


def sizes(panels: int) -> Sizes:
    """Inches.  Wide: the panels side by side, 4.6 each (a single one 7 wide), 4.8 high; narrow: the
    panels stacked, 3.6 high each and the legend below.
    """
    return Sizes(wide=(4.6 * panels if panels > 1 else 7.0, 4.8), narrow=(4.5, 1.3 + 3.6 * panels))


def draw(sweeps: dict[str, Sweep], palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    shape = (len(sweeps), 1) if layout.narrow else (1, len(sweeps))
    fig, axes = plt.subplots(*shape, figsize=layout.size, sharey=True, sharex=layout.narrow, layout="constrained")
    axes_list = list(np.atleast_1d(axes))
    floor = floor_for(sweeps)
    for ax, sweep in zip(axes_list, sweeps.values()):
        _panel(ax, sweep, floor, palette, layout)
    for ax in axes_list[-1:] if layout.narrow else axes_list:
        ax.set_xlabel("n, number of inputs summed")
    for ax in axes_list if layout.narrow else axes_list[:1]:
        ax.set_ylabel("relative error |ŝ − s| / |s|")
    handles, labels = axes_list[0].get_legend_handles_labels()
    # The methods first, then the bounds (drawn first, under the methods).
    order = sorted(range(len(labels)), key=lambda k: labels[k] in BOUND_DASH)
    fig.legend([handles[k] for k in order], [labels[k] for k in order], loc="outside lower center",
               ncols=2 if layout.narrow else 4, frameon=False,
               **({"handlelength": 1.6, "columnspacing": 0.8, "handletextpad": 0.5} if layout.narrow else {}))
    return fig


def csv_bytes(sweeps: dict[str, Sweep]) -> bytes:
    """The plotted data: per format, method and n, the 10th, 50th and 90th percentile and the share of exact results."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "method", "n", "trials", "p10", "median", "p90", "exact_fraction"])
    for name, sweep in sweeps.items():
        for method, errors in sweep.errors.items():
            low, mid, high = np.percentile(errors, [10, 50, 90], axis=0)
            exact_share = (errors == 0).mean(axis=0)
            for j, n in enumerate(sweep.ns):
                writer.writerow([name, method, int(n), sweep.trials, repr(float(low[j])), repr(float(mid[j])),
                                 repr(float(high[j])), repr(float(exact_share[j]))])
    return out.getvalue().encode()


def alt_text(sweeps: dict[str, Sweep], params: ErrorVsNParams) -> str:
    """What the plot shows, in words, from the data it plots."""
    parts = []
    for sweep in sweeps.values():
        said = ", ".join(f"{METHOD_LABELS[m]} {significant(float(np.median(e[:, -1])))}"
                         for m, e in sweep.errors.items())
        parts.append(f"{sweep.fmt.label}: at n = {number(params.n_max)} the median relative errors are {said}; "
                     f"the naive error climbs towards 1 once the sum stalls at {number(sweep.fmt.stall_point)}")
    return ("Log-log plot of relative error against n, the number of uniform inputs summed, "
            f"median and 10-90 % band over {params.trials} trials, with the worst-case bounds dashed "
            "and the square-root-of-n behaviour of random data dotted. " + ". ".join(parts) + ".")


def caption(sweeps: dict[str, Sweep], params: ErrorVsNParams) -> tuple[str, str]:
    """The figure's caption (HTML): a short one, and the rest for its fold."""
    labels = " and ".join(s.fmt.label for s in sweeps.values())
    shade = f"shade; hatched for {LOOKS[SHARED_BAND].label}" if SHARED_BAND in params.methods else "shade"
    drawn = [formula for method, formula in WORST_CASE.items() if method in params.methods]
    listed = ", ".join(drawn[:-1]) + f" and {drawn[-1]}" if len(drawn) > 1 else "".join(drawn)
    lead = (f"Relative error against n in {labels}, for uniform inputs in [0, 1): the median over "
            f"{params.trials} seeded trials.")
    more = (f"The line is the median, the 10-90 % band the {shade}. Dashed (each its own dash, named in the "
            f"legend): the worst-case bound{'s' if len(drawn) > 1 else ''} {listed}; dotted: √n·u, the typical "
            "size for random data. "
            "A marker on the grey strip at the bottom, one row per method: the median trial was exact (error 0). "
            "Lines join inexact medians only, and a band is left out where a tenth or more of the trials "
            "were exact.")
    return lead, more


def headline(sweeps: dict[str, Sweep], params: ErrorVsNParams) -> NestedNumbers:
    """Numbers the pages quote: ``trials``, ``n_max``, ``growth_from``, and per format and method
    ``median`` (the median relative error at ``n_max``) and ``growth`` (that median over the
    median at ``growth_from``, to two figures; "none" where the sweep does not reach it or the
    median there is 0).
    """
    numbers: dict[str, NestedNumbers | str] = {"trials": number(params.trials), "n_max": number(params.n_max),
                                               "growth_from": number(GROWTH_FROM)}
    for name, sweep in sweeps.items():
        start = np.nonzero(sweep.ns == GROWTH_FROM)[0]
        per_method: dict[str, NestedNumbers | str] = {}
        for method, errors in sweep.errors.items():
            last = float(np.median(errors[:, -1]))
            first = float(np.median(errors[:, start[0]])) if start.size else 0.0
            growth = number(float(f"{last / first:.2g}")) if first > 0 else "none"
            per_method[method] = {"median": significant(last), "growth": growth}
        numbers[name] = per_method
    return numbers


def build(figure_id: str, params: ErrorVsNParams) -> Built:
    """All files of the figure (an SVG per palette, a slide PNG, the CSV, the page fragment) and its numbers."""
    sweeps = compute(params)
    shape = sizes(len(sweeps))
    files = render(lambda palette, layout: draw(sweeps, palette, layout), figure_id, shape)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(sweeps)
    files |= static_fragment(figure_id, shape, alt_text(sweeps, params), *caption(sweeps, params))
    return Built(files=files, numbers=headline(sweeps, params))
