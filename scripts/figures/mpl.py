"""Matplotlib, set up once for every static figure: reproducible files in both palettes."""

from __future__ import annotations

import io
import re
from typing import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .style import PALETTES, Palette  # noqa: E402

RC = {"font.family": "DejaVu Sans", "svg.fonttype": "none", "svg.hashsalt": "fpsum"}
SLIDE_WIDTH_PX = 1920


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
            spine.set_color(palette.muted)
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_color(palette.text)
    for legend in fig.legends:
        for text in legend.get_texts():
            text.set_color(palette.text)


def render(draw: Callable[[Palette], Figure], stem: str) -> dict[str, bytes]:
    """``stem-light.svg``, ``stem-dark.svg`` and a slide PNG (light) from one drawing function."""
    files: dict[str, bytes] = {}
    with plt.rc_context(RC):
        for palette in PALETTES:
            fig = draw(palette)
            style_axes(fig, palette)
            files[f"{stem}-{palette.name}.svg"] = svg_bytes(fig)
            if palette.name == "light":
                files[f"{stem}.png"] = png_bytes(fig)
            plt.close(fig)
    return files
