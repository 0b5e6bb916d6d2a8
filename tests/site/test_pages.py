"""Every page: strict build, its sections, its figures with numbers, captions, permalinks and downloads;
and no number the model computes typed by hand into docs/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from browsing import doc_pages, topic_pages
from htmlscan import Page

REPO = Path(__file__).resolve().parents[2]


def parsed(site_dir: Path, name: str) -> tuple[str, Page]:
    html = (site_dir / name).read_text(encoding="utf-8")
    return html, Page(html)


@pytest.mark.parametrize("name", topic_pages())
def test_topic_pages_have_concept_maths_code_and_references(site_dir: Path, name: str) -> None:
    _, page = parsed(site_dir, name)
    headings = {attrs.get("id") for attrs in page.find("h2")}
    assert {"concept", "maths", "code", "references"} <= headings, headings
    links = [a.get("href", "") for a in page.find("a")]
    assert any(h.startswith("https://doi.org/10.") for h in links), "references carry DOIs"


@pytest.mark.parametrize("name", doc_pages())
def test_every_figure_is_numbered_captioned_linked_and_downloadable(site_dir: Path, name: str) -> None:
    html, page = parsed(site_dir, name)
    figures = page.find("figure", class_="fpsum-figure")
    if name in topic_pages() or name == "index.html":
        assert figures, f"{name} has no figure"
    numbers: dict[str, list[int]] = {}
    for fig in figures:
        anchor = fig["id"]
        kind = fig.get("data-kind", "Figure")
        start = html.index(f'id="{anchor}"')
        chunk = html[start:html.index("</figure>", start)]
        number = re.search(rf'<a class="fpsum-figure__number" href="#{anchor}"[^>]*>{kind} (\d+)\.</a>', chunk)
        assert number, f"{anchor}: no numbered permalink"
        numbers.setdefault(kind, []).append(int(number.group(1)))
        caption = re.sub(r"<[^>]+>", "", chunk[chunk.index("<figcaption>"):])
        assert len(caption.split()) >= 12, f"{anchor}: the caption says too little"
        downloads = re.findall(r'<a href="([^"]+)" download>', chunk)
        wanted = {".csv"} if kind == "Table" else {".svg", ".png", ".csv"}
        assert {Path(d).suffix for d in downloads} >= wanted, f"{anchor}: downloads {downloads}"
        for link in downloads:
            assert (site_dir / link).is_file(), f"{anchor}: {link} is missing from the site"
    for kind, seen in numbers.items():
        assert seen == list(range(1, len(seen) + 1)), f"{name}: {kind} numbers {seen}"


def test_png_downloads_are_slide_sized(site_dir: Path) -> None:
    import struct

    for png in (site_dir / "figures").glob("*.png"):
        header = png.read_bytes()[:24]
        width, _ = struct.unpack(">II", header[16:24])
        assert width == 1920, f"{png.name} is {width} px wide"


def test_cite_page_shows_version_date_and_licences(site_dir: Path) -> None:
    import fpsum

    _, page = parsed(site_dir, "cite.html")
    numbers = json.loads((site_dir / "data" / "numbers.json").read_text())
    assert fpsum.__version__ in page.text and numbers["site.build_date"] in page.text
    assert "CC BY 4.0" in page.text and "MIT" in page.text


PARAMETER_KEYS = {"n", "k", "m", "k_max", "n_max", "quote_k", "trials", "seed", "bits", "hw_block", "promote_every",
                  "every", "growth_from", "draws", "percent", "default_b"}
"""Last parts of number keys that name a record's parameters (what it was asked to compute), not its results."""


def _power_of_two(token: str) -> bool:
    value = float(token.replace(",", ""))
    return value >= 1 and value.is_integer() and int(value) & (int(value) - 1) == 0


def _model_numbers(site_dir: Path) -> set[str]:
    """Texts of numbers the model computed that are specific enough to spot if typed by hand.

    Whole powers of two are left out, except stall points: block sizes, lengths and binade
    edges (128, 1,024, 4,096) are everyday facts on these pages, while a stall point typed by
    hand is the copy most likely to go stale.
    """
    numbers = json.loads((site_dir / "data" / "numbers.json").read_text())
    found = set()
    for key, text in numbers.items():
        if key.startswith(("formats-table.", "site.", "snippets.")) and not key.endswith((".stall", ".stall_after")):
            continue  # labels, precisions and dates are definitions, not results
        if key.rsplit(".", 1)[-1] in PARAMETER_KEYS:
            continue  # parameters (numpy's block of 128 too; the n of each sum), not results
        for token in re.findall(r"\d[\d,]*\.?\d*", text):
            digits = token.replace(",", "").replace(".", "").lstrip("0")
            if len(digits) < 3:  # 2, 16, 64 appear as plain facts; 2,048 or 4,078.146 do not
                continue
            if _power_of_two(token) and not key.endswith((".stall", ".stall_after")):
                continue
            found.add(token)
    return found


def test_no_model_number_is_typed_by_hand_into_docs(site_dir: Path) -> None:
    typed = _model_numbers(site_dir)
    offenders = []
    for md in sorted((REPO / "docs").glob("*.md")):
        text = re.sub(r"\{\{.*?\}\}", " ", md.read_text(encoding="utf-8"))  # tokens are fine
        text = re.sub(r"https?://\S+|doi:\S+|arXiv:\S+|#\d+", " ", text)  # addresses and issue numbers
        # exponents of a power of two (2^{-126}, 2^{e_{\max} - 126}): definitions; a hash's name (SHA-256)
        text = re.sub(r"\^\{(?:[^{}]|\{[^{}]*\})*\}|SHA-\d+", " ", text)
        for number in (n for n in typed if n in text):  # a match needs the text; most numbers are not there at all
            for hit in re.finditer(rf"(?<![\w,.]){re.escape(number)}(?![\d,]|\.\d)", text):  # not A100's 100
                line = text[: hit.start()].count("\n") + 1
                offenders.append(f"{md.name}:{line}: {number}")
    assert not offenders, "numbers the model computes, typed by hand:\n" + "\n".join(offenders)
