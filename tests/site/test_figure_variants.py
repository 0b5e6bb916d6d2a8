"""The built site's static figures come in a layout per screen, open large on a tap, and make 16:9 slides.

Fast layer: the built files and HTML, no browser (tests/browser/test_figure_text.py
measures the text as chromium draws it).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image

from browsing import doc_pages
from figures import variants

SLIDE_WIDTH, SLIDE_HEIGHT = 1920, 1080
"""The issue's slide: 16:9 at 1920 x 1080."""
SLIDE_TEXT_PX = 24.0
SCREEN_TEXT_PX = 11.0
FONT_SIZE = re.compile(r"font-size:\s*([0-9.]+)px")
VIEWBOX = re.compile(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"')


def _pngs(site_dir: Path) -> list[Path]:
    pngs = sorted((site_dir / "figures").glob("*.png"))
    assert len(pngs) >= 20, "the site's slides"
    return pngs


def test_every_slide_fits_16_9_at_1920_by_1080_without_shrinking(site_dir: Path) -> None:
    wrong = []
    for png in _pngs(site_dir):
        width, height = Image.open(png).size
        if width > SLIDE_WIDTH or height > SLIDE_HEIGHT or (width != SLIDE_WIDTH and height != SLIDE_HEIGHT):
            wrong.append(f"{png.name}: {width} x {height}")
    assert not wrong, "slides that do not fit 1920 x 1080 with one side equal: " + ", ".join(wrong)


def test_every_slide_draws_its_smallest_text_at_24_px_or_more(site_dir: Path) -> None:
    """The text sizes matplotlib measured as it drew the slide, recorded beside it (``<id>-text.json``)."""
    wrong = []
    for png in _pngs(site_dir):
        record = png.with_name(f"{png.stem}-text.json")
        if not record.is_file():
            wrong.append(f"{png.name}: no record of its text sizes")
            continue
        slide = json.loads(record.read_text())["slide"]
        assert slide["png_px"] == list(Image.open(png).size), f"{record.name} describes another drawing"
        if slide["smallest_font_px"] < SLIDE_TEXT_PX or slide["smallest_height_px"] < SLIDE_TEXT_PX:
            wrong.append(f"{png.name}: {slide['smallest_text']!r} at {slide['smallest_font_px']} px")
    assert not wrong, "slides with text under 24 px: " + "; ".join(wrong)


def _static_figures(site_dir: Path) -> list[str]:
    light = sorted(p.stem for p in (site_dir / "figures").glob("*.svg")
                   if not p.stem.endswith(("-dark", "-narrow")) and not p.stem.startswith("race-"))
    assert len(light) >= 15, "the site's static figures"
    return light


def smallest_font(svg: str) -> tuple[float, float]:
    """The smallest font size an SVG of matplotlib's writes (px, its user units) and its viewBox width."""
    box = VIEWBOX.search(svg)
    assert box, "a viewBox"
    sizes = [float(size) for size in FONT_SIZE.findall(svg)]
    assert sizes, "texts with their font sizes"
    return min(sizes), float(box[1])


def test_every_static_figure_has_a_narrow_layout_and_each_layout_reads_at_11_px(site_dir: Path) -> None:
    """Each SVG's smallest font, scaled to the narrowest width its layout is served at, is 11 px or more.

    (matplotlib draws every text of these SVGs with a ``font-size`` in its style and no scaling
    transform; tests/browser/test_figure_text.py measures the same in chromium, transforms included.)
    """
    wrong = []
    for figure_id in _static_figures(site_dir):
        for name, shown in (("", variants.WIDE_COLUMN_PX), ("-narrow", variants.NARROWEST_COLUMN_PX)):
            for palette in ("", "-dark"):
                path = site_dir / "figures" / f"{figure_id}{name}{palette}.svg"
                if not path.is_file():
                    wrong.append(f"{path.name} is missing")
                    continue
                size, width = smallest_font(path.read_text())
                if size * shown / width < SCREEN_TEXT_PX:
                    wrong.append(f"{path.name}: {size * shown / width:.2f} px at {shown} px wide")
    assert not wrong, "; ".join(wrong)


class _Figures(HTMLParser):
    """The static figures of a page: for each, its links, sources and images, as attribute mappings."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: list[dict[str, list[dict[str, str | None]]]] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "figure":
            self.figures.append({"a": [], "source": [], "img": [], "details": [], "id": [found]})
        elif self.figures and tag in ("a", "source", "img", "details"):
            self.figures[-1][tag].append(found)


@pytest.mark.parametrize("name", doc_pages())
def test_each_static_figure_is_a_picture_per_palette_that_opens_its_svg(site_dir: Path, name: str) -> None:
    """A phone's screen takes the narrow source; a tap opens the palette's SVG (not a download); the
    images load lazily; the caption's downloads stay downloads; a long caption is folded.
    """
    parser = _Figures()
    parser.feed((site_dir / name).read_text(encoding="utf-8"))
    static = [figure for figure in parser.figures if figure["img"]
              and not str(figure["img"][0].get("src", "")).split("/")[-1].startswith("race-")]
    for figure in static:
        figure_id = figure["id"][0]["id"]
        opens = [a for a in figure["a"] if "fpsum-figure__open" in str(a.get("class"))]
        assert len(opens) == 2, f"{figure_id}: a link per palette"
        assert all(str(a["href"]).endswith(".svg") and "download" not in a for a in opens), figure_id
        # Without JavaScript, each palette's wide SVG (figure_open.js switches to the narrow one a phone shows).
        stem = figure_id.removeprefix("fig-")
        assert {str(a["class"]).split()[-1]: str(a["href"]).rsplit("/", 1)[-1] for a in opens} == {
            "fpsum-figure__open--light": f"{stem}.svg", "fpsum-figure__open--dark": f"{stem}-dark.svg"}, figure_id
        assert len(figure["source"]) == 2, f"{figure_id}: a narrow source per palette"
        for source in figure["source"]:
            assert source.get("media") == variants.NARROW_MEDIA, figure_id
            assert str(source["srcset"]).endswith(("-narrow.svg", "-narrow-dark.svg")), figure_id
        assert all(img.get("loading") == "lazy" for img in figure["img"]), figure_id
        downloads = [a for a in figure["a"] if "download" in a]
        assert downloads and all(not str(a["href"]).endswith("-narrow.svg") for a in downloads), figure_id
        assert figure["details"], f"{figure_id}: the rest of the caption in a fold"
