"""WCAG 2's contrast ratio, the oracle of the tests that check a colour stands out on its background."""

from __future__ import annotations


def _luminance(colour: str) -> float:
    """Relative luminance of a ``#rrggbb`` colour (sRGB)."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours: 1 (the same) to 21 (black on white).

    Text needs 4.5 (AA), graphics 3.  WCAG 2.x prints the sRGB threshold as
    0.03928, sRGB's own is 0.04045: no 8-bit channel lies between them.
    """
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
