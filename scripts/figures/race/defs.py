"""What the race draws once, in ``<defs>``: marker shapes, clip paths, the grids, the lines and the end dots.

Each series has two lines: its running total in the upper plot and its
error in the lower one (:mod:`.errors`), both in its look.

Both layouts show these through ``<use>``, so they carry ``style``
attributes rather than classes.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.path import Path

from ..looks import CIRCLE_RADIUS, LOOKS, MARKERS
from .layout import (
    COLUMN_X,
    DURATION_S,
    ERRORS,
    HEIGHT,
    PLOT,
    SERIES,
    WIDTH,
    FloatArray,
    Layout,
    final_value,
    num,
    stall_level,
    stall_step,
    tenths,
    ticks,
)
from .style import STALL_DASH, guide_stroke, series_fill, series_stroke

TOLERANCE = 0.2
"""How far (user units) a simplified line may stray from the exact one."""
MARKERS_PER_LINE = 5
"""Markers along each method's line, staggered between the methods."""
END_DOT_RADIUS = 3.5
"""The dot at a line's end, user units."""


def marker_shapes(fid: str) -> str:
    """The marker shapes of the race's series, from the looks table, as ``#{fid}-mk-{name}``."""
    out = []
    for name in dict.fromkeys(LOOKS[s].marker for s in SERIES if LOOKS[s].marker):
        points = MARKERS[name].points
        if not points:
            out.append(f'<circle id="{fid}-mk-{name}" r="{CIRCLE_RADIUS:g}"/>')
            continue
        corners = "L".join(f"{x:g} {y:g}" for x, y in points).replace(" -", "-")
        out.append(f'<path id="{fid}-mk-{name}" d="M{corners}Z"/>')
    return "".join(out)


def marker(fid: str, s: str, x: float, y: float, href: str, scale: float = 1.0) -> str:
    """A <use> of the series' marker shape centred at (x, y)."""
    where = f'x="{num(x)}" y="{num(y)}"' if scale == 1 else f'transform="translate({num(x)} {num(y)}) scale({scale})"'
    return f'<use {href}="#{fid}-mk-{LOOKS[s].marker}" {where}/>'


def polylines(xs: FloatArray, ys: FloatArray) -> list[list[tuple[int, int]]]:
    """A line simplified to within :data:`TOLERANCE`, split where y is not finite, in whole tenths of a unit.

    matplotlib's path simplification does the work; its threshold is set on
    the path itself, in the path's own units.  Points that round to the
    previous one are dropped.
    """
    path = Path(np.column_stack([xs, ys]))
    path.simplify_threshold = TOLERANCE
    cleaned = path.cleaned(simplify=True, remove_nans=True)  # also drops infinities, starting a new run
    vertices = np.asarray(cleaned.vertices, dtype=np.float64)
    codes = np.full(len(vertices), Path.LINETO) if cleaned.codes is None else np.asarray(cleaned.codes)
    runs: list[list[tuple[int, int]]] = []
    for (x, y), code in zip(vertices.tolist(), codes.tolist()):
        if code == Path.MOVETO or not runs:
            runs.append([])
        elif code != Path.LINETO:  # the closing STOP
            continue
        point = (round(x * 10), round(y * 10))
        if not runs[-1] or runs[-1][-1] != point:
            runs[-1].append(point)
    return [run for run in runs if run]


def path_data(runs: list[list[tuple[int, int]]]) -> str:
    """SVG path data for polylines in tenths: an absolute moveto per run, then relative linetos.

    The relative steps are differences of rounded coordinates, so rounding
    errors do not accumulate along the line.
    """
    parts: list[str] = []
    for run in runs:
        (x0, y0), rest = run[0], run[1:]
        parts.append(f"M{tenths(x0)} {tenths(y0)}")
        steps = []
        for x, y in rest:
            dy = tenths(y - y0)
            steps.append(tenths(x - x0) + ("" if dy.startswith("-") else " ") + dy)
            x0, y0 = x, y
        if steps:
            parts.append("l" + " ".join(steps).replace(" -", "-"))
    return "".join(parts)


def line_layer(lay: Layout, href: str, name: str, ys: dict[str, FloatArray]) -> str:
    """Every series' line through ``ys`` (the exact total last: thin, on top) and markers, as ``#{fid}-{name}``.

    Markers are staggered along the lines so that coinciding lines still
    show every method's marker.
    """
    methods = [s for s in SERIES if LOOKS[s].marker]
    out = [f'<g id="{lay.fid}-{name}">']
    for s in SERIES[::-1]:
        out.append(f'<path style="{series_stroke(s)}" d="{path_data(polylines(lay.xs, ys[s]))}"/>')
    for j, s in enumerate(methods):
        dots = []
        for k in range(MARKERS_PER_LINE):
            x = PLOT.left + (PLOT.right - PLOT.left) * (k + (j + 1) / (len(methods) + 1)) / MARKERS_PER_LINE
            y = float(np.interp(x, lay.xs, ys[s]))
            if math.isfinite(y):
                dots.append(marker(lay.fid, s, x, y, href))
        out.append(f'<g style="{series_fill(s)}">{"".join(dots)}</g>')
    out.append("</g>")
    return "".join(out)


def stall_guide(lay: Layout) -> str:
    """A dashed vertical through both plots where the naive sum stalled, as ``#{fid}-stall`` ("" if it did not).

    Revealed with the lines: it marks what the race does, not the format.
    """
    found = stall_step(lay)
    if found is None:
        return ""
    x = num(found[1])
    return (f'<path id="{lay.fid}-stall" style="{guide_stroke("axis", 1.3, STALL_DASH)}" '
            f'd="M{x} {num(PLOT.top)}V{num(PLOT.bottom)}M{x} {num(ERRORS.top)}V{num(ERRORS.bottom)}"/>')


def end_layer(lay: Layout) -> str:
    """A dot at the end of every line with a finite final total or error, as ``#{fid}-ends``."""
    ends = [(s, y) for s in SERIES for y in (lay.y(final_value(lay.race, s)), float(lay.es[s][-1]))]
    dots = [f'<circle style="{series_fill(s)}" cx="{num(PLOT.right)}" cy="{num(y)}" r="{END_DOT_RADIUS:g}"/>'
            for s, y in ends if math.isfinite(y)]
    return f'<g id="{lay.fid}-ends">{"".join(dots)}</g>'


def grid_layer(lay: Layout) -> str:
    """Both plots' gridlines and axes, the x ticks, the totals' zero line and the stall level: ``#{fid}-grid``.

    The errors' axis is their zero line, the exact total's error.
    """
    left, right = num(PLOT.left), num(PLOT.right)
    grid: list[str] = []
    axis: list[str] = []
    for value in ticks(lay.y.lo, lay.y.hi):
        path = f"M{left} {num(lay.y(value))}H{right}"
        (axis if value == 0 and lay.y.lo < 0 else grid).append(path)
    grid += [f"M{left} {num(lay.err(10.0 ** e))}H{right}" for e in lay.err.decade_ticks()]
    for bottom in (PLOT.bottom, ERRORS.bottom):
        axis.append(f"M{left} {num(bottom)}H{right}")
        axis += [f"M{num(lay.x(v))} {num(bottom)}v5" for v in ticks(0.0, float(lay.race.n))]
    out = [
        f'<g id="{lay.fid}-grid">',
        f'<path style="{guide_stroke("grid", 1)}" d="{"".join(grid)}"/>',
        f'<path style="{guide_stroke("axis", 1.2)}" d="{"".join(axis)}"/>',
    ]
    level = stall_level(lay)
    if level is not None:
        out.append(f'<path style="{guide_stroke("axis", 1.3, STALL_DASH)}" d="M{left} {num(level)}H{right}"/>')
    out.append("</g>")
    return "".join(out)


def defs(lay: Layout, href: str, film_strip: bool) -> str:
    """Marker shapes, the clip paths (the reveal is the clock race.js listens to), grid, lines and end dots.

    With ``film_strip`` (standalone files), also the window that shows one readout frame at a time.
    """
    fid = lay.fid
    width = PLOT.right - PLOT.left
    reveal = (
        f'<clipPath id="{fid}-reveal"><rect x="{num(PLOT.left - 8)}" y="0" width="8" height="{HEIGHT}">'
        f'<animate data-race-clock="" attributeName="width" values="8;{num(width + 8)}" begin="0s" '
        f'dur="{DURATION_S}s" fill="freeze"/></rect></clipPath>'
    )
    window = (f'<clipPath id="{fid}-window"><rect x="{num(COLUMN_X)}" y="0" '
              f'width="{num(WIDTH - COLUMN_X)}" height="{HEIGHT}"/></clipPath>') if film_strip else ""
    layers = (grid_layer(lay) + line_layer(lay, href, "lines", lay.ys) + line_layer(lay, href, "errors", lay.es)
              + stall_guide(lay) + end_layer(lay))
    return f"<defs>{marker_shapes(fid)}{reveal}{window}{layers}</defs>"
