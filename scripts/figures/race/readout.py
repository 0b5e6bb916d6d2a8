"""The readout and legend: the running count and every series' total, frame by frame, and the final frame.

In a standalone file the readout is a film strip of pre-rendered frames
moved by one discrete ``animateTransform``, so the file needs no script.  In
a page it is one text per value whose strings race.js shows as the clock
moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import numpy as np

from fpsum.race import Race

from ..looks import LOOKS
from ..text import number
from .defs import marker
from .layout import (
    COLUMN_X,
    DURATION_S,
    FRAMES,
    HEIGHT,
    NARROW,
    NARROW_HEIGHT,
    PLOT,
    SERIES,
    TEXT_X,
    WIDE,
    WIDTH,
    Layout,
    Point,
    View,
    final_value,
    num,
    series_values,
)
from .style import series_fill, series_stroke

Frame = tuple[int, dict[str, float]]
"""One readout: an input count and every series' total after that many inputs."""
SWATCH_LENGTH = 24.0
"""Length of a legend swatch's stretch of line, before the layout's scale."""


def frames(race: Race) -> list[Frame]:
    """FRAMES + 1 readouts: frame k is the last sampled step at or before k/FRAMES of the inputs.

    Frame 0 is no inputs yet (every total 0); the last frame is all n inputs.
    """
    steps = np.asarray(race.steps)
    out: list[Frame] = []
    for k in range(FRAMES + 1):
        index = int(np.searchsorted(steps, race.n * k / FRAMES, side="right")) - 1
        if index < 0:
            out.append((0, {s: 0.0 for s in SERIES}))
        else:
            out.append((int(steps[index]), {s: float(series_values(race, s)[index]) for s in SERIES}))
    return out


def text_stack(x: float, y: float, texts: list[str], pitch: float, cls: str, anchor: str = "start") -> str:
    """One <text> holding every frame's string, ``pitch`` apart downwards; the last one bold."""
    spans = []
    for k, text in enumerate(texts):
        fin = ' class="fin"' if k == len(texts) - 1 else ""
        where = f'y="{num(y)}"' if k == 0 else f'dy="{num(pitch)}"'
        spans.append(f'<tspan x="{num(x)}" {where}{fin}>{text}</tspan>')
    end = ' text-anchor="end"' if anchor == "end" else ""
    return f'<text class="{cls}"{end}>{"".join(spans)}</text>'


@dataclass(frozen=True)
class Readout:
    """Where a layout writes the running count and each series' swatch, name and value."""

    count: tuple[float, float, str]
    """x, baseline and text-anchor of the count."""
    swatch: dict[str, Point]
    """Left end and centre line of each series' swatch."""
    names: dict[str, Point]
    values: dict[str, Point]
    value_anchor: str
    swatch_scale: float
    pitch: float
    """Distance between stacked frames (film strip): more than the readout's clip window is tall."""


def wide_readout(lay: Layout) -> Readout:
    """Wide layout: a column right of the plot; each series' row as close to its line's end as the rows allow."""
    return Readout(
        count=(TEXT_X, 50.0, "start"),
        swatch={s: (COLUMN_X, y - 5) for s, y in lay.rows.items()},
        names={s: (TEXT_X, y) for s, y in lay.rows.items()},
        values={s: (TEXT_X, y + 20) for s, y in lay.rows.items()},
        value_anchor="start", swatch_scale=1.0, pitch=float(HEIGHT),
    )


def narrow_readout(lay: Layout) -> Readout:
    """Narrow layout: a table under the plot, the count on top, one row per series, values right-aligned."""
    top, gap, right = NARROW.table_top, 36.0, WIDTH - 16.0
    rows = {s: top + 74 + gap * i for i, s in enumerate(lay.order)}
    return Readout(
        count=(right, top + 32, "end"),
        swatch={s: (4, y - 7) for s, y in rows.items()},
        names={s: (52, y) for s, y in rows.items()},
        values={s: (right, y) for s, y in rows.items()},
        value_anchor="end", swatch_scale=1.4, pitch=float(NARROW_HEIGHT),
    )


def legend(lay: Layout, place: Readout, href: str) -> list[str]:
    """Each series' swatch (a stretch of its line, with its marker) and its label from the looks table."""
    out = []
    for s in SERIES:
        (x, y), look = place.swatch[s], LOOKS[s]
        length = SWATCH_LENGTH * place.swatch_scale
        out.append(f'<path style="{series_stroke(s)}" d="M{num(x)} {num(y)}h{num(length)}"/>')
        if look.marker:
            shape = marker(lay.fid, s, x + length / 2, y, href, place.swatch_scale)
            out.append(f'<g style="{series_fill(s)}">{shape}</g>')
        name_x, name_y = place.names[s]
        out.append(f'<text x="{num(name_x)}" y="{num(name_y)}">{escape(look.label)}</text>')
    return out


def readout_slots(place: Readout, shown: list[Frame]) -> list[tuple[float, float, str, str, list[str]]]:
    """Each readout text (the count, then every series' value): x, baseline, anchor, class and its frames' strings."""
    x, y, anchor = place.count
    slots = [(x, y, anchor, "count", [number(c) for c, _ in shown])]
    for s in SERIES:
        vx, vy = place.values[s]
        slots.append((vx, vy, place.value_anchor, "val", [number(v[s]) for _, v in shown]))
    return slots


def readout(place: Readout, shown: list[Frame]) -> list[str]:
    """The count and values of every frame in ``shown``, as stacks of text."""
    return [text_stack(x, y, texts, place.pitch, cls, anchor)
            for x, y, anchor, cls, texts in readout_slots(place, shown)]


def final_marks(lay: Layout, view: View, href: str) -> str:
    """The dots at the lines' ends and, in the wide layout, leaders from them to the readout rows."""
    dots = f'<use {href}="#{lay.fid}-ends"{view.transform()}/>'
    if view is not WIDE:
        return dots
    out = []
    for s in SERIES:
        end = final_value(lay.race, s)
        if math.isfinite(end):
            out.append(f"M{num(PLOT.right + 6)} {num(lay.y(end))}h5L{num(COLUMN_X - 6)} {num(lay.rows[s] - 5)}")
    return f'<path class="lead" d="{"".join(out)}"/>{dots}'


def final_parts(lay: Layout, view: View, place: Readout, href: str, live: bool, also: str = "") -> list[str]:
    """The end marks fading in when the reveal is over, and the still final frame (with ``also`` in it).

    A ``live`` readout has no final frame of its own, so the final readout
    fades in with the marks.  ``also`` is what the animation shows on its
    own before the end (the stall label), for the one still group.
    """
    marks = final_marks(lay, view, href)
    final = "".join(readout(place, frames(lay.race)[-1:]))
    return [
        f'<g class="anim" opacity="0">{marks}{final if live else ""}<animate attributeName="opacity" values="0;1" '
        f'begin="{DURATION_S}s" dur="0.6s" fill="freeze"/></g>',
        f'<g class="still">{marks}{final}{also}</g>',
    ]


def moving_readout(lay: Layout, place: Readout) -> list[str]:
    """Standalone files: every readout frame, a film strip in a clip window stepped by one discrete translation."""
    shown = frames(lay.race)
    shifts = ";".join(f"0 {num(-k * place.pitch)}" for k in range(len(shown)))
    times = ";".join(f"{k / FRAMES:.4g}" for k in range(len(shown)))
    return [
        f'<g class="anim" clip-path="url(#{lay.fid}-window)"><g>',
        *readout(place, shown),
        f'<animateTransform attributeName="transform" type="translate" calcMode="discrete" '
        f'values="{shifts}" keyTimes="{times}" begin="0s" dur="{DURATION_S}s" fill="freeze"/></g></g>',
    ]


def live_readout(lay: Layout, place: Readout) -> list[str]:
    """Pages: one empty text per readout slot, which race.js fills with the frame the clock is at.

    A film strip would put FRAMES copies of every text in the page, which
    then costs every style and layout pass of the page.  Each text carries its
    strings for frames 0 .. FRAMES - 1 in ``data-race-frames``, separated by
    ``|``; when the reveal ends this group hides and the final readout of
    :func:`final_parts` shows, so without JavaScript the readout is blank
    while the lines grow and then shows the final totals.
    """
    out = ['<g class="anim" data-race-live="">']
    for x, y, anchor, cls, texts in readout_slots(place, frames(lay.race)[:-1]):
        end = ' text-anchor="end"' if anchor == "end" else ""
        out.append(f'<text class="{cls}" x="{num(x)}" y="{num(y)}"{end} '
                   f'data-race-frames="{escape("|".join(texts))}"></text>')
    out.append(f'<set attributeName="visibility" to="hidden" begin="{DURATION_S}s" fill="freeze"/></g>')
    return out
