"""The animated "race" figure: running total against inputs added, one line per method.

An SVG written by hand (no plotting library), because it animates with SMIL:
a clip rectangle whose width grows reveals the lines over :data:`DURATION_S`
seconds, a readout shows the current count and every total, and the leaders
to the final values fade in at the end.  In a standalone file the readout is
a film strip of pre-rendered frames moved by one discrete ``animateTransform``,
so the file needs no script.  In a page the readout is one text per value,
which ``race.js`` rewrites as the clock moves (the strings come with the SVG);
``race.js`` also adds Pause/Play and Restart buttons.

The lines and the plot's gridwork are drawn once, in ``<defs>``, and shown
by ``<use>`` in two layouts: a wide one (the readout column on the right,
rows placed at the lines' ends) and, inline only, a narrow one for phones
(a bigger plot, the readout as a table below it), which CSS swaps in when
the figure is narrow.  Each layout has an animated and a still part; under
``prefers-reduced-motion: reduce`` and in print CSS hides the animated part,
shows the still one (the final frame) and drops the reveal clip.

Styling rules: an inline SVG's ``<style>`` applies to the whole page, so
every selector starts with the SVG's id and every id with the figure id.
Elements inside ``<defs>`` are styled by ``style`` attributes, because page
selectors do not reach into ``<use>`` copies.  Colours are CSS custom
properties (``--race-naive`` ...) with the light palette as fallback;
``race.css`` sets them for the site's palettes, and the standalone file
carries its own ``prefers-color-scheme: dark`` block.  The output depends on
the race and the id only.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import cast

import numpy as np
import numpy.typing as npt

from fpsum import BF16, FP16, INPUT_KINDS, INPUT_LABELS, METHOD_LABELS, Method, Race, run_race

FloatArray = npt.NDArray[np.float64]
Point = tuple[float, float]

DURATION_S = 10
"""Seconds the reveal takes."""
FRAMES = 60
"""Readout frames during the reveal (the final readout comes on top)."""
WIDTH, HEIGHT = 640, 400
"""The viewBox of the wide layout, in user units."""
NARROW_HEIGHT = 776
"""Height of the narrow layout: the same 640 units wide, drawn below the viewBox's bottom edge."""
NARROW_BELOW = 560
"""Container width (CSS px) at and below which the narrow layout replaces the wide one."""

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
MINUS = "\u2212"
CHAR_EM = 0.52
"""Rough advance of one character, in ems, for placing labels."""


@dataclass(frozen=True)
class Box:
    """A rectangle in user units."""

    left: float
    top: float
    right: float
    bottom: float


PLOT = Box(left=66, top=72, right=404, bottom=340)
"""The plot in the wide layout.  The lines are drawn in these coordinates."""
COLUMN_X = 432.0
"""Wide layout: left edge of the readout column (a swatch, then the name over the value)."""
TEXT_X = COLUMN_X + 30
"""Wide layout: where the readout column's text starts."""
ROW_GAP = 44.0
"""Wide layout: height of one readout row."""


@dataclass(frozen=True)
class Look:
    """How one series is drawn: colours (light, dark palette), dash pattern, width, marker."""

    light: str
    dark: str
    dash: str
    width: float
    marker: str


SERIES: tuple[str, ...] = ("exact", "naive", "wide", "kahan", "pairwise")
"""Legend and tie-break order: the exact total first, then the methods."""

LOOKS: dict[str, Look] = {
    "exact": Look("#212121", "#e6e6e6", "none", 1.5, ""),
    "naive": Look("#c0392b", "#ff8a65", "none", 2.2, "circle"),
    "wide": Look("#8e3a8e", "#e39be0", "9 4", 2.2, "square"),
    "kahan": Look("#0b63b5", "#6ab7ff", "1.5 3.5", 2.6, "triangle"),
    "pairwise": Look("#00796b", "#4fd1b8", "12 3.5 3 3.5", 2.2, "diamond"),
}

INK: dict[str, tuple[str, str]] = {
    "text": ("#212121", "#e6e6e6"),
    "muted": ("#5c5c5c", "#b3b6bd"),
    "axis": ("#6e6e6e", "#979ba5"),
    "grid": ("#e6e6e6", "#343844"),
    "bg": ("#ffffff", "#1e2129"),
}
"""Other colours (light, dark); every text colour passes WCAG AA on its background."""

MARKERS: dict[str, str] = {
    "circle": '<circle id="{id}" r="4.3"/>',
    "square": '<rect id="{id}" x="-3.7" y="-3.7" width="7.4" height="7.4"/>',
    "triangle": '<path id="{id}" d="M0-5.3L4.8 3.2H-4.8Z"/>',
    "diamond": '<path id="{id}" d="M0-5.4L5.4 0 0 5.4-5.4 0Z"/>',
}

KIND_PHRASES: dict[str, str] = {
    "uniform": "uniform inputs in [0, 1)",
    "ones": "inputs all equal to 1",
    "normal": "standard normal inputs of both signs",
}


def ink(name: str) -> str:
    """A colour as a custom property with its light fallback: ``var(--race-kahan,#0b63b5)``."""
    light = LOOKS[name].light if name in LOOKS else INK[name][0]
    return f"var(--race-{name},{light})"


def palette(scheme: str) -> dict[str, str]:
    """The custom properties of ``"light"`` or ``"dark"``: name (without ``--race-``) to colour."""
    pick = 0 if scheme == "light" else 1
    colours = {s: (look.light, look.dark)[pick] for s, look in LOOKS.items()}
    colours.update({name: pair[pick] for name, pair in INK.items()})
    return colours


# ---------------------------------------------------------------- numbers


def format_total(value: float) -> str:
    """A total as the figure writes it: thousands separators, at most 3 decimals, a true minus.

    NaN is ``NaN`` and infinities ``∞`` / ``−∞``; trailing zeros are dropped
    (``4078.0`` is ``4,078``) and -0 is ``0``.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "\u221e" if value > 0 else MINUS + "\u221e"
    text = f"{value:,.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text.replace("-", MINUS)


def format_count(count: int) -> str:
    """An input count with thousands separators: ``4,134``."""
    return f"{count:,}"


def nice_step(span: float, target: int = 5) -> float:
    """The round step (1, 2, 2.5 or 5 times a power of ten) nearest to giving ``target`` ticks over ``span``."""
    raw = span / target
    power = 10.0 ** math.floor(math.log10(raw))
    return min((f * power for f in (1.0, 2.0, 2.5, 5.0, 10.0)), key=lambda step: abs(math.log(step / raw)))


def ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Multiples of a nice step inside [lo, hi]."""
    step = nice_step(hi - lo, target)
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [k * step for k in range(first, last + 1)]


def format_tick(value: float, step: float) -> str:
    """A tick label with as many decimals as the step needs, thousands separators and a true minus."""
    decimals = 0
    while decimals < 6 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-9:
        decimals += 1
    return "0" if value == 0 else f"{value:,.{decimals}f}".replace("-", MINUS)


def tenths(value: int) -> str:
    """A coordinate given as a whole number of tenths, written short (-5 tenths is ``-.5``)."""
    sign = "-" if value < 0 else ""
    whole, fraction = divmod(abs(value), 10)
    if fraction == 0:
        return f"{sign}{whole}" if whole else "0"
    return f"{sign}{whole or ''}.{fraction}"


def num(value: float) -> str:
    """A user-unit number rounded to one decimal, written short."""
    return tenths(round(value * 10))


# ---------------------------------------------------------------- geometry


@dataclass(frozen=True)
class Scale:
    """A linear map from data [lo, hi] to user units [start, end]."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        """The user-unit position of ``value``."""
        return self.start + (value - self.lo) / (self.hi - self.lo) * (self.end - self.start)


def simplify(points: list[Point], tolerance: float) -> list[Point]:
    """Ramer-Douglas-Peucker: drop points closer than ``tolerance`` to the chord that replaces them."""
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        (x0, y0), (x1, y1) = points[first], points[last]
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        worst, where = 0.0, -1
        for i in range(first + 1, last):
            x, y = points[i]
            distance = abs((x1 - x0) * (y0 - y) - (x0 - x) * (y1 - y0)) / length
            if distance > worst:
                worst, where = distance, i
        if worst > tolerance:
            keep[where] = True
            stack += [(first, where), (where, last)]
    return [p for p, k in zip(points, keep) if k]


def path_data(runs: Sequence[list[Point]]) -> str:
    """SVG path data for polylines: an absolute moveto per run, then relative linetos, in tenths.

    The relative steps are differences of rounded coordinates, so rounding
    errors do not accumulate along the line.
    """
    parts: list[str] = []
    for run in runs:
        grid = [(round(x * 10), round(y * 10)) for x, y in simplify(run, 0.2)]
        (x0, y0), rest = grid[0], grid[1:]
        parts.append(f"M{tenths(x0)} {tenths(y0)}")
        steps = []
        for x, y in rest:
            dy = tenths(y - y0)
            steps.append(tenths(x - x0) + ("" if dy.startswith("-") else " ") + dy)
            x0, y0 = x, y
        if steps:
            parts.append("l" + " ".join(steps).replace(" -", "-"))
    return "".join(parts)


def finite_runs(xs: FloatArray, ys: FloatArray) -> list[list[Point]]:
    """Split a polyline where y is not finite (NaN or inf totals): one run per finite stretch."""
    runs: list[list[Point]] = [[]]
    for x, y in zip(xs.tolist(), ys.tolist()):
        if math.isfinite(y):
            runs[-1].append((x, y))
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if r]


def dodge(targets: Sequence[float], gap: float, lo: float, hi: float) -> list[float]:
    """Positions for labels wanted at sorted ``targets``: at least ``gap`` apart, inside [lo, hi].

    Labels that would overlap merge into a block centred on their targets'
    mean, kept inside the bounds.
    """
    blocks: list[tuple[int, int, float]] = []  # (first index, count, top position)
    for index, target in enumerate(targets):
        blocks.append((index, 1, min(max(target, lo), hi)))
        while len(blocks) > 1 and blocks[-2][2] + blocks[-2][1] * gap > blocks[-1][2]:
            (first, count_a, _), (_, count_b, _) = blocks[-2], blocks[-1]
            count = count_a + count_b
            centre = sum(targets[first:first + count]) / count
            top = min(max(centre - (count - 1) * gap / 2, lo), hi - (count - 1) * gap)
            blocks[-2:] = [(first, count, top)]
    return [top + k * gap for _, count, top in blocks for k in range(count)]


def text_width(text: str, size: float) -> float:
    """A rough width of ``text`` at font size ``size``, for placing labels."""
    return len(text) * size * CHAR_EM


# ---------------------------------------------------------------- the race in user units


def series_values(race: Race, name: str) -> FloatArray:
    """The totals of one series (``exact`` or a method) at ``race.steps``."""
    values = race.exact if name == "exact" else race.totals[cast(Method, name)]
    return np.asarray(values, dtype=np.float64)


def final_value(race: Race, name: str) -> float:
    """The total of one series after all the inputs."""
    return float(race.exact_final if name == "exact" else race.final[cast(Method, name)])


def y_domain(race: Race) -> tuple[float, float]:
    """The y range: every finite total and 0, padded by 5 % (0 stays the floor if nothing is negative)."""
    values = np.concatenate([series_values(race, s) for s in SERIES] + [np.zeros(1)])
    finite = values[np.isfinite(values)]
    lo, hi = float(finite.min()), float(finite.max())
    pad = 0.05 * (hi - lo or 1.0)
    return (lo - pad if lo < 0 else lo), hi + pad


@dataclass(frozen=True)
class Layout:
    """The race placed in the wide plot: scales, every series' points, and the readout order."""

    fid: str
    race: Race
    x: Scale
    y: Scale
    xs: FloatArray
    ys: dict[str, FloatArray]
    order: tuple[str, ...]
    """Series from the highest final total down (ties in :data:`SERIES` order; NaN first)."""
    rows: dict[str, float]
    """Wide layout: baseline of each series' name in the readout column, near its line's end."""


def layout(race: Race, fid: str) -> Layout:
    """Scales, the user-unit points of every series (starting at 0 inputs, total 0), and the readout rows."""
    lo, hi = y_domain(race)
    x = Scale(0.0, float(race.n), PLOT.left, PLOT.right)
    y = Scale(lo, hi, PLOT.bottom, PLOT.top)
    counts = np.concatenate([[0.0], np.asarray(race.steps, dtype=np.float64)])
    xs = np.array([x(c) for c in counts])
    ys = {s: np.array([y(v) for v in np.concatenate([[0.0], series_values(race, s)])]) for s in SERIES}
    ends = [(y(v) if math.isfinite(v) else PLOT.top, i, s)
            for i, s in enumerate(SERIES) for v in [final_value(race, s)]]
    ends.sort()
    placed = dodge([e[0] + 5 for e in ends], ROW_GAP, PLOT.top + 10, PLOT.bottom - 24)
    order = tuple(e[2] for e in ends)
    return Layout(fid, race, x, y, xs, ys, order, dict(zip(order, placed)))


# ---------------------------------------------------------------- shared drawing, in <defs>


def series_stroke(s: str) -> str:
    """Inline style of a series' line (inline, because the lines are shown through <use>)."""
    look = LOOKS[s]
    return f"fill:none;stroke:{ink(s)};stroke-width:{look.width};stroke-dasharray:{look.dash}"


def series_fill(s: str) -> str:
    """Inline style of a series' markers and end dot: its colour, edged with the background."""
    return f"fill:{ink(s)};stroke:{ink('bg')};stroke-width:1.2"


def marker(fid: str, s: str, x: float, y: float, href: str, scale: float = 1.0) -> str:
    """A <use> of the series' marker shape centred at (x, y)."""
    where = f'x="{num(x)}" y="{num(y)}"' if scale == 1 else f'transform="translate({num(x)} {num(y)}) scale({scale})"'
    return f'<use {href}="#{fid}-mk-{LOOKS[s].marker}" {where}/>'


def line_layer(lay: Layout, href: str) -> str:
    """Every series' line (the exact total last: thin, on top) and markers, as ``#{fid}-lines``.

    Markers are staggered along the lines so that coinciding lines still
    show every method's marker.
    """
    methods = [s for s in SERIES if LOOKS[s].marker]
    per_line = 5
    out = [f'<g id="{lay.fid}-lines">']
    for s in SERIES[::-1]:
        out.append(f'<path style="{series_stroke(s)}" d="{path_data(finite_runs(lay.xs, lay.ys[s]))}"/>')
    for j, s in enumerate(methods):
        dots = []
        for k in range(per_line):
            x = PLOT.left + (PLOT.right - PLOT.left) * (k + (j + 1) / (len(methods) + 1)) / per_line
            y = float(np.interp(x, lay.xs, lay.ys[s]))
            if math.isfinite(y):
                dots.append(marker(lay.fid, s, x, y, href))
        out.append(f'<g style="{series_fill(s)}">{"".join(dots)}</g>')
    out.append("</g>")
    return "".join(out)


def end_layer(lay: Layout) -> str:
    """A dot at the end of every line with a finite final total, as ``#{fid}-ends``."""
    dots = [f'<circle style="{series_fill(s)}" cx="{num(PLOT.right)}" cy="{num(lay.y(v))}" r="3.5"/>'
            for s in SERIES for v in [final_value(lay.race, s)] if math.isfinite(v)]
    return f'<g id="{lay.fid}-ends">{"".join(dots)}</g>'


def stall_level(lay: Layout) -> float | None:
    """The y (user units) of the format's stall point, or None if no total came near it."""
    point = lay.race.fmt.stall_point
    return lay.y(point) if lay.y.lo <= point <= lay.y.hi else None


def grid_layer(lay: Layout) -> str:
    """Gridlines, the zero line (if inside the plot), the x axis with ticks, the stall level: ``#{fid}-grid``."""
    left, right, bottom = num(PLOT.left), num(PLOT.right), num(PLOT.bottom)
    grid: list[str] = []
    axis = [f"M{left} {bottom}H{right}"]
    for value in ticks(lay.y.lo, lay.y.hi):
        path = f"M{left} {num(lay.y(value))}H{right}"
        (axis if value == 0 and lay.y.lo < 0 else grid).append(path)
    axis += [f"M{num(lay.x(v))} {bottom}v5" for v in ticks(0.0, float(lay.race.n))]
    out = [
        f'<g id="{lay.fid}-grid">',
        f'<path style="fill:none;stroke:{ink("grid")};stroke-width:1" d="{"".join(grid)}"/>',
        f'<path style="fill:none;stroke:{ink("axis")};stroke-width:1.2" d="{"".join(axis)}"/>',
    ]
    level = stall_level(lay)
    if level is not None:
        out.append(f'<path style="fill:none;stroke:{ink("axis")};stroke-width:1.3;stroke-dasharray:6 4" '
                   f'd="M{left} {num(level)}H{right}"/>')
    out.append("</g>")
    return "".join(out)


def defs(lay: Layout, href: str, film_strip: bool) -> str:
    """Marker shapes, the clip paths (the reveal is the clock race.js listens to), grid, lines and end dots.

    With ``film_strip`` (standalone files), also the window that shows one readout frame at a time.
    """
    fid = lay.fid
    shapes = "".join(shape.format(id=f"{fid}-mk-{name}") for name, shape in MARKERS.items())
    width = PLOT.right - PLOT.left
    reveal = (
        f'<clipPath id="{fid}-reveal"><rect x="{num(PLOT.left - 8)}" y="0" width="8" height="{HEIGHT}">'
        f'<animate data-race-clock="" attributeName="width" values="8;{num(width + 8)}" begin="0s" '
        f'dur="{DURATION_S}s" fill="freeze"/></rect></clipPath>'
    )
    window = (f'<clipPath id="{fid}-window"><rect x="{num(COLUMN_X)}" y="0" '
              f'width="{num(WIDTH - COLUMN_X)}" height="{HEIGHT}"/></clipPath>') if film_strip else ""
    layers = grid_layer(lay) + line_layer(lay, href) + end_layer(lay)
    return f"<defs>{shapes}{reveal}{window}{layers}</defs>"


# ---------------------------------------------------------------- the two layouts


@dataclass(frozen=True)
class View:
    """Where a layout puts the plot: the wide plot scaled by ``k`` and moved to ``(dx, dy)``.

    Text is not scaled: each layout writes its own at its own size.
    """

    k: float
    dx: float
    dy: float
    font: float
    """Text size, user units."""
    table_top: float = 0.0
    """Narrow layout: top of the readout table."""

    def point(self, x: float, y: float) -> Point:
        """Where a wide-plot point lands in this layout."""
        return self.dx + self.k * x, self.dy + self.k * y

    def transform(self) -> str:
        """The transform attribute that puts wide-plot drawings here ("" for the wide layout)."""
        if self.k == 1 and self.dx == 0 and self.dy == 0:
            return ""
        return f' transform="translate({num(self.dx)} {num(self.dy)}) scale({self.k:.4g})"'


WIDE = View(1.0, 0.0, 0.0, 14.0)
_K = (604 - 96) / (PLOT.right - PLOT.left)
NARROW = View(_K, 96 - _K * PLOT.left, 44 - _K * PLOT.top, 23.0, table_top=536.0)
"""Phones: the plot 508 units wide and text 23 units (about 12 px on a 360-px screen), the table below."""


def axis_labels(lay: Layout, view: View) -> list[str]:
    """Tick labels and axis titles, placed for ``view``."""
    out = []
    y_ticks = ticks(lay.y.lo, lay.y.hi)
    y_step = y_ticks[1] - y_ticks[0] if len(y_ticks) > 1 else 1.0
    for value in y_ticks:
        x, y = view.point(PLOT.left, lay.y(value))
        out.append(f'<text class="muted" x="{num(x - 8)}" y="{num(y + view.font * 0.35)}" '
                   f'text-anchor="end">{format_tick(value, y_step)}</text>')
    x_ticks = ticks(0.0, float(lay.race.n))
    x_step = x_ticks[1] - x_ticks[0] if len(x_ticks) > 1 else 1.0
    for value in x_ticks:
        x, y = view.point(lay.x(value), PLOT.bottom)
        out.append(f'<text class="muted" x="{num(x)}" y="{num(y + 8 + view.font)}" '
                   f'text-anchor="middle">{format_tick(value, x_step)}</text>')
    (left, top), (right, bottom) = view.point(PLOT.left, PLOT.top), view.point(PLOT.right, PLOT.bottom)
    out.append(f'<text class="muted" x="{num((left + right) / 2)}" y="{num(bottom + 14 + 2.5 * view.font)}" '
               f'text-anchor="middle">inputs added</text>')
    out.append(f'<text class="muted" x="{8 if view is WIDE else 4}" y="{num(top - 0.9 * view.font - 2)}">'
               "running total</text>")
    return out


def stall_lines(race: Race) -> tuple[str, str]:
    """The stall label's two lines, ``FP16 stalls at 2,048:`` and ``the ulp there is 2``, from the format."""
    point = race.fmt.stall_point
    return (f"{race.fmt.label} stalls at {format_total(point)}:",
            f"the ulp there is {format_total(race.fmt.ulp(point))}")


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


Frame = tuple[int, dict[str, float]]
"""One readout: an input count and every series' total after that many inputs."""


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
    """Each series' swatch (a stretch of its line, with its marker) and name."""
    out = []
    for s in SERIES:
        (x, y), look = place.swatch[s], LOOKS[s]
        length = 24 * place.swatch_scale
        out.append(f'<path style="{series_stroke(s)}" d="M{num(x)} {num(y)}h{num(length)}"/>')
        if look.marker:
            shape = marker(lay.fid, s, x + length / 2, y, href, place.swatch_scale)
            out.append(f'<g style="{series_fill(s)}">{shape}</g>')
        name_x, name_y = place.names[s]
        out.append(f'<text x="{num(name_x)}" y="{num(name_y)}">{escape(METHOD_LABELS[s])}</text>')
    return out


def readout_slots(place: Readout, shown: list[Frame]) -> list[tuple[float, float, str, str, list[str]]]:
    """Each readout text (the count, then every series' value): x, baseline, anchor, class and its frames' strings."""
    x, y, anchor = place.count
    slots = [(x, y, anchor, "count", [format_count(c) for c, _ in shown])]
    for s in SERIES:
        vx, vy = place.values[s]
        slots.append((vx, vy, place.value_anchor, "val", [format_total(v[s]) for _, v in shown]))
    return slots


def readout(place: Readout, shown: list[Frame]) -> list[str]:
    """The count and values of every frame in ``shown``, as stacks of text."""
    return [text_stack(x, y, texts, place.pitch, cls, anchor) for x, y, anchor, cls, texts in readout_slots(place, shown)]


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


def final_parts(lay: Layout, view: View, place: Readout, href: str, live: bool) -> list[str]:
    """The end marks fading in when the reveal is over, and the still final frame.

    A ``live`` readout has no final frame of its own, so the final readout fades in with the marks.
    """
    marks = final_marks(lay, view, href)
    final = "".join(readout(place, frames(lay.race)[-1:]))
    return [
        f'<g class="anim" opacity="0">{marks}{final if live else ""}<animate attributeName="opacity" values="0;1" '
        f'begin="{DURATION_S}s" dur="0.6s" fill="freeze"/></g>',
        f'<g class="still">{marks}{final}</g>',
    ]


def plot_part(lay: Layout, view: View, href: str) -> list[str]:
    """The grid, the lines in the reveal clip and the cursor at the reveal's edge, placed for ``view``."""
    fid, where = lay.fid, view.transform()
    dur = f'begin="0s" dur="{DURATION_S}s" fill="freeze"'
    return [
        f'<use {href}="#{fid}-grid"{where}/>',
        f'<g class="lines"{where} clip-path="url(#{fid}-reveal)"><use {href}="#{fid}-lines"/></g>',
        f'<g class="anim"{where}><g class="cursor"><path d="M{num(PLOT.left)} {num(PLOT.top)}V{num(PLOT.bottom)}"/>'
        f'<animateTransform attributeName="transform" type="translate" '
        f'values="0 0;{num(PLOT.right - PLOT.left)} 0" {dur}/>'
        f'<set attributeName="visibility" to="hidden" begin="{DURATION_S}s" fill="freeze"/></g></g>',
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


def wide_layout(lay: Layout, href: str, live: bool) -> list[str]:
    """The layout for most screens and print: plot on the left, readout column on the right.

    ``live``: the readout is written by race.js (pages) rather than a film strip (standalone files).
    """
    place = wide_readout(lay)
    head = f"{lay.race.fmt.label} \u00b7 {INPUT_LABELS[lay.race.kind]} \u00b7 {format_count(lay.race.n)} inputs"
    return [
        '<g class="wide">',
        f'<text class="head" x="8" y="22">{escape(head)}</text>',
        f'<text class="muted" x="{num(TEXT_X)}" y="22">inputs added</text>',
        *axis_labels(lay, WIDE),
        *plot_part(lay, WIDE, href),
        stall_label(lay, WIDE),
        *legend(lay, place, href),
        *(live_readout(lay, place) if live else moving_readout(lay, place)),
        *final_parts(lay, WIDE, place, href, live),
        "</g>",
    ]


def narrow_layout(lay: Layout, href: str) -> list[str]:
    """The layout for narrow containers (phones): a bigger plot, the readout as a table below it."""
    place = narrow_readout(lay)
    return [
        '<g class="narrow">',
        *axis_labels(lay, NARROW),
        *plot_part(lay, NARROW, href),
        stall_label(lay, NARROW),
        f'<text class="muted" x="4" y="{num(place.count[1])}">inputs added</text>',
        *legend(lay, place, href),
        *live_readout(lay, place),
        *final_parts(lay, NARROW, place, href, live=True),
        "</g>",
    ]


# ---------------------------------------------------------------- style sheet and text alternatives


def css(fid: str, standalone: bool) -> str:
    """The SVG's style sheet; every selector starts with ``#{fid}-svg``.

    Still parts show, animated parts hide and the reveal clip goes under
    reduced motion and in print.  The narrow layout replaces the wide one in
    a narrow ``race`` container (race.css makes ``.race`` one) or, failing
    that, on a narrow screen.  Standalone files get a dark scheme of their own.
    """
    root = f"#{fid}-svg"
    font = 'var(--md-text-font-family,system-ui),system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif'
    rules = [
        ("", f"font-family:{font};font-size:14px;font-variant-numeric:tabular-nums"),
        (" text", f"fill:{ink('text')}"),
        (" .muted", f"fill:{ink('muted')}"),
        (" .head", "font-size:15px;font-weight:700"),
        (" .count", "font-size:22px;font-weight:700"),
        (" .fin", "font-weight:700"),
        (" .halo", f"paint-order:stroke;stroke:{ink('bg')};stroke-width:4px;stroke-linejoin:round"),
        (" .cursor", f"fill:none;stroke:{ink('axis')};stroke-width:1;stroke-dasharray:2 3"),
        (" .lead", f"fill:none;stroke:{ink('axis')};stroke-width:1"),
        (" .bg", f"fill:{ink('bg')}"),
    ]
    sheet = "".join(f"{root}{sel}{{{decl}}}" for sel, decl in rules)
    sheet += f"{root} .still,{root} .narrow{{display:none}}"
    still = f"{root} .lines{{clip-path:none}}{root} .anim{{display:none}}{root} .still{{display:inline}}"
    sheet += f"@media (prefers-reduced-motion:reduce){{{still}}}@media print{{{still}}}"
    if standalone:
        dark = ";".join(f"--race-{k}:{v}" for k, v in palette("dark").items())
        return sheet + f"@media (prefers-color-scheme:dark){{{root}{{{dark}}}}}"
    narrow = (f"{root}{{aspect-ratio:{WIDTH}/{NARROW_HEIGHT}}}{root} .wide{{display:none}}"
              f"{root} .narrow{{display:inline}}{root} .narrow text{{font-size:{num(NARROW.font)}px}}"
              f"{root} .narrow .count{{font-size:28px}}")
    return sheet + (f"@container race (max-width:{NARROW_BELOW}px){{{narrow}}}"
                    f"@media (max-width:480px){{{narrow}}}")


def title_text(race: Race) -> str:
    """The SVG's <title>: what the figure shows."""
    return (f"Running totals of four summation methods in {race.fmt.label}, "
            f"{format_count(race.n)} inputs, {INPUT_LABELS[race.kind]}")


def desc_text(race: Race) -> str:
    """The SVG's <desc>: which method stalls where, what every method ends at, the exact total."""
    kind = KIND_PHRASES.get(race.kind, f"inputs, {INPUT_LABELS[race.kind]}")
    stalled: list[str] = []
    finished: list[str] = []
    for s in SERIES[1:]:
        stall = race.stalls[cast(Method, s)]
        value = format_total(final_value(race, s))
        if stall is not None:
            stalled.append(f"the {METHOD_LABELS[s]} sum stalls at {value} after {format_count(stall)} inputs")
        else:
            finished.append(f"{METHOD_LABELS[s]} {'at' if finished else 'ends at'} {value}")
    clauses = stalled or ["no method stalls"]
    if finished:
        clauses.append(", ".join(finished))
    clauses.append(f"the exact total is {format_total(race.exact_final)}")
    return f"{race.fmt.label}, {format_count(race.n)} {kind}: {'; '.join(clauses)}."


# ---------------------------------------------------------------- public API


def svg_parts(race: Race, figure_id: str, standalone: bool) -> tuple[str, str, str]:
    """The SVG in three pieces: the opening tag with title, desc and style; the drawing; the closing tag.

    Both variants use ``xlink:href`` for ``<use>``: mkdocs-material's
    instant navigation rewrites every element's ``href`` property, which a
    ``<use>`` element only has as a getter (a console error).  The root's id
    is ``{figure_id}-svg``; every other id starts with ``{figure_id}-``.
    """
    fid = figure_id
    lay = layout(race, fid)
    href = "xlink:href"
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>' if standalone else "",
        f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}" id="{fid}-svg" class="race__svg" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" preserveAspectRatio="xMidYMin meet" role="img" '
        f'aria-labelledby="{fid}-title {fid}-desc">',
        f'<title id="{fid}-title">{escape(title_text(race))}</title>',
        f'<desc id="{fid}-desc">{escape(desc_text(race))}</desc>',
        f"<style>{css(fid, standalone)}</style>",
    ]
    drawing = [
        defs(lay, href, film_strip=standalone),
        f'<rect class="bg" width="{WIDTH}" height="{HEIGHT}"/>' if standalone else "",
        *wide_layout(lay, href, live=not standalone),
        *([] if standalone else narrow_layout(lay, href)),
    ]
    return "\n".join(p for p in head if p), "\n".join(p for p in drawing if p), "</svg>"


def race_svg(race: Race, figure_id: str, standalone: bool) -> str:
    """The race as an SVG document.

    ``standalone`` (a file of its own): XML declaration, a background, a
    dark scheme and the film-strip readout; the wide layout only.  Inline (in
    a page, once race.js has put the drawing in): both layouts, with the
    readout race.js writes.
    """
    return "\n".join(svg_parts(race, figure_id, standalone)) + "\n"


def race_figure_html(race: Race, figure_id: str, fallback_src: str = "") -> str:
    """The fragment a page inlines: the SVG, its drawing to come, and Pause/Restart buttons.

    The ``<svg>`` in the page holds only its title, description and style,
    which keep its place and say what it shows.  The drawing waits in a
    ``<template>``, which the browser parses but neither styles nor lays out;
    race.js moves it into the ``<svg>`` when the figure comes near the view,
    or when the browser is idle, or before printing.  Six drawn races would
    add their elements to every style and layout pass while the page loads.
    Without JavaScript the ``<svg>`` is hidden and ``fallback_src`` (the
    standalone animated SVG, when given) is shown in its place.

    No blank lines, so Markdown keeps it as one raw HTML block.  race.js
    finds the ``.race`` wrapper, its ``svg``, its ``template``, its
    ``[data-race-action]`` buttons (hidden until race.js shows them) and the
    animation's length in ``data-race-duration``.
    """
    fid = escape(figure_id)
    head, drawing, tail = svg_parts(race, figure_id, standalone=False)
    controls = "".join(
        f'<button type="button" class="race__button" data-race-action="{action}" '
        f'aria-describedby="{fid}-title" hidden>{label}</button>'
        for action, label in (("pause", "Pause"), ("restart", "Restart"))
    )
    fallback = (f'<noscript><img class="race__fallback" src="{escape(fallback_src)}" '
                f'alt="{escape(desc_text(race))}"></noscript>\n') if fallback_src else ""
    return (
        f'<div class="race" id="{fid}" data-race-duration="{DURATION_S}">\n'
        f"{head}\n{tail}\n"
        f'<template class="race__drawing"><svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}">\n{drawing}\n</svg></template>\n'
        f"{fallback}"
        f'<div class="race__controls" role="group" aria-label="Animation controls">{controls}</div>\n'
        "</div>\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Write the standalone races (FP16 and BF16, every input kind) as ``race-{fmt}-{kind}.svg``.

    Into the directory given as the only argument, or ``build/figures`` in
    the repository.  Files whose content is unchanged are left alone.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    out = Path(args[0]) if args else Path(__file__).resolve().parents[2] / "build" / "figures"
    out.mkdir(parents=True, exist_ok=True)
    for fmt in (FP16, BF16):
        for kind in INPUT_KINDS:
            name = f"race-{fmt.name}-{kind}"
            target = out / f"{name}.svg"
            text = race_svg(run_race(fmt, kind), name, standalone=True)
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
