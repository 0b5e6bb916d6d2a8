"""The race's styling: inline styles of the series (from the looks table) and the SVG's style sheet.

An inline SVG's ``<style>`` applies to the whole page, so every selector
starts with the SVG's id.  Elements inside ``<defs>`` get ``style``
attributes instead, because page selectors do not reach into ``<use>``
copies.  Colours are the site's ``--look-*`` custom properties with the
light palette as fallback; the standalone file carries its own dark scheme.
"""

from __future__ import annotations

from ..looks import DARK, LOOKS, css_properties, css_variable
from .layout import NARROW, NARROW_BELOW, NARROW_HEIGHT, WIDTH, num

FONT = 'var(--md-text-font-family,system-ui),system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif'
"""The site's text font where there is one, else the system's."""
CURSOR_DASH = "2 3"
"""The reveal's cursor: a dotted guide, not a series."""
STALL_DASH = "6 4"
"""The format's stall level: a dashed guide, not a series."""


def series_stroke(s: str) -> str:
    """Inline style of a series' line: colour, width and dash pattern from its look."""
    look = LOOKS[s]
    return f"fill:none;stroke:{css_variable(s)};stroke-width:{look.width:g};stroke-dasharray:{look.dasharray()}"


def series_fill(s: str) -> str:
    """Inline style of a series' markers and end dot: its colour, edged with the background."""
    return f"fill:{css_variable(s)};stroke:{css_variable('bg')};stroke-width:1.2"


def guide_stroke(ink: str, width: float, dash: str = "") -> str:
    """Inline style of a grid, axis or guide line in the palette colour ``ink``."""
    dashes = f";stroke-dasharray:{dash}" if dash else ""
    return f"fill:none;stroke:{css_variable(ink)};stroke-width:{width:g}{dashes}"


def dark_properties() -> str:
    """The dark palette's ``--look-*`` declarations, every one, as the site's looks.css has them."""
    return ";".join(f"--look-{k}:{v}" for k, v in css_properties(DARK).items())


def css(fid: str, standalone: bool) -> str:
    """The SVG's style sheet; every selector starts with ``#{fid}-svg``.

    Still parts show, animated parts hide and the reveal clip goes under
    reduced motion and in print.  The narrow layout replaces the wide one in
    a narrow ``race`` container (race.css makes ``.race`` one) or, failing
    that, on a narrow screen.  Standalone files get a dark scheme of their own.
    """
    root = f"#{fid}-svg"
    rules = [
        ("", f"font-family:{FONT};font-size:14px;font-variant-numeric:tabular-nums"),
        (" text", f"fill:{css_variable('text')}"),
        (" .muted", f"fill:{css_variable('muted')}"),
        (" .head", "font-size:15px;font-weight:700"),
        (" .count", "font-size:22px;font-weight:700"),
        (" .fin", "font-weight:700"),
        (" .halo", f"paint-order:stroke;stroke:{css_variable('bg')};stroke-width:4px;stroke-linejoin:round"),
        (" .cursor", guide_stroke("axis", 1, CURSOR_DASH)),
        (" .lead", guide_stroke("axis", 1)),
        (" .bg", f"fill:{css_variable('bg')}"),
    ]
    sheet = "".join(f"{root}{sel}{{{decl}}}" for sel, decl in rules)
    sheet += f"{root} .still,{root} .narrow{{display:none}}"
    still = f"{root} .lines{{clip-path:none}}{root} .anim{{display:none}}{root} .still{{display:inline}}"
    sheet += f"@media (prefers-reduced-motion:reduce){{{still}}}@media print{{{still}}}"
    if standalone:
        return sheet + f"@media (prefers-color-scheme:dark){{{root}{{{dark_properties()}}}}}"
    narrow = (f"{root}{{aspect-ratio:{WIDTH}/{NARROW_HEIGHT}}}{root} .wide{{display:none}}"
              f"{root} .narrow{{display:inline}}{root} .narrow text{{font-size:{num(NARROW.font)}px}}"
              f"{root} .narrow .count{{font-size:28px}}")
    return sheet + (f"@container race (max-width:{NARROW_BELOW}px){{{narrow}}}"
                    f"@media (max-width:480px){{{narrow}}}")
