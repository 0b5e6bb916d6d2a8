"""A built page's text as a screen reader speaks it: each formula read as its label, code left out.

The formulas are drawn at build time (``hooks/content/formulas.py``) as SVG named in
words (``aria-label``); :func:`spoken_text` puts that name in the formula's
place, so a test can read a sentence with its formulas.  Code and pre
blocks are left out, as :class:`htmlscan.Page` leaves them out.
"""

from __future__ import annotations

import html as html_lib
import re

from htmlscan import Page

FORMULA = re.compile(
    r'<span class="arithmatex">\s*<mjx-container[^>]*aria-label="([^"]*)".*?</mjx-container>\s*</span>', re.DOTALL)


def spoken_text(html: str) -> str:
    """The page's article (not its navigation or table of contents) as text, every formula replaced by its name,
    whitespace folded to single spaces.  The whole page if it has no ``<article>``.
    """
    start, end = html.find("<article"), html.rfind("</article>")
    if start >= 0 and end > start:
        html = html[start:end]
    return Page(FORMULA.sub(lambda m: " " + html_lib.escape(html_lib.unescape(m.group(1))) + " ", html)).text


def section(text: str, start: str, end: str) -> str:
    """The part of ``text`` from the first ``start`` to the next ``end`` (``AssertionError`` if either is missing)."""
    i = text.index(start)
    return text[i:text.index(end, i + len(start))]


CODE = re.compile(r"<code[^>]*>(.*?)</code>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def code_texts(html: str) -> list[str]:
    """The text of every ``<code>`` element (inline or a highlighted block), its markup taken out."""
    return [html_lib.unescape(TAG.sub("", m.group(1))) for m in CODE.finditer(html)]
