"""The dot-product figure: relative error against K for four accumulators, FP16 and BF16 inputs.

Numbers of record ``dot-error``: ``k_max``, ``quote_k``, ``scale_k``, ``trials``,
``bits``, ``hw_block``, ``promote_every`` and, per input format and input
kind (``fp16.uniform``, ``bf16.normal``, ...), the median relative error at
``quote_k`` and at ``k_max`` of each accumulator (``narrow``, ``wide``,
``truncated``, ``promoted``; keys ``<acc>`` and ``<acc>_max``), in per cent,
and ``kappa``, the median condition number |x|ᵀ|y| / |xᵀy| at ``k_max``;
``scaled``, the median of the input-format accumulator's error measured
against |x|ᵀ|y| (|ŝ − s| / |x|ᵀ|y|) at ``quote_k``, and ``scaled_small`` the
same at ``scale_k``, in per cent.  Per input format, under ``scale``:
``root_k_u`` (√K·u at ``quote_k``, in per cent), ``root_k_u_small`` and
``gamma_small`` (√K·u and γ_K at ``scale_k``, in per cent), ``k_u`` (K·u at
``quote_k``: γ_K exists only below 1) and ``cross``, the first K of the grid at which the median of
``scaled`` for uniform inputs exceeds √K·u, with ``below``, the K before it.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullFormatter

from fpsum.array_rounding import to_format
from fpsum.bounds import gamma
from fpsum.dot import exact_products, sum_products
from fpsum.exact import exact_running
from fpsum.formats import FP32, Format, get_format
from fpsum.hardware import TruncatedAccumulator, truncated_sums
from fpsum.inputs import INPUT_LABELS, make_inputs
from fpsum.sweep import log_grid

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(8.0, 7.2), narrow=(4.5, 13.4))
"""Inches: two by two panels (a row per kind of input), or on a phone the four in one column."""
KINDS = ("uniform", "normal")
ACCUMULATORS = ("naive", "wide", "truncated", "promoted")
"""Lines of each panel: the input format's own accumulator (the naive method's look), FP32 (the wide
method's look), and the truncating hardware model without and with promotion into FP32."""
Y_BOTTOM, Y_TOP = 1e-8, 10.0


@dataclass(frozen=True)
class DotErrorParams:
    """Input formats and kinds, the longest dot product, trials, seed, the hardware model, the Ks the page quotes."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    kinds: tuple[str, ...] = KINDS
    k_max: int = 2**16
    trials: int = 16
    seed: int = 31
    bits: int = 14
    hw_block: int = 4
    promote_every: int = 128
    quote_k: int = 4096
    scale_k: int = 64

    def __post_init__(self) -> None:
        for name in self.formats:
            get_format(name)
        if (set(self.kinds) - set(KINDS) or self.trials < 1 or not 2 <= self.quote_k <= self.k_max
                or not 2 <= self.scale_k <= self.quote_k):
            raise ValueError(f"invalid dot-product parameters: {self}")
        self.models()  # the hardware model checks its own parameters

    def models(self) -> dict[str, TruncatedAccumulator]:
        """The hardware accumulator without and with promotion."""
        return {
            "truncated": TruncatedAccumulator(bits=self.bits, block=self.hw_block),
            "promoted": TruncatedAccumulator(bits=self.bits, block=self.hw_block, promote_every=self.promote_every),
        }


def records() -> list[Record]:
    """The one dot-product figure."""
    return [Record("dot-error", DotErrorParams(), build)]


@dataclass(frozen=True)
class Panel:
    """One input format and kind: per accumulator, the relative error of every trial at each K; and κ."""

    fmt: Format
    kind: str
    ks: np.ndarray
    errors: dict[str, np.ndarray]  # accumulator -> (trials, len(ks))
    kappa: np.ndarray  # (trials, len(ks))


def draw_pairs(params: DotErrorParams, fmt: Format, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The seeded x and y vectors, ``(trials, k_max)`` each, in ``fmt``; y from the next seed."""
    x = make_inputs(kind, params.k_max, fmt, params.seed, trials=params.trials)  # type: ignore[arg-type]
    y = make_inputs(kind, params.k_max, fmt, params.seed + 1, trials=params.trials)  # type: ignore[arg-type]
    return x, y


def compute(params: DotErrorParams) -> list[Panel]:
    """Panels row by row: each kind of input, then each format.

    Every panel's exact products are formed once; each accumulator, the
    exact sums and the hardware models read them, all panels together where
    they share a format.  Rounded to an accumulator and summed by
    :func:`fpsum.dot.sum_products`, they give :func:`fpsum.dot.dot_running`'s
    values, and :func:`fpsum.exact.exact_running` of them (and of their
    magnitudes, |x||y|) :func:`fpsum.dot.exact_dot_running`'s.
    """
    ks = log_grid(params.k_max, per_octave=4)
    panels = [(get_format(f), k) for k in params.kinds for f in params.formats]
    products = np.stack([exact_products(*draw_pairs(params, fmt, kind)) for fmt, kind in panels])  # (panels, trials, K)
    exact = exact_running(products, ks)
    absolute = exact_running(np.abs(products), ks)

    def summed(values: np.ndarray, acc: Format) -> np.ndarray:
        with np.errstate(over="ignore"):  # a product beyond acc's range is +-inf, as in fpsum.dot.products
            rounded = to_format(values, acc)
        return sum_products(rounded, acc)[..., ks - 1].astype(np.float64)  # exact: every format is in float64

    results = {
        "naive": np.stack([summed(values, fmt) for values, (fmt, _) in zip(products, panels)]),
        "wide": summed(products, FP32),
    } | {name: truncated_sums(products, model, ks) for name, model in params.models().items()}
    with np.errstate(divide="ignore", invalid="ignore"):
        errors = {name: np.abs(r - exact) / np.abs(exact) for name, r in results.items()}
        kappa = absolute / np.abs(exact)
    return [Panel(fmt=fmt, kind=kind, ks=ks, errors={name: e[i] for name, e in errors.items()}, kappa=kappa[i])
            for i, (fmt, kind) in enumerate(panels)]


def label(name: str, panel: Panel, params: DotErrorParams) -> str:
    """The legend's words for an accumulator."""
    return {
        "naive": "accumulate in the input format",
        "wide": "accumulate in FP32",
        "truncated": f"{params.bits}-bit truncating accumulator",
        "promoted": f"{params.bits}-bit, promoted to FP32 every {params.promote_every}",
    }[name]


def _panel(ax: Axes, panel: Panel, params: DotErrorParams, palette: Palette, layout: Layout) -> None:
    ks = panel.ks
    u = panel.fmt.unit_roundoff
    gammas = np.array([gamma(int(k), u) for k in ks.tolist()])
    bound = gammas * np.median(panel.kappa, axis=0)
    ax.plot(ks, np.where(bound < Y_TOP, bound, np.nan), color=palette.muted, lw=1, ls="--", zorder=1,
            label="bound γ_K·κ (input-format accumulator)")  # K drawn as a subscript: mpl_subscripts.py
    for name in ACCUMULATORS:
        median = np.median(panel.errors[name], axis=0)
        # An exact median (error 0) has no place on a log axis: the line starts where the error does.
        method_line(ax, name, ks, np.where(median > 0, median, np.nan), palette, label=label(name, panel, params),
                    zorder=3)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(ks[0], ks[-1])
    ax.set_ylim(Y_BOTTOM, Y_TOP)
    ax.set_title(f"{panel.fmt.label} inputs, {INPUT_LABELS[panel.kind]}")  # type: ignore[index]
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    if layout.narrow:  # every other power of two labelled
        ax.xaxis.set_major_locator(FixedLocator([2.0**e for e in range(0, int(np.log2(ks[-1])) + 1, 2)]))
        ax.xaxis.set_minor_formatter(NullFormatter())


def draw(panels: list[Panel], params: DotErrorParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    rows, cols = len(params.kinds), len(params.formats)
    if layout.narrow:
        rows, cols = rows * cols, 1
    fig, axes = plt.subplots(rows, cols, figsize=layout.size, sharex=True, sharey=True, layout="constrained",
                             squeeze=False)
    for ax, panel in zip(axes.ravel(), panels):
        _panel(ax, panel, params, palette, layout)
    for ax in axes[-1]:
        ax.set_xlabel("K, length of the dot product")
    for ax in axes[:, 0]:
        ax.set_ylabel("relative error")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=1 if layout.narrow else 2, frameon=False)
    return fig


def csv_bytes(panels: list[Panel], params: DotErrorParams) -> bytes:
    """Per input format, kind, accumulator and K: the median, 10th and 90th percentile of the relative error."""
    rows = []
    for panel in panels:
        kappa = np.median(panel.kappa, axis=0)
        for name in ACCUMULATORS:
            low, mid, high = np.percentile(panel.errors[name], [10, 50, 90], axis=0)
            rows += [[panel.fmt.name, panel.kind, name, k, params.trials, repr(float(low[j])), repr(float(mid[j])),
                      repr(float(high[j])), repr(float(kappa[j]))] for j, k in enumerate(panel.ks.tolist())]
    return csv_file(["format", "inputs", "accumulate", "k", "trials", "p10", "median", "p90", "median_kappa"], rows)


def percent(errors: np.ndarray, column: int) -> str:
    """The median relative error of one column, in per cent, to two figures."""
    return significant(100 * float(np.median(errors[:, column])))


def scaled(panel: Panel) -> np.ndarray:
    """The input-format accumulator's errors as a fraction of |x|ᵀ|y|: the relative errors over κ, (trials, len(ks))."""
    ratio: np.ndarray = panel.errors["naive"] / panel.kappa
    return ratio


def root_k_u(panel: Panel) -> np.ndarray:
    """√K·u of the panel's format at each K of its grid: the typical size of a sum's error from random rounding."""
    root: np.ndarray = np.sqrt(panel.ks.astype(np.float64)) * panel.fmt.unit_roundoff
    return root


def crossing(panel: Panel) -> int:
    """Index of the first K at which the median of :func:`scaled` exceeds √K·u; ``len(ks)`` if none does."""
    above = np.median(scaled(panel), axis=0) > root_k_u(panel)
    return int(np.argmax(above)) if above.any() else len(panel.ks)


def scale_numbers(panels: list[Panel], params: DotErrorParams) -> dict[str, NestedNumbers | str]:
    """Per input format: √K·u and K·u at ``quote_k``, and where uniform inputs cross √K·u (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {}
    for panel in panels:
        if panel.kind != "uniform":
            continue
        at = int(np.nonzero(panel.ks == params.quote_k)[0][0])
        small = int(np.nonzero(panel.ks == params.scale_k)[0][0])
        cross = crossing(panel)
        numbers[panel.fmt.name] = {
            "root_k_u": significant(100 * float(root_k_u(panel)[at])),
            "root_k_u_small": significant(100 * float(root_k_u(panel)[small])),
            "gamma_small": significant(100 * gamma(params.scale_k, panel.fmt.unit_roundoff)),
            "k_u": number(params.quote_k * panel.fmt.unit_roundoff),
            "cross": number(int(panel.ks[cross])) if cross < len(panel.ks) else "none",
            "below": number(int(panel.ks[cross - 1])) if 0 < cross <= len(panel.ks) else "none",
        }
    return numbers


def headline(panels: list[Panel], params: DotErrorParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {
        "k_max": number(params.k_max), "quote_k": number(params.quote_k), "scale_k": number(params.scale_k),
        "trials": number(params.trials),
        "bits": number(params.bits), "hw_block": number(params.hw_block),
        "promote_every": number(params.promote_every),
    }
    for panel in panels:
        at = int(np.nonzero(panel.ks == params.quote_k)[0][0])
        quoted: dict[str, NestedNumbers | str] = {
            "kappa": number(float(np.median(panel.kappa[:, -1])), 0),
            "scaled": percent(scaled(panel), at),
            "scaled_small": percent(scaled(panel), int(np.nonzero(panel.ks == params.scale_k)[0][0])),
        }
        for name in ACCUMULATORS:
            quoted[name] = percent(panel.errors[name], at)
            quoted[f"{name}_max"] = percent(panel.errors[name], -1)
        by_format = numbers.setdefault(panel.fmt.name, {})
        assert isinstance(by_format, dict)
        by_format[panel.kind] = quoted
    for name, scale in scale_numbers(panels, params).items():
        by_format = numbers[name]
        assert isinstance(by_format, dict)
        by_format["scale"] = scale
    return numbers


def build(figure_id: str, params: DotErrorParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    panels = compute(params)
    files = render(lambda palette, layout: draw(panels, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(panels, params)
    formats = " and ".join(get_format(f).label for f in params.formats)
    alt = (f"Four log-log panels of the relative error of a dot product against its length K, up to "
           f"{number(params.k_max)}, for {formats} inputs drawn uniform on [0, 1) and standard normal: the median "
           f"over {params.trials} trials for an accumulator in the input format, an FP32 accumulator, and a "
           f"{params.bits}-bit truncating accumulator without and with promotion to FP32 every "
           f"{params.promote_every} products, with the worst-case bound dashed. With uniform inputs the "
           "input-format accumulator's error grows to tens of per cent and the truncating one to several per "
           "cent, while promotion and FP32 stay far below.")
    caption = (f"Relative error |ŝ − s| / |s| of the dot product s = xᵀy of K pairs of {formats} inputs, "
               f"median over {params.trials} seeded trials, for four ways to accumulate the products.")
    more = (f"The products are summed in the input format (rounded to nearest), in FP32, or by a model of a "
            f"hardware accumulator that keeps {params.bits} bits and truncates, adding {params.hw_block} products "
            f"at a time, without and with promotion into FP32 every {params.promote_every} products. Dashed: the "
            "worst-case bound γ<sub>K</sub>·κ of the input-format accumulator, κ = |x|ᵀ|y| / |xᵀy| (median), left out "
            "above 10. A line starts where its median error stops being 0 (an exact result).")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(panels, params))
