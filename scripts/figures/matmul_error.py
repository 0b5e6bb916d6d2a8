"""The matrix-multiply figure: relative Frobenius error of a BF16 GEMM against K, two accumulators.

Numbers of record ``matmul-error``: ``m``, ``n``, ``k_max``, ``trials`` and,
per input kind (``uniform01``, ``uniform11``) and accumulator (``bf16``,
``fp32``), the median relative Frobenius error in per cent at K = 256, 1,024,
4,096 and ``k_max`` (keys ``k256``, ``k1024``, ``k4096``, ``kmax``).
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fpsum.array_rounding import to_format
from fpsum.formats import get_format
from fpsum.inputs import INPUT_LABELS, make_inputs
from fpsum.matmul import naive_matmuls, relative_frobenius_error
from fpsum.matmul_exact import exact_matmul

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 3.9), narrow=(4.5, 6.8))
"""Inches: the panels side by side, or stacked on a phone (the legend below both, one entry a line)."""
INPUTS = {"uniform01": "uniform", "uniform11": "symmetric"}
"""The CSV's names of the two kinds of input, and the model's."""
ACCUMULATE = {"bf16": "naive", "fp32": "wide"}
"""Each accumulator and the look its line takes: BF16 is the naive sum's, FP32 the wider accumulator's."""
QUOTED_K = (256, 1024, 4096)


@dataclass(frozen=True)
class MatmulParams:
    """The input format, the output's shape, the longest K, trials and seed."""

    format: str = "bf16"
    m: int = 64
    n: int = 64
    k_max: int = 2**14
    trials: int = 3
    seed: int = 41

    def __post_init__(self) -> None:
        get_format(self.format)
        if min(self.m, self.n, self.trials) < 1 or self.k_max < max(QUOTED_K):
            raise ValueError(f"invalid matrix-multiply parameters: {self}")

    @property
    def ks(self) -> np.ndarray:
        """Every power of two from 16 to ``k_max``, and ``k_max``."""
        powers = 2 ** np.arange(4, self.k_max.bit_length())
        return np.unique(np.append(powers, self.k_max)).astype(np.int64)


def records() -> list[Record]:
    """The one matrix-multiply figure."""
    return [Record("matmul-error", MatmulParams(), build)]


def operands(params: MatmulParams) -> tuple[np.ndarray, np.ndarray]:
    """Every trial's A and B for each kind of input: ``(kinds, trials, m, k_max)`` and ``(kinds, trials, k_max, n)``.

    Trial t draws A from seed ``seed + 2t`` and B from the next.
    """
    fmt = get_format(params.format)
    a, b = [], []
    for kind in INPUTS.values():
        for trial in range(params.trials):
            seed = params.seed + 2 * trial
            a.append(make_inputs(kind, params.k_max, fmt, seed, trials=params.m))  # type: ignore[arg-type]
            b.append(make_inputs(kind, params.k_max, fmt, seed + 1, trials=params.n).T)  # type: ignore[arg-type]
    stack = (len(INPUTS), params.trials)
    return np.stack(a).reshape(stack + a[0].shape), np.stack(b).reshape(stack + b[0].shape)


def compute(params: MatmulParams) -> dict[tuple[str, str], np.ndarray]:
    """Per (inputs, accumulator): the relative Frobenius error of every trial at each K, ``(trials, len(ks))``.

    One pass of running sums over every trial and kind of input gives every K; FP32 results
    are rounded to the input format at the end, as a kernel that writes a BF16 output does.
    """
    fmt = get_format(params.format)
    ks = params.ks
    a, b = operands(params)
    exact = exact_matmul(a, b, at=ks)  # (ks, kinds, trials, m, n)
    errors: dict[tuple[str, str], np.ndarray] = {}
    products = naive_matmuls(a, b, fmt, tuple(get_format(acc) for acc in ACCUMULATE), at=ks)
    for acc, c_hat in zip(ACCUMULATE, products):
        rounded = to_format(c_hat.astype(np.float64), fmt).astype(np.float64)
        by_kind = np.moveaxis(relative_frobenius_error(rounded, exact), 0, -1)  # (kinds, trials, ks)
        for name, kind_errors in zip(INPUTS, by_kind):
            errors[(name, acc)] = kind_errors
    return errors


def draw(errors: dict[tuple[str, str], np.ndarray], params: MatmulParams, palette: Palette,
         layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fmt = get_format(params.format)
    shape = (len(INPUTS), 1) if layout.narrow else (1, len(INPUTS))
    fig, axes = plt.subplots(*shape, figsize=layout.size, sharey=True, sharex=layout.narrow, layout="constrained")
    for ax, (name, kind) in zip(axes, INPUTS.items()):
        for acc, look in ACCUMULATE.items():
            label = f"accumulate in {get_format(acc).label}"
            if acc != params.format:
                label += f" (output rounded to {fmt.label})"
            method_line(ax, look, params.ks, np.median(errors[(name, acc)], axis=0), palette, label=label,
                        markevery=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{fmt.label}, entries {INPUT_LABELS[kind]}")  # type: ignore[index]
        ax.grid(True, which="major", color=palette.grid, lw=0.6)
    # Stacked panels share the x axis, labelled once under the lower one; each has its y label.
    for ax in axes[-1:] if layout.narrow else axes:
        ax.set_xlabel("K, inner dimension")
    for ax in axes if layout.narrow else axes[:1]:
        ax.set_ylabel("‖Ĉ − C‖_F / ‖C‖_F")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=1 if layout.narrow else 2, frameon=False)
    return fig


def csv_bytes(errors: dict[tuple[str, str], np.ndarray], params: MatmulParams) -> bytes:
    """The columns the issue fixed: ``inputs,k,accumulate,rel_frobenius_error`` (the median over trials)."""
    rows = [[name, k, acc, repr(float(np.median(errors[(name, acc)][:, j])))]
            for name in INPUTS for j, k in enumerate(params.ks.tolist()) for acc in ACCUMULATE]
    return csv_file(["inputs", "k", "accumulate", "rel_frobenius_error"], rows)


def headline(errors: dict[tuple[str, str], np.ndarray], params: MatmulParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {
        "m": number(params.m), "n": number(params.n), "k_max": number(params.k_max), "trials": number(params.trials),
    }
    columns = {f"k{k}": int(np.nonzero(params.ks == k)[0][0]) for k in QUOTED_K} | {"kmax": len(params.ks) - 1}
    for name in INPUTS:
        numbers[name] = {acc: {key: significant(100 * float(np.median(errors[(name, acc)][:, j])))
                               for key, j in columns.items()} for acc in ACCUMULATE}
    return numbers


def build(figure_id: str, params: MatmulParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    errors = compute(params)
    files = render(lambda palette, layout: draw(errors, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(errors, params)
    fmt = get_format(params.format)
    shape = f"{params.m}×K by K×{params.n}"
    alt = (f"Two log-log panels of the relative Frobenius error of a {fmt.label} matrix product, {shape}, "
           f"against K up to {number(params.k_max)}, median of {params.trials} trials, for entries uniform on "
           "[0, 1) and on [−1, 1): with a BF16 accumulator the error grows with K, to tens of per cent for "
           "entries of one sign; with an FP32 accumulator it stays near BF16's own rounding of the output.")
    caption = (f"A {fmt.label} matrix product Ĉ = AB, {shape}, against the exact C: the relative Frobenius "
               f"error against K, median over {params.trials} seeded trials, for two accumulators.")
    more = ("The error is ‖Ĉ − C‖<sub>F</sub> / ‖C‖<sub>F</sub>. One line has every product and partial sum "
            f"rounded to {fmt.label}; "
            f"the other keeps them in FP32 and rounds only the output to {fmt.label}.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(errors, params))
