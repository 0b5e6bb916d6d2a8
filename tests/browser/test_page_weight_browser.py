"""scripts/page_weight.py in chromium, on a small built fixture: what a page fetches before the reader scrolls."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from page_weight import page_weights

TOP_IMAGE = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>'


def gzipped(data: bytes) -> int:
    """Bytes of ``data`` as the bench's server sends it: gzip level 9."""
    return len(gzip.compress(data, compresslevel=9, mtime=0))


@pytest.fixture
def fixture_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "style.css").write_text("".join(f".rule-{i} {{ margin: {i}px; }}\n" for i in range(200)))
    (site / "app.js").write_text("".join(f"window.value{i} = {i};\n" for i in range(200)))
    (site / "top.svg").write_text(TOP_IMAGE)
    (site / "below.svg").write_text(TOP_IMAGE.replace("rect", "circle"))
    (site / "noscript.svg").write_text(TOP_IMAGE.replace("rect", "ellipse"))
    (site / "unused.js").write_text("window.unused = true;\n" * 100)
    (site / "index.html").write_text(
        "<!doctype html><html lang='en'><head><title>fixture</title><link rel='icon' href='data:,'>"
        "<link rel='stylesheet' href='style.css'><script src='app.js'></script></head><body>"
        "<p>" + "Some words of text. " * 40 + "</p>"
        "<img src='top.svg' alt='a square at the top' width='8' height='8'>"
        "<div style='height: 20000px'></div>"
        "<img src='below.svg' alt='a circle far below' width='8' height='8' loading='lazy'>"
        "<noscript><img src='noscript.svg' alt='only without scripts'></noscript>"
        "</body></html>"
    )
    return site


def test_a_page_weighs_what_it_fetches_before_the_reader_scrolls(browser: Browser, fixture_site: Path) -> None:
    [weight] = page_weights(fixture_site, ["index.html"], browser)
    fetched = {path for path, _ in weight.files}
    assert fetched == {"/index.html", "/style.css", "/app.js", "/top.svg"}, "lazy, <noscript> and unused files count"
    expected = sum(gzipped((fixture_site / name).read_bytes()) for name in ("index.html", "style.css", "app.js"))
    expected += len(TOP_IMAGE)  # under 512 bytes: sent as it is
    assert weight.total == expected
    assert weight.total < (fixture_site / "style.css").stat().st_size, "text files count gzipped"
    assert not weight.over
