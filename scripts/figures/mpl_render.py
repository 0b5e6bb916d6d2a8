"""Every file of a static figure from one drawing function: each layout drawn, checked and saved in both palettes.

A figure is drawn once per layout, in the light palette, styled
(:func:`figures.mpl_style.style_axes`), laid out by saving it, and checked
as drawn (:mod:`figures.mpl_collisions`, :mod:`figures.mpl_text_sizes`);
its dark SVG is the light one recoloured (:func:`figures.mpl_dark.dark_svg`), which
a build can be asked to prove by drawing it dark (:mod:`figures.mpl_dark_proof`).

The matplotlib layer of every static figure, one concern a module:

- :mod:`figures.mpl_files`: the rc settings, and the SVG and PNG saved reproducibly;
- :mod:`figures.mpl_lines`: a method's line in its look, tagged with its name;
- :mod:`figures.mpl_style`: a drawing styled in its palette, log labels in plain text, ticks only in view;
- :mod:`figures.mpl_dark`: the dark SVG recoloured from the light one;
- :mod:`figures.mpl_dark_proof`: in a build that asks, each dark SVG held to the figure drawn dark;
- :mod:`figures.mpl_labels`: the texts a drawn figure shows, and where;
- :mod:`figures.mpl_collisions`: the legibility check (overlaps, labels out of place, lines through labels);
- :mod:`figures.mpl_text_sizes`: each layout's smallest text, checked, and ``-text.json``;
- :mod:`figures.mpl_subscripts`: a label's subscripts (``γ_K``) set below its baseline;
- this module: every file of a figure from one drawing function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .contract import FigureFiles  # noqa: E402
from .looks import LIGHT, Palette  # noqa: E402
from .mpl_collisions import check_layout  # noqa: E402
from .mpl_dark import RecolourError, dark_svg  # noqa: E402
from .mpl_dark_proof import proof_file, prove_dark  # noqa: E402
from .mpl_files import SVG_RC, png_bytes, svg_bytes  # noqa: E402
from .mpl_style import style_axes  # noqa: E402
from .mpl_subscripts import slide_subscripts  # noqa: E402
from .mpl_text_sizes import SmallestText, smallest_text, text_record, text_sizes_json  # noqa: E402
from .variants import SLIDE_PX, SLIDE_TEXT_PX, Layout, Sizes  # noqa: E402


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


MATPLOTLIB_STYLE = b'<style type="text/css">'
FILL_ALONE = b"svg:root{width:100%;height:auto}"
"""A phone's browser lays a document without a viewport tag out 980 px wide and shows it at about 0.4:
the narrow SVG opened on its own (432 px) would show its text at 4 px.  This rule makes it as wide as the
document, so it fills the screen.  ``svg:root`` matches only where the SVG is a document of its own: a
window, or an ``<img>``, where it fills the element's box, as it would anyway; an SVG put inline into a
page is not the root."""


def _unchanged(svg: bytes) -> bytes:
    return svg


def filling_alone(svg: bytes) -> bytes:
    """``svg`` with :data:`FILL_ALONE` first in matplotlib's style sheet; ``ValueError`` if it has none."""
    if MATPLOTLIB_STYLE not in svg:
        raise ValueError("the SVG has no matplotlib style sheet to add the narrow layout's rule to")
    return svg.replace(MATPLOTLIB_STYLE, MATPLOTLIB_STYLE + FILL_ALONE, 1)


def render(draw: Callable[[Palette, Layout], Figure], figure_id: str, sizes: Sizes) -> dict[str, bytes]:
    """Every file of a static figure: the light and dark SVG of its wide and its narrow layout, the slide PNG
    (light, 16:9) and the smallest text of each (``-text.json``), from one drawing function.

    ``draw(palette, layout)`` is called once per layout of ``sizes``, with the
    light palette and ``font.size`` set to the layout's smallest font
    (:attr:`figures.variants.Layout.font_pt`).  Each drawing is laid out and
    drawn (by saving its SVG), then checked as drawn: a label that collides
    (:func:`figures.mpl_collisions.check_layout`) or a text under the layout's font size
    (:func:`figures.mpl_text_sizes.smallest_text`) stops the build with a message naming the figure,
    the layout and the labels.  The narrow SVG fills the width of a window it is opened in alone
    (:data:`FILL_ALONE`).  A dark SVG is its light one recoloured
    (:func:`figures.mpl_dark.dark_svg`; the layout does not depend on colour), and the PNG
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
            texts[layout.name] = text_record(layout, smallest)
            assert svg is not None  # a screen's layout is laid out by saving its SVG
            finish = filling_alone if layout is narrow else _unchanged
            svg = finish(svg)
            try:
                files[dark_path] = dark_svg(svg)
            except RecolourError as error:
                raise RecolourError(f"figure {figure_id!r}: {error}") from None
            files[light_path] = svg
            proof = proof_file()
            if proof is not None:
                prove_dark(draw, figure_id, layout, files[dark_path], finish, proof)
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
        slide_subscripts(fig)  # checked as plain text: a subscript drawn smaller only leaves more room
        return png_bytes(fig, SLIDE_PX[0]), text_record(layout, smallest)
    finally:
        plt.close(fig)
