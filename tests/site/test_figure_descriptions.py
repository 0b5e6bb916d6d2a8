"""Every figure says what it shows: its text alternative names what a reader would otherwise only see."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browsing import (
    all_pages,
    built_html,
)
from htmlscan import Page as HtmlPage

DIGIT = re.compile(r"\d")

PAGES = all_pages()


@pytest.mark.parametrize("name", PAGES)
def test_every_figure_says_what_it_shows(site_dir: Path, name: str) -> None:
    """Races: an SVG of role img named by its <title> and described by its <desc>; images: real alt text.

    A text alternative that says what a figure shows quotes its numbers: each
    one must hold digits and more than a few words.
    """
    html = built_html(site_dir, name)
    parsed = HtmlPage(html)
    for attrs in parsed.find("svg", class_="race__svg"):
        fid = attrs["id"]
        assert attrs.get("role") == "img", fid
        labels = attrs.get("aria-labelledby", "").split()
        assert len(labels) == 2, f"{fid} is not named and described by its title and desc"
        title = re.search(rf'<title id="{labels[0]}">(.*?)</title>', html, re.S)
        desc = re.search(rf'<desc id="{labels[1]}">(.*?)</desc>', html, re.S)
        assert title and desc, fid
        assert len(title.group(1).split()) >= 5 and DIGIT.search(title.group(1)), title.group(1)
        assert len(desc.group(1).split()) >= 10 and DIGIT.search(desc.group(1)), desc.group(1)
    for tag, attrs in parsed.tags:
        if tag == "img" and "md-logo" not in attrs.get("class", ""):
            alt = attrs.get("alt", "")
            assert len(alt.split()) >= 8 and DIGIT.search(alt), f"{attrs.get('src')}: alt text {alt!r}"
