"""Issue 24, "lead with the result": each page opens with its result, in paragraphs a reader can take in.

Read from the built site: every topic page opens (after its title and at most
one lead paragraph) with an "In short" box and then a "What to do" box; no
paragraph runs over :data:`MAX_WORDS` words; the headings of the sections every
topic page has say what the section teaches, and no two pages share a section
heading except the endings every page has; the home page links both reading
paths.  The browser's view of the home page's first screen is
``tests/browser/test_first_screen.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browsing import doc_pages, topic_pages

SECTIONS = ("concept", "maths", "code", "references")
"""The h2 ids every topic page has, which other pages link to (``page.html#maths``)."""
ENDINGS = {"References", "Exercises", "Where next"}
"""h2 texts any number of pages may share: how a page ends, not what it teaches."""
MAX_WORDS = 120
"""The longest paragraph allowed, in words (a formula counts as one word)."""
LEAD_WORDS = 60
"""The longest lead a topic page may open with before its two boxes: two or three sentences."""
BOXES = (("abstract", "In short"), ("tip", "What to do"))
"""The two admonitions a topic page opens with, in this order: (type, title)."""
MATH_CLASSES = {"arithmatex", "MathJax"}
MATH_TAGS = {"svg", "math", "mjx-container"}
"""Elements a formula is drawn in: whatever its markup, a formula counts as one word of its paragraph."""
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?![\w])")
"""A number in running text (1, 2,048, 0.07): not the digits inside a name such as FP16, E4M3 or float32."""


@dataclass
class Paragraph:
    """One ``<p>`` of the article: its words, and where it sits."""

    words: list[str]
    folded: bool  # inside a <details> block (a fold the reader opens)
    caption: bool  # inside a figure (its caption belongs to the figure builders)

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass
class Block:
    """A top-level element of the article after its title: a tag, its classes, and an admonition's title."""

    tag: str
    classes: list[str]
    title: str = ""


@dataclass
class Heading:
    level: int
    id: str
    text: str


@dataclass
class _Open:
    tag: str
    classes: list[str]
    skip: bool  # its text is not prose (code blocks, scripts, the permalink sign)
    math: bool


class Article(HTMLParser):
    """The ``<article>`` of a built page, read for its reading structure.

    Paragraphs with their words (a formula, however it is marked up, is one
    word; a block of code is none); headings with their ids and text, the
    permalink sign left out; the top-level blocks after the ``<h1>`` with each
    admonition's title; and the words and numbers of the main text, the text a
    reader meets without opening a fold: outside ``<details>``, figures,
    tables and code blocks.  Its running prose, for the density of numbers,
    is the text of its paragraphs and list items outside code, before the
    References (whose years and DOIs are citations).
    """

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[Paragraph] = []
        self.headings: list[Heading] = []
        self.blocks: list[Block] = []
        self.main_words: list[str] = []
        self.prose_numbers: list[str] = []
        self.prose_words = 0
        self._stack: list[_Open] = []
        self._inside = False
        self._para: list[str] | None = None
        self._heading: tuple[int, str, list[str]] | None = None
        self._title: list[str] | None = None
        self._after_title = False
        self._references = False  # past the References heading: citations, not prose
        self.feed(html)
        self.close()

    def _within(self, test: str) -> bool:
        return any(o.tag == test or test in o.classes for o in self._stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        classes = values.get("class", "").split()
        if tag == "article":
            self._inside = True
            self._stack = []
            return
        if not self._inside or tag in VOID:
            return
        in_math = any(o.math for o in self._stack)
        math = tag in MATH_TAGS or bool(MATH_CLASSES & set(classes))
        if math and not in_math:
            self._word("𝑥")  # one word for the formula, counted where its text would be
        skip = tag in ("pre", "script", "style") or "headerlink" in classes
        if len(self._stack) == 0 and self._after_title:
            self.blocks.append(Block(tag, classes))
        if tag == "p" and "admonition-title" in classes and len(self._stack) == 1 and self.blocks:
            self._title = []
        elif tag == "p":
            self._para = []
        if tag in ("h1", "h2", "h3"):
            self._heading = (int(tag[1]), values.get("id", ""), [])
        if tag == "h2":
            self._references = values.get("id") == "references"
        self._stack.append(_Open(tag, classes, skip, math))

    def handle_endtag(self, tag: str) -> None:
        if not self._inside:
            return
        if tag == "article":
            self._inside = False
            return
        while self._stack:  # close what the parser left open inside it (a </p> the HTML omitted)
            top = self._stack.pop()
            self._closed(top)
            if top.tag == tag:
                break

    def _closed(self, top: _Open) -> None:
        if top.tag == "p" and self._title is not None and not self._stack[1:]:
            self.blocks[-1].title = " ".join(" ".join(self._title).split())
            self._title = None
        elif top.tag == "p" and self._para is not None:
            self.paragraphs.append(Paragraph(self._para, self._within("details"), self._within("figure")))
            self._para = None
        if top.tag in ("h1", "h2", "h3") and self._heading:
            level, ident, words = self._heading
            self.headings.append(Heading(level, ident, " ".join(" ".join(words).split())))
            self._heading = None
            self._after_title = self._after_title or level == 1

    def handle_data(self, data: str) -> None:
        if not self._inside or any(o.skip or o.math for o in self._stack):
            return
        for word in data.split():
            self._word(word)

    def _word(self, word: str) -> None:
        if self._para is not None:
            self._para.append(word)
        if self._title is not None:
            self._title.append(word)
        if self._heading is not None:
            self._heading[2].append(word)
        if self._within("details") or self._within("figure") or self._within("table"):
            return
        self.main_words.append(word)
        running = (self._within("p") or self._within("li")) and not self._within("code") and word != "𝑥"
        if running and self._heading is None and self._title is None and not self._references:
            self.prose_words += 1
            self.prose_numbers += NUMBER.findall(word)

    def h2(self) -> list[Heading]:
        return [h for h in self.headings if h.level == 2]

    def numbers_per_100_words(self) -> float:
        """Numbers in the main text's running prose per 100 of its words (formulas, code and references left out)."""
        return 100 * len(self.prose_numbers) / max(self.prose_words, 1)


def article(site_dir: Path, name: str) -> Article:
    return Article((site_dir / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def articles(site_dir: Path) -> dict[str, Article]:
    return {name: article(site_dir, name) for name in doc_pages()}


def test_the_topic_pages_are_pages_of_the_site() -> None:
    assert set(topic_pages()) <= set(doc_pages())


@pytest.mark.parametrize("name", topic_pages())
def test_a_topic_page_opens_with_in_short_then_what_to_do(articles: dict[str, Article], name: str) -> None:
    blocks = articles[name].blocks
    if blocks and blocks[0].tag == "p":  # the one short lead paragraph allowed before them
        blocks = blocks[1:]
    opening = [(b.tag, b.classes, b.title) for b in blocks[:2]]
    for (tag, classes, title), (kind, wanted) in zip(opening, BOXES, strict=False):
        assert tag == "div" and "admonition" in classes and kind in classes and title == wanted, \
            f"{name}: expected the {wanted!r} box ({kind}), found <{tag} class={' '.join(classes)!r}> {title!r}"
    assert len(opening) == 2, f"{name}: the page ends before its two boxes"


@pytest.mark.parametrize("name", topic_pages())
def test_a_topic_page_lead_is_short(articles: dict[str, Article], name: str) -> None:
    """At most one lead paragraph before the boxes, and a short one: the boxes are the first screen."""
    page = articles[name]
    first = page.blocks[0]
    if first.tag == "p":
        lead = next(p for p in page.paragraphs if not p.folded)
        assert len(lead.words) <= LEAD_WORDS, f"{name}: a lead of {len(lead.words)} words: {lead.text[:80]}..."


@pytest.mark.parametrize("name", topic_pages())
def test_the_in_short_box_is_two_to_four_sentences_or_items(site_dir: Path, name: str) -> None:
    html = (site_dir / name).read_text(encoding="utf-8")
    opening = '<div class="admonition abstract">'
    assert opening in html, f"{name} has no In short box"
    box = html.split(opening, 1)[1].split("</div>", 1)[0]
    items = box.count("<li")
    body = re.sub(r"<[^>]+>", " ", box.split("</p>", 1)[1])  # after the title
    sentences = len(re.findall(r"[.!?](?:\s|$)", re.sub(r"\b(?:e\.g|i\.e|et al|cf)\.", "", body)))
    assert 2 <= items <= 4 or (items == 0 and 2 <= sentences <= 4), f"{name}: {items} items, {sentences} sentences"


@pytest.mark.parametrize("name", doc_pages())
def test_every_paragraph_is_at_most_120_words(articles: dict[str, Article], name: str) -> None:
    long = [f"{len(p.words)} words: {p.text[:90]}..." for p in articles[name].paragraphs
            if not p.caption and len(p.words) > MAX_WORDS]
    assert not long, f"{name}: paragraphs over {MAX_WORDS} words:\n" + "\n".join(long)


def test_the_paragraph_count_sees_every_paragraph() -> None:
    """The reader counts a paragraph's words across inline markup, a formula as one, and skips captions."""
    html = ("<article><h1>T</h1><p>one <em>two</em> <code>three four</code> "
            '<span class="arithmatex">a + b = c</span> five</p><figure><figcaption><p>x y</p></figcaption></figure>'
            "<details><p>folded words</p></details></article>")
    page = Article(html)
    assert [(len(p.words), p.caption, p.folded) for p in page.paragraphs] == [(6, False, False), (2, True, False),
                                                                              (2, False, True)]
    assert page.main_words == ["T", "one", "two", "three", "four", "𝑥", "five"]


NUMBER_HEAVY = ["formats.html", "dot-products.html", "conditioning.html"]
"""The pages whose prose carried 7-9 numbers per 100 words (issue 24, counted over the whole article)."""
MAX_NUMBERS_PER_100_WORDS = 6.0
"""Numbers per 100 words of running prose in the main text, at most (tables and folds may hold the rest)."""


@pytest.mark.parametrize("name", NUMBER_HEAVY)
def test_the_main_text_is_not_a_list_of_numbers(articles: dict[str, Article], name: str) -> None:
    density = articles[name].numbers_per_100_words()
    assert density < MAX_NUMBERS_PER_100_WORDS, f"{name}: {density:.1f} numbers per 100 words of prose"


def test_the_density_counts_numbers_in_prose_only() -> None:
    """2,048 and 0.07 are numbers; FP16, E4M3 and float32 are names; tables, folds, code and references do not count."""
    html = ("<article><h1>T</h1><p>FP16 stops at 2,048 after 0.07 s; E4M3 and float32 too.</p>"
            "<table><tr><td>1 2 3</td></tr></table><details><p>4 5</p></details><pre>6</pre>"
            '<p><code>--n 7</code></p><h2 id="references">References</h2><ul><li>Kahan 1965</li></ul></article>')
    page = Article(html)
    assert page.prose_numbers == ["2,048", "0.07"]
    assert page.prose_words == 11  # the first paragraph's words: not the code's, not the citation's


@pytest.mark.parametrize("name", topic_pages())
def test_the_section_headings_say_what_the_section_teaches(articles: dict[str, Article], name: str) -> None:
    """The h2 with id concept, maths and code keep their ids (other pages link to them) and their word, and say more."""
    by_id = {h.id: h.text for h in articles[name].h2()}
    assert set(SECTIONS) <= set(by_id), f"{name}: h2 ids {sorted(by_id)}"
    for ident in ("concept", "maths", "code"):
        text = by_id[ident]
        assert text.lower().startswith(ident), f"{name}: #{ident} is titled {text!r}"
        assert len(text.split()) >= 3, f"{name}: #{ident} says only {text!r}"


def test_no_two_pages_share_a_section_heading(articles: dict[str, Article]) -> None:
    seen: dict[str, str] = {}
    shared = []
    for name, page in sorted(articles.items()):
        for heading in page.h2():
            if heading.text in ENDINGS:
                continue
            if heading.text in seen:
                shared.append(f"{heading.text!r}: {seen[heading.text]} and {name}")
            seen.setdefault(heading.text, name)
    assert not shared, "h2 texts on two pages:\n" + "\n".join(shared)


@pytest.mark.parametrize("name", doc_pages())
def test_a_number_in_a_heading_is_the_models_in_the_page_and_its_table_of_contents(site_dir: Path, name: str) -> None:
    """A heading may hold a number token: it is replaced in the heading, and in the table of contents built from it."""
    html = (site_dir / name).read_text(encoding="utf-8")
    headings = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", html, re.S)
    tocs = re.findall(r'<nav class="md-nav md-nav--secondary"(.*?)</nav>', html, re.S)
    left = [text for text in headings + tocs if "{{" in text or "}}" in text]
    assert not left, f"{name}: a token left in a heading or the table of contents: {left[0][:120]}"


def test_the_headings_with_a_token_show_the_models_number(site_dir: Path) -> None:
    """The h3 "FP32 stalls too, at {{ formats-table.fp32.stall }}" shows the stall point in the page and the toc."""
    import json

    stall = json.loads((site_dir / "data" / "numbers.json").read_text())["formats-table.fp32.stall"]
    html = (site_dir / "error-vs-n.html").read_text(encoding="utf-8")
    assert re.search(rf'<h3 id="fp32-stalls-too">FP32 stalls too, at {re.escape(stall)}<', html)
    toc = re.findall(r'<nav class="md-nav md-nav--secondary"(.*?)</nav>', html, re.S)
    assert toc and all(f"FP32 stalls too, at {stall}" in " ".join(t.split()) for t in toc)


@pytest.mark.parametrize("name", topic_pages())
def test_no_h3_is_a_bare_word(articles: dict[str, Article], name: str) -> None:
    """An h3 in the table of contents says what it teaches: more than one word."""
    bare = [h.text for h in articles[name].headings if h.level == 3 and len(h.text.split()) < 2]
    assert not bare, f"{name}: {bare}"


# ---------------------------------------------------------------- the home page


HOME = "index.html"
PATHS = {"engineer": "reading-path-engineer", "course": "reading-path-course"}
"""The ids of the blocks holding the home page's two reading paths, each a numbered list: about ten minutes
for an ML engineer, and the full order for a course."""


def path_links(site_dir: Path, which: str) -> list[str]:
    """The hrefs of the links in the home page's reading path ``which``, in order."""
    html = (site_dir / HOME).read_text(encoding="utf-8")
    match = re.search(rf'<div [^>]*id="{PATHS[which]}"[^>]*>\s*<ol>(.*?)</ol>', html, re.S)
    assert match, f"the home page has no numbered list in a block with id {PATHS[which]!r}"
    return re.findall(r'<a href="([^"]+)"', match.group(1))


def test_the_engineer_path_goes_to_the_advice_in_a_few_stops(site_dir: Path) -> None:
    """About ten minutes: a few stops, each a section of a topic page, starting from the one that explains the race."""
    links = path_links(site_dir, "engineer")
    assert 3 <= len(links) <= 6, links
    pages = [link.split("#")[0] for link in links]
    assert pages[0] == "accumulation-error.html", links
    assert set(pages) <= set(topic_pages()), links
    for link in links:
        page, _, anchor = link.partition("#")
        assert (site_dir / page).is_file(), link
        if anchor:
            assert f'id="{anchor}"' in (site_dir / page).read_text(encoding="utf-8"), link


COURSE_PAGES = [*topic_pages(), "playground.html"]
"""The pages a course takes in the navigation's order: the topic pages and the playground's guided experiments."""


def test_the_course_path_takes_every_topic_page_in_the_order_of_the_site(site_dir: Path) -> None:
    """The navigation owns the order; the home page's course path follows it (issue 39: formats second,
    then the playground's guided experiments, before the longer pages).
    """
    full = path_links(site_dir, "course")
    links = [link.split("#")[0] for link in full]
    nav = [p for p in doc_pages() if p in COURSE_PAGES]
    html = (site_dir / HOME).read_text(encoding="utf-8")
    order = sorted(nav, key=lambda p: html.index(f'href="{p}"', html.index('class="md-nav__list"')))
    assert [p for p in links if p in COURSE_PAGES] == order, links
    assert links[:3] == ["accumulation-error.html", "formats.html", "playground.html"], links
    assert "playground.html#guided-experiments" in full, full
    assert "teaching.html" in links, "the course path names the instructors' page"


LONG_PAGE_WORDS = 4000
"""A topic page longer than this, in words of its Markdown, folds its Code section (issue 39)."""
LONG_PAGES = [name for name in topic_pages()
              if len((Path(__file__).resolve().parents[2] / "docs" / name.replace(".html", ".md")).read_text().split())
              > LONG_PAGE_WORDS]


def test_the_longest_pages_are_long() -> None:
    assert {"accumulation-error.html", "in-practice.html"} <= set(LONG_PAGES), LONG_PAGES


@pytest.mark.parametrize("name", LONG_PAGES)
def test_a_long_pages_code_is_folded_and_still_found_by_search(site_dir: Path, name: str) -> None:
    """On a long page the Code section's code is in one folded block (an introduction may stay above it),
    whose headings the search index still finds.
    """
    import json

    html = (site_dir / name).read_text(encoding="utf-8")
    code = html[html.index('<h2 id="code">'):]
    code = code[:code.index("<h2 ", 1)]
    folded = re.search(r"<details[^>]*>(.*)</details>", code, re.S)
    assert folded and not re.search(r"<details[^>]*\bopen\b", code), f"{name}: its Code is not folded"
    assert "<pre" not in code[:code.index("<details")], f"{name}: code shown above the fold"
    index = json.loads((site_dir / "search" / "search_index.json").read_text())["docs"]
    located = {d["location"] for d in index}
    inside = re.findall(r'<h3 id="([^"]+)"', folded.group(1))
    for anchor in inside:
        assert f"{name}#{anchor}" in located, f"search does not find {name}#{anchor}"


def test_no_topic_page_repeats_another_ones_figure(site_dir: Path) -> None:
    """A figure is drawn on one topic page; another one links to it (issue 39: the repeated error plot)."""
    seen: dict[str, str] = {}
    for name in topic_pages():
        html = (site_dir / name).read_text(encoding="utf-8")
        for figure in set(re.findall(r'<figure[^>]* id="(fig-[^"]+)"', html)):
            assert figure not in seen, f"{figure} is on {seen.get(figure)} and on {name}"
            seen[figure] = name


def test_the_takeaway_says_where_the_sum_stops_and_what_to_do(site_dir: Path) -> None:
    """The home page's takeaway holds the three things: the FP16 stall point, FP32, and the library."""
    import json

    html = (site_dir / HOME).read_text(encoding="utf-8")
    match = re.search(r'<p [^>]*id="takeaway"[^>]*>(.*?)</p>', html, re.S)
    assert match, "the home page has no #takeaway paragraph"
    text = " ".join(re.sub(r"<[^>]+>", " ", match.group(1)).split())
    stall = json.loads((site_dir / "data" / "numbers.json").read_text())["formats-table.fp16.stall"]
    assert stall in text and "FP32" in text and "library" in text, text
