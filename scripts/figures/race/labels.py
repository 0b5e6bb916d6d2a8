"""The race's words: axis labels, the stall label, and the text alternatives (<title> and <desc>)."""

from __future__ import annotations

from html import escape
from typing import cast

import numpy as np

from fpsum import INPUT_LABELS, Method, Race

from ..looks import LOOKS
from ..text import number
from .layout import PLOT, SERIES, WIDE, Layout, View, final_value, num, stall_level, tick_decimals, ticks

CHAR_EM = 0.52
"""Rough advance of one character, in ems, for placing labels."""

KIND_PHRASES: dict[str, str] = {
    "uniform": "uniform inputs in [0, 1)",
    "ones": "inputs all equal to 1",
    "normal": "standard normal inputs of both signs",
}


def text_width(text: str, size: float) -> float:
    """A rough width of ``text`` at font size ``size``, for placing labels."""
    return len(text) * size * CHAR_EM


def axis_labels(lay: Layout, view: View) -> list[str]:
    """Tick labels and axis titles, placed for ``view``."""
    out = []
    y_ticks = ticks(lay.y.lo, lay.y.hi)
    for value in y_ticks:
        x, y = view.point(PLOT.left, lay.y(value))
        out.append(f'<text class="muted" x="{num(x - 8)}" y="{num(y + view.font * 0.35)}" '
                   f'text-anchor="end">{number(value, decimals=tick_decimals(y_ticks))}</text>')
    x_ticks = ticks(0.0, float(lay.race.n))
    for value in x_ticks:
        x, y = view.point(lay.x(value), PLOT.bottom)
        out.append(f'<text class="muted" x="{num(x)}" y="{num(y + 8 + view.font)}" '
                   f'text-anchor="middle">{number(value, decimals=tick_decimals(x_ticks))}</text>')
    (left, top), (right, bottom) = view.point(PLOT.left, PLOT.top), view.point(PLOT.right, PLOT.bottom)
    out.append(f'<text class="muted" x="{num((left + right) / 2)}" y="{num(bottom + 14 + 2.5 * view.font)}" '
               f'text-anchor="middle">inputs added</text>')
    out.append(f'<text class="muted" x="{8 if view is WIDE else 4}" y="{num(top - 0.9 * view.font - 2)}">'
               "running total</text>")
    return out


def stall_lines(race: Race) -> tuple[str, str]:
    """The stall label's two lines, ``FP16 stalls at 2,048:`` and ``the ulp there is 2``, from the format."""
    point = race.fmt.stall_point
    return (f"{race.fmt.label} stalls at {number(point)}:",
            f"the ulp there is {number(race.fmt.ulp(point))}")


def stall_label(lay: Layout, view: View) -> str:
    """The stall level's label, at the spot along the level (above or below) that hides the fewest line points.

    Empty if the stall level is outside the plot.  The text has a halo in
    the background colour, in case a line still runs under it.
    """
    level = stall_level(lay)
    if level is None:
        return ""
    first, second = stall_lines(lay.race)
    size, leading = view.font / view.k, 1.35 * view.font / view.k  # in wide-plot units
    width, height = text_width(max(first, second, key=len), size), 1.05 * size + leading
    gap, margin, inset = 6 / view.k, 3 / view.k, 8 / view.k
    spots = []
    for above in (False, True):
        top = level - gap - height if above else level + gap
        if top < PLOT.top or top + height > PLOT.bottom:
            continue
        for step in range(0, 1 + int((PLOT.right - PLOT.left - 2 * inset - width) // 4)):
            left = PLOT.right - inset - width - 4 * step
            hidden = sum(int(np.count_nonzero(
                (lay.xs >= left - 2 * margin) & (lay.xs <= left + width + 2 * margin)
                & (lay.ys[s] >= top - margin) & (lay.ys[s] <= top + height + margin)
            )) for s in SERIES)
            spots.append((hidden, step, above, left, top))
    if not spots:
        return ""
    _, _, _, left, top = min(spots)
    x, y = view.point(left, top + size * 0.8)
    return (f'<text class="muted halo" x="{num(x)}" y="{num(y)}">{escape(first)}'
            f'<tspan x="{num(x)}" dy="{num(leading * view.k)}">{escape(second)}</tspan></text>')


def title_text(race: Race) -> str:
    """The SVG's <title>: what the figure shows."""
    return (f"Running totals of four summation methods in {race.fmt.label}, "
            f"{number(race.n)} inputs, {INPUT_LABELS[race.kind]}")


def desc_text(race: Race) -> str:
    """The SVG's <desc>: which method stalls where, what every method ends at, the exact total."""
    kind = KIND_PHRASES.get(race.kind, f"inputs, {INPUT_LABELS[race.kind]}")
    stalled: list[str] = []
    finished: list[str] = []
    for s in SERIES[1:]:
        stall = race.stalls[cast(Method, s)]
        value, label = number(final_value(race, s)), LOOKS[s].label
        if stall is not None:
            stalled.append(f"the {label} sum stalls at {value} after {number(stall)} inputs")
        else:
            finished.append(f"{label} {'at' if finished else 'ends at'} {value}")
    clauses = stalled or ["no method stalls"]
    if finished:
        clauses.append(", ".join(finished))
    clauses.append(f"the exact total is {number(race.exact_final)}")
    return f"{race.fmt.label}, {number(race.n)} {kind}: {'; '.join(clauses)}."
