"""The built site: structure, formulas, figures, injected numbers, included code, no external host."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from figures.text import number
from fpsum.formats import FP16
from fpsum.race import run_race
from htmlscan import Page

REPO = Path(__file__).resolve().parents[2]

RACES = [f"race-{f}-{k}" for f in ("fp16", "bf16") for k in ("uniform", "ones", "normal")]


def page(site_dir: Path, name: str) -> tuple[str, Page]:
    html = (site_dir / name).read_text(encoding="utf-8")
    return html, Page(html)


def test_accumulation_page_has_the_three_sections(site_dir: Path) -> None:
    _, parsed = page(site_dir, "accumulation-error.html")
    headings = {attrs.get("id") for attrs in parsed.find("h2")}
    assert {"concept", "maths", "code"} <= headings


def test_formulas_are_drawn_and_no_raw_tex_is_left(site_dir: Path) -> None:
    html, parsed = page(site_dir, "accumulation-error.html")
    blocks = parsed.find("div", class_="arithmatex")
    inline = parsed.find("span", class_="arithmatex")
    assert len(blocks) >= 3, "the naive, pairwise and Kahan bounds are display formulas"
    assert len(inline) >= 3
    # Outside arithmatex, code and scripts, no TeX may remain: no $ delimiters, no commands.
    assert "$" not in parsed.text
    assert not re.search(r"\\(frac|sum|lceil|le|hat|operatorname)\b", parsed.text)
    # Each formula arrives drawn (tests/build/test_formulas.py checks every one on every page); a long one, twice.
    narrow = html.count('class="MathJax fpsum-narrow"')
    assert len(parsed.find("mjx-container")) == len(blocks) + len(inline) + narrow


@pytest.mark.parametrize("race_id", RACES)
def test_each_race_animation_is_inlined(site_dir: Path, race_id: str) -> None:
    html, parsed = page(site_dir, "accumulation-error.html")
    holders = [a for tag, a in parsed.tags if a.get("id") == race_id]
    assert len(holders) == 1, f"{race_id} appears {len(holders)} times"
    start = html.index(f'id="{race_id}"')
    chunk = html[start:html.index("</template>", start)]
    shell, drawing = chunk.split('<template class="race__drawing">', 1)
    namespaces = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
    assert f'<svg {namespaces} id="{race_id}-svg"' in shell
    assert "<animate" in drawing and "<use" in drawing  # drawn by race.js near the view
    fallback = html[html.index("</template>", start):html.index("</figure>", start)]
    assert f'<noscript><img class="race__fallback" src="figures/{race_id}.svg"' in fallback
    assert (site_dir / "figures" / f"{race_id}.svg").is_file()
    assert (site_dir / "figures" / f"{race_id}.csv").is_file()


def test_error_versus_n_plot_is_shown_in_both_palettes(site_dir: Path) -> None:
    _, parsed = page(site_dir, "error-vs-n.html")  # its one page: accumulation-error links to it
    sources = {img.get("src") for img in parsed.find("img")}
    assert "figures/error-vs-n.svg#only-light" in sources
    assert "figures/error-vs-n-dark.svg#only-dark" in sources
    for name in ("error-vs-n.svg", "error-vs-n-dark.svg"):
        svg = (site_dir / "figures" / name).read_text()
        assert svg.lstrip().startswith("<?xml") and "</svg>" in svg


def _external(url: str) -> bool:
    parsed = urlparse(url)
    return bool(parsed.scheme in ("http", "https") or url.startswith("//")) and parsed.hostname not in (
        "localhost", "127.0.0.1")


def test_no_resource_comes_from_an_external_host(site_dir: Path) -> None:
    loaders = {"script": "src", "img": "src", "source": "src", "iframe": "src", "object": "data",
               "audio": "src", "video": "src", "embed": "src"}
    for html_file in site_dir.rglob("*.html"):
        parsed = Page(html_file.read_text(encoding="utf-8"))
        for tag, attrs in parsed.tags:
            url = attrs.get(loaders.get(tag, ""), "")
            fetched = {"stylesheet", "preload", "icon", "modulepreload", "preconnect", "dns-prefetch"}
            if tag == "link" and set(attrs.get("rel", "").split()) & fetched:
                url = attrs.get("href", "")
            assert not (url and _external(url)), f"{html_file.name}: <{tag}> loads {url}"
    for css in site_dir.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", text), f"{css.name} loads a remote url()"
        assert "@import" not in text or "fonts.googleapis" not in text


def test_numbers_in_the_prose_come_from_the_model(site_dir: Path) -> None:
    """The page quotes the race results that the model computes now."""
    _, parsed = page(site_dir, "accumulation-error.html")
    race = run_race(FP16, "uniform")
    assert number(race.final["naive"]) == "2,048"
    for value in (race.final["naive"], race.exact_final):
        assert number(value) in parsed.text
    numbers = json.loads((site_dir / "data" / "numbers.json").read_text())
    assert numbers["race-fp16-uniform.naive"] == number(race.final["naive"])
    assert numbers["formats-table.fp16.stall"] == number(FP16.stall_point)
    assert "{{" not in parsed.text


def _section(source: str, name: str) -> str:
    match = re.search(rf"# --8<-- \[start:{name}\]\n(.*?)# --8<-- \[end:{name}\]", source, re.S)
    assert match, f"section {name} missing"
    return match.group(1)


@pytest.mark.parametrize(("section", "module"), [("kahan", "compensated.py"), ("pairwise", "pairwise.py")])
def test_code_shown_is_the_code_that_ran(site_dir: Path, section: str, module: str) -> None:
    html, _ = page(site_dir, "accumulation-error.html")
    expected = _section((REPO / "src" / "fpsum" / module).read_text(), section)
    code_blocks = re.findall(r"<code>(.*?)</code>", html, re.S)
    texts = [re.sub(r"<[^>]+>", "", block) for block in code_blocks]
    import html as html_lib
    texts = [html_lib.unescape(t) for t in texts]
    signature = expected.strip().splitlines()[0]
    assert any(signature in t and all(line.strip() in t for line in expected.splitlines()) for t in texts)


def test_home_page_shows_the_headline_race(site_dir: Path) -> None:
    html, parsed = page(site_dir, "index.html")
    assert 'id="race-fp16-uniform' in html
    assert any(a.get("href") == "accumulation-error.html" for a in parsed.find("a"))
