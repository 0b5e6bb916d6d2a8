"""A method's line in a matplotlib plot, drawn in its look from :mod:`figures.looks` and tagged with its name.

Each line carries the gid ``look-<method>-<k>`` (:data:`LOOK_GID`), so the
SVG says which method each line is (tested) and a layout message can name it.
"""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from .looks import LOOKS, MARKERS, Look, Palette

LOOK_GID = "look-"
"""A method's line carries the gid ``look-<method>-<k>``: the SVG says which method each line is (tested)."""


def method_line(ax: Axes, method: str, x: Any, y: Any, palette: Palette, **overrides: Any) -> Line2D:
    """Plot ``method``'s line in its look from :data:`figures.looks.LOOKS`: colour, dash, width, marker, label.

    ``overrides`` are matplotlib keywords for what a figure changes on
    purpose (a thinner ``lw``, ``label=None``, ``markevery``); colour and dash
    pattern cannot be overridden.  Markers are spread along the line
    (a tenth of the plot apart), edged in the background colour.
    """
    return look_line(ax, method, LOOKS[method], x, y, palette, **overrides)


def look_line(ax: Axes, name: str, look: Look, x: Any, y: Any, palette: Palette, **overrides: Any) -> Line2D:
    """:func:`method_line` for any look of :mod:`figures.looks` (a block format's, say), tagged ``name``."""
    method = name
    if "color" in overrides or "ls" in overrides or "linestyle" in overrides:
        raise ValueError(f"the colour and dash of {method!r} come from the looks table, not from a figure")
    style: dict[str, Any] = {
        "color": look.colour(palette), "lw": look.width, "label": look.label,
        "ls": (0, look.dash) if look.dash else "-",
    }
    if look.marker:
        style |= {"marker": MARKERS[look.marker].matplotlib, "markevery": 0.1, "ms": 6,
                  "markeredgecolor": palette.background, "markeredgewidth": 0.8}
    style |= overrides
    (line,) = ax.plot(x, y, **style)
    # The method's lines so far, in every panel: a method's lines live in axes (walking the whole
    # figure with findobj would visit every tick, for each line).
    figure = ax.get_figure(root=True)
    panels = figure.axes if figure is not None else [ax]
    same = sum(1 for panel in panels for other in panel.get_lines()
               if (other.get_gid() or "").startswith(f"{LOOK_GID}{method}-"))
    line.set_gid(f"{LOOK_GID}{method}-{same}")
    return line
