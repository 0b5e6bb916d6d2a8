"""Matplotlib, set up once for every static figure: reproducible files in both palettes, lines in the table's looks.

Every figure drawn through :func:`render` is checked for legibility before
it is saved (:func:`text_collisions`): no two labels overlap, none leaves
the figure, and no label inside a plot leaves it or is crossed by a line.
A figure is drawn once, in the light palette; its dark SVG is the light one
recoloured (:func:`dark_svg`).
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.artist import Artist  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.axis import Axis, Tick, XAxis  # noqa: E402
from matplotlib.cbook import is_math_text  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.path import Path  # noqa: E402
from matplotlib.text import Annotation, Text  # noqa: E402
from matplotlib.ticker import Formatter, Locator, LogFormatterMathtext  # noqa: E402
from matplotlib.transforms import Bbox, BboxBase  # noqa: E402
from matplotlib.typing import RcKeyType  # noqa: E402
from PIL import Image  # noqa: E402

from .contract import FigureFiles  # noqa: E402
from .looks import LIGHT, LOOKS, MARKERS, Look, Palette, dark_colours  # noqa: E402
from .text import superscript  # noqa: E402
from .variants import SLIDE_PX, SLIDE_TEXT_PX, Layout, Sizes  # noqa: E402

RC: dict[RcKeyType, Any] = {"font.family": "DejaVu Sans", "svg.fonttype": "none", "svg.hashsalt": "fpsum",
                             "lines.scale_dashes": True, "axes.titley": 1.0}
"""``axes.titley`` fixed: matplotlib would otherwise measure every tick label of a panel at each draw to
see whether the title must move up over labels on top; no panel has any, and a title that met one
would fail the layout check."""
SVG_RC: dict[RcKeyType, Any] = RC | {"figure.dpi": 72}
"""What :func:`render` draws with: the SVG's own 72 dots per inch, so a figure is laid out, checked and
saved at one resolution (a drawing function that measures its texts gets what is saved)."""
SLIDE_WIDTH_PX = SLIDE_PX[0]
LOOK_GID = "look-"
"""A method's line carries the gid ``look-<method>-<k>``: the SVG says which method each line is (tested)."""

PATH_DATA = re.compile(r'(?<= d=")[^"]*')
DECIMAL = re.compile(r"-?\d+\.\d+")
PATH_DECIMALS = 2
"""Path coordinates are points (1/72 inch): a hundredth of a point is far below a pixel at any zoom a reader uses."""


def _short(number: re.Match[str]) -> str:
    text = f"{float(number[0]):.{PATH_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def compact_path_data(svg: str) -> str:
    """Round every path's coordinates to PATH_DECIMALS places and put each path's data on one line.

    Matplotlib writes six decimals and one line per vertex, so a plot of
    many points is mostly digits no screen can show.  Only ``d`` attributes
    change: text, styles and ids are left as they are.
    """
    return PATH_DATA.sub(lambda data: " ".join(DECIMAL.sub(_short, data[0]).split()), svg)


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


def svg_bytes(fig: Figure) -> bytes:
    """Reproducible SVG: fixed hash salt, text kept as text, no date, compact path data."""
    buffer = io.BytesIO()
    with plt.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return compact_path_data(buffer.getvalue().decode("utf-8")).encode("utf-8")


def png_bytes(fig: Figure, width_px: int = SLIDE_WIDTH_PX) -> bytes:
    """PNG at slide resolution (``width_px`` wide) on white, without the software tag.

    Opaque RGB, not matplotlib's RGBA: the drawing is laid over white (a styled
    figure's background is transparent, so a band drawn at alpha 0.2 is a
    fifth of its colour on white, not its full colour), and leaving the
    channel out makes the file less than half the size and quicker to compress.
    ``ValueError`` if the drawn width is not ``width_px`` (a figure too narrow to scale to it).
    """
    dpi = width_px / fig.get_figwidth()
    raw = io.BytesIO()
    fig.savefig(raw, format="rgba", dpi=dpi, facecolor="white")
    pixels = raw.getvalue()
    height, rest = divmod(len(pixels), 4 * width_px)
    if rest or not height:
        raise ValueError(f"the figure did not draw {width_px} pixels wide at {dpi:.2f} dpi")
    drawn = Image.frombuffer("RGBA", (width_px, height), pixels, "raw", "RGBA", 0, 1)
    image = Image.alpha_composite(Image.new("RGBA", drawn.size, "white"), drawn).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="png", dpi=(dpi, dpi))
    return buffer.getvalue()


SVG_COLOUR = re.compile(rb"#[0-9a-fA-F]{6}(?![0-9a-zA-Z_-])")
"""A colour in matplotlib's SVG (``fill: #c0392b``); links to ids never match: an id starts with m, p or h
(``url(#p3623274f2)``)."""


class RecolourError(ValueError):
    """A light figure has something its dark one cannot be made from by changing colours."""


def dark_svg(svg: bytes, dark: dict[str, str] | None = None) -> bytes:
    """The dark palette's SVG of a figure drawn in the light palette: each colour swapped for its dark one.

    A figure's palettes differ in colour only (tested on real figures): same
    texts, lines and layout.  ``dark`` maps lower-case light colours to dark
    ones (:func:`figures.looks.dark_colours` by default).  ``RecolourError``
    naming the colour if one has no dark counterpart (a colour drawn outside
    the tables of ``figures.looks``), and for an embedded raster image, whose
    pixels no swap of colours reaches.
    """
    table = dark_colours() if dark is None else dark
    if b"<image" in svg:
        raise RecolourError("the figure embeds a raster image, which cannot be recoloured for the dark palette")

    def swap(colour: re.Match[bytes]) -> bytes:
        light = colour.group().decode().lower()
        if light not in table:
            raise RecolourError(f"the colour {light} has no dark counterpart: draw it from a table of figures.looks")
        return table[light].encode()

    return SVG_COLOUR.sub(swap, svg)


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


def style_axes(fig: Figure, palette: Palette) -> None:
    """Transparent background, text and frames in the palette's colours; log-axis labels in plain text;
    ticks made only where they are drawn.
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
        ax.title.set_color(palette.text)
        for spine in ax.spines.values():
            spine.set_color(palette.axis)
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_color(palette.text)
    for legend in fig.legends:
        for text in legend.get_texts():
            text.set_color(palette.text)


MATH_DEFAULT = re.compile(r"\\mathdefault\{((?:[^{}]|\{[^{}]*\})*)\}")
"""Matplotlib's wrapper around tick labels in mathtext, left out of messages: ``2^{-12}``, not the wrapper."""
TOUCH_PT = 0.75
"""Boxes may share this much (points) before they count as overlapping: text boxes include the
line's full ascent and descent, so neighbours set edge to edge touch without any ink meeting."""


class LayoutError(ValueError):
    """A figure's labels collide or leave it; the message names the figure, the palette and each label."""


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


def _texts(artist: Artist, kind: str, axes: Axes | None, legend: Legend | None) -> Iterator[Found]:
    """Every visible, non-empty Text below ``artist`` that a draw shows, with its kind, axes and legend."""
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
                yield from _texts(child, "annotation" if isinstance(child, Annotation) else "text", axes, legend)
            elif isinstance(child, Text):
                yield from _texts(child, "title", axes, legend)
            else:
                yield from _texts(child, kind, axes, legend)
        return
    if isinstance(artist, Axis):
        name = "x" if isinstance(artist, XAxis) else "y"
        yield from _texts(artist.label, f"{name}-axis label", axes, legend)
        yield from _texts(artist.offsetText, f"{name}-axis offset", axes, legend)
        for tick in _drawn_ticks(artist):
            for label in (tick.label1, tick.label2):
                yield from _texts(label, f"{name} tick label", axes, legend)
        return
    if isinstance(artist, Legend):
        legend, kind = artist, "legend text"
    for child in artist.get_children():
        yield from _texts(child, kind, axes, legend)


def _annotation_drawn(text: Text) -> bool:
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
    for text, kind, axes, legend in _texts(fig, "figure text", None, None):
        in_plot = kind in ("annotation", "text") and axes is not None
        if not _annotation_drawn(text):
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

    Only texts a draw shows count (:func:`drawn_labels`' rule); a figure without text gives its font size.
    """
    smallest = SmallestText("", "", layout.font_pt, layout.font_pt)
    problems = []
    first = True
    for text, kind, _, _ in _texts(fig, "figure text", None, None):
        if not _annotation_drawn(text):
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


def _text_record(layout: Layout, smallest: SmallestText) -> dict[str, Any]:
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


def _draw_checked(draw: Callable[[Palette, Layout], Figure], figure_id: str, layout: Layout,
                  ) -> tuple[Figure, bytes | None, SmallestText]:
    """``draw`` in the light palette and ``layout``, laid out (by saving its SVG, but for a slide), checked.

    The figure is returned open, its layout kept (the PNG shows what was checked); the caller closes it.
    """
    with plt.rc_context(SVG_RC | {"font.size": layout.font_pt}):
        fig = draw(LIGHT, layout)
        try:
            style_axes(fig, LIGHT)
            svg = None
            if layout.name == "slide":
                fig.draw_without_rendering()
            else:
                svg = svg_bytes(fig)  # lays the figure out and draws it
            fig.set_layout_engine("none")
            check_layout(fig, figure_id, LIGHT, layout.name)
            return fig, svg, smallest_text(fig, figure_id, layout)
        except BaseException:
            plt.close(fig)
            raise


def render(draw: Callable[[Palette, Layout], Figure], figure_id: str, sizes: Sizes) -> dict[str, bytes]:
    """Every file of a static figure: the light and dark SVG of its wide and its narrow layout, the slide PNG
    (light, 16:9) and the smallest text of each (``-text.json``), from one drawing function.

    ``draw(palette, layout)`` is called once per layout of ``sizes``, with the
    light palette and ``font.size`` set to the layout's smallest font
    (:attr:`figures.variants.Layout.font_pt`).  Each drawing is laid out and
    drawn (by saving its SVG), then checked as drawn: a label that collides
    (:func:`check_layout`) or a text under the layout's font size
    (:func:`smallest_text`) stops the build with a message naming the figure,
    the layout and the labels.  A dark SVG is its light one recoloured
    (:func:`dark_svg`; the layout does not depend on colour), and the PNG
    keeps the slide's checked layout.
    """
    paths = FigureFiles.of(figure_id)
    wide, narrow, _ = sizes.layouts()
    files: dict[str, bytes] = {}
    texts: dict[str, Any] = {}
    for layout, light_path, dark_path in ((wide, paths.svg, paths.dark_svg),
                                          (narrow, paths.narrow_svg, paths.narrow_dark_svg)):
        fig, svg, smallest = _draw_checked(draw, figure_id, layout)
        try:
            texts[layout.name] = _text_record(layout, smallest)
            assert svg is not None  # a screen's layout is laid out by saving its SVG
            try:
                files[dark_path] = dark_svg(svg)
            except RecolourError as error:
                raise RecolourError(f"figure {figure_id!r}: {error}") from None
            files[light_path] = svg
        finally:
            plt.close(fig)
    files[paths.png], texts["slide"] = slide_png(draw, figure_id, sizes.slide)
    files[paths.text_sizes] = text_sizes_json(texts)
    return files


def slide_png(draw: Callable[[Palette, Layout], Figure], figure_id: str, size: tuple[float, float]
              ) -> tuple[bytes, dict[str, Any]]:
    """The slide of ``figure_id``: ``draw`` in the light palette and a slide layout of ``size`` inches (16:9),
    checked as :func:`render` checks a layout, as a PNG of :data:`figures.variants.SLIDE_PX`; with what
    ``-text.json`` says of it (its pixel size, its smallest text in those pixels).
    """
    layout = Layout("slide", size, SLIDE_PX[0], SLIDE_TEXT_PX)
    fig, _, smallest = _draw_checked(draw, figure_id, layout)
    try:
        return png_bytes(fig, SLIDE_PX[0]), _text_record(layout, smallest)
    finally:
        plt.close(fig)


def text_sizes_json(texts: dict[str, Any]) -> bytes:
    """``<id>-text.json``: each layout's record (:func:`render`, :func:`slide_png`), by layout name."""
    return (json.dumps(texts, indent=1, ensure_ascii=False) + "\n").encode()

