"""Patches mkdocs-material's style sheet: served, its icons are views of one SVG file, not an image document each.

mkdocs-material draws its CSS icons (an admonition's sign, a fold's
arrow, the footer's arrows, the table of contents' sign...) as masks whose
image is a ``data:`` URI, one per icon, held in a custom property of
``:root`` in its main style sheet.  Chromium makes each such URI a whole SVG
document of its own (a page and a frame), synchronously, in the style
recalculation that first needs it: on in-practice, six of them took about
95 ms of the page load on Lighthouse's mobile CPU.  Views of one file
(``icons.<hash>.svg#md-toc-icon``) share one document.

This hook reads every icon out of the theme's main sheet, writes them into
one SVG file, ``assets/images/icons.<hash>.svg`` (each icon a nested
``<svg>``, with a ``<view>`` whose ``id`` is the property's name without its
dashes), and adds a style sheet part, joined into the site's sheet by
one_stylesheet.py (so this hook runs before it), that points each property
at its view, under ``:root.fpsum-served``.

Only over HTTP: a mask image is fetched in CORS mode, which a page opened
from disk (``file://``, the class archive) cannot pass, and there the masks
would draw nothing.  The head script (hooks/theme/overrides/main.html) gives the
``<html>`` element the class :data:`SERVED` (which this hook hands it as
``config.extra.served_class``) when the page is not on disk;
without it (from disk, or without JavaScript) mkdocs-material's data URIs
stay in force.  tests/build/test_icon_sprite.py checks the sprite and both ways.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

THEME_SHEET = re.compile(r"assets/stylesheets/main\.[0-9a-f]+\.min\.css")
"""mkdocs-material's main style sheet, where its icons are."""
PART = "assets/stylesheets/icons.css"
"""The generated part of the site's sheet (joined by one_stylesheet.py, never published on its own)."""
SERVED = "fpsum-served"
"""The class of ``<html>`` on a page not opened from disk (set by the head script)."""

ICON = re.compile(r'(--md-[\w-]+):url\("data:image/svg\+xml;charset=utf-8,(<svg\b[^"]*</svg>)"\)')
"""A custom property whose value is a data-URI SVG, and that SVG (CSS-escaped, not percent-encoded)."""
DATA_SVG = "data:image/svg+xml"
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?|\\(.)")
ROOT = re.compile(r"\A<svg\s+xmlns='http://www\.w3\.org/2000/svg'\s+viewBox='([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)'>")
"""The opening tag every icon has: the SVG namespace and a viewBox, nothing else."""


@dataclass(frozen=True)
class Icon:
    """One icon: the custom property that holds it and the SVG it holds (CSS escapes undone)."""

    prop: str
    svg: str

    @property
    def view_id(self) -> str:
        """The ``<view>``'s id: the property's name without its two leading dashes."""
        return self.prop[2:]


def unescape_css(text: str) -> str:
    r"""``text`` with CSS escapes undone: ``\3c `` (hex, with its optional space) and ``\x`` (any other)."""
    return CSS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), text)


def theme_icons(css: str) -> list[Icon]:
    """The data-URI SVG icons of a style sheet's custom properties, in order.

    Raises ``PluginError`` if the sheet holds a ``data:image/svg+xml`` URI
    that is not such a property (a format this hook does not know), or holds
    none: the sprite would silently leave icons out.
    """
    icons = [Icon(prop, unescape_css(svg)) for prop, svg in ICON.findall(css)]
    if not icons or len(icons) != css.count(DATA_SVG):
        raise PluginError(f"icon_sprite: {css.count(DATA_SVG)} data-URI SVGs in mkdocs-material's sheet, "
                          f"{len(icons)} of them custom properties this hook reads: has the theme changed?")
    return icons


def sprite(icons: list[Icon]) -> str:
    """One SVG holding every icon as a nested ``<svg>`` at its own place, and a ``<view>`` of it per icon.

    The icons lie along a diagonal, each twice the largest icon's size from
    the next, so a view drawn in a box of another shape than its own (with
    room to spare on one side) shows none of its neighbours.  Identical
    icons under two properties get one drawing and two views.  Raises
    ``PluginError`` for an icon whose opening tag is not :data:`ROOT`'s.
    """
    boxes = []
    for icon in icons:
        root = ROOT.match(icon.svg)
        if root is None or not icon.svg.endswith("</svg>"):
            raise PluginError(f"icon_sprite: {icon.prop} is not an SVG of the form this hook reads: {icon.svg[:80]}")
        boxes.append((root.group(0), tuple(root.group(i) for i in range(1, 5))))
    step = 2 * max(max(float(box[2]), float(box[3])) for _, box in boxes)
    drawn: dict[str, float] = {}  # an icon's SVG -> where it is drawn
    parts = ['<svg xmlns="http://www.w3.org/2000/svg">']
    for icon, (head, (x, y, width, height)) in zip(icons, boxes, strict=True):
        if icon.svg not in drawn:
            drawn[icon.svg] = at = step * len(drawn)
            inner = icon.svg[len(head):-len("</svg>")]
            parts.append(f'<svg x="{at:g}" y="{at:g}" width="{width}" height="{height}" '
                         f'viewBox="{x} {y} {width} {height}">{inner}</svg>')
        at = drawn[icon.svg]
        parts.append(f'<view id="{icon.view_id}" viewBox="{at:g} {at:g} {width} {height}"/>')
    parts.append("</svg>\n")
    return "\n".join(parts)


def sprite_name(text: str) -> str:
    """The sprite's path for its text: ``assets/images/icons.<8 hex digits of its SHA-256>.svg``."""
    return f"assets/images/icons.{hashlib.sha256(text.encode()).hexdigest()[:8]}.svg"


def served_rules(icons: list[Icon], name: str) -> str:
    """The style sheet part: under ``:root.fpsum-served``, each property points at its view of ``name``.

    The address is relative to assets/stylesheets/, the folder of both the
    sheet that sets the properties (the joined one) and the sheet that uses
    them (mkdocs-material's): chromium resolves a ``url()`` held in a
    property against the sheet that uses it, so a rule elsewhere (a page's
    ``<style>``) would look for the file in the wrong place.
    """
    lines = ["/* mkdocs-material's icons as views of one file, when served (hooks/theme/icon_sprite.py). */",
             f":root.{SERVED} {{"]
    lines += [f'  {icon.prop}: url("../images/{name.rsplit("/", 1)[1]}#{icon.view_id}");' for icon in icons]
    lines.append("}")
    return "\n".join(lines) + "\n"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Name the served pages' class for the head script (overrides/main.html): :data:`SERVED`, owned here."""
    config.extra["served_class"] = SERVED
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Write the sprite and add its rules to ``extra_css`` (before one_stylesheet.py joins the parts)."""
    sheets = [file for file in files if THEME_SHEET.fullmatch(file.src_uri)]
    if len(sheets) != 1:
        raise PluginError(f"icon_sprite: expected one mkdocs-material main sheet, found {[f.src_uri for f in sheets]}")
    icons = theme_icons(sheets[0].content_string)
    text = sprite(icons)
    name = sprite_name(text)
    files.append(File.generated(config, name, content=text))
    files.append(File.generated(config, PART, content=served_rules(icons, name)))
    if PART not in config.extra_css:
        config.extra_css.append(PART)
    return files
