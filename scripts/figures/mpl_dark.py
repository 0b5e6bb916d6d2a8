"""A figure's dark SVG, made from its light one by swapping each colour for its dark counterpart.

A figure is drawn once, in the light palette; its palettes differ in
colour only (tested on real figures), so the dark file needs no second
drawing.
"""

from __future__ import annotations

import re

from .looks import dark_colours

SVG_COLOUR = re.compile(rb"#[0-9a-fA-F]{6}(?![0-9a-zA-Z_-])")
"""A colour in matplotlib's SVG (``fill: #c0392b``); links to ids never match: an id starts with m, p or h
(``url(#p3623274f2)``)."""


class RecolourError(ValueError):
    """A light figure has something its dark one cannot be made from by changing colours."""


def dark_svg(svg: bytes, dark: dict[str, str] | None = None) -> bytes:
    """The dark palette's SVG of a figure drawn in the light palette: each colour swapped for its dark one.

    A figure's palettes differ in colour only (tested on real figures): same
    texts, lines and layout.  ``dark`` maps lower-case light colours to dark
    ones (:func:`figures.looks.dark_colours` by default).  ``RecolourError``
    naming the colour if one has no dark counterpart (a colour drawn outside
    the tables of ``figures.looks``), and for an embedded raster image, whose
    pixels no swap of colours reaches.  The root ``<svg>`` also gets
    ``color-scheme: dark``: a browser that opens the file on its own paints a
    dark canvas behind it, not white (in an ``<img>`` its background stays
    transparent).
    """
    table = dark_colours() if dark is None else dark
    if b"<image" in svg:
        raise RecolourError("the figure embeds a raster image, which cannot be recoloured for the dark palette")

    def swap(colour: re.Match[bytes]) -> bytes:
        light = colour.group().decode().lower()
        if light not in table:
            raise RecolourError(f"the colour {light} has no dark counterpart: draw it from a table of figures.looks")
        return table[light].encode()

    return with_root_style(SVG_COLOUR.sub(swap, svg), b"color-scheme: dark")


ROOT_TAG = re.compile(rb"<svg\b[^>]*>")
ROOT_STYLE = re.compile(rb'\sstyle="([^"]*)"')


def with_root_style(svg: bytes, declaration: bytes) -> bytes:
    """``svg`` with ``declaration`` (``color-scheme: dark``) added to its root ``<svg>``'s style attribute.

    The attribute is made if the root has none; an SVG fragment without a
    root ``<svg>`` comes back unchanged.
    """
    root = ROOT_TAG.search(svg)
    if root is None:
        return svg
    tag = root.group()
    style = ROOT_STYLE.search(tag)
    if style is None:
        new = tag.replace(b"<svg", b'<svg style="' + declaration + b'"', 1)
    else:
        joined = b"; ".join(part for part in (style.group(1).rstrip(b"; "), declaration) if part)
        new = tag[:style.start()] + b' style="' + joined + b'"' + tag[style.end():]
    return svg[:root.start()] + new + svg[root.end():]
