"""A drawn figure styled before it is saved: palette colours, log-axis labels in plain text, ticks only in view.

:func:`style_axes` is what :func:`figures.mpl_render.render` applies to
every drawing; the tick classes it installs change how ticks are made, not
what is drawn (tested: the same bytes as matplotlib's own).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import Formatter, Locator, LogFormatterMathtext

from .looks import Palette
from .text import superscript

MATHTEXT_TICK = re.compile(r"\$\\mathdefault\{(?P<sign>-?)(?:(?P<mantissa>\d+(?:\.\d+)?)\\times)?"
                           r"(?P<base>\d+)(?:\^\{(?P<exponent>-?\d+)\})?\}\$")
"""A log axis's tick label as matplotlib writes it in mathtext: ``$\\mathdefault{-2\\times10^{-3}}$``."""


def plain_tick_text(label: str) -> str:
    """A log-axis tick label in plain text, as mathtext would show it: ``10⁻³``, ``2×10⁻³``, ``−2¹²``, ``0``.

    A label of any other shape (an empty one included) is returned unchanged.
    """
    match = MATHTEXT_TICK.fullmatch(label)
    if match is None:
        return label
    sign = "−" if match["sign"] else ""
    mantissa = f"{match['mantissa']}×" if match["mantissa"] else ""
    exponent = superscript(int(match["exponent"])) if match["exponent"] is not None else ""
    return f"{sign}{mantissa}{match['base']}{exponent}"


class PlainLogLabels(Formatter):
    """Matplotlib's log-axis labels (the same ticks labelled, the same values) written as plain text.

    Mathtext labels are parsed by pyparsing, about a second per figure; plain
    text draws the same superscripts from the font, and the SVG holds each
    label as one string a reader can copy (``10⁻³``).
    """

    def __init__(self, inner: LogFormatterMathtext) -> None:
        self.inner = inner

    def set_axis(self, axis: Any) -> None:
        """The wrapped formatter needs the axis too: it reads the view interval to choose which ticks to label."""
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs: Any) -> None:
        """Passed on: a log formatter decides from the tick locations whether minor ticks get labels."""
        super().set_locs(locs)
        self.inner.set_locs(locs)

    def __call__(self, x: float, pos: int | None = None) -> str:
        """The label matplotlib gives the tick at ``x``, in plain text."""
        return plain_tick_text(self.inner(x, pos))


def _plain_log_labels(fig: Figure) -> None:
    """Every log or symlog axis of ``fig`` labelled through :class:`PlainLogLabels`."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for formatter, setter in ((axis.get_major_formatter(), axis.set_major_formatter),
                                      (axis.get_minor_formatter(), axis.set_minor_formatter)):
                if isinstance(formatter, LogFormatterMathtext):
                    setter(PlainLogLabels(formatter))


VIEW_RTOL = 1e-10
"""A tick this close to an end of the view, relative to its length in scale units, is in it (as in matplotlib)."""


class InViewTicks(Locator):
    """The ticks of ``inner`` that lie in the axis's view, the only ones matplotlib draws.

    A log axis's locator also returns the ticks of a decade or two on either
    side of the view, and matplotlib makes a whole tick (marks, labels, grid
    line) for each before leaving it out of the drawing: most of a figure's
    tick work.  The view test is matplotlib's own (close to an end counts as
    in), so the drawing is the same.
    """

    def __init__(self, inner: Locator) -> None:
        self.inner = inner

    def __call__(self) -> Any:
        """The inner locator's ticks in the view (all of them while the locator has no axis)."""
        locs = np.asarray(self.inner())
        if not isinstance(self.axis, Axis) or locs.size == 0:
            return locs
        scale = self.axis.get_transform()
        low, high = sorted(scale.transform(np.asarray(self.axis.get_view_interval(), dtype=float)))
        at = scale.transform(locs.astype(float))
        close = (high - low) * VIEW_RTOL
        return locs[(low - close <= at) & (at <= high + close)]

    def tick_values(self, vmin: float, vmax: float) -> Any:
        """The inner locator's ticks for the interval, unfiltered (matplotlib asks this for other ranges)."""
        return self.inner.tick_values(vmin, vmax)

    def nonsingular(self, v0: float, v1: float) -> tuple[float, float]:
        """As the inner locator widens a degenerate range."""
        return self.inner.nonsingular(v0, v1)

    def view_limits(self, vmin: float, vmax: float) -> tuple[float, float]:
        """As the inner locator rounds the view's limits."""
        return self.inner.view_limits(vmin, vmax)


def _ticks_in_view(fig: Figure) -> None:
    """Every axis of ``fig`` makes ticks only where they are drawn (:class:`InViewTicks`)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for locator, setter in ((axis.get_major_locator(), axis.set_major_locator),
                                    (axis.get_minor_locator(), axis.set_minor_locator)):
                if not isinstance(locator, InViewTicks):  # shared axes share their locators
                    setter(InViewTicks(locator))


def axes_titles(ax: Axes) -> list[Text]:
    """The three titles of ``ax``, centre, left and right (``ax.set_title(..., loc=...)``), set or empty.

    Matplotlib makes all three with every axes but names only the centre one
    publicly (``ax.title``); they are the texts among its children that
    ``ax.text`` and ``ax.annotate`` did not place (the rule
    :func:`figures.mpl_labels.texts_below` reads titles by).
    """
    placed = set(map(id, ax.texts))
    return [child for child in ax.get_children() if isinstance(child, Text) and id(child) not in placed]


def style_axes(fig: Figure, palette: Palette) -> None:
    """Transparent background, text and frames in the palette's colours; log-axis labels in plain text;
    ticks made only where they are drawn.

    Every title is coloured, a left or right one (``loc=``) too: a figure need not pass the palette's colour.
    """
    fig.patch.set_alpha(0)
    _plain_log_labels(fig)
    _ticks_in_view(fig)
    for ax in fig.axes:
        ax.set_facecolor("none")
        for child in ax.child_axes:  # a secondary axis: its builder colours its ticks; its patch stays bare
            child.set_facecolor("none")
        ax.tick_params(colors=palette.text, which="both")
        ax.xaxis.label.set_color(palette.text)
        ax.yaxis.label.set_color(palette.text)
        for title in axes_titles(ax):
            title.set_color(palette.text)
        for spine in ax.spines.values():
            spine.set_color(palette.axis)
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_color(palette.text)
    for legend in fig.legends:
        for text in legend.get_texts():
            text.set_color(palette.text)
