"""Weight updates that vanish: one weight stored four ways, updated many times by the same small step.

Numbers of record ``weight-updates`` (``fpsum.updates.update_trajectory`` on
``constant_updates(steps, update)`` from each start): ``format``, ``p``,
``steps``, ``update``, ``samples``; per way of storing the weight (``nearest``,
``kahan``, ``stochastic``, ``master``) ``bytes``, its memory per weight;
the relative thresholds of round to nearest, as exponents of two: ``lost_exp``
(every update below 2^-lost_exp |w| is lost) and ``moves_exp`` (every update
above 2^-moves_exp |w| moves the weight), ``kahan_exp`` (about u^2) and the
same two for FP32, ``master_lost_exp`` and ``master_moves_exp``; ``lost_beyond_exp``
and ``master_lost_beyond`` (``update`` is lost, up or down, by every BF16 weight
beyond 2^-lost_beyond_exp and every FP32 master copy beyond master_lost_beyond); and per start
(``start1``, ``start8``, ...): ``start``, ``exact`` (the exact final weight),
each way's final weight and ``<way>_ulps`` (its largest error over all steps,
in ulps of the exact weight, rounded up), ``up_exp`` and ``down_exp`` (half the gap to the
neighbour above and below is 2^-up_exp and 2^-down_exp), ``kahan_limit_exp``
(Kahan-compensated updates of at most 2^-kahan_limit_exp are lost for good)
and ``ratio`` (the update over 2^-kahan_limit_exp); ``sr_bits``, and per start the
numbers of stochastic rounding with that many random bits (:func:`few_bits`).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

from fpsum.array_rounding import to_format
from fpsum.formats import FP32, Format, get_format
from fpsum.names import UPDATE_METHODS, UpdateMethod
from fpsum.updates import (
    bytes_per_weight,
    constant_updates,
    exact_trajectory,
    lost_below,
    update_trajectory,
)

from .contract import FigureFiles
from .html import static_fragment
from .looks import LOOKS, Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(9.0, 7.0), narrow=(4.5, 12.6))
"""Inches: a column per start (the weight above its error), or on a phone the four panels in one column."""
ROOM_BELOW = 0.5
"""Room under a weight's start, as a share of its climb: the three lines of its annotation go there."""
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUPERSCRIPT_MINUS = "⁻"
WEIGHT_DECIMALS = 7
"""A BF16 weight near 1 to 16 has at most 8 significant bits: 7 decimals print it exactly."""


def look(method: UpdateMethod) -> str:
    """The key of ``method``'s look in :data:`figures.looks.LOOKS`."""
    return f"weight{method}"


@dataclass(frozen=True)
class WeightUpdatesParams:
    """The weight's format, where it starts (one panel each), the update, the steps, the seed, the points drawn."""

    format: str = "bf16"
    starts: tuple[float, ...] = (1.0, 8.0)
    update: float = 1e-4
    steps: int = 10_000
    seed: int = 0
    samples: int = 250
    sr_bits: int = 8

    def __post_init__(self) -> None:
        fmt = get_format(self.format)
        if fmt.bits > 16 or self.steps < 2 or not 2 <= self.samples <= self.steps or not 0 < self.update < 1:
            raise ValueError(f"invalid weight-update parameters: {self}")
        for start in self.starts:
            if start <= 0 or start != int(start) or float(to_format(start, fmt)) != start:
                raise ValueError(f"a start must be a positive whole number held exactly in {fmt.label}, not {start}")

    def key(self, start: float) -> str:
        """The numbers' key of a start: ``start1`` for 1.0."""
        return f"start{int(start)}"


def records() -> list[Record]:
    """The one weight-update figure."""
    return [Record("weight-updates", WeightUpdatesParams(), build)]


@dataclass(frozen=True)
class Trajectories:
    """Every step of every way (columns: the starts), the exact weight, and its ulp in the format."""

    fmt: Format
    starts: np.ndarray
    exact: np.ndarray  # (steps, starts)
    stored: dict[UpdateMethod, np.ndarray]  # (steps, starts) each
    ulps: np.ndarray  # ulp of the exact weight in fmt, (steps, starts)
    few_bits: np.ndarray  # stochastic rounding with sr_bits random bits, not drawn (steps, starts)

    def error_ulps(self, method: UpdateMethod) -> np.ndarray:
        """Stored minus exact weight, in ulps of the exact weight."""
        errors: np.ndarray = (self.stored[method] - self.exact) / self.ulps
        return errors

    def worst_so_far(self, method: UpdateMethod) -> np.ndarray:
        """The largest absolute error in ulps over every step up to each step (steps, starts)."""
        worst: np.ndarray = np.maximum.accumulate(np.abs(self.error_ulps(method)), axis=0)
        return worst


def compute(params: WeightUpdatesParams) -> Trajectories:
    """Every start updated ``steps`` times by ``update``, each way, in one vectorised run per way."""
    fmt = get_format(params.format)
    starts = np.array(params.starts)
    updates = constant_updates(params.steps, params.update, weights=starts.size)
    exact = exact_trajectory(starts, updates)
    stored = {m: update_trajectory(starts, updates, fmt, m, seed=params.seed) for m in UPDATE_METHODS}
    few_bits = update_trajectory(starts, updates, fmt, "stochastic", seed=params.seed, sr_bits=params.sr_bits)
    return Trajectories(fmt=fmt, starts=starts, exact=exact, stored=stored, ulps=fmt.ulps(exact), few_bits=few_bits)


def drawn_steps(params: WeightUpdatesParams) -> np.ndarray:
    """The steps drawn and written to the CSV: 0 (the start) and every ``steps / samples``-th up to the last."""
    return np.unique(np.linspace(0, params.steps, params.samples + 1).round().astype(np.int64))


def with_start(values: np.ndarray, start: float) -> np.ndarray:
    """One start's ``values`` after each step, with the start before them as step 0."""
    return np.concatenate([[start], values])


def exponent(value: float) -> int:
    """``k`` for ``value == 2**-k``; ``ValueError`` for anything else."""
    k = -math.log2(value)
    if k != round(k):
        raise ValueError(f"{value} is not a power of two")
    return round(k)


def kahan_limit(start: float, fmt: Format) -> float:
    """Kahan-compensated updates of at most this size never move a weight of ``start`` upwards (even last bit).

    The compensation grows to half the gap above the weight, 2**(e - p + 1) / 2 for
    2**e <= w < 2**(e + 1); at that power of two its own half-gap is 2**(e - 2p).
    """
    e = math.floor(math.log2(start))
    return 2.0 ** (e - 2 * fmt.precision)


def lost_beyond(update: float, fmt: Format) -> float:
    """The smallest power of two W such that round to nearest loses ``update``, up or down, at every weight beyond W.

    Within a binade (W, 2W] the smallest half-gap is the one just above W (both
    ways) or at 2W (downwards), and both are half an ulp of W's successor; they
    double from binade to binade, so the first W where that half-gap exceeds
    ``update`` is the answer.
    """
    w = 2.0 ** math.floor(math.log2(update))
    while float(lost_below(w + fmt.ulp(w), fmt)) <= update:
        w *= 2
    return w


def up_to(value: float, digits: int = 3) -> str:
    """``value`` rounded up to ``digits`` significant digits: a bound that stays true (0.52003 -> 0.521)."""
    if value == 0:
        return "0"
    scale = 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)
    text = significant(math.ceil(value / scale - 1e-9) * scale, digits)
    return text.rstrip("0").rstrip(".") if "." in text else text


def few_bits(t: Trajectories, j: int, params: WeightUpdatesParams) -> dict[str, str]:
    """Stochastic rounding with ``sr_bits`` random bits from start ``j``: where it ends, and why.

    ``bits_end``, the final weight; ``bits_cut_exp``, k for the update size
    2**-k below which every draw loses it at the start (``2**-sr_bits`` of
    the gap above);
    ``bits_moves``, how many steps changed the weight; ``bits_share`` and
    ``ideal_share``, the chance per step of a move up from the start, with
    ``sr_bits`` bits and with ideal draws (the update's share of the gap).
    """
    start = float(t.starts[j])
    gap = float(t.fmt.ulp(start))
    update = float(np.float32(params.update))
    cut = gap * 2.0**-params.sr_bits
    scale = 2**params.sr_bits
    path = with_start(t.few_bits[:, j], start)
    return {
        "bits_end": number(float(t.few_bits[-1, j]), WEIGHT_DECIMALS), "bits_cut_exp": str(exponent(cut)),
        "bits_moves": number(int(np.count_nonzero(path[1:] != path[:-1]))),
        "bits_share": significant(math.floor(update / gap * scale) / scale, 3),
        "ideal_share": significant(update / gap, 3),
    }


def _panel(ax: Axes, err: Axes, t: Trajectories, j: int, params: WeightUpdatesParams, palette: Palette,
           layout: Layout) -> None:
    """One start: the stored weight (top) and its error in ulps (bottom), every way, at the drawn steps."""
    steps = drawn_steps(params)
    start = float(t.starts[j])
    method_line(ax, "exact", steps, with_start(t.exact[:, j], start)[steps], palette, zorder=5)
    # Round to nearest first and solid, Kahan dashed over it: where both stay put, both show.
    gap = max(1, steps.size // 10)  # ten markers a line, each way's shifted so that lines on top of each other show
    for k, method in enumerate(UPDATE_METHODS):
        stored = with_start(t.stored[method][:, j], start)[steps]
        worst = with_start(t.worst_so_far(method)[:, j], 0.0)[steps]
        every = (k * gap // len(UPDATE_METHODS), gap)
        method_line(ax, look(method), steps, stored, palette, markevery=every, zorder=3)
        shown = steps > 0  # no error before the first step: nothing to put on a log axis
        method_line(err, look(method), steps[shown], worst[shown], palette, markevery=every, label=None, zorder=3)
    half = float(lost_below(start, t.fmt, 1.0))
    lost = [LOOKS[look(m)].label for m in UPDATE_METHODS if t.stored[m][-1, j] == start]
    said = " and\n".join(lost) + (" stay" if len(lost) > 1 else " stays") + f" at {number(start)}" if lost else ""
    power = f"2{SUPERSCRIPT_MINUS}{str(exponent(half)).translate(SUPERSCRIPTS)}"  # no mathtext: it is slow to lay out
    ax.annotate(f"{said}\nhalf the gap above {number(start)}: {power} > {params.update:g}",
                (params.steps, start), xytext=(-4, -6), textcoords="offset points", ha="right", va="top",
                color=palette.text)  # under the start, where no way of storing the weight goes
    title = f"{t.fmt.label} weight from {number(start)}"
    ax.set_title(title if layout.narrow else f"{title}: {number(params.steps)} steps of {params.update:g}")
    err.set_yscale("log")
    drawn = steps[steps > 0] - 1
    low = min(float(t.worst_so_far(m)[drawn, j].min()) for m in UPDATE_METHODS)
    high = max(float(t.worst_so_far(m)[drawn, j].max()) for m in UPDATE_METHODS)
    ticks = [10.0**k for k in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]
    err.yaxis.set_major_locator(FixedLocator(ticks))
    err.yaxis.set_major_formatter(FixedFormatter([number(v, 3) for v in ticks]))  # plain numbers, not 10^k
    err.yaxis.set_minor_locator(NullLocator())
    err.set_ylim(ticks[0], ticks[-1])
    err.axhline(0.5, color=palette.muted, lw=0.8, ls=":")
    err.set_xlabel("step")
    err.set_xlim(0, params.steps)
    ticks_x = np.linspace(0, params.steps, 3 if layout.narrow else 6).round().tolist()
    err.xaxis.set_major_locator(FixedLocator(ticks_x))
    err.xaxis.set_major_formatter(FixedFormatter([number(x) for x in ticks_x]))
    for a in (ax, err):
        a.grid(True, color=palette.grid, lw=0.6)
    top = max(float(t.exact[-1, j]), max(float(s[:, j].max()) for s in t.stored.values()))
    ax.set_ylim(start - ROOM_BELOW * (top - start), top + 0.06 * (top - start))


def draw(t: Trajectories, params: WeightUpdatesParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout: a column per start, the weight above and its error below; on a
    phone one column, each start's weight above its error.
    """
    starts = len(params.starts)
    if layout.narrow:
        fig, column = plt.subplots(2 * starts, 1, figsize=layout.size, layout="constrained", sharex=True,
                                   height_ratios=(3, 2) * starts)
        pairs = [(column[2 * j], column[2 * j + 1]) for j in range(starts)]
    else:
        fig, axes = plt.subplots(2, starts, figsize=layout.size, layout="constrained", sharex=True,
                                 height_ratios=(3, 2), squeeze=False)
        pairs = [(axes[0, j], axes[1, j]) for j in range(starts)]
    for j, (ax, err) in enumerate(pairs):
        _panel(ax, err, t, j, params, palette, layout)
    for ax, err in pairs if layout.narrow else pairs[:1]:
        ax.set_ylabel(f"stored weight ({t.fmt.label})")
        err.set_ylabel("largest error\nso far (ulps)" if layout.narrow
                       else f"largest error so far\n({t.fmt.label} ulps of the exact weight)")
    if layout.narrow:
        for _, err in pairs[:-1]:
            err.set_xlabel("")
    handles, labels = pairs[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=2 if layout.narrow else 3, frameon=False)
    return fig


def quoted(t: Trajectories, params: WeightUpdatesParams) -> dict[str, str | dict[str, str]]:
    """The numbers the page quotes (see the module docstring)."""
    fmt, p = t.fmt, t.fmt.precision
    fp32 = FP32
    numbers: dict[str, str | dict[str, str]] = {
        "format": fmt.label, "p": str(p), "steps": number(params.steps), "update": f"{params.update:g}",
        "samples": number(params.samples),
        "bytes": {m: str(bytes_per_weight(m, fmt)) for m in UPDATE_METHODS},
        "lost_exp": str(p + 1), "moves_exp": str(p), "kahan_exp": str(2 * p),
        "master_lost_exp": str(fp32.precision + 1), "master_moves_exp": str(fp32.precision),
        "lost_beyond_exp": str(exponent(lost_beyond(params.update, fmt))),
        "master_lost_beyond": number(lost_beyond(params.update, fp32)),
        "sr_bits": str(params.sr_bits),
    }
    for j, start in enumerate(params.starts):
        limit = kahan_limit(start, fmt)
        per: dict[str, str] = {
            "start": number(start),
            "exact": number(float(t.exact[-1, j])),
            "up_exp": str(exponent(float(lost_below(start, fmt, 1.0)))),
            "down_exp": str(exponent(float(lost_below(start, fmt, -1.0)))),
            "kahan_limit_exp": str(exponent(limit)),
            "ratio": significant(params.update / limit),
            **few_bits(t, j, params),
        }
        for m in UPDATE_METHODS:
            per[m] = number(float(t.stored[m][-1, j]), WEIGHT_DECIMALS)
            per[f"{m}_ulps"] = up_to(float(np.abs(t.error_ulps(m)[:, j]).max()))
        numbers[params.key(start)] = per
    return numbers


def build(figure_id: str, params: WeightUpdatesParams) -> Built:
    """The figure, its CSV (the drawn steps) and fragment, and the quoted numbers."""
    t = compute(params)
    files = render(lambda palette, layout: draw(t, params, palette, layout), figure_id, SIZES)
    steps = drawn_steps(params)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "start", "update", "step", "exact", *UPDATE_METHODS])
    for j, start in enumerate(params.starts):
        exact = with_start(t.exact[:, j], start)[steps]
        stored = {m: with_start(t.stored[m][:, j], start)[steps] for m in UPDATE_METHODS}
        for i, step in enumerate(steps.tolist()):
            writer.writerow([t.fmt.name, repr(start), repr(float(np.float32(params.update))), step,
                             repr(float(exact[i])), *(repr(float(stored[m][i])) for m in UPDATE_METHODS)])
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    numbers = quoted(t, params)
    fmt = t.fmt
    ends = []
    for start in params.starts:
        per = numbers[params.key(start)]
        assert isinstance(per, dict)
        ends.append(f"from {per['start']} (exact end {per['exact']}): round to nearest ends at {per['nearest']}, "
                    f"Kahan-compensated at {per['kahan']}, stochastic rounding at {per['stochastic']} and the FP32 "
                    f"master copy at {per['master']}")
    alt = (f"Two columns of plots, one per starting weight, of a {fmt.label} weight updated {number(params.steps)} "
           f"times by {params.update:g}: the stored weight against the step above, and its largest error so far "
           f"in {fmt.label} ulps below. " + "; ".join(ends) + ".")
    caption = (f"One {fmt.label} weight updated by w ← w + {params.update:g} at every step, stored four ways, "
               "against the exact weight.")
    more = (f"The update is rounded to FP32; the weight is stored rounded to nearest, with a Kahan compensation "
            f"in {fmt.label}, with stochastic rounding (one seeded run) and as an FP32 master copy rounded to "
            f"{fmt.label}. The thin solid line, unmarked, is the exact weight. Below each weight: the largest "
            "distance so far between the stored and the exact weight, in ulps of the exact weight, on a log "
            f"scale; dotted: half an ulp. Every {number(params.steps // params.samples)}th step is drawn.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers)
