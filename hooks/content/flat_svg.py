"""MathJax's SVG with its nesting folded away: each glyph a ``<use>`` of its own, placed by one transform.

MathJax draws a formula as a tree of ``<g>`` elements, one per MathML node, each shifting or
scaling what it holds, with the glyphs (``<use>`` of an outline) at the leaves.  A browser
styles, and a page's DOM counts, every one of those groups, although all but the outermost
only move things.  ``flatten`` multiplies each leaf's transforms out, from the outermost
group down, and keeps the leaves alone, in their order (which is the order they are painted
in): the same outlines at the same places, to 1e-4 of a font unit, in about half the elements.

What is not folded, because it does more than move what it holds: the outermost group (its
colour, stroke and the flip of the y axis), a group with any attribute besides
``data-mml-node``, ``data-mjx-texclass`` and ``transform`` (a colour, a link, an error
mark), and a table (``mtable``), whose lines and cells MathJax's style rules find by their
parent groups; those keep their subtrees as MathJax drew them, under one combined transform.
A nested ``<svg>`` (a stretched delimiter, clipped to its box) takes no ``transform``: it
goes into a ``<g>`` that carries it.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
PREFIXES = {SVG_NS: "", XLINK_NS: "xlink:"}
MOVING_ONLY = {"data-mml-node", "data-mjx-texclass", "transform"}
"""The attributes of a group that only places what it holds (which is then folded into its leaves)."""
KEPT_WHOLE = {"mtable"}
"""MathML nodes whose groups MathJax's style rules select (math.css): kept, and their insides untouched."""
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
STEP = re.compile(r"\s*(translate|scale|matrix)\s*\(([^)]*)\)\s*")
DIGITS = 4
"""Decimals kept of a combined transform: MathJax writes one, a product of scales needs more."""

Matrix = tuple[float, float, float, float, float, float]
"""An SVG transform matrix (a, b, c, d, e, f): x' = a x + c y + e, y' = b x + d y + f."""
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def times(m: Matrix, n: Matrix) -> Matrix:
    """``m`` then ``n`` as SVG nests them: ``n`` applies first to a point (the inner transform)."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + c * q, b * p + d * q, a * r + c * s, b * r + d * s, a * t + c * u + e, b * t + d * u + f)


def parse_transform(text: str | None) -> Matrix:
    """The matrix of a ``transform`` attribute MathJax writes: translate, scale or matrix steps, in order.

    An empty or missing attribute is the identity; any other step (rotate, skew, which MathJax's SVG
    output does not write) raises ``ValueError``, so that nothing is folded wrongly.
    """
    matrix = IDENTITY
    rest = (text or "").strip()
    while rest:
        step = STEP.match(rest)
        if step is None:
            raise ValueError(f"transform not understood: {text!r}")
        name, values = step.group(1), [float(v) for v in NUMBER.findall(step.group(2))]
        if name == "translate" and len(values) in (1, 2):
            move: Matrix = (1.0, 0.0, 0.0, 1.0, values[0], values[1] if len(values) == 2 else 0.0)
        elif name == "scale" and len(values) in (1, 2):
            move = (values[0], 0.0, 0.0, values[-1], 0.0, 0.0)
        elif name == "matrix" and len(values) == 6:
            move = (values[0], values[1], values[2], values[3], values[4], values[5])
        else:
            raise ValueError(f"transform not understood: {text!r}")
        matrix = times(matrix, move)
        rest = rest[step.end():]
    return matrix


def number(value: float) -> str:
    """``value`` rounded to ``DIGITS`` decimals, with no trailing zeros (and never "-0")."""
    text = f"{round(value, DIGITS):.{DIGITS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def transform_text(m: Matrix) -> str | None:
    """The shortest attribute for ``m``: none for the identity, a translate when it only moves."""
    a, b, c, d, e, f = (round(v, DIGITS) for v in m)
    if (a, b, c, d) == (1, 0, 0, 1):
        return None if (e, f) == (0, 0) else f"translate({number(e)},{number(f)})"
    return "matrix(" + ",".join(number(v) for v in m) + ")"


def placed(element: ET.Element, m: Matrix) -> ET.Element:
    """``element`` with ``m`` (the transforms of the groups folded above it) combined into its own."""
    text = transform_text(times(m, parse_transform(element.get("transform"))))
    element.attrib.pop("transform", None)
    if element.tag != f"{{{SVG_NS}}}svg":
        if text:
            element.set("transform", text)
        return element
    if not text:
        return element
    holder = ET.Element(f"{{{SVG_NS}}}g", {"transform": text})
    holder.append(element)
    return holder


def folds(group: ET.Element) -> bool:
    """Whether ``group`` only places what it holds, so that its transform can go into its leaves."""
    return set(group.attrib) <= MOVING_ONLY and group.get("data-mml-node") not in KEPT_WHOLE


def leaves(parent: ET.Element, m: Matrix) -> list[ET.Element]:
    """What ``parent`` draws, with every folding group under it folded, in document (painting) order."""
    out: list[ET.Element] = []
    for child in parent:
        if child.tag == f"{{{SVG_NS}}}g" and folds(child):
            out.extend(leaves(child, times(m, parse_transform(child.get("transform")))))
        elif child.tag == f"{{{SVG_NS}}}g" and child.get("data-mml-node") not in KEPT_WHOLE:
            inside = leaves(child, IDENTITY)  # its own attributes (a colour) reach its leaves as before
            for old in list(child):
                child.remove(old)
            child.extend(inside)
            out.append(placed(child, m))
        else:
            out.append(placed(child, m))
    return out


def name_of(tag: str) -> str:
    """``{namespace}local`` as written in the page: SVG's names bare, xlink's with their prefix."""
    if tag.startswith("{"):
        namespace, local = tag[1:].split("}", 1)
        return PREFIXES.get(namespace, "") + local
    return tag


def serialized(element: ET.Element) -> str:
    """``element`` as HTML holds inline SVG: explicit end tags, attributes in their order, text escaped."""
    attributes = "".join(f' {name_of(k)}="{html.escape(v, quote=True)}"' for k, v in element.attrib.items())
    inside = html.escape(element.text or "", quote=False) + "".join(serialized(child) for child in element)
    tail = html.escape(element.tail or "", quote=False)
    return f"<{name_of(element.tag)}{attributes}>{inside}</{name_of(element.tag)}>{tail}"


def svg_bounds(container: str) -> tuple[int, int]:
    """Where the container's outermost ``<svg>`` starts and where its end tag ends (nested ones counted)."""
    start = container.find("<svg")
    if start < 0:
        raise ValueError("no <svg> in the formula's container")
    depth = 0
    for tag in re.finditer(r"<(/?)svg\b[^>]*>", container[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return start, start + tag.end()
    raise ValueError("the formula's <svg> is not closed")


def flatten(container: str) -> str:
    """MathJax's ``mjx-container`` with its drawing folded (see the module's docstring); the rest as it was.

    The outer ``<svg>`` start tag and all outside the drawing are kept byte for byte; only what the
    outermost group holds is rewritten.  ``ValueError`` if the drawing is not as MathJax writes it.
    """
    start, end = svg_bounds(container)
    root = ET.fromstring(container[start:end])
    if len(root) != 1 or root[0].tag != f"{{{SVG_NS}}}g":
        raise ValueError("the formula's <svg> does not hold one outermost group")
    top = root[0]
    drawn = leaves(top, IDENTITY)
    for old in list(top):
        top.remove(old)
    top.extend(drawn)
    open_tag = container[start:container.index(">", start) + 1]
    return container[:start] + open_tag + serialized(top) + "</svg>" + container[end:]
