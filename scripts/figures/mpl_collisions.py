"""Whether a drawn figure can be read: no two labels overlap, none leaves the figure, none in a plot is crossed.

:func:`figures.mpl_render.render` checks every figure with
:func:`check_layout` before it is saved, so a collision stops the build
with a message naming the figure, the layout, the palette and the labels.
"""

from __future__ import annotations

import itertools

import numpy as np
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.path import Path
from matplotlib.transforms import Bbox, BboxBase

from .looks import Palette
from .mpl_labels import drawn_labels
from .mpl_lines import LOOK_GID

TOUCH_PT = 0.75
"""Boxes may share this much (points) before they count as overlapping: text boxes include the
line's full ascent and descent, so neighbours set edge to edge touch without any ink meeting."""


class LayoutError(ValueError):
    """A figure's labels collide or leave it; the message names the figure, the palette and each label."""


def _overlap(a: BboxBase, b: BboxBase, slack: float) -> bool:
    return bool(min(a.x1, b.x1) - max(a.x0, b.x0) > slack and min(a.y1, b.y1) - max(a.y0, b.y0) > slack)


def _inside(box: BboxBase, frame: BboxBase, slack: float) -> bool:
    return (box.x0 >= frame.x0 - slack and box.x1 <= frame.x1 + slack
            and box.y0 >= frame.y0 - slack and box.y1 <= frame.y1 + slack)


def _crosses(line: Line2D, box: BboxBase) -> bool:
    """Whether ``line`` (its path, or for a line of markers only, its markers) passes through ``box``."""
    points = np.asarray(line.get_transform().transform_path(line.get_path()).vertices, dtype=float)
    finite = np.all(np.isfinite(points), axis=1)
    if line.get_linestyle() in ("None", "none", "", " "):
        figure = line.get_figure(root=True)
        radius = float(line.get_markersize()) / 2 * (figure.dpi if figure is not None else 72) / 72
        x, y = points[:, 0], points[:, 1]
        hit = (x >= box.x0 - radius) & (x <= box.x1 + radius) & (y >= box.y0 - radius) & (y <= box.y1 + radius)
        return bool(np.any(finite & hit))
    runs = np.split(points, np.nonzero(~finite)[0])
    for run in runs:
        run = run[np.all(np.isfinite(run), axis=1)]
        if len(run) == 1 and box.contains(run[0, 0], run[0, 1]):
            return True
        if len(run) > 1 and Path(run).intersects_bbox(Bbox(box.get_points()), filled=False):
            return True
    return False


def _hides_lines(legend: Legend) -> bool:
    """A legend drawn on an opaque frame hides the lines under it: crossing it is no collision."""
    frame = legend.get_frame()
    alpha = frame.get_alpha()
    opaque = (alpha is None or alpha > 0) and float(np.asarray(frame.get_facecolor())[3]) > 0
    return bool(legend.get_frame_on()) and opaque


def text_collisions(fig: Figure) -> list[str]:
    """What a reader of ``fig`` could not read, one line each; empty when every label is clear.

    Lays ``fig`` out and draws it without output (text extents are known only
    after a draw, and only for the layout that draw made), then reports

    - two texts whose boxes overlap by more than :data:`TOUCH_PT`, and a
      legend's box that meets a text of anything else;
    - a text or legend that leaves the figure;
    - a text or legend placed inside a plot that leaves its axes, or that a
      line of its axes crosses (a legend with an opaque frame hides the lines);
    - an annotation matplotlib leaves out because its point is outside its axes.

    Only visible, non-empty texts that a draw shows are compared: tick labels
    of the ticks in view (a shared axis's hidden labels count for nothing),
    titles, axis labels, annotations and texts, legend texts.
    """
    fig.draw_without_rendering()
    return collisions_as_drawn(fig)


def collisions_as_drawn(fig: Figure) -> list[str]:
    """:func:`text_collisions` of a figure already laid out and drawn (by a save), without drawing it again."""
    slack = TOUCH_PT * fig.dpi / 72
    labels = drawn_labels(fig)
    problems = [f"{label.describe()} is not drawn: its point is outside its axes" for label in labels
                if not label.shown]
    labels = [label for label in labels if label.shown]
    for a, b in itertools.combinations(labels, 2):
        if a.kind == "legend" and b.legend is a.legend or b.kind == "legend" and a.legend is b.legend:
            continue
        if _overlap(a.box, b.box, slack):
            problems.append(f"{a.describe()} overlaps {b.describe()}")
    for label in labels:
        if not _inside(label.box, fig.bbox, slack):
            problems.append(f"{label.describe()} leaves the figure")
        if label.in_plot and label.axes is not None:
            if not _inside(label.box, label.axes.bbox, slack):
                problems.append(f"{label.describe()} leaves its axes")
            if label.kind == "legend" and label.legend is not None and _hides_lines(label.legend):
                continue
            inner = label.box.padded(-slack)
            for line in label.axes.get_lines():
                if line.get_visible() and _crosses(line, inner):
                    problems.append(f"{label.describe()} is crossed by {_line_name(line)}")
    return problems


def _line_name(line: Line2D) -> str:
    """A line as a message names it: its legend label, its method, or its style."""
    label = str(line.get_label())
    if not label.startswith("_"):
        return f'the line "{label}"'
    gid = line.get_gid() or ""
    if gid.startswith(LOOK_GID):
        return f"a {gid.removeprefix(LOOK_GID).rsplit('-', 1)[0]} line"
    style = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}.get(str(line.get_linestyle()), "")
    return f"an unlabelled {style} line".replace("  ", " ")


def check_layout(fig: Figure, figure_id: str, palette: Palette, layout: str = "") -> None:
    """``LayoutError`` naming ``figure_id``, the layout (if given), the palette and every collision
    :func:`collisions_as_drawn` finds in ``fig`` as it was last drawn.
    """
    problems = collisions_as_drawn(fig)
    if problems:
        where = f"{layout} layout, " if layout else ""
        raise LayoutError(f"figure {figure_id!r} ({where}{palette.name} palette) is not legible: "
                          + "; ".join(problems))
