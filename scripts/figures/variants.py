"""The layouts a static figure is drawn in: wide for a desktop, narrow for a phone, and a 16:9 slide.

A figure's SVG is drawn at 72 dpi, so its text is drawn at its font size in
points, in SVG units; the browser scales the whole drawing to the width it
shows it at, so a text reads at ``font_pt x shown_width / svg_width`` CSS px.
Each layout is therefore drawn with the font size that keeps its smallest
text at :data:`MIN_TEXT_PX` at the narrowest width it is ever shown at.

The widths come from mkdocs-material's content column, measured in chromium
(the article's content box, viewport width to the left):

- below 960 px the column is the viewport less 32 px: 328 px at 360;
- at 960 px the table of contents appears beside it (686 px), at 1220 px the
  navigation too (688 px up to 1600, wider beyond).

So below :data:`NARROW_BELOW_PX` the narrow layout is served (at least 328 px
wide), and from there up the wide one (at least 686 px wide).  The browser
picks one with ``<picture>`` (``figures.html``); a phone fetches only the narrow file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

MIN_TEXT_PX = 11.0
"""The smallest text a figure may draw on a screen, in CSS px."""
NARROWEST_COLUMN_PX = 328
"""mkdocs-material's content column at the narrowest screen the site is made for, 360 px."""
WIDE_COLUMN_PX = 686
"""The narrowest content column from :data:`NARROW_BELOW_PX` up (at 960 px, where the table of contents appears)."""
NARROW_BELOW_PX = 720
"""Screens narrower than this get the narrow layout: at 720 px the column is 688 px, wide enough for the wide one."""
NARROW_MEDIA = f"(max-width: {NARROW_BELOW_PX / 16 - 0.01:.2f}em)"
"""The media query of the narrow layout's ``<source>``: em in a media query are the browser's 16 px."""
SLIDE_PX = (1920, 1080)
"""A slide PNG: 16:9, drawn at this size without scaling."""
SLIDE_TEXT_PX = 24.0
"""The smallest text on a slide, in its pixels."""
SLIDE_SIZE = (10.0, 5.625)
"""A slide's figure size in inches (16:9); drawn at 192 dpi it is :data:`SLIDE_PX`."""
SHOWN_PX_PER_INCH = 100
"""The ``width`` and ``height`` attributes of a figure's image: 100 CSS px per inch of figure, as large
as it is shown on a wide screen (CSS keeps it within the column)."""
FONT_STEP_PT = 0.25
"""Font sizes are rounded up to a quarter point."""

LayoutName = Literal["wide", "narrow", "slide"]


@dataclass(frozen=True)
class Layout:
    """One drawing of a figure: its name, its size in inches, the narrowest it is shown and the text it needs there.

    ``shown_px`` is the narrowest width the drawing is shown at (CSS px for a
    screen, the PNG's pixels for a slide) and ``text_px`` the smallest text it
    must draw at that width.  A drawing function reads ``narrow`` to stack its
    panels and thin its ticks; ``font_pt`` is matplotlib's ``font.size`` for
    it, the smallest text it may draw (``figures.mpl_render.render`` checks).
    """

    name: LayoutName
    size: tuple[float, float]
    shown_px: float
    text_px: float

    @property
    def narrow(self) -> bool:
        """Whether this is the phone's layout."""
        return self.name == "narrow"

    @property
    def font_pt(self) -> float:
        """The smallest font size in points that draws ``text_px`` at ``shown_px``, rounded up to a quarter point."""
        exact = self.text_px * 72 * self.size[0] / self.shown_px
        return math.ceil(exact / FONT_STEP_PT - 1e-9) * FONT_STEP_PT

    @property
    def html_size(self) -> tuple[int, int]:
        """The ``width`` and ``height`` attributes of the image of this layout."""
        return round(self.size[0] * SHOWN_PX_PER_INCH), round(self.size[1] * SHOWN_PX_PER_INCH)


@dataclass(frozen=True)
class Sizes:
    """A figure's sizes in inches: ``wide`` (a desktop), ``narrow`` (a phone) and ``slide`` (16:9 by default).

    ``ValueError`` for a slide that is not 16:9 and for a narrow layout as
    wide as the wide one (it would not be narrow).
    """

    wide: tuple[float, float]
    narrow: tuple[float, float]
    slide: tuple[float, float] = SLIDE_SIZE

    def __post_init__(self) -> None:
        if abs(self.slide[0] * 9 - self.slide[1] * 16) > 1e-9:
            raise ValueError(f"a slide must be 16:9, not {self.slide[0]} x {self.slide[1]} inches")
        if self.narrow[0] >= self.wide[0]:
            raise ValueError(f"the narrow layout ({self.narrow[0]} in) must be narrower than the wide one "
                             f"({self.wide[0]} in)")

    def layouts(self) -> tuple[Layout, Layout, Layout]:
        """The wide, narrow and slide layouts, each with the narrowest width it is shown at."""
        wide_px = self.wide[0] * SHOWN_PX_PER_INCH
        narrow_px = self.narrow[0] * SHOWN_PX_PER_INCH
        return (Layout("wide", self.wide, min(WIDE_COLUMN_PX, wide_px), MIN_TEXT_PX),
                Layout("narrow", self.narrow, min(NARROWEST_COLUMN_PX, narrow_px), MIN_TEXT_PX),
                Layout("slide", self.slide, SLIDE_PX[0], SLIDE_TEXT_PX))
