"""The screens every page is tested on: two phones, a portrait tablet, a desktop; each in both palettes.

Issue 24: a test that runs only at a desktop width has not tested the site.
Tests parametrize over :data:`SCREENS` and :data:`SCHEMES` (mkdocs-material's
palette names, switched with ``browsing.set_scheme``).
"""

from __future__ import annotations

from typing import NamedTuple


class Screen(NamedTuple):
    """A viewport in CSS pixels, and whether it is a phone (a touch screen, as Playwright's ``is_mobile``)."""

    width: int
    height: int
    phone: bool

    @property
    def viewport(self) -> dict[str, int]:
        """Playwright's ``viewport`` option for this screen."""
        return {"width": self.width, "height": self.height}

    @property
    def name(self) -> str:
        """``390x844``: the test id."""
        return f"{self.width}x{self.height}"


SCREENS = (Screen(360, 780, True), Screen(390, 844, True), Screen(768, 1024, False), Screen(1280, 800, False))
SCHEMES = ("default", "slate")
"""Light and dark, as ``data-md-color-scheme`` names them."""
