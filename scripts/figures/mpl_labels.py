"""The texts a drawn figure shows, each with its kind, its box and the axes and legend that hold it.

What the legibility checks read (:mod:`figures.mpl_collisions`,
:mod:`figures.mpl_text_sizes`): only visible, non-empty texts that a draw
shows count, so tick labels outside the view, a shared axis's hidden labels
and annotations matplotlib leaves out are told apart from what a reader sees.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis, Tick, XAxis
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

MATH_DEFAULT = re.compile(r"\\mathdefault\{((?:[^{}]|\{[^{}]*\})*)\}")
"""Matplotlib's wrapper around tick labels in mathtext, left out of messages: ``2^{-12}``, not the wrapper."""


@dataclass(frozen=True)
class Label:
    """A drawn text (or a legend, as one box) and where it is.

    ``kind`` says what it is (``"x tick label"``, ``"y-axis label"``, ``"title"``,
    ``"annotation"``, ``"text"``, ``"legend text"``, ``"legend"`` for a legend's box);
    ``axes`` is the axes that holds it (``None`` for figure-level text);
    ``in_plot`` is true for what a figure placed inside a plot (``ax.text``,
    ``ax.annotate``, a legend inside the axes): it must stay inside the axes
    and no data line of the axes may cross it.
    """

    text: str
    kind: str
    box: Bbox
    axes: Axes | None
    in_plot: bool
    legend: Legend | None = None
    shown: bool = True
    """False for an annotation matplotlib leaves out because its point is outside its axes."""

    def describe(self) -> str:
        """The label as a message names it: ``annotation "naive stalls at 256 (n ≈ 512)" (panel "BF16")``."""
        shown = " ".join(MATH_DEFAULT.sub(r"\1", self.text).replace("$", "").split())
        shown = shown if len(shown) <= 48 else shown[:47] + "…"
        where = ""
        if self.axes is not None:
            title = " ".join(self.axes.get_title().split())
            where = f' (panel "{title}")' if title else ""
        return f'{self.kind} "{shown}"{where}'


def _drawn_ticks(axis: Axis) -> list[Tick]:
    """The ticks ``axis`` draws: those whose location is inside the view interval, as matplotlib decides."""
    ticks = axis.get_major_ticks(len(axis.get_majorticklocs())) + axis.get_minor_ticks(len(axis.get_minorticklocs()))
    low, high = sorted(axis.get_view_interval())
    ends = axis.get_transform().transform(np.array([low, high]))
    span = sorted(float(v) for v in np.ravel(ends))
    slack = 1e-10 * max(1.0, abs(span[1] - span[0]))
    drawn = []
    for tick in ticks:
        where = float(np.ravel(axis.get_transform().transform(np.array([tick.get_loc()])))[0])
        if tick.get_visible() and span[0] - slack <= where <= span[1] + slack:
            drawn.append(tick)
    return drawn


Found = tuple[Text, str, Axes | None, Legend | None]
"""A text, its kind, the axes that holds it and the legend it is part of."""


def texts_below(artist: Artist, kind: str, axes: Axes | None, legend: Legend | None) -> Iterator[Found]:
    """Every visible, non-empty Text below ``artist`` that a draw shows, with its kind, axes and legend.

    Annotations are included whether or not their point is in view: :func:`annotation_drawn` tells.
    """
    if not artist.get_visible():
        return
    if isinstance(artist, Text):
        if artist.get_text().strip():
            yield artist, kind, axes, legend
        return
    if isinstance(artist, Axes):
        axes = artist
        children = [c for c in artist.get_children() if artist.axison or not isinstance(c, Axis)]
        placed = set(map(id, artist.texts))  # ax.text and ax.annotate; its other texts are its titles
        for child in children:
            if id(child) in placed:
                yield from texts_below(child, "annotation" if isinstance(child, Annotation) else "text", axes, legend)
            elif isinstance(child, Text):
                yield from texts_below(child, "title", axes, legend)
            else:
                yield from texts_below(child, kind, axes, legend)
        return
    if isinstance(artist, Axis):
        name = "x" if isinstance(artist, XAxis) else "y"
        yield from texts_below(artist.label, f"{name}-axis label", axes, legend)
        yield from texts_below(artist.offsetText, f"{name}-axis offset", axes, legend)
        for tick in _drawn_ticks(artist):
            for label in (tick.label1, tick.label2):
                yield from texts_below(label, f"{name} tick label", axes, legend)
        return
    if isinstance(artist, Legend):
        legend, kind = artist, "legend text"
    for child in artist.get_children():
        yield from texts_below(child, kind, axes, legend)


def annotation_drawn(text: Text) -> bool:
    """False for an annotation that matplotlib leaves out because its point is outside its axes."""
    if not isinstance(text, Annotation) or text.axes is None:
        return True
    clip = text.get_annotation_clip()
    if clip is False or (clip is None and text.xycoords != "data"):
        return True
    point = text.axes.transData.transform(np.array([text.xy], dtype=float))[0]
    return bool(text.axes.contains_point(point))


def drawn_labels(fig: Figure) -> list[Label]:
    """Every text ``fig`` draws (tick labels, axis labels, titles, annotations, legend texts), each
    legend as one more box, with where they are in display units; ``fig`` must have been drawn.
    """
    labels = []
    for text, kind, axes, legend in texts_below(fig, "figure text", None, None):
        in_plot = kind in ("annotation", "text") and axes is not None
        if not annotation_drawn(text):
            labels.append(Label(text.get_text(), kind, Bbox.null(), axes, in_plot, legend, shown=False))
            continue
        box = Text.get_window_extent(text)  # an annotation's text only: its arrow may cross lines
        if box.width > 0 and box.height > 0:
            labels.append(Label(text.get_text(), kind, box, axes, in_plot, legend))
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    for legend in legends:
        if legend is not None and legend.get_visible() and legend.get_texts():
            axes = legend.axes if isinstance(legend.parent, Axes) else None
            names = ", ".join(t.get_text() for t in legend.get_texts())
            labels.append(Label(names, "legend", legend.get_window_extent(), axes, axes is not None, legend))
    return labels
