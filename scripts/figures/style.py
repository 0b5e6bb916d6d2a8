"""One look for every figure: method colours, dash patterns and the two palettes."""

from __future__ import annotations

from dataclasses import dataclass

# Colours pass WCAG AA (3:1 for graphics) on white and on mkdocs-material's
# slate background; the dash patterns tell the lines apart without colour.
METHOD_STYLE: dict[str, dict[str, tuple[str, str] | str]] = {
    "naive": {"colour": ("#c62828", "#ff8a80"), "dash": "solid"},
    "wide": {"colour": ("#2e7d32", "#81c784"), "dash": "dashdot"},
    "kahan": {"colour": ("#1565c0", "#82b1ff"), "dash": "dashed"},
    "pairwise": {"colour": ("#6a1b9a", "#ce93d8"), "dash": "dotted"},
    "neumaier": {"colour": ("#00695c", "#80cbc4"), "dash": "dashed"},
    "blocked": {"colour": ("#2e7d32", "#81c784"), "dash": "solid"},
    "stochastic": {"colour": ("#6a1b9a", "#ce93d8"), "dash": "solid"},
    "exact": {"colour": ("#212121", "#eeeeee"), "dash": "solid"},
}


@dataclass(frozen=True)
class Palette:
    """Colours of one palette; ``index`` picks a method's colour from METHOD_STYLE."""

    name: str
    index: int
    text: str
    muted: str
    grid: str


LIGHT = Palette(name="light", index=0, text="#212121", muted="#5f6368", grid="#d9d9d9")
DARK = Palette(name="dark", index=1, text="#e8eaed", muted="#a8adb4", grid="#3c4043")
PALETTES = (LIGHT, DARK)


def method_colour(method: str, palette: Palette) -> str:
    """The colour of ``method``'s line in ``palette``."""
    colours = METHOD_STYLE[method]["colour"]
    assert isinstance(colours, tuple)
    return colours[palette.index]
