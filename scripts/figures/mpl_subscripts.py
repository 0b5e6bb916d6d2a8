"""Subscripts in a plot's SVG text: ``γ_K`` in a label is drawn as γ with K set below its baseline.

A plot's labels are plain text, not mathtext, whose scripts matplotlib
draws at 0.7 of the text's size: under the smallest size a layout may draw
(:mod:`figures.mpl_text_sizes`).  A label writes a subscript as TeX does,
``N_c`` or ``‖C‖_{F}`` (one letter or digit, or a braced group), and the SVG
gets it lowered by :data:`LOWERED_EM` at the text's own size, in a
``<tspan>``; the text after it is raised back.  Matplotlib laid the label
out with the underscore in it, so it ends about half a character short of
where it was measured: never past it.  The slide PNG, which matplotlib draws
itself, gets each word that holds a subscript as mathtext in the text's own
font (:func:`slide_subscripts`): at the slide's size its script, at 0.7 of
the text, stays far above the smallest size a slide may draw.
"""

from __future__ import annotations

import re

from matplotlib.figure import Figure
from matplotlib.text import Text

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


WORD = re.compile(r"\S+")


def _as_mathtext(text: str) -> str:
    r"""The text with each word that holds a subscript as ``$\mathregular{...}$`` (mathtext drops a space inside
    math, so only the word goes in); mathtext's own special characters in such a word are escaped.
    """
    def word(found: re.Match[str]) -> str:
        token = found.group(0)
        if not SUBSCRIPT.search(token):
            return token
        escaped = re.sub(r"([#%&~^])", r"\\\1", token)
        return f"$\\mathregular{{{escaped}}}$"

    return WORD.sub(word, text)


def slide_subscripts(fig: Figure) -> None:
    """Every text of ``fig`` that writes a TeX subscript and is not mathtext already drawn with it as a
    subscript (mathtext in the text's own font): for the slide PNG, which matplotlib draws itself.
    """
    for text in fig.findobj(Text):
        shown = text.get_text()
        if "$" not in shown and SUBSCRIPT.search(shown):
            text.set_text(_as_mathtext(shown))
