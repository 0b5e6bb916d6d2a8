"""The table of formats: every defining and derived number, and how many inputs it takes to stall."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from html import escape

import numpy as np

from fpsum.formats import Format, get_format
from fpsum.inputs import input_blocks
from fpsum.methods import running_totals

from .contract import FigureFiles
from .html import figure_html
from .record import Built, Record
from .text import number

STALL_BLOCK = 1 << 16
"""Inputs drawn and summed at a time while looking for the stall."""


@dataclass(frozen=True)
class FormatsParams:
    """The formats in the table, and how many seeded runs average the inputs it takes to stall."""

    formats: tuple[str, ...] = ("fp16", "bf16", "fp32", "e4m3", "e5m2")
    stall_seeds: int = 10
    wide_stall_seeds: int = 2  # FP32 takes 2**25 inputs per seed

    def __post_init__(self) -> None:
        for name in self.formats:
            get_format(name)
        if self.stall_seeds < 1 or self.wide_stall_seeds < 1:
            raise ValueError("the formats table needs at least one seed for the stall counts")


def records() -> list[Record]:
    """The one table of formats."""
    return [Record("formats-table", FormatsParams(), build)]


def inputs_to_stall(fmt: Format, seed: int) -> int:
    """How many uniform [0, 1) inputs the naive running sum takes to reach its stall point.

    The sum reaches 2**p near n = 2**(p+1) inputs; the inputs are those of a
    draw of four times that, so that it always gets there, drawn and summed
    a block at a time until it does (the running total carried from block
    to block, as in one pass).  ``RuntimeError`` if it never does.
    """
    n = int(4 * fmt.stall_point)
    carried = np.zeros(0, dtype=fmt.dtype)  # the running total so far: none before the first input
    done = 0
    for block in input_blocks("uniform", n, fmt, seed, STALL_BLOCK):
        running = running_totals("naive", np.concatenate([carried, block]), fmt)[carried.size:]
        reached = np.nonzero(running >= fmt.stall_point)[0]
        if reached.size:
            return done + int(reached[0]) + 1
        done += block.size
        carried = running[-1:]
    raise RuntimeError(f"{fmt.label}: the naive sum never reached {fmt.stall_point} in {n} inputs")


def power_of_two(value: float) -> str:
    """``2<sup>−11</sup>`` for an exact power of two."""
    exponent = int(math.log2(value))
    return f"2<sup>{'−' if exponent < 0 else ''}{abs(exponent)}</sup>"


def magnitude(value: float) -> str:
    """A power of two below 1 as ``2<sup>−6</sup>``; plain digits up to a million; else ``3.39 × 10<sup>38</sup>``."""
    exact_power = value == 2.0 ** round(math.log2(value))
    if exact_power and (value < 1 or value >= 1e6):
        return power_of_two(value)
    if 1 <= value < 1e6:
        return number(value)
    exponent = math.floor(math.log10(value))
    return f"{value / 10**exponent:.3g} × 10<sup>{'−' if exponent < 0 else ''}{abs(exponent)}</sup>"


def build(figure_id: str, params: FormatsParams) -> Built:
    """The table's fragment and CSV; per format the numbers ``label``, ``p``, ``stall``, ``stall_ulp``
    and ``stall_after``.
    """
    # The stall point, what a reader comes for, stands next to the format: the table's first screen shows
    # it (the first column stays in view while the rest scrolls: layout.css), and on a phone, where the
    # table is cards (hooks/content/table_cards.py), it is the first value of each.
    columns = ["format", "stall point", "inputs to stall", "p", "u", "bits", "largest finite",
               "smallest normal", "smallest subnormal", "overflow to"]
    rows_html, csv_rows = [], []
    numbers: dict[str, dict[str, str]] = {}
    for name in params.formats:
        fmt = get_format(name)
        seeds = params.wide_stall_seeds if fmt.precision > 16 else params.stall_seeds
        mean_steps = float(np.mean([inputs_to_stall(fmt, seed) for seed in range(seeds)]))
        about = float(f"{mean_steps:.2g}")  # an average: two significant figures
        cells = [escape(fmt.label), number(fmt.stall_point), number(about), str(fmt.precision),
                 power_of_two(fmt.unit_roundoff), str(fmt.bits), magnitude(fmt.max_finite),
                 magnitude(fmt.smallest_normal), magnitude(fmt.smallest_subnormal),
                 "NaN" if fmt.overflow == "nan" else "±∞"]
        rows_html.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        csv_rows.append([fmt.name, fmt.bits, fmt.precision, repr(fmt.unit_roundoff), repr(fmt.max_finite),
                         repr(fmt.smallest_normal), repr(fmt.smallest_subnormal), repr(fmt.stall_point),
                         repr(mean_steps), fmt.overflow])
        numbers[name] = {
            "label": fmt.label,
            "p": str(fmt.precision),
            "stall": number(fmt.stall_point),
            "stall_ulp": number(fmt.ulp(fmt.stall_point)),
            "stall_after": number(about),
        }
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "bits", "precision", "unit_roundoff", "max_finite", "smallest_normal",
                     "smallest_subnormal", "stall_point", "mean_uniform_inputs_to_stall", "overflow"])
    writer.writerows(csv_rows)
    head = "<tr>" + "".join(f"<th>{escape(c)}</th>" for c in columns) + "</tr>"
    # A plain table, as Markdown writes one: mkdocs-material's script wraps it in the box that scrolls
    # sideways (wrapped here as well, it was wrapped twice, and the inner box kept its first column from
    # sticking); without the script the table scrolls by itself.
    table = f"<table>\n<thead>{head}</thead>\n<tbody>\n" + "\n".join(rows_html) + "\n</tbody>\n</table>"
    caption = (f"The formats of the model. u = 2<sup>−p</sup> is the unit roundoff; the stall point 2<sup>p</sup> "
               "is where a running sum of inputs in [0, 1) stops growing, and the inputs to stall are how many "
               f"uniform inputs it takes to get there (mean over {params.stall_seeds} seeded runs, "
               f"{params.wide_stall_seeds} for FP32, to two figures). Overflow: past the largest finite value a "
               "result becomes ±∞, except in E4M3, which has no infinity and gives NaN. ")
    paths = FigureFiles.of(figure_id)
    fragment = figure_html(figure_id, table, caption, {"CSV data": paths.csv}, kind="Table")
    return Built(files={paths.csv: out.getvalue().encode(), paths.fragment: fragment.encode()}, numbers=numbers)
