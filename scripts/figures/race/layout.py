"""Where the race's parts go: sizes, timing, scales, the two layouts' views, ticks and the readout rows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt
from matplotlib.ticker import MaxNLocator

from fpsum.names import Method
from fpsum.race import RACE_METHODS, Race

from .errors import LogScale, error_domain, shown_errors

FloatArray = npt.NDArray[np.float64]
Point = tuple[float, float]

DURATION_S = 10
"""Seconds the reveal takes."""
FRAMES = 60
"""Readout frames during the reveal (the final readout comes on top)."""
WIDTH, HEIGHT = 640, 520
"""The viewBox of the wide layout, in user units."""
NARROW_HEIGHT = 1066
"""Height of the narrow layout: the same 640 units wide, drawn below the viewBox's bottom edge."""
NARROW_BELOW = 560
"""Container width (CSS px) at and below which the narrow layout replaces the wide one."""

SERIES: tuple[str, ...] = ("exact", *RACE_METHODS)
"""Legend and tie-break order: the exact total first, then the methods the race runs."""


@dataclass(frozen=True)
class Box:
    """A rectangle in user units."""

    left: float
    top: float
    right: float
    bottom: float


PLOT = Box(left=66, top=72, right=404, bottom=262)
"""The running totals' plot in the wide layout.  The lines are drawn in these coordinates."""
ERRORS = Box(left=PLOT.left, top=306, right=PLOT.right, bottom=466)
"""The errors' plot in the wide layout, below the totals' and sharing their x scale."""
COLUMN_X = 432.0
"""Wide layout: left edge of the readout column (a swatch, then the name over the value)."""
TEXT_X = COLUMN_X + 30
"""Wide layout: where the readout column's text starts."""
ROW_GAP = 44.0
"""Wide layout: height of one readout row."""


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


def ticks(lo: float, hi: float) -> list[float]:
    """Round tick values (1, 2, 2.5 or 5 times a power of ten apart) inside [lo, hi], about five of them."""
    # nbins=6 rather than 5: it lets a span like -117 .. 25 have steps of 25, not a sparse 50.
    values = MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
    slack = 1e-9 * (hi - lo)
    return [float(v) for v in values if lo - slack <= v <= hi + slack]


def tick_decimals(values: Sequence[float]) -> int:
    """The decimals the step between ``values`` needs (0 for whole steps, 1 for 0.5, 2 for 0.25)."""
    step = values[1] - values[0] if len(values) > 1 else 1.0
    return next((d for d in range(6) if abs(step * 10**d - round(step * 10**d)) < 1e-9), 6)


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
    err: LogScale
    """The y scale of the errors' plot."""
    es: dict[str, FloatArray]
    """Every series' error points (user units) in the errors' plot, at the same ``xs``."""
    order: tuple[str, ...]
    """Series from the highest final total down (ties in :data:`SERIES` order; NaN first)."""
    rows: dict[str, float]
    """Wide layout: baseline of each series' name in the readout column, near its line's end."""


def layout(race: Race, fid: str) -> Layout:
    """Scales, the user-unit points of every series (starting at 0 inputs, total 0, error 0), the readout rows."""
    errors = shown_errors(race)
    err = LogScale(*error_domain(errors), ERRORS.bottom, ERRORS.top)
    es = {s: np.array([err(v) for v in np.concatenate([[0.0], errors[s]])]) for s in SERIES}
    lo, hi = y_domain(race)
    x = Scale(0.0, float(race.n), PLOT.left, PLOT.right)
    y = Scale(lo, hi, PLOT.bottom, PLOT.top)
    counts = np.concatenate([[0.0], np.asarray(race.steps, dtype=np.float64)])
    xs = np.array([x(c) for c in counts])
    ys = {s: np.array([y(v) for v in np.concatenate([[0.0], series_values(race, s)])]) for s in SERIES}
    ends = [(y(v) if math.isfinite(v) else PLOT.top, i, s)
            for i, s in enumerate(SERIES) for v in [final_value(race, s)]]
    ends.sort()
    placed = dodge([e[0] + 5 for e in ends], ROW_GAP, PLOT.top + 10, PLOT.bottom + 10)
    order = tuple(e[2] for e in ends)
    return Layout(fid, race, x, y, xs, ys, err, es, order, dict(zip(order, placed)))


def stall_level(lay: Layout) -> float | None:
    """The y (user units) of the format's stall point, or None if no total came near it."""
    point = lay.race.fmt.stall_point
    return lay.y(point) if lay.y.lo <= point <= lay.y.hi else None


def stall_step(lay: Layout) -> tuple[int, float] | None:
    """After how many inputs the naive sum stalled, and the x (user units) of that count; None if it did not."""
    step = lay.race.stalls.get("naive")
    return None if step is None else (step, lay.x(float(step)))


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
NARROW = View(_K, 96 - _K * PLOT.left, 44 - _K * PLOT.top, 23.0, table_top=NARROW_HEIGHT - 244.0)
"""Phones: the plots 508 units wide and text 23 units (about 12 px on a 360-px screen), the table below."""
