"""The block-errors figures: quantization against accumulation in dot products of block-scaled vectors.

One record per kind of input (``block-errors-uniform``, ``block-errors-normal``): for each block format,
the median over seeded trials of the two exact parts of the error (:mod:`fpsum.block_dot`) against the
length K, the accumulation in FP32, in a truncating accumulator and in BF16.

Numbers of each record: ``kind``, ``trials``, ``bits``, ``quote_k``; per block format (``mxfp8``,
``mxfp6_e2m3``, ``mxfp4``, ``nvfp4``): ``label``, ``quantization`` (per cent, at ``quote_k``), and
per accumulator (``fp32``, ``truncated``, ``bf16``): ``at_k`` (per cent, at ``quote_k``) and
``crossover`` (the first K drawn at which its median accumulation error exceeds the median
quantization error, or ``none`` up to the largest K drawn).
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fpsum.block_dot import Accumulator, block_dots
from fpsum.blocks import get_block_format
from fpsum.formats import BF16, FP32
from fpsum.hardware import TruncatedAccumulator
from fpsum.inputs import INPUT_KINDS, INPUT_LABELS, make_inputs

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import LOOKS, Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number, significant
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 5.4), narrow=(4.5, 11.5))
"""Inches: four panels in a 2 x 2 grid, or stacked on a phone; the legend below them."""
ACCUMULATORS = ("fp32", "truncated", "bf16")
"""The accumulators of the figure; their looks are :data:`figures.looks.LOOKS` ``wide``, ``truncated``, ``bfloat``."""
LOOK_OF = {"fp32": "wide", "truncated": "truncated", "bf16": "bfloat"}
FLOOR = 1e-9
"""Errors below this (an exact median is 0) are left out of the log axes; the caption says so."""


@dataclass(frozen=True)
class BlockErrorsParams:
    """The kind of inputs (FP32 values), the block formats, the lengths K, trials, seed and the truncating model."""

    kind: str = "uniform"
    formats: tuple[str, ...] = ("mxfp8", "mxfp6-e2m3", "mxfp4", "nvfp4")
    ks: tuple[int, ...] = (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
    quote_k: int = 4096
    trials: int = 24
    seed: int = 71
    bits: int = 14

    def __post_init__(self) -> None:
        if self.kind not in INPUT_KINDS or self.quote_k not in self.ks or self.trials < 1:
            raise ValueError(f"invalid block-errors parameters: {self}")
        for name in self.formats:
            get_block_format(name)
        TruncatedAccumulator(self.bits, 4)

    def accumulator(self, name: str) -> Accumulator:
        """The accumulator called ``name``: FP32 or BF16, or the truncating model (four blocks a step, no promotion)."""
        if name == "truncated":
            return TruncatedAccumulator(self.bits, 4)
        return {"fp32": FP32, "bf16": BF16}[name]


def records() -> list[Record]:
    """The figure for uniform [0, 1) inputs, and the one for standard normal inputs."""
    return [
        Record("block-errors-uniform", BlockErrorsParams(kind="uniform"), build),
        Record("block-errors-normal", BlockErrorsParams(kind="normal"), build),
    ]


@dataclass(frozen=True)
class Errors:
    """Per block format, median errors against K: ``quantization`` (len(ks),) and per accumulator the same."""

    quantization: dict[str, np.ndarray]
    accumulation: dict[str, dict[str, np.ndarray]]


def compute(params: BlockErrorsParams) -> Errors:
    """Every block format, length and accumulator, on the same seeded FP32 inputs."""
    quantization: dict[str, np.ndarray] = {}
    accumulation: dict[str, dict[str, np.ndarray]] = {}
    accumulators = [params.accumulator(name) for name in ACCUMULATORS]
    for name in params.formats:
        fmt = get_block_format(name)
        q_rows, a_rows = [], []
        for k in params.ks:
            x, y = (make_inputs(params.kind, k, FP32, params.seed + i, trials=params.trials)  # type: ignore[arg-type]
                    .astype(np.float64) for i in (0, 1))
            dots = block_dots(x, y, fmt, accumulators)
            q_rows.append(np.median([d.quantization_rel_error for d in dots[0]]))
            a_rows.append([np.median([d.accumulation_rel_error for d in per]) for per in dots])
        quantization[name] = np.array(q_rows)
        accumulation[name] = dict(zip(ACCUMULATORS, np.array(a_rows).T))
    return Errors(quantization, accumulation)


def _shown(values: np.ndarray) -> np.ndarray:
    """Errors as drawn: those below :data:`FLOOR` (exact medians) left out of the log axes."""
    return np.where(values >= FLOOR, values, np.nan)


def draw(errors: Errors, params: BlockErrorsParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    shape = (len(params.formats), 1) if layout.narrow else (2, 2)
    fig, grid = plt.subplots(*shape, figsize=layout.size, sharex=True, sharey=True, layout="constrained")
    axes = list(np.ravel(grid))
    ks = np.array(params.ks)
    for ax, name in zip(axes, params.formats):
        method_line(ax, "quantization", ks, _shown(errors.quantization[name]), palette)
        for acc in ACCUMULATORS:
            method_line(ax, LOOK_OF[acc], ks, _shown(errors.accumulation[name][acc]), palette, markevery=1,
                        label=f"accumulation, {LOOKS[LOOK_OF[acc]].label}" if acc != "truncated"
                        else f"accumulation, {params.bits}-bit truncating")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(get_block_format(name).label)
        ax.grid(True, which="major", color=palette.grid, lw=0.6)
    bottom = axes[-1:] if layout.narrow else axes[2:]
    for ax in bottom:
        ax.set_xlabel("K, length of the dot product")
    for ax in (axes if layout.narrow else axes[::2]):
        ax.set_ylabel("relative error")
    shown = {label: handle for ax in axes for handle, label in zip(*ax.get_legend_handles_labels())}
    fig.legend(list(shown.values()), list(shown), loc="outside lower center", ncols=1 if layout.narrow else 2,
               frameon=False)
    return fig


def crossover(quantization: np.ndarray, accumulation: np.ndarray, ks: tuple[int, ...]) -> str:
    """The first K at which the accumulation error exceeds the quantization error, or ``none``."""
    above = np.nonzero(accumulation > quantization)[0]
    return number(ks[int(above[0])]) if above.size else "none"


def headline(errors: Errors, params: BlockErrorsParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    at = params.ks.index(params.quote_k)
    numbers: dict[str, NestedNumbers | str] = {
        "kind": INPUT_LABELS[params.kind], "trials": number(params.trials),  # type: ignore[index]
        "bits": number(params.bits), "quote_k": number(params.quote_k), "largest_k": number(params.ks[-1]),
    }
    for name in params.formats:
        q = errors.quantization[name]
        per: dict[str, NestedNumbers | str] = {"label": get_block_format(name).label,
                                              "quantization": significant(100 * float(q[at]))}
        for acc in ACCUMULATORS:
            a = errors.accumulation[name][acc]
            per[acc] = {"at_k": significant(100 * float(a[at])), "crossover": crossover(q, a, params.ks)}
        numbers[name.replace("-", "_")] = per  # a token key has no hyphen
    return numbers


def csv_bytes(errors: Errors, params: BlockErrorsParams) -> bytes:
    """Per block format and K: the median quantization error and each accumulator's median accumulation error."""
    rows: list[list[object]] = []
    for name in params.formats:
        for j, k in enumerate(params.ks):
            rows.append([name, params.kind, k, params.trials, repr(float(errors.quantization[name][j]))]
                        + [repr(float(errors.accumulation[name][acc][j])) for acc in ACCUMULATORS])
    return csv_file(["block_format", "inputs", "k", "trials", "median_quantization_rel_error",
                     *(f"median_accumulation_rel_error_{acc}" for acc in ACCUMULATORS)], rows)


def build(figure_id: str, params: BlockErrorsParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    errors = compute(params)
    files = render(lambda palette, layout: draw(errors, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(errors, params)
    kind = INPUT_LABELS[params.kind]  # type: ignore[index]
    labels = ", ".join(get_block_format(name).label for name in params.formats)
    alt = (f"Four log-log panels, one per block format ({labels}), of the median relative error of dot products "
           f"of {kind} inputs against their length K from {number(params.ks[0])} to {number(params.ks[-1])}: a "
           "line for the error of quantizing the inputs, nearly flat, and one for the error of accumulating in "
           "FP32, in a truncating accumulator and in BF16, each rising with K; where an accumulation line "
           "crosses the quantization line, the accumulator starts to matter.")
    caption = (f"Dot products of {kind} FP32 inputs quantized to each block format: the two parts of the "
               f"error, median over {params.trials} seeded trials, against K.")
    more = ("Quantization: the exact dot product of the quantized inputs against that of the inputs. "
            "Accumulation: the computed result against the exact dot product of the quantized inputs; the "
            "products of each block are summed exactly and scaled, and the blocks are accumulated in FP32 "
            f"(rounded to nearest), in a {params.bits}-bit truncating accumulator (four blocks a step, never "
            "promoted), or in BF16. A median of 0 (an exact result) has no place on the logarithmic axes and "
            "is left out.")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(errors, params))
