"""Subscripts in a plot's SVG text: ``γ_K`` in a label is drawn as γ with K set below its baseline.

A plot's labels are plain text, not mathtext, whose scripts matplotlib
draws at 0.7 of the text's size: under the smallest size a layout may draw
(:mod:`figures.mpl_text_sizes`).  A label writes a subscript as TeX does,
``N_c`` or ``‖C‖_{F}`` (one letter or digit, or a braced group), and the SVG
gets it lowered by :data:`LOWERED_EM` at the text's own size, in a
``<tspan>``; the text after it is raised back.  Matplotlib laid the label
out with the underscore in it, so it ends about half a character short of
where it was measured: never past it.  The slide PNG, which matplotlib draws
itself, keeps the underscore.
"""

from __future__ import annotations

import re

LOWERED_EM = 0.3
"""How far a subscript sits below the text's baseline, in em (about where TeX puts one)."""
TEXT = re.compile(r"(<text\b[^>]*>)([^<]*)(</text>)")
"""A text element as matplotlib writes one (``svg.fonttype: none``): its text, no element inside."""
SUBSCRIPT = re.compile(r"(?<=[^\s_])_(\{([^{}_]+)\}|(\w))")
"""A TeX subscript after a character of the text: one letter or digit, or a braced group."""


def _lowered(text: str) -> str:
    """The text with each subscript in a ``<tspan>`` lowered by :data:`LOWERED_EM`, the rest at the baseline."""
    pieces, end = [], 0
    for found in SUBSCRIPT.finditer(text):
        script = found.group(2) or found.group(3)
        pieces.append(f'{text[end:found.start()]}<tspan dy="{LOWERED_EM}em">{script}</tspan>'
                      f'<tspan dy="-{LOWERED_EM}em">')
        end = found.end()
    if not pieces:
        return text
    return "".join(pieces) + text[end:] + "</tspan>" * (len(pieces))


def subscripts(svg: str) -> str:
    """Every ``<text>`` of a matplotlib SVG with its TeX subscripts drawn as subscripts; other text as it was.

    Each subscript's ``<tspan>`` is followed by one for the rest of the text, back on the baseline; the
    tspans that raise the text back are nested, one in another, so each one's offset adds to those before.
    """
    return TEXT.sub(lambda m: m.group(1) + _lowered(m.group(2)) + m.group(3), svg)
