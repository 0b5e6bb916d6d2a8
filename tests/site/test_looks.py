"""One look per method: every built figure, web or download, light or dark, draws each method as the table says.

The table is ``figures.looks.LOOKS``.  These tests read the built files:
the generated style sheet, the matplotlib SVGs (each method's line carries
the gid ``look-<method>-<k>``), the races' SVGs (standalone and inline) and
every slide PNG, whose pixels must show the colours of the methods the
figure draws and of no other method.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from browsing import linked_css
from figures import races
from figures.build import registry
from figures.looks import DARK, LIGHT, LOOKS, Palette, css_properties
from figures.looks_css import SCHEMES
from figures.mpl_render import render
from figures.race.layout import SERIES as RACE_SERIES

SVG = "{http://www.w3.org/2000/svg}"
LOOK_ID = re.compile(r"look-([a-z]+)-\d+\Z")
PLOTS = [record.id for record in registry() if getattr(sys.modules[record.build.__module__], "render", None) is render]
"""The static figures: the records drawn through ``render``, each a light and a dark SVG."""
RACES = [record.id for record in registry() if record.build is races.build]


def style_of(element: ET.Element) -> dict[str, str]:
    """An element's ``style`` attribute as a mapping."""
    pairs = (part.split(":", 1) for part in (element.get("style") or "").split(";") if ":" in part)
    return {key.strip(): value.strip() for key, value in pairs}


def dash_in_widths(style: dict[str, str]) -> tuple[float, ...]:
    """The stroke's dash pattern divided by its width (the table's unit); empty for a solid line."""
    dasharray = style.get("stroke-dasharray", "none")
    if dasharray == "none":
        return ()
    width = float(style["stroke-width"])
    return tuple(round(float(d) / width, 3) for d in re.split(r"[ ,]+", dasharray.strip()))


def table_dash(method: str) -> tuple[float, ...]:
    return tuple(round(d, 3) for d in LOOKS[method].dash)


def static_svgs(site_dir: Path) -> list[tuple[Path, Palette]]:
    """Every matplotlib SVG of the site with its palette (the ``-dark`` file is the dark one)."""
    svgs = [p for p in sorted((site_dir / "figures").glob("*.svg")) if not p.name.startswith("race-")]
    assert len(svgs) >= 10, svgs
    return [(p, DARK if p.stem.endswith("-dark") else LIGHT) for p in svgs]


def method_lines(svg: Path) -> dict[str, list[dict[str, str]]]:
    """Per method, the styles of the paths in its ``look-<method>-<k>`` groups."""
    found: dict[str, list[dict[str, str]]] = {}
    for group in ET.parse(svg).getroot().iter(f"{SVG}g"):
        match = LOOK_ID.match(group.get("id", ""))
        if match:
            line = group.find(f"{SVG}path")
            assert line is not None, f"{svg.name}: {group.get('id')} has no line"
            found.setdefault(match.group(1), []).append(style_of(line))
    return found


def test_the_generated_style_sheet_is_the_table_in_both_schemes(site_dir: Path) -> None:
    """Every page gets the looks' colours, as the table has them, from the style sheets it links.

    The generated sheet (``contract.LOOKS_CSS``) reaches a page joined with the others
    (hooks/content/one_stylesheet.py).
    """
    for page in sorted(site_dir.glob("*.html")):
        css = linked_css(site_dir, page.name)
        for palette in (LIGHT, DARK):
            block = re.search(rf'\[data-md-color-scheme="{SCHEMES[palette.name]}"\]\s*\{{(.*?)\}}', css, re.S)
            assert block, f"{page.name}: no rule for the {palette.name} palette in its style sheets"
            declared = dict(re.findall(r"--look-([a-z]+):\s*(#[0-9a-f]{6})", block.group(1)))
            assert declared == css_properties(palette), page.name


@pytest.mark.parametrize("figure", PLOTS)
def test_every_plot_draws_its_methods_and_says_which(site_dir: Path, figure: str) -> None:
    """Each plot marks its methods' lines, in both palettes, with the same methods (a line in a method's colour
    that is not marked is found by the test below).
    """
    light = method_lines(site_dir / "figures" / f"{figure}.svg")
    dark = method_lines(site_dir / "figures" / f"{figure}-dark.svg")
    assert set(light) == set(dark), (figure, sorted(light), sorted(dark))


def test_every_plotted_method_line_has_the_tables_colour_and_dash(site_dir: Path) -> None:
    wrong = []
    for svg, palette in static_svgs(site_dir):
        for method, styles in method_lines(svg).items():
            look = LOOKS[method]
            for style in styles:
                if style.get("stroke") != look.colour(palette):
                    wrong.append(f"{svg.name}: {method} stroke {style.get('stroke')}, table {look.colour(palette)}")
                if dash_in_widths(style) != table_dash(method):
                    wrong.append(f"{svg.name}: {method} dash {dash_in_widths(style)}, table {table_dash(method)}")
    assert not wrong, "\n".join(wrong)


def test_no_plot_draws_a_line_in_the_colour_of_a_method_it_does_not_show(site_dir: Path) -> None:
    """A line in kahan's colour in a figure without Kahan is a method drawn in another's look."""
    stray = []
    for svg, palette in static_svgs(site_dir):
        shown = set(method_lines(svg))
        colours = {look.colour(palette): method for method, look in LOOKS.items() if method != "exact"}
        for path in ET.parse(svg).getroot().iter(f"{SVG}path"):
            method = colours.get(style_of(path).get("stroke", ""))
            if method is not None and method not in shown:
                stray.append(f"{svg.name}: a line in {method}'s colour, but no {method} line")
    assert not stray, "\n".join(stray)


def race_paths(svg_text: str) -> dict[str, dict[str, str]]:
    """Per race series, the style of its line: the path whose stroke is that series' custom property."""
    lines = {}
    for style in re.findall(r'<path style="([^"]*stroke:var\(--look-[a-z]+,[^"]*)"', svg_text):
        parsed = dict(part.split(":", 1) for part in style.split(";") if ":" in part)
        name = re.match(r"var\(--look-([a-z]+),", parsed["stroke"])
        assert name
        lines.setdefault(name.group(1), parsed)
    return lines


@pytest.mark.parametrize("race", RACES)
def test_race_lines_use_the_table_inline_and_standalone(site_dir: Path, race: str) -> None:
    standalone = (site_dir / "figures" / f"{race}.svg").read_text()
    page = next(p.read_text() for p in sorted(site_dir.glob("*.html")) if f'id="{race}"' in p.read_text())
    for where, text in (("standalone", standalone), ("page", page)):
        lines = race_paths(text)
        assert set(RACE_SERIES) <= set(lines), (where, sorted(lines))
        for method in RACE_SERIES:
            look, style = LOOKS[method], lines[method]
            assert style["stroke"] == f"var(--look-{method},{look.light})", (where, method, style)
            assert dash_in_widths(style) == table_dash(method), (where, method, style)
    dark = re.search(r"@media \(prefers-color-scheme:dark\)\{[^{]*\{([^}]*)\}", standalone)
    assert dark, "the standalone race has no dark scheme"
    declared = dict(re.findall(r"--look-([a-z]+):(#[0-9a-f]{6})", dark.group(1)))
    assert declared == css_properties(DARK)


def pixel_counts(png: Path, colours: dict[str, str]) -> dict[str, int]:
    """How many pixels of ``png`` have exactly each colour (line cores are drawn unblended)."""
    pixels = np.asarray(Image.open(png).convert("RGB")).reshape(-1, 3)
    packed = (pixels[:, 0].astype(np.int64) << 16) | (pixels[:, 1].astype(np.int64) << 8) | pixels[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    histogram = dict(zip(values.tolist(), counts.tolist()))
    return {name: histogram.get(int(colour[1:], 16), 0) for name, colour in colours.items()}


def test_every_slide_png_shows_its_methods_in_the_tables_light_colours(site_dir: Path) -> None:
    """The PNG download uses the page's colours: each drawn method's colour is there, no other method's."""
    wrong = []
    for png in sorted((site_dir / "figures").glob("*.png")):
        svg = png.with_suffix(".svg")
        drawn = set(RACE_SERIES) if png.stem.startswith("race-") else set(method_lines(svg))
        counts = pixel_counts(png, {m: look.light for m, look in LOOKS.items() if m != "exact"})
        for method, count in counts.items():
            if method in drawn and count < 30:
                wrong.append(f"{png.name}: {method} is drawn, but only {count} pixels have its colour")
            if method not in drawn and count > 5:
                wrong.append(f"{png.name}: {count} pixels in {method}'s colour, which it does not draw")
    assert not wrong, "\n".join(wrong)


def test_every_look_key_can_name_a_css_property() -> None:
    """A look's key becomes ``--look-<key>`` and the ids the tests read back (``look-<key>-N``): letters only."""
    assert [key for key in LOOKS if not re.fullmatch(r"[a-z]+", key)] == []
