"""The Neumaier figure: an input larger than the running sum defeats Kahan, not Neumaier."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from fpsum.array_rounding import to_format
from fpsum.exact import exact_running, exact_total
from fpsum.formats import get_format
from fpsum.inputs import make_inputs
from fpsum.methods import running_totals, total
from fpsum.names import Method

from .contract import FigureFiles
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number
from .variants import Layout, Sizes

METHODS: tuple[Method, ...] = ("naive", "kahan", "neumaier")
SIZES = Sizes(wide=(7.0, 3.8), narrow=(4.5, 4.2))
"""Inches; the narrow plot says less under its x axis."""
MARKS: dict[Method, dict[str, Any]] = {
    "naive": {"markevery": (0, 2)},
    "kahan": {"markevery": (1, 2)},
    "neumaier": {"markevery": 1, "zorder": 5},
}
"""Naive and Kahan end every block on the same total: their markers take turns, so both show.  Neumaier's
line lies on the exact one and is drawn over it (the exact line shows through its dashes)."""


@dataclass(frozen=True)
class NeumaierParams:
    """A block of inputs, repeated; the format everything is done in."""

    block: tuple[float, ...] = (1.0, 4096.0, 1.0, -4096.0)
    repeats: int = 16
    format: str = "fp16"
    long_n: int = 32768  # a long sum of uniform inputs, where Neumaier's own running sums stall
    long_seed: int = 0

    def __post_init__(self) -> None:
        fmt = get_format(self.format)
        if self.repeats < 1 or not self.block:
            raise ValueError("the Neumaier example needs a non-empty block and at least one repeat")
        if not np.array_equal(to_format(np.array(self.block), fmt).astype(float), np.array(self.block)):
            raise ValueError(f"the block {self.block} is not exactly representable in {fmt.label}")


def records() -> list[Record]:
    """The one Neumaier figure."""
    return [Record("neumaier", NeumaierParams(), build)]


def compute(params: NeumaierParams) -> tuple[np.ndarray, dict[Method, np.ndarray], np.ndarray]:
    """Totals after each complete block: within a block the large inputs swing the sum far and back."""
    fmt = get_format(params.format)
    values = np.tile(np.array(params.block), params.repeats).astype(fmt.dtype)
    steps = np.arange(1, params.repeats + 1) * len(params.block)
    runs = {m: running_totals(m, values, fmt)[steps - 1].astype(np.float64) for m in METHODS}
    return steps, runs, exact_running(values, steps)


def draw(steps: np.ndarray, runs: dict[Method, np.ndarray], exact: np.ndarray, palette: Palette,
         layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    method_line(ax, "exact", steps, exact, palette, zorder=4)
    for method, values in runs.items():
        method_line(ax, method, steps, values, palette, lw=1.5, ms=5, **MARKS[method])
    ax.set_xlabel("inputs added (totals after each block)" if layout.narrow
                  else "inputs added (totals shown after each complete block)")
    ax.set_ylabel("running total")
    ax.set_xlim(0, steps[-1] + 1)
    ax.grid(True, color=palette.grid, lw=0.6)
    ax.legend(frameon=False, loc="upper left")
    return fig


def build(figure_id: str, params: NeumaierParams) -> Built:
    """The figure, its CSV and fragment; numbers for one block (``naive``, ``kahan``, ``neumaier``,
    ``exact``, ``inputs``) and for a long uniform sum (``uniform.*``).
    """
    fmt = get_format(params.format)
    steps, runs, exact = compute(params)
    files = render(lambda palette, layout: draw(steps, runs, exact, palette, layout), figure_id, SIZES)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["inputs_added", "exact", *runs])
    for j, step in enumerate(steps.tolist()):
        writer.writerow([step, repr(float(exact[j])), *(repr(float(v[j])) for v in runs.values())])
    files[FigureFiles.of(figure_id).csv] = out.getvalue().encode()
    inputs = ", ".join(number(v).replace(",", "") for v in params.block)  # a list: no thousands commas
    finals = {m: number(float(v[-1])) for m, v in runs.items()}
    alt = (f"Running totals after each block of {len(params.block)} {fmt.label} inputs, the block {inputs} repeated: "
           f"the exact total climbs to {number(float(exact[-1]))}; Neumaier follows it and ends at "
           f"{finals['neumaier']}; Kahan ends at {finals['kahan']} and naive at {finals['naive']}.")
    caption = (f"The block {inputs} repeated {params.repeats} times, every operation in {fmt.label}: the running "
               "totals of naive, Kahan and Neumaier summation after each block, and the exact one.")
    more = ("Each large input swamps the running sum; Kahan's correction is computed as if the running sum were "
            "the larger operand, so it loses the small inputs too, while Neumaier takes the lost part from the "
            "smaller operand. ")
    if np.array_equal(runs["naive"], runs["kahan"]):
        more += "Naive and Kahan end every block on the same total: their markers take turns. "
    if np.array_equal(runs["neumaier"], exact):
        more += "Neumaier's line lies on the exact one. "
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    one_block = np.array(params.block).astype(fmt.dtype)
    long = make_inputs("uniform", params.long_n, fmt, params.long_seed)
    uniform: dict[str, str] = {
        "n": number(params.long_n),
        "exact": number(float(exact_running(long, np.array([long.size]))[0])),  # rounded once, no Fractions
        **{method: number(float(total(method, long, fmt))) for method in METHODS},
    }
    numbers: dict[str, str | dict[str, str]] = {
        "inputs": inputs,
        "exact": number(exact_total(one_block)),
        **{method: number(float(total(method, one_block, fmt))) for method in METHODS},
        "uniform": uniform,
    }
    return Built(files=files, numbers=numbers)
