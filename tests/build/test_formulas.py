r"""Formulas drawn when the site is built (``hooks/content/formulas.py``), read from the built HTML.

Every formula arrives as MathJax's SVG, hidden from screen readers, in a
container named with the formula in words (MathJax's speech rule engine);
the glyph outlines its ``<use>`` elements name are in the page, once; its
drawing holds no group that only moves what it holds (``hooks/content/flat_svg.py``
folds those into the glyphs; ``test_formulas_browser`` checks that no glyph
moved); no page
shows a reader raw TeX, loads MathJax or refers to another host for it; the
search index holds each formula's name in words, not its TeX (``test_search``).  A formula
that is not TeX stops the build with one line naming the page and the formula, and the drawings are cached:
a second draw of the same formulas starts no Node.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browsing import all_pages, formula_count, linked_css
from repocopy import REPO, BuiltCopy, build_copy

sys.path.insert(0, str(REPO))
from hooks.content import flat_svg, formula_forms, mathjax_render  # noqa: E402
from hooks.content import formulas as formulas_hook  # noqa: E402
from hooks.content.mathjax_render import Formula  # noqa: E402

PAGES = all_pages()
TEX = re.compile(r"\\[A-Za-z]{2,}|\\[()\[\]{}]|\$\$|\^\{|_\{")
"""What shows that text is TeX, not prose: a command, a delimiter, a braced sub- or superscript."""
HIDDEN = {"script", "style", "code", "pre", "svg", "template", "noscript"}
"""Where text is no prose a reader sees: code, scripts, drawings."""
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
VIEWBOX = re.compile(r"-?[\d.]+ -?[\d.]+ ([\d.]+) ([\d.]+)")
EX = re.compile(r"[\d.]+ex")


@dataclass
class Drawing:
    """One ``.arithmatex`` element as built: its tag, and what it holds."""

    tag: str
    classes: list[str] = field(default_factory=list)
    containers: list[dict[str, str]] = field(default_factory=list)
    svgs: list[dict[str, str]] = field(default_factory=list)
    maths: int = 0
    uses: list[str] = field(default_factory=list)


class Built(HTMLParser):
    """A built page: its formulas, its glyph outlines (id -> count), the text a reader sees, its scripts."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.formulas: list[Drawing] = []
        self.outlines: dict[str, int] = {}
        self.outlines_in_article = False
        self.scripts: list[str] = []
        self.prose: list[str] = []
        self._open: list[str] = []
        self._formula: Drawing | None = None
        self._formula_depth = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "script":
            self.scripts.append(values.get("src", "") or "inline")
        if tag == "path" and "id" in values:
            self.outlines[values["id"]] = self.outlines.get(values["id"], 0) + 1
        if tag == "svg" and values.get("id") == "fpsum-glyphs":
            self.outlines_in_article = "article" in self._open
        if self._formula is not None:
            self._inside_formula(tag, values)
        elif "arithmatex" in values.get("class", "").split():
            self._formula = Drawing(tag=tag, classes=values.get("class", "").split())
            self._formula_depth = len(self._open)
            self.formulas.append(self._formula)
        if tag not in VOID:
            self._open.append(tag)

    def _inside_formula(self, tag: str, values: dict[str, str]) -> None:
        drawing = self._formula
        assert drawing is not None
        if tag == "mjx-container" and self._open[-1] == drawing.tag:
            drawing.containers.append(values)
        elif tag == "svg" and self._open[-1] == "mjx-container":
            drawing.svgs.append(values)
        elif tag in ("math", "mjx-assistive-mml"):
            drawing.maths += 1
        elif tag == "use":
            drawing.uses.append(values.get("xlink:href", values.get("href", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            while self._open.pop() != tag:
                pass
        if self._formula is not None and len(self._open) <= self._formula_depth:
            self._formula = None

    def handle_data(self, data: str) -> None:
        if not HIDDEN & set(self._open):
            self.prose.append(data)


def built(site_dir: Path, name: str) -> Built:
    return Built((site_dir / name).read_text(encoding="utf-8"))


def test_some_pages_have_formulas_inline_and_displayed(site_dir: Path) -> None:
    """So that the tests below, which check each formula, check some."""
    tags = [f.tag for name in PAGES for f in built(site_dir, name).formulas]
    assert tags.count("div") >= 20 and tags.count("span") >= 100, (tags.count("div"), tags.count("span"))


@pytest.mark.parametrize("name", PAGES)
def test_every_formula_holds_an_svg_and_is_named_in_words(site_dir: Path, name: str) -> None:
    """One SVG, which screen readers skip, in a container that is an image named in words (no TeX, no
    MathML left in the page: its elements cost the reader's browser more than the drawings).  A long
    display formula holds two such containers, its wide and its narrow form (checked below).
    """
    page = built(site_dir, name)
    assert len(page.formulas) == formula_count(site_dir, name)
    for i, formula in enumerate(page.formulas):
        where = f"{name}, formula {i}"
        forms = 2 if any(c.startswith(NARROW_CLASS) for c in formula.classes) else 1
        assert len(formula.containers) == len(formula.svgs) == forms, f"{where}: not {forms} mjx-container > svg"
        for container, svg in zip(formula.containers, formula.svgs, strict=True):
            assert container.get("jax") == "SVG"
            assert (container.get("display") == "true") == (formula.tag == "div"), f"{where}: display mode"
            box = VIEWBOX.fullmatch(svg.get("viewbox", ""))
            assert box and float(box[1]) > 0 and float(box[2]) > 0, f"{where}: viewBox {svg.get('viewbox')!r}"
            assert EX.fullmatch(svg.get("width", "")) and EX.fullmatch(svg.get("height", "")), f"{where}: size"
            assert svg.get("aria-hidden") == "true", f"{where}: the drawing is not hidden from screen readers"
            assert container.get("role") == "img", f"{where}: the formula is not an image to screen readers"
            label = container.get("aria-label", "")
            assert re.search(r"\w", label) and not TEX.search(label) and "\\" not in label, f"{where}: {label!r}"
        assert formula.maths == 0, f"{where}: MathML left in the page"


# ---------------------------------------------------------------- narrow forms

PHONE_COLUMN_PX = 328
"""A 360 px phone's column: mkdocs-material pads the text 0.8rem (16 px) each side (issue 39)."""
PHONE_EX_PX = 0.55 * 16
"""An ex of the phone's 16 px text, for a font whose x-height is 0.55 em (Liberation Sans' and Roboto's: 0.528)."""
NARROW_CLASS = "fpsum-narrow-below-"


def ex_of(svg: dict[str, str]) -> float:
    return float(svg["width"].removesuffix("ex"))


@pytest.mark.parametrize("name", PAGES)
def test_every_display_formula_too_wide_for_a_phone_has_a_narrow_form(site_dir: Path, name: str) -> None:
    """A display formula whose drawing is wider than a phone's column holds a narrow form that fits it; both
    forms have one name (the wide form's words), and the class that switches them names a width no
    narrower than the wide drawing (math.css shows the narrow form below it) and no more than an ex wider.
    """
    for i, formula in enumerate(built(site_dir, name).formulas):
        if formula.tag != "div":
            continue
        where = f"{name}, formula {i}"
        wide = ex_of(formula.svgs[0])
        switch = [c.removeprefix(NARROW_CLASS) for c in formula.classes if c.startswith(NARROW_CLASS)]
        if wide * PHONE_EX_PX <= PHONE_COLUMN_PX:
            assert switch == [] and len(formula.svgs) == 1, f"{where}: fits a phone, yet has a narrow form"
            continue
        assert len(formula.svgs) == 2 and len(switch) == 1, \
            f"{where}: {wide:g} ex ({wide * PHONE_EX_PX:.0f} px) wide, wider than a phone's column, and no narrow form"
        wide_box, narrow_box = formula.containers
        assert "fpsum-wide" in wide_box.get("class", "") and "fpsum-narrow" in narrow_box.get("class", "")
        assert ex_of(formula.svgs[1]) * PHONE_EX_PX <= PHONE_COLUMN_PX, f"{where}: its narrow form is too wide"
        assert wide <= float(switch[0]) < wide + 1, f"{where}: {wide:g} ex wide, switched at {switch[0]} ex"
        assert wide_box["aria-label"] == narrow_box["aria-label"], f"{where}: the two forms are named apart"


def test_math_css_has_a_switch_for_every_width_a_page_names(site_dir: Path) -> None:
    """Each ``fpsum-narrow-below-N`` class of a page has its container query (N ex) in math.css."""
    css = (REPO / "docs" / "assets" / "stylesheets" / "math.css").read_text(encoding="utf-8")
    rules = dict(re.findall(r"@container \(width < (\d+)ex\) \{ div\.fpsum-narrow-below-(\d+) ", css))
    assert rules and all(a == b for a, b in rules.items())
    named = {c.removeprefix(NARROW_CLASS) for name in PAGES for f in built(site_dir, name).formulas
             for c in f.classes if c.startswith(NARROW_CLASS)}
    assert named and named <= set(rules), sorted(named - set(rules))


def test_the_search_index_holds_each_formula_once(site_dir: Path) -> None:
    """A narrow form is the wide one drawn again: the index holds each formula's words once (the wide form's),
    and neither a narrow form's mark nor its TeX.
    """
    index = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    html_text = (site_dir / "formats.html").read_text(encoding="utf-8")
    labels = re.findall(r'<mjx-container class="MathJax fpsum-narrow"[^>]*?aria-label="([^"]*)"', html_text)
    assert labels, "formats.html has no narrow form to look for"
    text = " ".join(doc["text"] for doc in index["docs"] if doc["location"].startswith("formats.html"))
    assert "% narrow" not in text and "\\begin{" not in text
    for label in labels:
        assert text.count(html.unescape(label)) == 1, label


def paired(html_text: str) -> formula_forms.Paired:
    found = [(m, formulas_hook.formula_of(m)) for m in formulas_hook.FORMULA.finditer(html_text)]
    return formula_forms.pair(html_text, found)


def test_a_narrow_form_is_taken_out_of_the_page_and_paired_with_the_formula_before_it() -> None:
    page = ('<p>a <span class="arithmatex">x</span></p>\n<div class="arithmatex">a + b + c</div>\n'
            '<div class="arithmatex">% narrow\n\\begin{gathered} a + b \\\\ + c \\end{gathered}</div>\n<p>so</p>')
    result = paired(page)
    assert result.text == page[:page.index('\n<div class="arithmatex">%')] + "\n<p>so</p>"
    assert result.formulas == [Formula("x", False), Formula("a + b + c", True)]
    assert result.narrow == {1: Formula("\\begin{gathered} a + b \\\\ + c \\end{gathered}", True)}


@pytest.mark.parametrize("page", [
    '<div class="arithmatex">% narrow\na</div>',
    '<div class="arithmatex">a</div><p>text</p><div class="arithmatex">% narrow\na</div>',
    '<p><span class="arithmatex">a</span></p><div class="arithmatex">% narrow\na</div>',
    '<div class="arithmatex">a</div><div class="arithmatex">% narrow\na</div><div class="arithmatex">% narrow\nb</div>',
])
def test_a_narrow_form_that_follows_no_display_formula_is_refused(page: str) -> None:
    with pytest.raises(ValueError, match="narrow form follows no display formula"):
        paired(page)


def test_a_long_formula_without_a_narrow_form_stops_the_build_in_one_line(built_copy: BuiltCopy,
                                                                         tmp_path: Path) -> None:
    """So is a narrow form that is itself too wide; each names its page and formula."""
    repo = tmp_path / "repo"
    shutil.copytree(built_copy.repo, repo, symlinks=True)
    page = repo / "docs" / "cite.md"
    long = " + ".join(f"x_{{{i}}}" for i in range(1, 16))
    page.write_text(page.read_text(encoding="utf-8") + f"\n$$\n{long}\n$$\n\n$$\ny = {long}\n$$\n\n"
                    f"$$\n% narrow\n{long} + z\n$$\n", encoding="utf-8")
    result = build_copy(repo, tmp_path / "site")
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert len(errors) == 1, "\n".join(errors)
    lines = result.stderr[result.stderr.index(errors[0]):].splitlines()[:2]
    assert all(line.count("cite.md") == 1 for line in lines), lines
    assert "x_{15}' is" in lines[0] and "wider than a phone's column" in lines[0] and "write its narrow" in lines[0]
    assert "the narrow form of 'y = x_{1}" in lines[1] and "wider than a phone's column" in lines[1]


@pytest.mark.parametrize("name", PAGES)
def test_each_glyph_outline_is_in_the_page_once(site_dir: Path, name: str) -> None:
    """Every ``<use>`` of a formula names an outline the page holds (in its article, which instant navigation
    swaps), every outline is held once, and each is used: the page carries no glyph it does not draw.
    """
    page = built(site_dir, name)
    used = {href.removeprefix("#") for formula in page.formulas for href in formula.uses}
    glyphs = {gid: n for gid, n in page.outlines.items() if gid.startswith("MJX-")}
    assert set(glyphs) == used, f"{name}: used, not held {sorted(used - set(glyphs))[:5]}; " \
                                f"held, not used {sorted(set(glyphs) - used)[:5]}"
    assert all(n == 1 for n in glyphs.values()), f"{name}: an outline held twice"
    if page.formulas:
        assert page.outlines_in_article and all(formula.uses for formula in page.formulas)


@pytest.mark.parametrize("name", PAGES)
def test_no_reader_sees_raw_tex_and_no_page_loads_mathjax(site_dir: Path, name: str) -> None:
    page = built(site_dir, name)
    tex = TEX.findall(" ".join(page.prose))
    assert tex == [], f"{name}: TeX in the text a reader sees: {tex[:10]}"
    assert not [s for s in page.scripts if "mathjax" in s.lower()], f"{name}: loads {page.scripts}"


def test_the_site_ships_no_mathjax_and_its_style_sheet_is_linked(site_dir: Path) -> None:
    """Nothing of MathJax's in the site: no script, no font; the formulas' style sheet on every page.

    math.css reaches a page inside the site's one joined sheet (hooks/content/one_stylesheet.py).
    """
    shipped = [p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*")
               if "mathjax" in p.name.lower() or p.suffix in (".woff", ".woff2", ".otf", ".ttf")]
    assert shipped == []
    math_css = (REPO / "docs" / "assets" / "stylesheets" / "math.css").read_text(encoding="utf-8").rstrip()
    for name in PAGES:
        assert math_css in linked_css(site_dir, name), name


def test_the_search_index_holds_the_formulas_in_words(site_dir: Path) -> None:
    """The index holds each formula's name in words (``test_search`` checks every one), never its TeX nor its
    drawing.
    """
    index = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = " ".join(doc["text"] for doc in index["docs"])
    assert "\\hat s_k" not in text and "\\gamma_" not in text and "s hat sub k" in text
    assert "mjx-container" not in text and "MJX-TEX" not in text


def groups_that_only_move(container: str) -> list[dict[str, str]]:
    """The ``<g>`` elements of a drawing, below its outermost one and outside tables, that ``flat_svg`` folds.

    Not the group that carries a nested ``<svg>`` (which takes no transform of its own).
    """
    start, end = flat_svg.svg_bounds(container)
    found: list[dict[str, str]] = []

    def visit(element: ET.Element, outermost: bool) -> None:
        if element.tag.endswith("}g") and element.get("data-mml-node") in flat_svg.KEPT_WHOLE:
            return
        holder = len(element) == 1 and element[0].tag.endswith("}svg") and set(element.attrib) == {"transform"}
        if element.tag.endswith("}g") and not outermost and not holder and set(element.attrib) <= flat_svg.MOVING_ONLY:
            found.append(dict(element.attrib))
        for child in element:
            visit(child, False)

    visit(ET.fromstring(container[start:end])[0], True)
    return found


@pytest.mark.parametrize("name", PAGES)
def test_no_drawing_holds_a_group_that_only_moves(site_dir: Path, name: str) -> None:
    """Folded: each glyph sits in the outermost group (or in one that colours or links, or in a table)."""
    html = (site_dir / name).read_text(encoding="utf-8")
    containers = re.findall(r"<mjx-container.*?</mjx-container>", html, re.S)
    assert len(containers) == formula_count(site_dir, name) + html.count(NARROW_CLASS)
    moving = [(i, g) for i, c in enumerate(containers) for g in groups_that_only_move(c)]
    assert moving == [], f"{name}: groups that only move their glyphs, (formula, group): {moving[:5]}"


MATHML = '<mjx-assistive-mml display="inline"><math><mi>x</mi></math></mjx-assistive-mml>'
SVG_OPEN = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="2ex" '
            'viewBox="0 -500 900 600" aria-hidden="true">')
TOP = '<g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)">'


def drawing(inside: str) -> str:
    """A container as MathJax writes one, with ``inside`` in its outermost group."""
    return f'<mjx-container jax="SVG">{SVG_OPEN}{TOP}{inside}</g></svg>{MATHML}</mjx-container>'


def test_folding_multiplies_the_groups_transforms_into_each_glyph() -> None:
    """Outer first, as SVG nests them: translate(10,0) around scale(0.5) around translate(4,2) puts a point
    (x, y) at (10 + 0.5 (x + 4), 0.5 (y + 2)), the matrix (0.5, 0, 0, 0.5, 12, 1); the tags around the
    drawing, and the MathML, stay as they were.
    """
    nested = drawing('<g data-mml-node="math"><g data-mml-node="msup" transform="translate(10,0)">'
                     '<g data-mml-node="mi" transform="scale(0.5)"><use data-c="78" xlink:href="#X" '
                     'transform="translate(4 2)"></use></g></g><g data-mml-node="mspace"></g>'
                     '<rect width="5" height="1" x="3" y="0"></rect></g>')
    assert flat_svg.flatten(nested) == drawing(
        '<use data-c="78" xlink:href="#X" transform="matrix(0.5,0,0,0.5,12,1)"></use>'
        '<rect width="5" height="1" x="3" y="0"></rect>')


def test_a_group_that_does_more_than_move_is_kept_and_its_insides_folded() -> None:
    """A colour stays on its group (which takes the transforms above it); a nested <svg>, which takes no
    transform, gets a group that carries it; a table keeps what MathJax drew inside it.
    """
    nested = drawing('<g data-mml-node="mstyle" fill="red" stroke="red" transform="translate(5,0)">'
                     '<g data-mml-node="mi" transform="translate(1,0)"><use data-c="78" xlink:href="#X"></use>'
                     '</g></g><g data-mml-node="mo" transform="translate(0,7)"><svg width="2" height="3" '
                     'viewBox="0 0 2 3"><use data-c="7C" xlink:href="#Y"></use></svg></g>'
                     '<g data-mml-node="mtable" transform="translate(2,0)"><g data-mml-node="mtr">'
                     '<use data-c="79" xlink:href="#Z"></use></g></g>')
    assert flat_svg.flatten(nested) == drawing(
        '<g data-mml-node="mstyle" fill="red" stroke="red" transform="translate(5,0)">'
        '<use data-c="78" xlink:href="#X" transform="translate(1,0)"></use></g>'
        '<g transform="translate(0,7)"><svg width="2" height="3" viewBox="0 0 2 3">'
        '<use data-c="7C" xlink:href="#Y"></use></svg></g>'
        '<g data-mml-node="mtable" transform="translate(2,0)"><g data-mml-node="mtr">'
        '<use data-c="79" xlink:href="#Z"></use></g></g>')


@pytest.mark.parametrize("transform", ["rotate(90)", "skewX(10)", "translate(1,2,3)", "scale()"])
def test_a_transform_mathjax_does_not_write_is_refused_not_folded(transform: str) -> None:
    nested = drawing(f'<g data-mml-node="mi" transform="{transform}"><use xlink:href="#X"></use></g>')
    with pytest.raises(ValueError, match="transform"):
        flat_svg.flatten(nested)


# ---------------------------------------------------------------- drawing and caching


@pytest.fixture
def no_node(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Node cannot be found: whatever needs it fails."""
    monkeypatch.setattr(mathjax_render.shutil, "which", lambda name: None)
    yield


FORMULAS = [Formula(r"x_i + \sqrt{2}", display=False), Formula(r"\sum_{i=1}^n x_i", display=True),
            Formula(r"\sum_{i=1}^n x_i", display=False)]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to draw formulas")
def test_a_second_draw_comes_from_the_cache_without_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = mathjax_render.draw(FORMULAS, tmp_path)
    assert len(list(tmp_path.glob("*.json"))) == len(FORMULAS)  # inline and display are two entries
    assert first[FORMULAS[1]].container != first[FORMULAS[2]].container
    monkeypatch.setattr(mathjax_render.shutil, "which", lambda name: None)
    assert mathjax_render.draw(FORMULAS, tmp_path) == first
    with pytest.raises(mathjax_render.RenderError, match="Node.js"):  # a formula not cached needs Node
        mathjax_render.draw([Formula("y", display=False)], tmp_path)


def test_the_cache_key_follows_the_formula_and_the_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = {mathjax_render.cache_key(f) for f in FORMULAS}
    assert len(keys) == len(FORMULAS)
    assert mathjax_render.cache_key(FORMULAS[0]) == mathjax_render.cache_key(Formula(FORMULAS[0].tex, False))
    monkeypatch.setattr(mathjax_render, "renderer_digest", lambda: "another MathJax or other options")
    assert mathjax_render.cache_key(FORMULAS[0]) not in keys


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to draw formulas")
def test_a_formula_is_named_as_it_is_read_out(tmp_path: Path) -> None:
    """The name says what the formula says: a root as a root, a subscript as one, a sum from and to."""
    drawn = mathjax_render.draw(FORMULAS[:2], tmp_path)
    names = [re.search(r'aria-label="([^"]*)"', drawn[f].container) for f in FORMULAS[:2]]
    assert names[0] and "square root of 2" in names[0][1] and "x sub i" in names[0][1], names[0]
    assert names[1] and "sum from i equals 1 to n" in names[1][1], names[1]
    assert all("<math" not in drawn[f].container for f in FORMULAS[:2])


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to draw formulas")
def test_bad_tex_is_reported_formula_by_formula_and_nothing_is_cached(tmp_path: Path) -> None:
    bad = [Formula(r"\frac{1}{\nope}", display=True), Formula(r"\frac{1", display=False)]
    with pytest.raises(mathjax_render.RenderError) as raised:
        mathjax_render.draw([FORMULAS[0], *bad], tmp_path)
    assert raised.value.failures == {bad[0]: "Undefined control sequence \\nope", bad[1]: "Missing close brace"}
    assert list(tmp_path.glob("*.json")) == []


def test_a_formula_that_is_not_tex_stops_the_build_naming_page_and_formula(built_copy: BuiltCopy,
                                                                        tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(built_copy.repo, repo, symlinks=True)
    page = repo / "docs" / "cite.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nA broken formula: \\(\\frac{1}{\\nope}\\).\n",
                    encoding="utf-8")
    result = build_copy(repo, tmp_path / "site")
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert len(errors) == 1, "\n".join(errors)
    assert "cite.md" in errors[0] and "\\\\frac{1}{\\\\nope}" in errors[0] and "Undefined control" in errors[0]
