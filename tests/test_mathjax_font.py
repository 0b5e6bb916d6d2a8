"""MathJax's SVG font as the site publishes it, split (hooks/serve_mathjax.py), and the glyph guess (mathjax_glyphs).

No outline is lost or doubled by the split, and the guess from a formula's
TeX names the glyphs MathJax draws for it: letters in their math italic
form, commands through MathJax's TeX tables, big operators and stretched
delimiters in their large sizes.  (That the worker then draws every page's
formulas exactly as the whole font does is checked in chromium:
tests/test_page_speed.py.)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: its hooks/
from hooks.mathjax_glyphs import GlyphGuess, styled  # noqa: E402
from hooks.serve_mathjax import ADD_PATHS, ES5, FONT, SvgFont, split_font  # noqa: E402


def font() -> SvgFont:
    return split_font()[0]


def guess() -> GlyphGuess:
    return split_font()[1]


def test_the_split_font_keeps_every_outline_once() -> None:
    """The measurements and the outlines put back together are the font, byte for byte; the blocks hold each once."""
    original = (ES5 / FONT).read_text(encoding="utf-8")
    split = font()
    assert all(split.lazy[m.end()] == "}" for m in ADD_PATHS.finditer(split.lazy)), "tex-lazy.js holds outlines"

    def outlines(call: re.Match[str]) -> str:
        table = split.outlines[call.group(1)]
        return call.group(0) + ",".join(f"{code}:{json.dumps(path)}" for code, path in table.items())

    rebuilt = ADD_PATHS.sub(outlines, split.lazy)
    assert rebuilt == original
    in_blocks = [(name.rsplit("-", 1)[0], int(code)) for name, text in split.block_files().items()
                 for code in re.findall(r'"(\d+)":', text)]
    assert len(in_blocks) == len(set(in_blocks)) == sum(len(codes) for codes in split.outlines.values()) > 2000


def test_the_guess_names_the_glyphs_of_a_formula() -> None:
    glyphs = guess().glyphs([r"\hat{s}_n \le \gamma_{n-1} \sum_{i=1}^n |x_i|"])
    assert ("normal", ord("\u2264")) in glyphs  # \le, from MathJax's table of operators
    assert ("normal", styled("x", "ITALIC")) in glyphs and ("normal", styled("\u03b3", "ITALIC")) in glyphs
    assert ("normal", 0x2212) in glyphs  # the minus sign TeX sets for "-"
    assert {("smallop", 0x2211), ("largeop", 0x2211)} <= glyphs  # \sum inline and displayed
    assert ("normal", ord("1")) in glyphs and ("normal", ord("|")) in glyphs


def test_the_guess_sets_text_upright_and_math_alphabets_in_their_letters() -> None:
    glyphs = guess().glyphs([r"\mathbb{E}[X] + \operatorname{fl}(a) + \text{ok}"])
    assert ("normal", 0x1D53C) in glyphs  # MATHEMATICAL DOUBLE-STRUCK CAPITAL E
    assert {("normal", ord(c)) for c in "flok"} <= glyphs


def test_the_guess_has_a_stretched_delimiters_pieces_and_sizes() -> None:
    glyphs = guess().glyphs([r"\left\lceil \frac{a}{b} \right\rceil", r"\begin{cases} 1 & x \\ 2 & y \end{cases}"])
    assert {("texSize4", 0x2308), ("texSize3", 0x2309)} <= glyphs
    assert {("texSize4", c) for c in (0x23A7, 0x23A8, 0x23A9, 0x23AA)} <= glyphs  # the curly brace's pieces
    plain = guess().glyphs([r"(a + b)"])
    assert not any(table.startswith("texSize") for table, _ in plain), "a delimiter that does not stretch"
