"""The race's words: axis labels, the stall labels, the errors' key, and the text alternatives (<title> and <desc>)."""

from __future__ import annotations

import textwrap
from html import escape
from typing import cast

import numpy as np

from fpsum.inputs import INPUT_LABELS
from fpsum.names import Method
from fpsum.race import Race

from ..looks import LOOKS
from ..text import number, significant
from .errors import final_errors, power_of_ten, window
from .layout import (
    ERRORS,
    PLOT,
    SERIES,
    WIDE,
    Layout,
    View,
    final_value,
    num,
    stall_level,
    stall_step,
    tick_decimals,
    ticks,
)

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
    """Tick labels and axis titles of both plots, placed for ``view``; the x ticks are labelled below the errors."""
    out = []
    y_ticks = ticks(lay.y.lo, lay.y.hi)
    rows = [(lay.y(v), number(v, decimals=tick_decimals(y_ticks))) for v in y_ticks]
    rows += [(lay.err(0.0), "0")] + [(lay.err(10.0 ** e), power_of_ten(e)) for e in lay.err.decade_ticks()]
    for level, label in rows:
        x, y = view.point(PLOT.left, level)
        out.append(f'<text class="muted" x="{num(x - 8)}" y="{num(y + view.font * 0.35)}" '
                   f'text-anchor="end">{label}</text>')
    x_ticks = ticks(0.0, float(lay.race.n))
    for value in x_ticks:
        x, y = view.point(lay.x(value), ERRORS.bottom)
        out.append(f'<text class="muted" x="{num(x)}" y="{num(y + 8 + view.font)}" '
                   f'text-anchor="middle">{number(value, decimals=tick_decimals(x_ticks))}</text>')
    (left, top), (right, bottom) = view.point(PLOT.left, PLOT.top), view.point(PLOT.right, ERRORS.bottom)
    errors_top = view.point(PLOT.left, ERRORS.top)[1]
    title_x = 8 if view is WIDE else 4
    out.append(f'<text class="muted" x="{num((left + right) / 2)}" y="{num(bottom + 14 + 2.5 * view.font)}" '
               f'text-anchor="middle">inputs added</text>')
    out.append(f'<text class="muted" x="{title_x}" y="{num(top - 0.9 * view.font - 2)}">running total</text>')
    out.append(f'<text class="muted" x="{title_x}" y="{num(errors_top - 0.9 * view.font - 2)}">'
               f"{escape(ERROR_TITLE)}</text>")
    return out


ERROR_TITLE = "error |total \u2212 exact|, in ulps (log scale)"
"""The errors' axis title; :func:`error_note` says which ulp and which error."""


def error_note(race: Race) -> str:
    """What a point of the lower plot is and what its ulp is, for the reader (the key beside or below it)."""
    return (f"Each point: the largest error in the last {number(window(race))} inputs. "
            f"1 ulp: the {race.fmt.label} spacing at the largest |exact total| so far.")


def error_key(lay: Layout, view: View, x: float, y: float, chars: int) -> str:
    """:func:`error_note` as one muted text, lines of at most ``chars`` characters, the first baseline at ``(x, y)``."""
    first, *rest = textwrap.wrap(error_note(lay.race), chars)
    spans = "".join(f'<tspan x="{num(x)}" dy="{num(1.3 * view.font)}">{escape(line)}</tspan>' for line in rest)
    return f'<text class="muted" x="{num(x)}" y="{num(y)}">{escape(first)}{spans}</text>'


def hidden_points(lay: Layout, left: float, top: float, width: float, height: float) -> int:
    """How many line points (totals and errors) of any series fall in a box, in wide-plot units."""
    inside = (lay.xs >= left) & (lay.xs <= left + width)
    return sum(int(np.count_nonzero(inside & (ys[s] >= top) & (ys[s] <= top + height)))
               for ys in (lay.ys, lay.es) for s in SERIES)


def stall_step_label(lay: Layout, view: View) -> str:
    """Beside the stall guide, ``naive stalls / after 465 inputs``: at the top of a plot, the side hiding fewest points.

    Placed for ``view``; empty if the naive sum did not stall.  The text has
    a halo in the background colour, in case a line still runs under it.
    """
    found = stall_step(lay)
    if found is None:
        return ""
    step, guide = found
    lines = (f"{LOOKS['naive'].label} stalls", f"after {number(step)} inputs")
    size = view.font / view.k  # in wide-plot units
    width, height, gap = text_width(max(lines, key=len), size), 2.35 * size, 5 / view.k
    spots = []
    for rank, top in enumerate((PLOT.top + gap, ERRORS.top + gap)):
        for side, left in ((0, guide + gap), (1, guide - gap - width)):
            if PLOT.left + gap <= left and left + width <= PLOT.right - gap:
                spots.append((hidden_points(lay, left, top, width, height), side, rank, left, top))
    if not spots:
        return ""
    _, side, _, left, top = min(spots)
    x, y = view.point(left if side == 0 else left + width, top + 0.8 * size)
    anchor = "" if side == 0 else ' text-anchor="end"'
    return (f'<text class="muted halo" x="{num(x)}" y="{num(y)}"{anchor}>{escape(lines[0])}'
            f'<tspan x="{num(x)}" dy="{num(1.3 * view.font)}">{escape(lines[1])}</tspan></text>')


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
            hidden = hidden_points(lay, left - 2 * margin, top - margin, width + 4 * margin, height + 2 * margin)
            spots.append((hidden, step, above, left, top))
    if not spots:
        return ""
    _, _, _, left, top = min(spots)
    x, y = view.point(left, top + size * 0.8)
    return (f'<text class="muted halo" x="{num(x)}" y="{num(y)}">{escape(first)}'
            f'<tspan x="{num(x)}" dy="{num(leading * view.k)}">{escape(second)}</tspan></text>')


def title_text(race: Race) -> str:
    """The SVG's <title>: what the figure shows."""
    return (f"Running totals of four summation methods in {race.fmt.label} and their errors, "
            f"{number(race.n)} inputs, {INPUT_LABELS[race.kind]}")


def ulps_phrase(value: float) -> str:
    """An error in ulps for the description: two significant digits, ``under 0.001`` below that, or ``undefined``."""
    if not np.isfinite(value):
        return "undefined"
    return "under 0.001" if 0 < value < 0.001 else significant(value)


def error_sentence(race: Race) -> str:
    """What the lower plot shows, in words a screen reader says well, and where each method's error ends."""
    ends = final_errors(race)
    finals = ", ".join(f"{LOOKS[s].label} {ulps_phrase(ends[s])}" for s in SERIES[1:])
    return (f"The lower plot shows each method's error, the distance of its total from the exact one, in ulps "
            f"(1 ulp is the {race.fmt.label} spacing at the largest magnitude the exact sum has reached so far), "
            "on a logarithmic scale whose bottom line, 0, is the exact sum's own; each point is the largest error "
            f"in the last {number(window(race))} inputs. The errors at the end, in ulps: {finals}.")


def desc_text(race: Race) -> str:
    """The SVG's <desc>: which method stalls where, what every method ends at, the exact total, the errors."""
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
    return f"{race.fmt.label}, {number(race.n)} {kind}: {'; '.join(clauses)}. {error_sentence(race)}"
