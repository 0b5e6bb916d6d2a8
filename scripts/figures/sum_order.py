"""The order of a sum: the same inputs in many orders, and in a GPU-like tree with more or fewer workers.

Two records, both on the same seeded inputs (``fpsum.inputs.make_inputs(kind, n, fmt, seed)``):

``sum-order``: naive sums of the inputs in ``orders`` random orders
(``fpsum.order.shuffled_totals``) and sorted four ways (``fpsum.order.sorted_totals``).
Numbers ``n`` and ``orders``, and per ``<format>_<kind>`` (``fp16_uniform``,
``bf16_normal``, ...): ``exact``, ``min``, ``max``, ``median`` and ``distinct``
(how many different totals the random orders gave), ``above_half`` (how many
inputs exceed one half), ``ascending``,
``descending``, ``ascending_magnitude``, ``descending_magnitude``, and
``ascending_lowest`` / ``descending_highest``, where the running sum turns
in those two sorted orders (its lowest and its highest value).

``tree-reduction``: ``fpsum.order.tree_reduction`` with 1, 2, 4, ... ``n`` workers.
Numbers ``n`` (also the most workers), ``counts`` (how many worker counts) and per ``<format>_<kind>``:
``exact``, ``w<workers>`` (the total with that many workers; ``naive`` and ``pairwise`` are
those of one worker and of n), ``distinct``
(how many different totals the worker counts gave) and ``correct_from`` (the
fewest workers from which every larger power of two gives the exact sum
correctly rounded, or ``none``).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, FixedLocator, NullFormatter, NullLocator
from numpy.typing import ArrayLike

from fpsum.array_rounding import to_format
from fpsum.exact import exact_total
from fpsum.formats import Format, get_format
from fpsum.inputs import INPUT_KINDS, INPUT_LABELS, InputKind, make_inputs
from fpsum.methods import running_totals
from fpsum.order import random_orders, sorted_totals, totals_in_orders, tree_reduction

from . import spacing
from .contract import FigureFiles
from .html import static_fragment
from .looks import Palette, format_colour
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number
from .variants import Layout, Sizes

ORDER_SIZES = Sizes(wide=(8.0, 7.8), narrow=(4.5, 12.4))
"""Inches: a row per case in both layouts; a phone's titles take three lines."""
TREE_SIZES = Sizes(wide=(9.0, 4.4), narrow=(4.5, 8.6))
"""Inches: a panel per kind of input, side by side or stacked on a phone."""
SORTED_MARKERS = {"ascending": "^", "descending": "v"}
FORMAT_MARKERS = {"fp16": "o", "bf16": "s"}


def format_dash(name: str) -> Any:
    """A format's line style in the spacing figure."""
    return spacing.DASHES[name]


@dataclass(frozen=True)
class OrderParams:
    """The formats and kinds of input (a panel each), how many inputs and random orders, and the seed."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    kinds: tuple[InputKind, ...] = ("uniform", "normal")
    n: int = 4096
    orders: int = 500
    seed: int = 0

    def __post_init__(self) -> None:
        for name in self.formats:
            if name not in spacing.DASHES or name not in FORMAT_MARKERS:
                raise ValueError(f"no look for format {name!r}")
            get_format(name)
        for kind in self.kinds:
            if kind not in INPUT_KINDS:
                raise ValueError(f"unknown kind of input {kind!r}")
        if self.n < 2 or self.n & (self.n - 1) or self.orders < 2:  # n a power of two: one worker per input is drawn
            raise ValueError(f"invalid order parameters: n={self.n} (a power of two), orders={self.orders}")

    def cases(self) -> list[tuple[Format, InputKind]]:
        """Every (format, kind), kinds first: uniform FP16, uniform BF16, normal FP16, normal BF16."""
        return [(get_format(f), k) for k in self.kinds for f in self.formats]

    def inputs(self, fmt: Format, kind: InputKind) -> np.ndarray:
        """The seeded inputs of one case."""
        return make_inputs(kind, self.n, fmt, self.seed)


def key(fmt: Format, kind: str) -> str:
    """The numbers' key of a case: ``fp16_uniform``."""
    return f"{fmt.name}_{kind}"


def workers(n: int) -> np.ndarray:
    """Every power of two from 1 to n (n itself when it is one, as the parameters require)."""
    return np.asarray(2 ** np.arange(n.bit_length()), dtype=np.int64)


def records() -> list[Record]:
    """The orders figure and the tree-reduction figure, on the same inputs."""
    params = OrderParams()
    return [Record("sum-order", params, build_orders), Record("tree-reduction", params, build_tree)]


def total_text(value: float | np.floating) -> str:
    """A total of a 16-bit format, every digit of it (FP16 near 64 needs four decimals)."""
    return number(float(value), 6)


def ulps_from(totals: ArrayLike, exact: float, fmt: Format) -> np.ndarray:
    """``totals - exact`` in ulps of the exact total in ``fmt``."""
    errors: np.ndarray = (np.asarray(totals, dtype=np.float64) - exact) / float(fmt.ulp(abs(exact)))
    return errors


# ---------------------------------------------------------------- random and sorted orders


@dataclass(frozen=True)
class Orders:
    """One case: the random orders' totals, the sorted ones, the exact sum, and the sorted orders' extremes."""

    fmt: Format
    kind: InputKind
    exact: float
    random: np.ndarray  # (orders,), float64
    sorted: dict[str, float]
    extremes: dict[str, float]
    """``ascending_lowest`` and ``descending_highest``: the turning points of the running sum in sorted order."""
    above_half: int
    """How many inputs exceed one half."""


def compute_orders(params: OrderParams) -> list[Orders]:
    """Every case summed in ``orders`` random orders and sorted four ways.

    The random orders are the ones :func:`fpsum.order.shuffled_totals` draws, drawn once: the cases share n and
    the seed.
    """
    orders = random_orders(params.n, params.orders, params.seed)
    results = []
    for fmt, kind in params.cases():
        values = params.inputs(fmt, kind)
        random = totals_in_orders(values, orders, fmt).astype(np.float64)
        wide = values.astype(np.float64)
        ascending = np.argsort(wide, kind="stable")
        partial = {name: running_totals("naive", values[order], fmt).astype(np.float64)
                   for name, order in (("ascending", ascending), ("descending", ascending[::-1]))}
        # Sorted by value, the running sum first goes one way as far as it can, then turns back.
        extremes = {"ascending_lowest": float(partial["ascending"].min()),
                    "descending_highest": float(partial["descending"].max())}
        results.append(Orders(fmt=fmt, kind=kind, exact=exact_total(values), random=random,
                              sorted=sorted_totals(values, fmt), extremes=extremes,
                              above_half=int((wide > 0.5).sum())))
    return results


SYMLOG = {"linthresh": 1.0, "linscale": 0.5}


def nice_ticks(top: float) -> list[float]:
    """0 and two or three round steps up to ``top`` (a fixed locator draws faster than matplotlib's own)."""
    step = 10.0 ** math.floor(math.log10(top / 2))
    for multiple in (1, 2, 2.5, 5, 10):
        if top / (multiple * step) <= 3.5:
            step *= multiple
            break
    return [k * step for k in range(int(top // step) + 1)]


def symlog_ticks(axis: Axis, limit: float, step: int = 1) -> None:
    """Ticks at 0, ±1, ±10, ... up to ``limit`` ulps (every ``step``-th power of ten), written as plain numbers,
    and no minor ticks.
    """
    powers = [10.0**k for k in range(0, int(np.floor(np.log10(limit))) + 1, step)]  # limit >= 1
    ticks = sorted([-p for p in powers] + [0.0] + powers)
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FixedFormatter([number(t) for t in ticks]))
    axis.set_minor_locator(NullLocator())


def draw_orders(results: list[Orders], params: OrderParams, palette: Palette, layout: Layout) -> Figure:
    """One row per case: how many random orders gave each total, and where the sorted orders land."""
    fig, axes = plt.subplots(len(results), 1, figsize=layout.size, layout="constrained", sharex=True)
    reach = max(float(np.abs(ulps_from(list(r.sorted.values()) + [r.random.min(), r.random.max()], r.exact,
                                       r.fmt)).max()) for r in results)
    limit = 1.6 * reach
    handles = {}
    for ax, r in zip(np.atleast_1d(axes), results):
        values, counts = np.unique(r.random, return_counts=True)
        share = 100 * counts / r.random.size
        colour = format_colour(r.fmt.name, palette)
        handles[r.fmt.label] = ax.vlines(ulps_from(values, r.exact, r.fmt), 0, share, color=colour, lw=2.2,
                                         label=f"{r.fmt.label}: share of the {number(params.orders)} random orders")
        top = float(share.max()) * 1.35
        method_line(ax, "exact", [0.0, 0.0], [0.0, top], palette, lw=1.2, zorder=1)
        for name, marker in SORTED_MARKERS.items():
            ax.plot(ulps_from([r.sorted[name]], r.exact, r.fmt), [top * 0.5], ls="none", marker=marker, ms=8,
                    color=palette.text, markeredgecolor=palette.background, label=f"sorted {name}", zorder=4)
        ax.set_ylim(0, top)
        ax.yaxis.set_major_locator(FixedLocator(nice_ticks(top)))
        ax.set_ylabel("% of orders")
        case = f"{r.fmt.label}, {INPUT_LABELS[r.kind]}: exact {number(r.exact, 2)}"
        ax.set_title(f"{case}\n" + spread_of(r).replace("; ", "\n") if layout.narrow else f"{case}; {spread_of(r)}",
                     fontsize="medium", loc="left")
        ax.set_xscale("symlog", **SYMLOG)
        ax.set_xlim(-limit, limit)
        symlog_ticks(ax.xaxis, limit, 2 if layout.narrow else 1)
        ax.grid(True, axis="x", color=palette.grid, lw=0.6)
    last = np.atleast_1d(axes)[-1]
    last.set_xlabel("naive sum minus the exact sum, in ulps\n(symmetric log scale)" if layout.narrow else
                    f"naive sum of the same {number(params.n)} inputs minus the exact sum, in ulps of the exact sum "
                    "(symmetric log scale)")
    first, _ = np.atleast_1d(axes)[0].get_legend_handles_labels()
    shown = [*handles.values(), *first[1:]]  # a bar handle per format, then exact and the sorted markers
    fig.legend(shown, [h.get_label() for h in shown], loc="outside upper center", ncols=1 if layout.narrow else 2,
               frameon=False)
    return fig


def spread_of(r: Orders) -> str:
    """What the orders gave, in words: ``random orders 1,987 to 2,048; ascending 2,048, descending 1,984``."""
    low, high = total_text(r.random.min()), total_text(r.random.max())
    ascending, descending = total_text(r.sorted["ascending"]), total_text(r.sorted["descending"])
    if low == high == ascending == descending:
        return f"every order, random or sorted, gives {low}"
    return f"random orders {low} to {high}; ascending {ascending}, descending {descending}"


def order_numbers(results: list[Orders], params: OrderParams) -> dict[str, str | dict[str, str]]:
    """The numbers the page quotes (see the module docstring)."""
    numbers: dict[str, str | dict[str, str]] = {"n": number(params.n), "orders": number(params.orders)}
    for r in results:
        numbers[key(r.fmt, r.kind)] = {
            "exact": number(r.exact, 2), "min": total_text(r.random.min()), "max": total_text(r.random.max()),
            "median": total_text(np.median(r.random)), "distinct": number(np.unique(r.random).size),
            "above_half": number(r.above_half),
            **{name: total_text(total) for name, total in r.sorted.items()},
            **{name: total_text(value) for name, value in r.extremes.items()},
        }
    return numbers


def build_orders(figure_id: str, params: OrderParams) -> Built:
    """The orders figure, its CSV (every order's total) and fragment, and the quoted numbers."""
    results = compute_orders(params)
    files = render(lambda palette, layout: draw_orders(results, params, palette, layout), figure_id, ORDER_SIZES)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "kind", "n", "order", "total", "exact"])
    for r in results:
        rows = [(f"random_{i}", t) for i, t in enumerate(r.random.tolist())] + list(r.sorted.items())
        for name, total in rows:
            writer.writerow([r.fmt.name, r.kind, params.n, name, repr(float(total)), repr(r.exact)])
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    said = [f"{r.fmt.label}, {INPUT_LABELS[r.kind]}: exact {number(r.exact, 2)}, {spread_of(r)}"
            for r in results]
    alt = (f"Four rows of bar charts, one per format and kind of input, of the naive sums of the same "
           f"{number(params.n)} inputs in {number(params.orders)} random orders and in sorted order. "
           + "; ".join(said) + ".")
    caption = (f"The same {number(params.n)} seeded inputs summed naively in {number(params.orders)} random orders "
               "and sorted by value: the order alone changes the total.")
    more = ("Every addition is rounded to the format. Bars: the share of the random orders that gave each total; "
            "triangles: sorted ascending ▲ and descending ▼. The vertical line through 0 is the exact sum. Each "
            "row is one format and one kind of input; the horizontal axis is the total minus the exact sum in ulps "
            "of the exact sum, on a symmetric log scale (linear within ±1 ulp).")
    files |= static_fragment(figure_id, ORDER_SIZES, alt, caption, more)
    return Built(files=files, numbers=order_numbers(results, params))


# ---------------------------------------------------------------- the tree reduction


@dataclass(frozen=True)
class Tree:
    """One case: the total with each number of workers, and the exact sum."""

    fmt: Format
    kind: InputKind
    exact: float
    workers: np.ndarray
    totals: np.ndarray  # float64, one per worker count


def compute_tree(params: OrderParams) -> list[Tree]:
    """Every case reduced by 1, 2, 4, ... n workers."""
    counts = workers(params.n)
    results = []
    for fmt, kind in params.cases():
        values = params.inputs(fmt, kind)
        totals = np.array([float(tree_reduction(values, fmt, int(w))) for w in counts])
        results.append(Tree(fmt=fmt, kind=kind, exact=exact_total(values), workers=counts, totals=totals))
    return results


def draw_tree(results: list[Tree], params: OrderParams, palette: Palette, layout: Layout) -> Figure:
    """One panel per kind of input (stacked on a phone): each format's error against the number of workers."""
    shape = (len(params.kinds), 1) if layout.narrow else (1, len(params.kinds))
    fig, axes = plt.subplots(*shape, figsize=layout.size, layout="constrained", sharey=True)
    reach = max(float(np.abs(ulps_from(r.totals, r.exact, r.fmt)).max()) for r in results)
    limit = 10.0 ** np.ceil(np.log10(reach * 1.5))
    for ax, kind in zip(np.atleast_1d(axes), params.kinds):
        for r in (r for r in results if r.kind == kind):
            ax.plot(r.workers, ulps_from(r.totals, r.exact, r.fmt), color=format_colour(r.fmt.name, palette), lw=2,
                    ls=format_dash(r.fmt.name), marker=FORMAT_MARKERS[r.fmt.name], ms=5,
                    markeredgecolor=palette.background, label=f"{r.fmt.label} (exact {number(r.exact, 2)})")
        ax.axhline(0, color=palette.muted, lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlim(0.7, params.n * 1.4)
        ax.set_yscale("symlog", **SYMLOG)
        ax.set_ylim(-limit, limit)
        symlog_ticks(ax.yaxis, limit)
        ticks = workers(params.n)[::2]
        ax.xaxis.set_major_locator(FixedLocator(ticks.tolist()))
        ax.xaxis.set_major_formatter(FixedFormatter([number(int(w)) for w in ticks]))
        ax.xaxis.set_minor_locator(FixedLocator(workers(params.n).tolist()))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"{INPUT_LABELS[kind]}, {number(params.n)} inputs")
        ax.set_xlabel(f"workers (1: naive; {number(params.n)}: pairwise)" if layout.narrow
                      else f"workers (1: the naive sum; {number(params.n)}: pairwise)")
        ax.grid(True, color=palette.grid, lw=0.6)
        ax.legend(frameon=False, loc="upper right")
    for ax in np.atleast_1d(axes) if layout.narrow else np.atleast_1d(axes)[:1]:
        ax.set_ylabel("total minus exact sum, ulps\n(symmetric log scale)")
    return fig


def correct_from(t: Tree) -> str:
    """The fewest workers from which every larger count gives the correctly rounded sum, or ``none``."""
    rounded = float(to_format(t.exact, t.fmt))
    right = t.totals == rounded
    if not right[-1]:
        return "none"
    first = len(right) - int(np.argmin(right[::-1])) if not right.all() else 0
    return number(int(t.workers[first]))


def tree_numbers(results: list[Tree], params: OrderParams) -> dict[str, str | dict[str, str]]:
    """The numbers the page quotes (see the module docstring)."""
    counts = workers(params.n)
    numbers: dict[str, str | dict[str, str]] = {"n": number(params.n), "counts": number(counts.size)}
    for t in results:
        per = {"exact": number(t.exact, 2), "distinct": number(np.unique(t.totals).size),
               "correct_from": correct_from(t)}
        per |= {f"w{int(w)}": total_text(total) for w, total in zip(t.workers, t.totals)}
        per |= {"naive": total_text(t.totals[0]), "pairwise": total_text(t.totals[-1])}
        numbers[key(t.fmt, t.kind)] = per
    return numbers


def build_tree(figure_id: str, params: OrderParams) -> Built:
    """The tree-reduction figure, its CSV and fragment, and the quoted numbers."""
    results = compute_tree(params)
    files = render(lambda palette, layout: draw_tree(results, params, palette, layout), figure_id, TREE_SIZES)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "kind", "n", "workers", "total", "exact"])
    for t in results:
        for w, total in zip(t.workers.tolist(), t.totals.tolist()):
            writer.writerow([t.fmt.name, t.kind, params.n, w, repr(total), repr(t.exact)])
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    said = [f"{t.fmt.label}, {INPUT_LABELS[t.kind]}: {number(float(t.totals[0]))} with one worker, "
            f"{number(float(t.totals[-1]))} with {number(int(t.workers[-1]))}, exact {number(t.exact)}"
            for t in results]
    alt = (f"Two panels, uniform and ± normal inputs, of the error of a tree reduction of the same {number(params.n)} "
           "inputs against the number of workers, for FP16 and BF16. " + "; ".join(said) + ".")
    caption = (f"A GPU-style reduction of the same {number(params.n)} inputs as in the figure above: the total "
               "changes with the number of workers.")
    more = ("Every addition is rounded to the format: w workers each add every w-th input in turn, and a balanced "
            "tree adds their w partial sums. One worker is the naive sum; one worker per input is the pairwise sum. "
            "The vertical axis is the total minus the exact sum in ulps of the exact sum, on a symmetric log scale.")
    files |= static_fragment(figure_id, TREE_SIZES, alt, caption, more)
    return Built(files=files, numbers=tree_numbers(results, params))
