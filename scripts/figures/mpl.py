"""Matplotlib, set up once for every static figure: reproducible files in both palettes, lines in the table's looks.

Every figure drawn through :func:`render` is checked for legibility before
it is saved (:func:`text_collisions`): no two labels overlap, none leaves
the figure, and no label inside a plot leaves it or is crossed by a line.
A figure is drawn once, in the light palette; its dark SVG is the light one
recoloured (:func:`dark_svg`).

This module names the layer; its modules hold one concern each:

- :mod:`figures.mpl_files`: the rc settings, and the SVG and PNG saved reproducibly;
- :mod:`figures.mpl_lines`: a method's line in its look, tagged with its name;
- :mod:`figures.mpl_style`: a drawing styled in its palette, log labels in plain text, ticks only in view;
- :mod:`figures.mpl_dark`: the dark SVG recoloured from the light one;
- :mod:`figures.mpl_labels`: the texts a drawn figure shows, and where;
- :mod:`figures.mpl_collisions`: the legibility check (overlaps, labels out of place, lines through labels);
- :mod:`figures.mpl_text_sizes`: each layout's smallest text, checked, and ``-text.json``;
- :mod:`figures.mpl_render`: every file of a figure from one drawing function.
"""

from __future__ import annotations

from .mpl_collisions import TOUCH_PT, LayoutError, check_layout, collisions_as_drawn, text_collisions
from .mpl_dark import SVG_COLOUR, RecolourError, dark_svg
from .mpl_files import (
    DECIMAL,
    PATH_DATA,
    PATH_DECIMALS,
    RC,
    SLIDE_WIDTH_PX,
    SVG_RC,
    compact_path_data,
    png_bytes,
    svg_bytes,
)
from .mpl_labels import MATH_DEFAULT, Found, Label, drawn_labels
from .mpl_lines import LOOK_GID, look_line, method_line
from .mpl_render import render, slide_png
from .mpl_style import (
    MATHTEXT_TICK,
    VIEW_RTOL,
    InViewTicks,
    PlainLogLabels,
    axes_titles,
    plain_tick_text,
    style_axes,
)
from .mpl_text_sizes import SmallestText, smallest_text, text_sizes_json

__all__ = [
    "DECIMAL", "LOOK_GID", "MATHTEXT_TICK", "MATH_DEFAULT", "PATH_DATA", "PATH_DECIMALS", "RC", "SLIDE_WIDTH_PX",
    "SVG_COLOUR", "SVG_RC", "TOUCH_PT", "VIEW_RTOL", "Found", "InViewTicks", "Label", "LayoutError",
    "PlainLogLabels", "RecolourError", "SmallestText", "axes_titles", "check_layout", "collisions_as_drawn",
    "compact_path_data", "dark_svg", "drawn_labels", "look_line", "method_line", "plain_tick_text", "png_bytes",
    "render", "slide_png", "smallest_text", "style_axes", "svg_bytes", "text_collisions", "text_sizes_json",
]
