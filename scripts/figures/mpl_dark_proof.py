"""The proof, made in a build that asks for it, that each dark SVG is what drawing the figure dark gives.

A figure's dark SVG is its light one recoloured (:func:`figures.mpl_dark.dark_svg`),
which is right only if the palettes differ in colour alone for that figure.
With :data:`PROOF_ENV` naming a file, :func:`figures.mpl_render.render` draws each
layout again in the dark palette, compares the SVG it saves with the recoloured
one (but for the ids matplotlib hashes from a style's colours) and, where they
agree, adds a line ``<figure id> <layout>`` to that file; where they do not, the
build stops naming the figure and the layout.  The tests' cold build asks for
it (tests/conftest.py, ``built_copy``), so every static figure is proven there;
a reader's build skips the extra drawing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .looks import DARK, Palette
from .mpl_dark import with_root_style
from .mpl_files import SVG_RC, svg_bytes
from .mpl_style import style_axes
from .variants import Layout

PROOF_ENV = "FPSUM_DARK_PROOF"
"""Names the file a build lists its proven figure layouts in; unset, nothing is drawn twice."""

HASHED_ID = re.compile(rb"\b[mph][0-9a-f]{10}\b")
"""An id matplotlib makes from a hash of a style, colours included (markers, clip paths, hatches)."""


class DarkDrawingError(ValueError):
    """The figure's dark drawing is not its light one recoloured: the palettes differ in more than colour."""


def proof_file() -> Path | None:
    """The file :data:`PROOF_ENV` names, or None when the build does not ask for the proof."""
    named = os.environ.get(PROOF_ENV)
    return Path(named) if named else None


def prove_dark(draw: Callable[[Palette, Layout], Figure], figure_id: str, layout: Layout, recoloured: bytes,
               finish: Callable[[bytes], bytes], proof: Path) -> None:
    """Draw ``figure_id`` in the dark palette and ``layout`` and compare its SVG with ``recoloured``.

    ``finish`` does to the drawn SVG what was done to the light one before it was
    recoloured (the narrow layout's rule for a window of its own).  On agreement a
    line is appended to ``proof`` (one short write: the builds' processes append
    to it side by side); otherwise :class:`DarkDrawingError`.
    """
    with plt.rc_context(SVG_RC | {"font.size": layout.font_pt}):
        fig = draw(DARK, layout)
        try:
            style_axes(fig, DARK)
            drawn = svg_bytes(fig)
        finally:
            plt.close(fig)
    # Beside the colours, the dark file asks for a dark canvas.
    drawn = finish(with_root_style(drawn, b"color-scheme: dark"))
    if HASHED_ID.sub(b"id", recoloured) != HASHED_ID.sub(b"id", drawn):
        raise DarkDrawingError(f"figure {figure_id!r}, {layout.name} layout: drawn in the dark palette it differs "
                               "from its light drawing recoloured (the palettes must differ in colour only)")
    with proof.open("a", encoding="utf-8") as listing:
        listing.write(f"{figure_id} {layout.name}\n")
