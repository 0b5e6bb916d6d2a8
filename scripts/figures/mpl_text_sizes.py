"""The smallest text of each layout of a figure: checked against the layout's font size, and ``-text.json``.

Each layout is shown at a known narrowest width (:mod:`figures.variants`),
so a text's size in points gives its size in CSS pixels (or a slide's
pixels) where it is shown smallest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from matplotlib.cbook import is_math_text
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from .mpl_collisions import LayoutError
from .mpl_labels import Label, annotation_drawn, texts_below
from .variants import Layout


@dataclass(frozen=True)
class SmallestText:
    """The smallest text of a drawn figure: what it says, its kind, its font size and its box's height (points)."""

    text: str
    kind: str
    font_pt: float
    height_pt: float


def smallest_text(fig: Figure, figure_id: str, layout: Layout) -> SmallestText:
    """The smallest text ``fig`` draws, as last drawn; ``LayoutError`` for one under ``layout.font_pt``
    (it would read under the layout's smallest size where it is shown) or in mathtext (whose sub- and
    superscripts are drawn smaller than its font size: write them as text, ``figures.text.superscript``).

    Only texts a draw shows count (:func:`figures.mpl_labels.drawn_labels`' rule); a figure without text gives
    its font size.
    """
    smallest = SmallestText("", "", layout.font_pt, layout.font_pt)
    problems = []
    first = True
    for text, kind, _, _ in texts_below(fig, "figure text", None, None):
        if not annotation_drawn(text):
            continue
        label = Label(text.get_text(), kind, Bbox.null(), None, False)
        size = float(text.get_fontsize())
        if is_math_text(text.get_text()):
            problems.append(f"{label.describe()} is mathtext, whose scripts are drawn small: write them as text")
        if size < layout.font_pt - 1e-9:
            problems.append(f"{label.describe()} is {size:g} pt, under the {layout.font_pt:g} pt of the layout")
        height = float(Text.get_window_extent(text).height) * 72 / fig.dpi
        if first or (size, height) < (smallest.font_pt, smallest.height_pt):
            smallest = SmallestText(text.get_text(), kind, size, height)
            first = False
    if problems:
        raise LayoutError(f"figure {figure_id!r} ({layout.name} layout) draws text too small: " + "; ".join(problems))
    return smallest


def text_record(layout: Layout, smallest: SmallestText) -> dict[str, Any]:
    """What ``-text.json`` says of one layout: its size and its smallest text where it is shown smallest."""
    width_pt = layout.size[0] * 72
    scale = layout.shown_px / width_pt  # CSS px (or a slide's pixels) per point at the narrowest it is shown
    record: dict[str, Any] = {"size_in": list(layout.size), "shown_px": layout.shown_px,
                              "smallest_text": smallest.text, "smallest_kind": smallest.kind,
                              "smallest_font_pt": smallest.font_pt,
                              "smallest_font_px": round(smallest.font_pt * scale, 3),
                              "smallest_height_px": round(smallest.height_pt * scale, 3)}
    if layout.name == "slide":
        record["png_px"] = [round(layout.size[0] * scale * 72), round(layout.size[1] * scale * 72)]
    return record


def text_sizes_json(texts: dict[str, Any]) -> bytes:
    """``<id>-text.json``: each layout's record (:func:`figures.mpl_render.render`,
    :func:`figures.mpl_render.slide_png`), by layout name.
    """
    return (json.dumps(texts, indent=1, ensure_ascii=False) + "\n").encode()
