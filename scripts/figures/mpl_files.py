"""Matplotlib's settings for every static figure, and its files saved reproducibly: the SVG and the slide PNG.

The same figure saves to the same bytes on every build: the SVG's hash
salt is fixed, its text stays text, it carries no date, and its path data is
rounded to what a screen can show (:func:`compact_path_data`); the PNG
carries no software tag.
"""

from __future__ import annotations

import io
import re
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.typing import RcKeyType  # noqa: E402
from PIL import Image  # noqa: E402

from .mpl_subscripts import subscripts  # noqa: E402
from .variants import SLIDE_PX  # noqa: E402

RC: dict[RcKeyType, Any] = {"font.family": "DejaVu Sans", "svg.fonttype": "none", "svg.hashsalt": "fpsum",
                             "lines.scale_dashes": True, "axes.titley": 1.0}
"""``axes.titley`` fixed: matplotlib would otherwise measure every tick label of a panel at each draw to
see whether the title must move up over labels on top; no panel has any, and a title that met one
would fail the layout check."""
SVG_RC: dict[RcKeyType, Any] = RC | {"figure.dpi": 72}
"""What :func:`figures.mpl_render.render` draws with: the SVG's own 72 dots per inch, so a figure is laid out,
checked and saved at one resolution (a drawing function that measures its texts gets what is saved)."""
SLIDE_WIDTH_PX = SLIDE_PX[0]

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
    """Reproducible SVG: fixed hash salt, text kept as text (a label's ``N_c`` drawn as a subscript:
    :mod:`figures.mpl_subscripts`), no date, compact path data.
    """
    buffer = io.BytesIO()
    with plt.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return subscripts(compact_path_data(buffer.getvalue().decode("utf-8"))).encode("utf-8")


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
