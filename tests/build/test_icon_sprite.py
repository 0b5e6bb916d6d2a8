"""mkdocs-material's icons come from views of one SVG file when served, and from their data URIs on disk.

hooks/theme/icon_sprite.py says why: each data-URI icon costs the page load an
SVG document of its own.  Checked here: the sprite holds every icon of the
theme's sheet, drawn as it was; the site's sheet points each icon's
property at its view, only under ``:root.fpsum-served``; a served page
makes no data-URI SVG request (a page from disk still does) and draws every
icon exactly as the page from disk draws it from its data URI.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from browsing import linked_sheets
from repocopy import REPO
from site_icons import site_icons

sys.path.insert(0, str(REPO))
from hooks.theme.icon_sprite import SERVED, Icon, sprite, theme_icons, unescape_css  # noqa: E402

SVG_NS = "{http://www.w3.org/2000/svg}"
RULE = re.compile(re.escape(f":root.{SERVED} {{") + r"(.*?)\}", re.S)
POINTER = re.compile(r'(--md-[\w-]+): url\("\.\./images/([^"#]+)#([^"]+)"\);')
"""How far (of 255) a pixel at an icon's edge may differ between the two ways of drawing it."""
"""A page with several of the theme's icons in its first screen (admonitions, the footer's arrows)."""

"""Each icon in a square box, in a wide box (contain) and stretched over a wide box: a view shown in a box of
another shape than its own must show none of its neighbours in the sprite."""
"""Where a served page finds the grid's rules: beside the theme's sheet, whose rules use the properties too.
Chromium resolves a relative ``url()`` held in a property against the sheet that uses the property."""


def served_pointers(site_dir: Path) -> dict[str, tuple[str, str]]:
    """The site's sheet's rules under ``:root.fpsum-served``: property -> (sprite file, view id)."""
    text = (site_dir / linked_sheets(site_dir, "index.html")[2]).read_text(encoding="utf-8")
    rules = RULE.findall(text)
    assert len(rules) == 1, f"{len(rules)} :root.{SERVED} rules in the site's sheet"
    return {prop: (name, view) for prop, name, view in POINTER.findall(rules[0])}


def test_css_escapes_are_undone() -> None:
    assert unescape_css(r"\3c !-- a \\ b \" \000041z") == '<!-- a \\ b " Az'


def test_a_data_uri_svg_outside_a_property_or_none_at_all_stops_the_build() -> None:
    svg = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'></svg>"
    icon = f'url("data:image/svg+xml;charset=utf-8,{svg}")'
    assert len(theme_icons(f":root{{--md-a-icon:{icon}}}")) == 1
    with pytest.raises(PluginError, match="1 of them"):
        theme_icons(f":root{{--md-a-icon:{icon}}}.b{{mask-image:{icon}}}")
    with pytest.raises(PluginError, match="0 data-URI"):
        theme_icons(":root{--md-a:1px}")


def test_an_icon_of_an_unknown_form_stops_the_build() -> None:
    with pytest.raises(PluginError, match="--md-x"):
        sprite([Icon("--md-x", "<svg xmlns='http://www.w3.org/2000/svg'><path d='M0 0h1'/></svg>")])


def test_the_sprite_holds_every_icon_of_the_theme_drawn_as_it_was(site_dir: Path) -> None:
    """Each view frames a nested ``<svg>`` of the icon's own size and viewBox, holding the icon's drawing."""
    icons = site_icons(site_dir)
    assert len(icons) >= 30, f"only {len(icons)} icons read from mkdocs-material's sheet"
    pointers = served_pointers(site_dir)
    assert set(pointers) == {icon.prop for icon in icons}, "properties without a view, or views of no property"
    names = {name for name, _ in pointers.values()}
    assert len(names) == 1, f"the icons point at several files: {names}"
    root = ET.parse(site_dir / "assets/images" / names.pop()).getroot()
    views = {view.get("id"): view.get("viewBox") for view in root.iter(f"{SVG_NS}view")}
    drawings = {(s.get("x"), s.get("y"), s.get("width"), s.get("height")): s for s in root.findall(f"{SVG_NS}svg")}
    boxes = []
    for icon in icons:
        view = pointers[icon.prop][1]
        assert view in views, f"{icon.prop}: no view {view!r} in the sprite"
        x, y, width, height = views[view].split()
        own = ET.fromstring(icon.svg)
        assert own.get("viewBox").split()[2:] == [width, height], f"{icon.prop}: the view's size is not the icon's"
        drawing = drawings.get((x, y, width, height))
        assert drawing is not None, f"{icon.prop}: nothing drawn where its view looks"
        assert drawing.get("viewBox") == own.get("viewBox"), f"{icon.prop}: drawn in another viewBox"
        assert [ET.tostring(child) for child in drawing] == [ET.tostring(child) for child in own], icon.prop
        boxes.append((float(x), float(y), float(width), float(height)))
    # No two different drawings within twice the largest icon of each other, in either direction.
    largest = max(max(w, h) for _, _, w, h in boxes)
    places = sorted({(x, y) for x, y, _, _ in boxes})
    for (x1, y1), (x2, y2) in zip(places, places[1:], strict=False):
        assert x2 - x1 >= 2 * largest and y2 - y1 >= 2 * largest, f"drawings at {(x1, y1)} and {(x2, y2)} too close"


