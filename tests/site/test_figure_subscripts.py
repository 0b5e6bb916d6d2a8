"""No figure shows a reader a TeX subscript written out: ``γ_K`` in a label is drawn as γ with a lowered K.

Issue 39: a legend read "γ_K·κ", its underscore and all.  Every text of
every figure's SVG (static plots in both palettes and layouts, races, their
inline copies in the pages) and every text ``<id>-text.json`` records is
read; an underscore between a character and a letter, digit or brace is a
subscript written as TeX.  :mod:`figures.mpl_subscripts` draws them.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from browsing import doc_pages
from figures.mpl_subscripts import slide_subscripts, subscripts

RAW_SUBSCRIPT = re.compile(r"\S_[\w{]")
"""A subscript as TeX writes it, after any character: ``γ_K``, ``N_c``, ``‖C‖_{F}``."""
SVG = "{http://www.w3.org/2000/svg}"


def svg_texts(svg: str) -> list[str]:
    """The text of every ``<text>`` element of an SVG document, its tspans' text included."""
    root = ET.fromstring(svg)
    return ["".join(text.itertext()) for text in root.iter(f"{SVG}text")]


def json_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in json_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in json_strings(v)]
    return []


def test_no_figure_text_holds_a_subscript_written_out(site_dir: Path) -> None:
    figures = sorted((site_dir / "figures").glob("*.svg"))
    texts = sorted((site_dir / "figures").glob("*-text.json"))
    assert len(figures) > 40 and len(texts) > 10
    found = [(svg.name, text) for svg in figures for text in svg_texts(svg.read_text(encoding="utf-8"))
             if RAW_SUBSCRIPT.search(text)]
    found += [(record.name, text) for record in texts
              for text in json_strings(json.loads(record.read_text(encoding="utf-8"))) if RAW_SUBSCRIPT.search(text)]
    for page in doc_pages():  # the races, drawn inline in their pages
        html = (site_dir / page).read_text(encoding="utf-8")
        for text in re.findall(r"<text\b[^>]*>(.*?)</text>", html, re.S):
            if RAW_SUBSCRIPT.search(re.sub(r"<[^>]+>", "", text)):
                found.append((page, text))
    assert found == [], f"TeX subscripts a reader sees as written (file, text): {found[:10]}"


def test_a_subscript_is_lowered_and_the_text_after_it_raised_back() -> None:
    """One letter, or a braced group, goes into a tspan set 0.3 em below the line; what follows is set back
    on it (the offsets add up to nothing); text without one, and an underscore after a space, stay as written.
    """
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><text x="1" y="2">bound γ_K·κ</text>'
           '<text x="1" y="3">‖C‖_{F} / ‖C‖_F</text><text>a _b, plain</text></svg>')
    drawn = subscripts(svg)
    root = ET.fromstring(drawn)
    first, second, third = root.iter(f"{SVG}text")
    assert "".join(first.itertext()) == "bound γK·κ" and "".join(second.itertext()) == "‖C‖F / ‖C‖F"
    assert ET.tostring(third, encoding="unicode").endswith(">a _b, plain</ns0:text>")
    for text in (first, second):
        shifts = [(t.text, t.get("dy")) for t in text.iter(f"{SVG}tspan")]
        lowered = [t for t, dy in shifts if dy == "0.3em"]
        assert lowered == (["K"] if text is first else ["F", "F"]), shifts
        assert sum(float(dy.removesuffix("em")) for _, dy in shifts) == 0


def test_the_slide_draws_each_subscript_as_a_subscript_and_no_underscore() -> None:
    """The slide PNG is drawn by matplotlib, not from the SVG: each text with a TeX subscript is given to it as
    mathtext, which draws the script smaller and lower, no underscore; the words around it stay plain text.
    Checked on the labels the figures use, parsed as matplotlib lays mathtext out.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.mathtext import MathTextParser

    labels = ["bound γ_K·κ (input-format accumulator)", "‖Ĉ − C‖_F / ‖C‖_F", "every N_c products", "plain text"]
    fig, ax = plt.subplots()
    try:
        for i, label in enumerate(labels):
            ax.text(0, i, label)
        slide_subscripts(fig)
        drawn = [text.get_text() for text in ax.texts]
    finally:
        plt.close(fig)
    assert drawn[3] == "plain text"
    assert drawn[0].startswith("bound $") and drawn[0].endswith("$ (input-format accumulator)")
    parser = MathTextParser("path")
    for shown in drawn[:3]:
        for math in re.findall(r"\$(.*?)\$", shown):
            glyphs = parser.parse(f"${math}$", dpi=72).glyphs
            assert "_" not in [chr(glyph[2]) for glyph in glyphs], shown
            sizes = {glyph[1] for glyph in glyphs}
            assert len(sizes) == 2, f"{shown}: no smaller script drawn"
        assert not RAW_SUBSCRIPT.search(re.sub(r"\$.*?\$", "", shown)), shown


def test_no_caption_writes_a_subscript_out(site_dir: Path) -> None:
    """A caption is HTML: a subscript is a ``<sub>``, never TeX's underscore (code, where ``_`` is part of a
    name, is left out).
    """
    found = []
    for page in doc_pages():
        html = (site_dir / page).read_text(encoding="utf-8")
        for caption in re.findall(r"<figcaption>(.*?)</figcaption>", html, re.S):
            text = re.sub(r"<[^>]+>", "", re.sub(r"<code>.*?</code>|<a [^>]*>", " ", caption, flags=re.S))
            found += [(page, hit) for hit in re.findall(r"\S*\S_[\w{]\S*", text)]
    assert found == [], f"TeX subscripts in captions (page, word): {found[:10]}"
