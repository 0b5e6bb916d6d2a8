"""A group of looks that a page adds (scripts/figures/looks.py), held apart from every other look.

Each page that brings new lines (the weight updates, normalisation,
training) checks its group the same way: colours that no other look or
input look has, WCAG 3:1 against both palettes' backgrounds, a marker on
each, and, among the lines one figure draws together, dashes, markers and
colours that all differ.
"""

from __future__ import annotations

from collections.abc import Sequence

from figures.looks import DARK, INPUT_LOOKS, LIGHT, LOOKS
from wcag import contrast


def assert_looks_of_their_own(group: Sequence[str], drawn_together: Sequence[str]) -> None:
    """Fail naming the look key (or the attribute shared) where ``group``'s looks are not their own."""
    others = [look for key, look in LOOKS.items() if key not in group] + list(INPUT_LOOKS.values())
    taken = {colour for look in others for colour in (look.light, look.dark)}
    for key in group:
        look = LOOKS[key]
        assert look.light not in taken and look.dark not in taken, key
        assert contrast(look.light, LIGHT.background) >= 3 and contrast(look.dark, DARK.background) >= 3, key
        assert look.marker, key
    for attribute in ("dash", "marker", "light", "dark"):
        shared = {getattr(LOOKS[key], attribute) for key in drawn_together}
        assert len(shared) == len(drawn_together), attribute
