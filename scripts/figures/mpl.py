"""Matplotlib, set up once for every static figure: reproducible files in both palettes, lines in the table's looks."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.typing import RcKeyType  # noqa: E402

from .contract import FigureFiles  # noqa: E402
from .looks import LOOKS, MARKERS, PALETTES, Palette  # noqa: E402

RC: dict[RcKeyType, Any] = {"font.family": "DejaVu Sans", "svg.fonttype": "none", "svg.hashsalt": "fpsum",
                             "lines.scale_dashes": True}
SLIDE_WIDTH_PX = 1920
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
    if "color" in overrides or "ls" in overrides or "linestyle" in overrides:
        raise ValueError(f"the colour and dash of {method!r} come from the looks table, not from a figure")
    look = LOOKS[method]
    style: dict[str, Any] = {
        "color": look.colour(palette), "lw": look.width, "label": look.label,
        "ls": (0, look.dash) if look.dash else "-",
    }
    if look.marker:
        style |= {"marker": MARKERS[look.marker].matplotlib, "markevery": 0.1, "ms": 6,
                  "markeredgecolor": palette.background, "markeredgewidth": 0.8}
    style |= overrides
    (line,) = ax.plot(x, y, **style)
    same = sum(1 for other in ax.figure.findobj(Line2D) if (other.get_gid() or "").startswith(f"{LOOK_GID}{method}-"))
    line.set_gid(f"{LOOK_GID}{method}-{same}")
    return line


def svg_bytes(fig: Figure) -> bytes:
    """Reproducible SVG: fixed hash salt, text kept as text, no date, compact path data."""
    buffer = io.BytesIO()
    with plt.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return compact_path_data(buffer.getvalue().decode("utf-8")).encode("utf-8")


def png_bytes(fig: Figure, width_px: int = SLIDE_WIDTH_PX) -> bytes:
    """PNG at slide resolution (``width_px`` wide) on white, without the software tag."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=width_px / fig.get_figwidth(), metadata={"Software": None},
                facecolor="white")
    return buffer.getvalue()


def style_axes(fig: Figure, palette: Palette) -> None:
    """Transparent background, text and frames in the palette's colours."""
    fig.patch.set_alpha(0)
    for ax in fig.axes:
        ax.set_facecolor("none")
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


def render(draw: Callable[[Palette], Figure], figure_id: str) -> dict[str, bytes]:
    """The light and dark SVG and the slide PNG (light) of ``figure_id``, from one drawing function."""
    files: dict[str, bytes] = {}
    paths = FigureFiles.of(figure_id)
    with plt.rc_context(RC):
        for palette in PALETTES:
            fig = draw(palette)
            style_axes(fig, palette)
            files[paths.svg if palette.name == "light" else paths.dark_svg] = svg_bytes(fig)
            if palette.name == "light":
                files[paths.png] = png_bytes(fig)
            plt.close(fig)
    return files
