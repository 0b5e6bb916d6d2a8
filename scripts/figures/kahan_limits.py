"""Where Kahan's compensation stops being within one ulp: long sums of one sign, in the format.

Kahan's bound is (2u + O(n u^2)) Σ|x_i|.  The second term is negligible
while n u is small and real once n u passes 1 (n beyond 2^p).  This record
draws Kahan's error in ulps against n in BF16 for inputs of one sign and
computes the page's counterexamples.

Numbers of record ``kahan-limits``:

- ``bf16_long``, ``bf16_short``, ``fp16_long``: a constant input summed n
  times (``value``, ``n``, ``kahan``, ``exact``, ``ulps``, ``percent``), each
  reproduced by ``yes <value> | head -n <n> | fpsum sum --format <f> --method kahan``;
- ``reliable``: per format (``fp16``, ``bf16``), ``n_max`` and ``worst``, the
  largest error in ulps over every constant input in [1/2, 1) and every n up
  to n_max = 2^(p+2);
- ``random``: ``n`` and ``trials``, and per input kind (``uniform``,
  ``squares``, ``exp``) in BF16 over those seeded trials, ``worst`` (ulps)
  and ``share`` (per cent of trials beyond one ulp);
- ``constant``: the figure's constant ``value``, the first n at which its
  Kahan sum is more than one ulp off (``first_beyond``) and n·u there (``nu``);
- ``fp8``: E5M2, ``n`` uniform inputs, the median relative error in per cent
  of ``kahan`` and ``pairwise`` over ``trials`` trials.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullFormatter

from fpsum.array_rounding import to_format
from fpsum.exact import exact_running
from fpsum.formats import Format, get_format
from fpsum.inputs import make_inputs
from fpsum.methods import running_totals, total
from fpsum.sweep import log_grid

from .contract import FigureFiles, NestedNumbers
from .html import static_fragment
from .input_lines import input_line, kind_inputs
from .looks import Palette
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 4.2), narrow=(4.5, 5.4))
"""Inches; the narrow plot has its legend below it and shorter axis labels."""
KINDS = ("uniform", "squares", "exp", "constant")


@dataclass(frozen=True)
class KahanLimitsParams:
    """The figure's format, constant, length and trials; the counterexamples; the FP8 check."""

    format: str = "bf16"
    constant: float = 0.875
    n_max: int = 2**16
    trials: int = 16
    seed: int = 0
    cases: tuple[tuple[str, str, float, int], ...] = (
        ("bf16_long", "bf16", 0.875, 2**16),
        ("bf16_short", "bf16", 0.4140625, 8192),
        ("fp16_long", "fp16", 0.0302886962890625, 2**19),
    )
    fp8_n: int = 256

    def __post_init__(self) -> None:
        for _, name, value, n in self.cases:
            fmt = get_format(name)
            if float(to_format(np.float64(value), fmt)) != value or n < 2:
                raise ValueError(f"the counterexample {value} x {n} is not exact in {fmt.label}")
        if self.n_max < 2 or self.trials < 1:
            raise ValueError(f"invalid Kahan-limits parameters: {self}")


def records() -> list[Record]:
    """The Kahan-limits figure and the counterexamples the pages quote."""
    return [Record("kahan-limits", KahanLimitsParams(), build)]


def ulps_off(totals: np.ndarray, exact: np.ndarray, fmt: Format) -> np.ndarray:
    """|total - exact| in ulps of the format at the exact value rounded to the format."""
    nearest = to_format(exact, fmt).astype(np.float64)
    off: np.ndarray = np.abs(totals.astype(np.float64) - exact) / fmt.ulps(nearest)
    return off


def draw_inputs(kind: str, params: KahanLimitsParams, n: int, trials: int) -> np.ndarray:
    """``trials`` rows of ``n`` inputs of ``kind`` in the figure's format (``constant``: the params' constant)."""
    return kind_inputs(kind, get_format(params.format), n, params.seed, params.constant, trials)


Runs = dict[str, tuple[np.ndarray, np.ndarray]]
"""Per kind of the figure: Kahan's running totals and the exact ones (float64), shape (rows, n_max) each."""


def kahan_runs(params: KahanLimitsParams) -> Runs:
    """Kahan's running totals and the exact running totals of each kind's inputs, computed once for the
    figure and the numbers.

    The kinds' rows (the trials of the seeded kinds, the constant's one row)
    go through one Kahan loop together: rows are independent, so stacking
    them changes no bit and runs the loop over the inputs once, not per kind.
    """
    fmt = get_format(params.format)
    drawn = [draw_inputs(kind, params, params.n_max, 1 if kind == "constant" else params.trials) for kind in KINDS]
    stacked = np.concatenate(drawn)
    kahan = running_totals("kahan", stacked, fmt)
    exact = exact_running(stacked, np.arange(1, params.n_max + 1))
    starts = np.cumsum([rows.shape[0] for rows in drawn])[:-1]
    return dict(zip(KINDS, zip(np.split(kahan, starts), np.split(exact, starts))))


def first_beyond_one_ulp(params: KahanLimitsParams, runs: Runs | None = None) -> int:
    """The smallest n at which Kahan's sum of n copies of the constant is more than one ulp off; 0 if none is."""
    fmt = get_format(params.format)
    kahan, exact = (runs or kahan_runs(params))["constant"]
    beyond = np.nonzero(ulps_off(kahan[0], exact[0], fmt) > 1)[0]
    return int(beyond[0]) + 1 if beyond.size else 0


def curves(params: KahanLimitsParams, runs: Runs | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """On a log grid of n, per kind, the median over the trials of the worst error in ulps of any sum of up to n inputs.

    The worst so far, not the error at n: a single sum can land exactly on
    the truth by luck, which says nothing about the next one.
    """
    fmt = get_format(params.format)
    ns = log_grid(params.n_max, per_octave=4)
    out = {}
    for kind, (kahan, exact) in (runs or kahan_runs(params)).items():
        worst = np.maximum.accumulate(ulps_off(kahan, exact, fmt), axis=-1)
        out[kind] = np.median(worst[:, ns - 1], axis=0)
    return ns, out


def draw(ns: np.ndarray, ulps: dict[str, np.ndarray], params: KahanLimitsParams, palette: Palette,
         layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fmt = get_format(params.format)
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    for kind in KINDS:
        label = None if kind != "constant" else f"constant {number(params.constant)}"
        kwargs = {"label": label} if label else {}
        input_line(ax, kind, ns, np.maximum(ulps[kind], 1e-3), palette, zorder=3, **kwargs)
    ax.axhline(1.0, color=palette.muted, lw=1, ls="--")
    ax.annotate("one ulp", (ns[0], 1.0), xytext=(4, 4), textcoords="offset points", color=palette.muted)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(ns[0], ns[-1])
    ax.set_ylim(1e-3, None)
    ax.grid(True, color=palette.grid, lw=0.6)
    if layout.narrow:  # a label every fourth power of two; the legend below, where no line runs
        ax.xaxis.set_major_locator(FixedLocator([2.0**k for k in range(0, int(np.log2(ns[-1])) + 1, 4)]))
        ax.xaxis.set_minor_locator(FixedLocator([2.0**k for k in range(0, int(np.log2(ns[-1])) + 1)]))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(f"n, inputs summed ({fmt.label}, Kahan)")
        ax.set_ylabel("worst error so far, ulps")
        fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside lower center", ncols=2,
                   handlelength=1.8, columnspacing=1.0, handletextpad=0.5)
        return fig
    ax.set_xlabel(f"n, number of inputs summed ({fmt.label}, Kahan, every operation in {fmt.label})")
    ax.set_ylabel("worst error so far, in ulps of the exact total")
    ax.legend(frameon=False, loc="upper left")
    return fig


def counterexamples(params: KahanLimitsParams) -> dict[str, dict[str, str]]:
    """Each constant case: the Kahan total, the exact one, the distance in ulps and per cent, the command."""
    out = {}
    for key, name, value, n in params.cases:
        fmt = get_format(name)
        values = to_format(np.full(n, value), fmt)
        kahan = float(total("kahan", values, fmt))
        exact = float(exact_running(values, np.array([n]))[0])  # the exact sum, rounded once
        out[key] = {
            "value": repr(value), "n": number(n), "format": fmt.label,
            "kahan": number(kahan), "exact": number(exact),
            "ulps": number(float(ulps_off(np.array([kahan]), np.array([exact]), fmt)[0]), 1),
            "percent": significant(100 * abs(kahan - exact) / exact),
            "command": f"yes {value!r} | head -n {n} | fpsum sum --format {name} --method kahan",
        }
    return out


def reliable(fmt: Format) -> dict[str, str]:
    """The worst error in ulps over every constant input in [1/2, 1) and every n up to 2^(p+2)."""
    n_max = 2 ** (fmt.precision + 2)
    constants = 0.5 + np.arange(2 ** (fmt.precision - 1)) * 2.0 ** -fmt.precision  # every value in [1/2, 1)
    values = np.ascontiguousarray(np.broadcast_to(to_format(constants, fmt)[:, None], (constants.size, n_max)))
    kahan = running_totals("kahan", values, fmt)
    counts = np.arange(1, n_max + 1)
    rows = max(1, (1 << 16) // n_max)  # the errors of a few constants at a time: float64 arrays that stay small
    worst = max(float(ulps_off(kahan[i:i + rows], constants[i:i + rows, None] * counts, fmt).max())
                for i in range(0, constants.size, rows))  # exact in float64: few bits times a small integer
    return {"n_max": number(n_max), "worst": number(worst, 2)}


def random_trials(params: KahanLimitsParams, runs: Runs | None = None) -> dict[str, str | dict[str, str]]:
    """Per seeded kind of input, the worst error in ulps over the trials and the share beyond one ulp."""
    fmt = get_format(params.format)
    random: dict[str, str | dict[str, str]] = {"n": number(params.n_max), "trials": number(params.trials)}
    runs = runs or kahan_runs(params)
    for kind in ("uniform", "squares", "exp"):
        kahan, exact = runs[kind]
        off = ulps_off(kahan[:, -1], exact[:, -1], fmt)
        random[kind] = {"worst": number(float(off.max()), 2), "share": number(100 * float((off > 1).mean()), 1)}
    return random


def numbers(params: KahanLimitsParams, runs: Runs | None = None) -> NestedNumbers:
    """Everything the pages quote (see the module docstring); ``runs``, if given, are :func:`kahan_runs`'s."""
    fmt = get_format(params.format)
    e5m2 = get_format("e5m2")
    values = make_inputs("uniform", params.fp8_n, e5m2, params.seed, trials=params.trials)
    exact = exact_running(values, np.array([params.fp8_n]))[:, 0]
    fp8 = {"n": number(params.fp8_n), "trials": number(params.trials)} | {
        method: significant(100 * float(np.median(np.abs(total(method, values, e5m2) - exact) / exact)))
        for method in ("kahan", "pairwise")
    }
    runs = runs or kahan_runs(params)
    first = first_beyond_one_ulp(params, runs)
    return counterexamples(params) | {
        "constant": {"value": number(params.constant), "first_beyond": number(first),
                     "nu": number(first * fmt.unit_roundoff, 1)},
        "reliable": {name: reliable(get_format(name)) for name in ("fp16", "bf16")},
        "random": random_trials(params, runs),
        "fp8": fp8,
    }


def build(figure_id: str, params: KahanLimitsParams) -> Built:
    """The figure, its CSV and fragment, and the counterexamples."""
    fmt = get_format(params.format)
    runs = kahan_runs(params)
    ns, ulps = curves(params, runs)
    files = render(lambda palette, layout: draw(ns, ulps, params, palette, layout), figure_id, SIZES)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["kind", "n", "trials", "median_error_ulps"])
    for kind in KINDS:
        trials = 1 if kind == "constant" else params.trials
        writer.writerows([kind, n, trials, repr(float(u))] for n, u in zip(ns.tolist(), ulps[kind]))
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    alt = (f"Log-log plot of Kahan's error in ulps of the exact total against n, every operation in {fmt.label}, "
           f"for uniform inputs, squares of uniforms, exp(−3U) and the constant {number(params.constant)}: "
           f"below n = {number(2**fmt.precision)} all stay under one ulp; beyond it the constant and the skewed "
           "inputs climb past one ulp while the uniform inputs stay below it.")
    caption = (f"Kahan's compensated sum with every operation in {fmt.label}: the largest error so far, in ulps "
               "of the exact total, against n, for four kinds of input of one sign.")
    more = ("Each point is the largest error of the sums of the first 1, 2, …, n inputs: a single sum can land on "
            f"the truth by luck. The median of {params.trials} seeded trials; the constant is one run. "
            "Dashed: one ulp.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers(params, runs))
