"""Relative error against the condition number: where each method stops helping, and the bounds kappa x constant.

Sums of ``n`` terms with a chosen condition number (``fpsum.conditioned_sums``),
summed by naive, pairwise, Kahan, Neumaier, Sum2, SumK and the correctly
rounded sum, one panel per format; the median error in bins of the achieved
kappa, and each method's worst-case bound as a dotted line.

Numbers of record ``conditioning``: ``n``, ``folds`` (K), ``trials`` (sums per
target), ``rows`` (sums per format), and per format (``fp64``, ``fp16``, and
``bf16``, which is computed but not drawn): ``u_inv``, ``u_inv2`` and
``u_invk`` (1/u, 1/u², 1/u^K, written like ``8 × 10³¹``), ``reached`` (the
largest kappa of the format's sums), ``same`` (how many sums Neumaier
and Sum2 gave different bits for: ``0``), ``kahan_gain`` (the median, over
the bins below 1/u, of the naive median error over Kahan's), ``correct_max``
(the largest error of the correctly rounded sum, in units of u), ``exact_from``
(the median kappa of the first bin where that sum's median error is 0, or
``never``), ``quantum`` (the smallest subnormal, ``2⁻²⁴``: every sum of values of
the format is a multiple of it) and ``exact_below`` (``2⁻¹³``: every such
multiple below it is a value of the format), and per
method ``lost`` (the median kappa of the first bin whose median error reaches
100 %, or ``never``) and ``floor`` (the median error of the best-conditioned
bin, in units of u).  ``example`` holds a four-term sum and the ``fpsum``
command that repeats it: ``kappa`` and each method's result; ``twice`` the
FP32 sum 2²⁴ + 1 + 2⁻⁴⁰ rounded through float64 (``fsum``, ``twice``) and
once (``once``), with its ``command``.  ``kappa_max`` is the largest target
of the sweep.  ``span`` holds FP16's range in bits against SumK's folds
(:func:`span_numbers`); ``search`` the seeded search for FP16 sums with kappa
in ``search_band`` (:func:`search_numbers`): how many were drawn and kept,
the share SumK with K folds loses every digit of and returns 0 for, how many
K + 1 folds get exact, and ``example``, the first sum where K folds return
0 and K + 1 the exact sum, with the command that repeats it.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

import fpsum
from fpsum.exact import exact_running

from .contract import FigureFiles, NestedNumbers
from .html import static_fragment
from .looks import LOOKS, MARKERS, Palette
from .mpl import method_line, render
from .record import Built, Record
from .text import number, scientific, significant, superscript
from .variants import Layout, Sizes

METHODS: tuple[fpsum.Method, ...] = ("naive", "pairwise", "kahan", "neumaier", "sumtwo", "sumk", "correct")
ORDER_OF = {"naive": 1, "pairwise": 1, "kahan": 1, "neumaier": 2, "sumtwo": 2, "sumk": 0, "correct": 0}
"""The power of u that a method's error is roughly proportional to times kappa (SumK's is K, set at run time;
the correctly rounded sum's error does not grow)."""
SIZES = Sizes(wide=(9.2, 5.2), narrow=(4.5, 10.2))
"""Inches: the panels side by side, or stacked on a phone."""
LOST = 1.0
"""A median relative error of 100 %: not one correct digit."""
STRIP_ROW = 2.5
"""Rows of the strip of exact medians (error 0) lie this factor apart, below the lowest decade drawn."""
EXAMPLE = (1.0, 1e100, 1.0, -1e100)
TWICE = (2.0**24, 1.0, 2.0**-40)
"""FP32 values whose exact sum, rounded to float64 first, lands on a tie of FP32."""


@dataclass(frozen=True)
class ConditioningParams:
    """The formats drawn and also computed, sum length, K, targets per decade, sums per target, the largest target."""

    formats: tuple[str, ...] = ("fp64", "fp16")
    extra: tuple[str, ...] = ("bf16",)
    n: int = 32
    folds: int = 3
    per_decade: int = 2
    trials: int = 16
    kappa_max: float = 1e52
    bins_per_decade: int = 2
    min_count: int = 8
    seed: int = 0
    search_rows: int = 2000
    search_band: tuple[float, float] = (1e11, 1e12)
    search_seed: int = 1

    def __post_init__(self) -> None:
        for name in self.formats + self.extra:
            fpsum.get_format(name)
        low, high = self.search_band
        if (self.n < 4 or self.folds < 3 or self.trials < 1 or self.kappa_max < 10 or self.min_count < 1
                or self.search_rows < 1 or not 1 <= low < high):
            raise ValueError(f"invalid conditioning parameters: {self}")


def records() -> list[Record]:
    """The one conditioning figure."""
    return [Record("conditioning", ConditioningParams(), build)]


@dataclass(frozen=True)
class Panel:
    """One format: every sum's kappa and each method's relative error, and the medians per bin of kappa."""

    fmt: fpsum.Format
    kappa: np.ndarray                 # (rows,)
    errors: dict[str, np.ndarray]     # method -> (rows,)
    same: int                         # sums where Neumaier and Sum2 differ
    centres: np.ndarray               # median kappa of each bin with enough sums
    counts: np.ndarray
    medians: dict[str, np.ndarray]    # method -> (bins,)


@dataclass(frozen=True)
class Search:
    """FP16 sums whose achieved kappa lies in ``params.search_band``, summed by SumK with K and K + 1 folds.

    ``values`` (rows, n) in FP16, ``exact`` their exact sums (each a whole
    multiple of 2⁻²⁴, so exact in float64), ``kappa``; ``errors`` maps the
    number of folds to each sum's relative error; ``example`` is the first
    sum where K folds return 0 (relative error 1) and K + 1 the exact sum, or
    None if no sum does.
    """

    values: np.ndarray
    exact: np.ndarray
    kappa: np.ndarray
    results: dict[int, np.ndarray]
    errors: dict[int, np.ndarray]
    example: int | None


def search(params: ConditioningParams) -> Search:
    """The seeded search: ``search_rows`` sums drawn at FP16's largest target kappa, kept if in the band."""
    fmt = fpsum.FP16
    drawn = fpsum.conditioned_sums(np.full(params.search_rows, fpsum.kappa_limit(fmt, params.n)), params.n, fmt,
                                   params.search_seed)
    low, high = params.search_band
    keep = (drawn.kappa >= low) & (drawn.kappa <= high)  # inf (an exact 0) is never inside
    values, exact = drawn.values[keep], drawn.exact[keep]
    results = {k: np.asarray(fpsum.total("sumk", values, fmt, folds=k)).astype(np.float64)
               for k in (params.folds, params.folds + 1)}
    errors = {k: relative_errors(values, r, exact) for k, r in results.items()}
    zero = (results[params.folds] == 0) & (results[params.folds + 1] == exact)
    example = int(np.argmax(zero)) if zero.any() else None
    return Search(values=values, exact=exact, kappa=drawn.kappa[keep], results=results, errors=errors,
                  example=example)


def quanta(value: float, quantum_exponent: int) -> str:
    """An exact multiple of ``2**quantum_exponent`` for prose: ``0``, ``−2⁻²⁴``, ``2⁻²³``, ``3 × 2⁻²⁴``."""
    count = Fraction(value) / Fraction(2) ** quantum_exponent
    if count.denominator != 1:
        raise ValueError(f"{value!r} is not a multiple of 2**{quantum_exponent}")
    whole = abs(count.numerator)
    if whole == 0:
        return "0"
    sign = "−" if count < 0 else ""
    if whole & (whole - 1) == 0:  # a power of two
        return sign + "2" + superscript(quantum_exponent + whole.bit_length() - 1)
    return f"{sign}{whole} × 2{superscript(quantum_exponent)}"


def command_lines(values: np.ndarray, tail: str, width: int = 60) -> str:
    """A printf of each value on its own line, piped into ``tail``, wrapped by hand to ``width`` columns.

    Lines end in the shell's line continuation, and the last pipes into ``tail``.

    Each value is the shortest decimal that reads back as it (``repr``), and
    ``fpsum sum`` rounds it exactly to the format, so it arrives as itself.
    """
    lines: list[str] = []
    line = "printf '%s\\n'"
    for word in (repr(float(v)) for v in values):
        if len(line) + 1 + len(word) + 2 > width:
            lines.append(line + " \\")
            line = "   "
        line += " " + word
    lines.append(line + " \\")
    lines.append("  | " + tail)
    return "\n".join(lines)


def search_numbers(found: Search, params: ConditioningParams) -> NestedNumbers:
    """The search's numbers: sums in the band, the share K folds lose, how many K + 1 folds get exact, the example."""
    k = params.folds
    fmt = fpsum.FP16
    q = fmt.emin - fmt.precision + 1
    lost = found.errors[k] >= LOST
    numbers: dict[str, NestedNumbers | str] = {
        "rows": number(params.search_rows), "sums": number(found.exact.size),
        "low": scientific(params.search_band[0]), "high": scientific(params.search_band[1]),
        "lost": number(100 * float(lost.mean()), 0) + " %",
        "next": number(k + 1),
        "next_exact": number(int(np.count_nonzero(found.errors[k + 1] == 0))),
        "zero": number(100 * float(np.mean((found.results[k] == 0) & (found.exact != 0))), 0) + " %",
    }
    if found.example is not None:
        i = found.example
        tail = f"fpsum sum --format fp16 --method sumk --folds {k}"
        numbers["example"] = {
            "kappa": scientific(float(found.kappa[i])),
            "exact": quanta(float(found.exact[i]), q),
            "result": quanta(float(found.results[k][i]), q),
            "error": number(float(found.errors[k][i])),
            "next_result": quanta(float(found.results[k + 1][i]), q),
            "terms": number(params.n),
            "zeros": number(int(np.count_nonzero(found.values[i] == 0))),
            "command": command_lines(found.values[i], tail),
        }
    return numbers


def span_numbers(fmt: fpsum.Format, n: int, folds: int) -> NestedNumbers:
    """The bits an exact sum of ``fmt`` can span, from its largest finite value down to the quantum, and K p.

    ``span``: from 2**(emax + 1) (just above the largest value) down to the
    quantum 2**q; ``ceiling``: 2**emax / 2**q, the largest kappa of sums whose
    magnitudes stay below 2**emax; ``overflowing``: n times the largest value
    over the quantum, which n terms reach only if some order of adding them
    overflows; ``error`` and ``error_next``: u**K and u**(K + 1) times 2**emax,
    the error left after K and K + 1 folds at the largest magnitudes, against
    ``half_quantum``; ``needs``: the sum of magnitudes beyond which a sum of two
    quanta spans more than K p bits.
    """
    q = fmt.emin - fmt.precision + 1
    return {
        "overflowing": scientific(n * fmt.max_finite / 2.0**q, 2),
        "span": number(fmt.emax + 1 - q),
        "top": "2" + superscript(fmt.emax + 1),
        "held": "2" + superscript(fmt.emax),
        "ceiling": scientific(2.0 ** (fmt.emax - q)),
        "ceiling_bits": number(fmt.emax - q),
        "bits": number(fmt.precision),
        "carried": number(folds * fmt.precision),
        "carried_next": number((folds + 1) * fmt.precision),
        "u_invk_next": scientific(fmt.unit_roundoff ** -(folds + 1)),
        "span_power": "2" + superscript(fmt.emax + 1 - q),
        "error": "2" + superscript(fmt.emax - folds * fmt.precision),
        "error_next": "2" + superscript(fmt.emax - (folds + 1) * fmt.precision),
        "half_quantum": "2" + superscript(q - 1),
        "needs": "2" + superscript(folds * fmt.precision + q + 1),
    }


def relative_errors(values: np.ndarray, results: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|result - s| / |s| for each row, the difference taken exactly (then rounded once to float64).

    The exact sum of the row and minus the result, so an error far below
    float64's own resolution at s (a correctly rounded FP64 sum's) is still
    measured.
    """
    n = values.shape[-1]
    both = np.concatenate([results.astype(np.float64)[:, np.newaxis], -values.astype(np.float64)], axis=-1)
    difference = exact_running(both, np.array([n + 1]))[:, 0]
    relative: np.ndarray = np.abs(difference) / np.abs(exact)
    return relative


def compute_panel(params: ConditioningParams, name: str) -> Panel:
    """Generate the sums for one format, sum them every way, bin the errors by kappa."""
    fmt = fpsum.get_format(name)
    top = min(fpsum.kappa_limit(fmt, params.n), params.kappa_max)
    targets = np.repeat(fpsum.log_targets(1.0, top, params.per_decade), params.trials)
    sums = fpsum.conditioned_sums(targets, params.n, fmt, params.seed)
    keep = np.isfinite(sums.kappa)  # an exact sum of 0 (rare) has no relative error
    values, exact, kappa = sums.values[keep], sums.exact[keep], sums.kappa[keep]
    results = {m: np.asarray(fpsum.total(m, values, fmt, folds=params.folds)) for m in METHODS}
    errors: dict[str, np.ndarray] = {m: relative_errors(values, r, exact) for m, r in results.items()}
    same = int(np.count_nonzero(results["neumaier"].astype(np.float64) != results["sumtwo"].astype(np.float64)))
    bins = np.floor(np.log10(kappa) * params.bins_per_decade).astype(np.int64)
    centres: list[float] = []
    counts: list[int] = []
    medians: dict[str, list[float]] = {m: [] for m in METHODS}
    for b in np.unique(bins).tolist():
        inside = bins == b
        if inside.sum() < params.min_count:
            continue
        centres.append(float(np.median(kappa[inside])))
        counts.append(int(inside.sum()))
        for m in METHODS:
            medians[m].append(float(np.median(errors[m][inside])))
    return Panel(fmt=fmt, kappa=kappa, errors=errors, same=same, centres=np.array(centres), counts=np.array(counts),
                 medians={m: np.array(v) for m, v in medians.items()})


def compute(params: ConditioningParams) -> dict[str, Panel]:
    """Every format's panel, drawn and extra, by name."""
    return {name: compute_panel(params, name) for name in params.formats + params.extra}


def bounds(fmt: fpsum.Format, n: int, folds: int, kappa: np.ndarray) -> dict[str, np.ndarray]:
    """The worst-case relative error bounds against kappa, keyed by the method whose look draws them.

    Naive gamma_{n-1} kappa and pairwise gamma_{ceil(log2 n)} kappa (Higham 2002, ch. 4); Sum2 (and
    Neumaier, which gives its bits) u + gamma_{n-1}^2 kappa and SumK u + 3 gamma_{n-1}^2 + gamma_{2n-2}^K kappa
    (Ogita, Rump and Oishi 2005); the correctly rounded sum u.
    """
    u = fmt.unit_roundoff
    g = fpsum.gamma(n - 1, u)
    return {
        "naive": g * kappa,
        "pairwise": fpsum.gamma(math.ceil(math.log2(n)), u) * kappa,
        "sumtwo": u + g**2 * kappa,
        "sumk": u + 3 * g**2 + fpsum.gamma(2 * n - 2, u) ** folds * kappa,
        "correct": np.full_like(kappa, u),
    }


def lost_at(panel: Panel, method: str) -> float | None:
    """The median kappa of the first bin whose median error reaches :data:`LOST`, or None."""
    reached = np.nonzero(panel.medians[method] >= LOST)[0]
    return float(panel.centres[reached[0]]) if reached.size else None


def exact_from(panel: Panel) -> float | None:
    """The median kappa of the first bin where the correctly rounded sum's median error is 0 (an exact sum), or None."""
    exact = np.nonzero(panel.medians["correct"] == 0)[0]
    return float(panel.centres[exact[0]]) if exact.size else None


def drawn_medians(panel: Panel, method: str) -> np.ndarray:
    """The medians as drawn: up to the first that reaches 100 % (drawn at 100 %), NaN after; 0 stays 0."""
    medians = panel.medians[method].copy()
    lost = np.nonzero(medians >= LOST)[0]
    if lost.size:
        medians[lost[0]] = LOST
        medians[lost[0] + 1:] = np.nan
    return medians


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


def _power_of_ten(value: float, _: object) -> str:
    """A tick label: ``10¹⁶``, ``10⁻³``, ``1`` for 10⁰."""
    exponent = round(math.log10(value))
    return "1" if exponent == 0 else "10" + superscript(exponent)


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
        axis.set_major_formatter(FuncFormatter(_power_of_ten))  # plain text: mathtext labels cost seconds


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


def csv_bytes(panels: dict[str, Panel], params: ConditioningParams) -> bytes:
    """Per drawn format, method and bin of kappa: the sums in it, their median kappa and median relative error."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "method", "n", "kappa_median", "sums", "median_relative_error", "bound"])
    for name in params.formats:
        panel = panels[name]
        bound = bounds(panel.fmt, params.n, params.folds, panel.centres)
        for method in METHODS:
            line = bound["sumtwo" if method == "neumaier" else method] if method != "kahan" else None
            for j, centre in enumerate(panel.centres.tolist()):
                writer.writerow([name, method, params.n, repr(centre), int(panel.counts[j]),
                                 repr(float(panel.medians[method][j])),
                                 "" if line is None else repr(float(line[j]))])
    return out.getvalue().encode()


def _median_ratio(panel: Panel, top: float) -> float:
    """The median over bins below ``top`` of naive's median error over Kahan's."""
    below = (panel.centres < top) & (panel.medians["kahan"] > 0)
    return float(np.median(panel.medians["naive"][below] / panel.medians["kahan"][below]))


def example_numbers() -> NestedNumbers:
    """The four-term FP64 sum 1 + 1e100 + 1 - 1e100 (``sum``, as prose writes it), its kappa, each method's
    result and the command.
    """
    values = np.array(EXAMPLE)
    _, _, kappa = fpsum.condition_number(values[np.newaxis])
    numbers: dict[str, NestedNumbers | str] = {
        "sum": "1 + 10¹⁰⁰ + 1 − 10¹⁰⁰",
        "kappa": scientific(float(kappa[0])),
        "command": "printf '1\\n1e100\\n1\\n-1e100\\n' | fpsum sum --format fp64 --method kahan",
    }
    for method in ("naive", "kahan", "neumaier", "sumtwo", "correct"):
        numbers[method] = number(float(fpsum.total(method, values, fpsum.FP64)))
    return numbers


def twice_numbers() -> NestedNumbers:
    """Rounding twice: the exact sum of :data:`TWICE` through float64 (``math.fsum``) to FP32, against once."""
    values = np.array(TWICE, dtype=np.float32)
    via = float(fpsum.to_format(np.array(math.fsum(TWICE)), fpsum.FP32))
    lines = "\\n".join(repr(v) for v in TWICE)
    return {
        "fsum": number(math.fsum(TWICE)),
        "twice": number(via),
        "once": number(float(fpsum.total("correct", values, fpsum.FP32))),
        "command": f"printf '{lines}\\n' | fpsum sum --format fp32 --method correct",
    }


def headline(panels: dict[str, Panel], params: ConditioningParams, found: Search | None = None) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring); ``search`` only when ``found`` is given."""
    numbers: dict[str, NestedNumbers | str] = {
        "n": number(params.n), "folds": number(params.folds), "trials": number(params.trials),
        "kappa_max": scientific(params.kappa_max),
        "example": example_numbers(), "twice": twice_numbers(),
        "span": span_numbers(fpsum.FP16, params.n, params.folds),
    }
    if found is not None:
        numbers["search"] = search_numbers(found, params)
    for name, panel in panels.items():
        u = panel.fmt.unit_roundoff
        per: dict[str, NestedNumbers | str] = {
            "rows": number(panel.kappa.size),
            "u_inv": scientific(1 / u), "u_inv2": scientific(u**-2), "u_invk": scientific(u**-params.folds),
            "reached": scientific(float(panel.kappa.max())),
            "same": number(panel.same),
            "kahan_gain": significant(_median_ratio(panel, 1 / u), 1),
            "correct_max": significant(float(panel.errors["correct"].max()) / u, 2),
            "exact_from": "never" if (exact := exact_from(panel)) is None else scientific(exact),
            "quantum": "2" + superscript(panel.fmt.emin - panel.fmt.precision + 1),
            "exact_below": "2" + superscript(panel.fmt.emin + 1),
        }
        for method in METHODS:
            lost = lost_at(panel, method)
            per[method] = {"lost": "never" if lost is None else scientific(lost),
                           "floor": significant(float(panel.medians[method][0]) / u, 2)}
        numbers[name] = per
    return numbers


def build(figure_id: str, params: ConditioningParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    panels = compute(params)
    files = render(lambda palette, layout: draw(panels, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(panels, params)
    drawn = [panels[name] for name in params.formats]
    labels = " and ".join(p.fmt.label for p in drawn)
    said = []
    for panel in drawn:
        lost = {m: lost_at(panel, m) for m in ("naive", "kahan", "sumtwo", "sumk")}
        parts = [f"{fpsum.METHOD_LABELS[m]} from κ ≈ {scientific(v)}" for m, v in lost.items() if v is not None]
        said.append(f"in {panel.fmt.label} the median error reaches 100 % for " + ", ".join(parts)
                    + ("" if lost["sumk"] is not None else ", never for SumK"))
    alt = (f"Two log-log panels, {labels}, of the median relative error of sums of {params.n} terms against "
           "their condition number κ, for naive, pairwise, Kahan, Neumaier, Sum2, SumK and correctly rounded "
           "summation, with each method's worst-case bound dotted. The errors of naive, pairwise and Kahan grow "
           "in proportion to κ, those of Neumaier and Sum2 (the same line) like κ times u squared, SumK's like "
           "κ times u cubed, while the correctly rounded sum stays below u: " + "; ".join(said) + ".")
    caption = (f"Relative error of sums of {params.n} terms in {labels} against their condition number "
               "κ = Σ|xᵢ| / |Σxᵢ|: the median error in bins of half a decade of κ.")
    more = (f"Sums drawn for a chosen κ after Ogita, Rump and Oishi (2005), {params.trials} per target, binned "
            f"by the κ they achieved. SumK with K = {params.folds}. Neumaier and Sum2 give the same bits, so "
            "their lines coincide. "
            "Dotted, in each method's colour: its worst-case bound, κ times a constant (Neumaier's is "
            "Sum2's; Kahan's, (2u + O(nu²))κ, has no line); dashed: 100 %, where a line ends (no correct "
            "digit). A marker on the grey strip at the bottom: the median sum of that bin was exact (error 0).")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(panels, params, search(params)))
