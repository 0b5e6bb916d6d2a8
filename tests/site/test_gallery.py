"""The teaching page's gallery lists every figure of the registry with each of its downloads (issue 39).

What each record should list is read from the built site: the files the
contract names for its id (``figures/<id>.svg``, ``-dark.svg``,
``-narrow.svg``, ``-narrow-dark.svg``, ``.png``, ``.csv``) that exist.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from figures.build import registry
from figures.contract import FigureFiles
from htmlscan import Page

FIELDS = ("svg", "dark_svg", "narrow_svg", "narrow_dark_svg", "png", "csv")


def _gallery(site: Path) -> dict[str, list[str]]:
    """Record id -> the site paths its gallery item links, from the teaching page."""
    html = (site / "teaching.html").read_text(encoding="utf-8")
    start = html.index('<ul class="fpsum-gallery">')
    items = re.findall(r"<li[^>]*><code>([a-z0-9-]+)</code>:(.*?)</li>", html[start:html.index("</ul>", start)], re.S)
    return {record_id: [posixpath.normpath(a["href"]) for a in Page(links).find("a")] for record_id, links in items}


def test_the_gallery_lists_every_figure_with_each_of_its_files(site_dir: Path) -> None:
    """Each record with files, in registry order, with every one of them and nothing else; each link a download
    of a file the site has.  Every figure a page shows is there.
    """
    gallery = _gallery(site_dir)
    expected: dict[str, list[str]] = {}
    for record in registry():
        paths = [str(getattr(FigureFiles.of(record.id), field)) for field in FIELDS]
        present = [path for path in paths if (site_dir / path).is_file()]
        if present:
            expected[record.id] = present
    assert list(gallery) == list(expected)
    assert gallery == expected
    shown = {anchor.removeprefix("fig-") for page in site_dir.glob("*.html")
             for anchor in re.findall(r'<figure [^>]*id="(fig-[a-z0-9-]+)"', page.read_text(encoding="utf-8"))}
    assert shown and shown <= set(gallery), shown - set(gallery)
    teaching = Page((site_dir / "teaching.html").read_text(encoding="utf-8"))
    links = [a for a in teaching.find("a") if a.get("href", "").startswith("figures/")]
    assert links and all("download" in a for a in links)


def test_the_gallery_says_which_files_races_and_tables_have(site_dir: Path) -> None:
    """The page's words: a static plot has all six files, a race no dark or narrow SVG, a table only its CSV."""
    gallery = _gallery(site_dir)
    assert gallery["error-vs-n"] == [str(getattr(FigureFiles.of("error-vs-n"), f)) for f in FIELDS]
    race = FigureFiles.of("race-fp16-uniform")
    assert gallery["race-fp16-uniform"] == [race.svg, race.png, race.csv]
    assert gallery["formats-table"] == [FigureFiles.of("formats-table").csv]
