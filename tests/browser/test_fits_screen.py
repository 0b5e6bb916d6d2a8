"""Every page fits every screen: it never scrolls sideways, wide tables and code scroll in boxes of their own.

At each screen of ``screens.SCREENS``, in both palettes, on every page, in chromium:

- the page never scrolls sideways, and no element reaches past the screen's
  edges unless it sits in a box that scrolls sideways (``overflow-x`` auto or
  scroll) and that box fits the screen.  mkdocs-material hides the page's
  sideways overflow (``overflow-x: hidden`` on the root), so what sticks out
  would not scroll, it would be cut off: the elements are measured one by one;
- a table that scrolls sideways keeps its first column in view, on an opaque
  background (the rows scroll under it), and shows a cue at its edge (a fade);
  a table that does not scroll shows none;
- no code block scrolls sideways: a long line wraps, and on a phone each line
  that wraps is marked (an arrow before each of its later lines, which start
  further right than its first); code on a phone is at least 12 px;
- the copy button covers no code text.

From 600 px up, a code block has room for the longest line of included code
(``hooks.code_blocks.COLUMNS``), at 0.85em on a desktop.

On a phone every table fits the screen (a wide one as cards, one per row), and
the column a reader comes to a table for is on the first screen, with its name:
the formats' stall point, the library table's result and how it adds, the
playground's stall (tests/browser/test_playground_page.py).  Copying a block whose
lines wrap, with its copy button or by selecting it, gives its code as written.

The page is measured as a reader who has scrolled through it sees it: every
race drawn, every formula typeset, every folded block open, and no block
skipped off screen (content-visibility), since a skipped block draws nothing
that could stick out.  Each page is opened once per screen and shared by the
tests of that screen, both palettes included.  That one load also serves two
checks of the page's first moments (``first_load``: no text below the article
while blocks are skipped, nothing moved when mkdocs-material's script started),
before any test switches the palette the light figures' smallest text
(``figure_text``; the dark one is measured in ``test_figure_text``), and the
display formulas' checks over HTTP (``formula_checks``: drawn whole, never
widening the page, the narrow form on a phone, the wide one on a desktop and printed).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page

from browsing import Visit, all_pages, draw_every_block, draw_every_race, has_formulas, set_scheme
from figure_text import FIGURE_PAGES, figure_text_problems
from first_load import FirstLoad, first_load
from formula_checks import DESKTOP, FORMS_JS, PHONES, check
from repocopy import REPO
from screens import SCHEMES, SCREENS, Screen

sys.path.insert(0, str(REPO))
from hooks.theme.code_blocks import COLUMNS  # noqa: E402  (one owner of the width a block wraps past)
from hooks.theme.names import SCROLLWRAP, TABLE_BOX  # noqa: E402

PAGES = all_pages()
RUN_TOGETHER = ("name", "screen")
"""The module-wide parameters of one page load (``visited``): the tests that share them run together (conftest)."""
SMALLEST_CODE_PX = 12
"""The smallest code a phone shows."""

def show_all(page: Page) -> None:
    """Everything a reader who scrolled through the page has seen: nothing skipped off screen, every fold open."""
    draw_every_block(page)
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
# Every element that reaches past the screen's edges, and is not inside a box that scrolls sideways and
# itself fits the screen (a wider box that scrolls, inside one that fits, is reached by scrolling that
# one); mkdocs-material's navigation drawer (off screen until opened) and its search (a closed overlay)
# are left out, and so is what is transparent (the header's waiting title, clipped by layout.css): it
# cannot be seen cut off, and were it to widen the page, scrollWidth says so.
STICKING_OUT_JS = """() => {
  const width = document.documentElement.clientWidth;
  const fits = r => r.left >= -1 && r.right <= width + 1;
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const out = [];
  for (const e of document.body.querySelectorAll('*')) {
    if (e.closest('.md-sidebar--primary, .md-search')) continue;
    if (!e.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    const r = e.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || fits(r)) continue;
    let held = false;
    for (let a = e.parentElement; a && a !== document.body && !held; a = a.parentElement) {
      held = scrolls(a) && fits(a.getBoundingClientRect());
    }
    if (!held) out.push(`<${e.tagName.toLowerCase()} class="${e.getAttribute('class') || ''}">`
                        + ` from ${r.left.toFixed(0)} to ${r.right.toFixed(0)} px`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, width, out};
}"""
# A table's scroll box (hooks/theme/names.py).
TABLE_BOX_JS = f"const TABLE_BOX = {json.dumps(TABLE_BOX)};"
# Each table that scrolls sideways, scrolled to its end: its first column's cells that left the view
# of the scrolling box, and those whose background is not opaque.
FIRST_COLUMN_JS = """() => {
  """ + TABLE_BOX_JS + """
  const found = [];
  for (const table of document.querySelectorAll('article table')) {
    const box = table.closest(TABLE_BOX) || table;
    if (!table.checkVisibility() || box.scrollWidth <= box.clientWidth + 1) continue;
    box.scrollLeft = box.scrollWidth;
    const view = box.getBoundingClientRect();
    const cells = [...table.rows].map(row => row.cells[0]).filter(Boolean);
    const left = cells.filter(c => c.getBoundingClientRect().left < view.left - 1).length;
    const seeThrough = cells.filter(c => {
      const alpha = getComputedStyle(c).backgroundColor.match(/[\\d.]+/g).map(Number)[3];
      return alpha !== undefined && alpha < 1;
    }).length;
    found.push({head: table.rows[0].cells[0].textContent.trim(), cells: cells.length, left, seeThrough});
    box.scrollLeft = 0;
  }
  return found;
}"""
# The header cell named `name`, and a body cell of its column: whether each shows on the first screen
# of its table, before the reader scrolls it. On a phone a wide table is cards, its header row clipped out
# of sight: there the column's name shows as the cell's label (drawn before it, layout.css).
COLUMN_SHOWN_JS = """(name) => {
  """ + TABLE_BOX_JS + """
  const head = [...document.querySelectorAll('article th')].find(th => th.textContent.trim() === name);
  if (!head) return null;
  const table = head.closest('table');
  const box = table.closest(TABLE_BOX) || table;
  box.scrollLeft = 0;
  const view = box.getBoundingClientRect();
  const width = document.documentElement.clientWidth;
  const cell = table.tBodies[0].rows[0].cells[head.cellIndex];
  const inView = c => {
    const r = c.getBoundingClientRect();
    return r.width > 1 && r.left >= Math.max(view.left, 0) - 1 && r.right <= Math.min(view.right, width) + 1;
  };
  const label = getComputedStyle(cell, '::before').content;
  return [inView(head) || (label.includes(JSON.stringify(name)) && cell.dataset.label === name), inView(cell)];
}"""
# Each table's scroll box: whether it scrolls sideways, and whether it shows the cue (a mask at its edge),
# at its start.
TABLE_CUES_JS = """() => {
  """ + TABLE_BOX_JS + """
  return [...document.querySelectorAll('article table')].filter(t => t.checkVisibility()).map(table => {
    const box = table.closest(TABLE_BOX) || table;
    box.scrollLeft = 0;
    return {head: table.rows[0].cells[0].textContent.trim(), scrolls: box.scrollWidth > box.clientWidth + 1,
            cue: getComputedStyle(box).maskImage !== 'none'};
  });
}"""
# Each code block that scrolls sideways.
CODE_SCROLLS_JS = """() => [...document.querySelectorAll('article pre > code')]
  .filter(code => code.checkVisibility() && code.scrollWidth > code.clientWidth + 1)
  .map(code => code.textContent.split('\\n')[0])"""
# The font sizes of the code blocks, in px.
CODE_SIZES_JS = """() => [...document.querySelectorAll('article pre > code')]
  .filter(code => code.checkVisibility()).map(code => parseFloat(getComputedStyle(code).fontSize))"""
# Each line of code that wraps: its text, its rows (lines on the screen), whether it has the arrow, and
# the rows after its first that do not start at least two columns right of where its first starts.
WRAPPED_LINES_JS = """() => [...document.querySelectorAll('article pre > code')].filter(c => c.checkVisibility())
  .flatMap(code => [...code.children]).map(line => {
    const range = document.createRange();
    range.selectNodeContents(line);
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    const tops = [...new Set(rects.map(r => Math.round(r.top)))].sort((a, b) => a - b);
    const starts = tops.map(t => Math.min(...rects.filter(r => Math.round(r.top) === t).map(r => r.left)));
    const column = parseFloat(getComputedStyle(line).fontSize) * 0.6;
    return {text: line.textContent.trim().slice(0, 40), rows: tops.length,
            arrow: getComputedStyle(line).backgroundImage.includes('svg'),
            unhung: starts.slice(1).filter(left => left < starts[0] + 2 * column - 1).length};
  }).filter(line => line.rows > 1)"""
# The code blocks with a line that wraps: their indices among the page's blocks.
WRAPPING_BLOCKS_JS = """() => [...document.querySelectorAll('article pre')].map((pre, i) => [pre, i])
  .filter(([pre]) => pre.checkVisibility() && [...pre.querySelectorAll(':scope > code > *')].some(line => {
    const range = document.createRange();
    range.selectNodeContents(line);
    return new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top))).size > 1;
  })).map(([, i]) => i)"""
# Block `index` selected as a reader selects it, whole: the text a copy of the selection takes, and the
# block's code as written (both without the last newline, which mkdocs-material's copy button drops too).
SELECTED_JS = """(index) => {
  const code = document.querySelectorAll('article pre')[index].querySelector(':scope > code');
  const range = document.createRange();
  range.selectNodeContents(code);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
  const selected = getSelection().toString();
  getSelection().removeAllRanges();
  return [selected.trimEnd(), code.textContent.trimEnd()];
}"""
# What the next copy puts on the clipboard: mkdocs-material's copy button selects its text in a hidden
# text area and copies that.
CATCH_COPY_JS = """() => { window.fpsumCopied = null;
  document.addEventListener('copy', e => {
    window.fpsumCopied = e.target instanceof HTMLTextAreaElement ? e.target.value : getSelection().toString();
  }, {once: true}); }"""
# The visible code blocks, one index each.
CODE_BLOCKS_JS = """() => [...document.querySelectorAll('article pre')].map((pre, i) => [pre, i])
  .filter(([pre]) => pre.checkVisibility()).map(([, i]) => i)"""
# For the code block `index`, scrolled to `end` or back: the code text rectangles its copy button overlaps.
BUTTON_OVER_TEXT_JS = """([index, end]) => {
  const pre = document.querySelectorAll('article pre')[index];
  const code = pre.querySelector(':scope > code');
  code.scrollLeft = end ? code.scrollWidth : 0;
  const button = pre.querySelector('.md-code__button').getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(code);
  const hit = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0
    && r.left < button.right - 0.5 && r.right > button.left + 0.5
    && r.top < button.bottom - 0.5 && r.bottom > button.top + 0.5);
  code.scrollLeft = 0;
  return hit.map(r => `text at ${r.left.toFixed(0)}-${r.right.toFixed(0)} x ${r.top.toFixed(0)}-${r.bottom.toFixed(0)}`
    + ` under the button at ${button.left.toFixed(0)}-${button.right.toFixed(0)}`
    + ` x ${button.top.toFixed(0)}-${button.bottom.toFixed(0)}`);
}"""

@pytest.fixture(scope="module")
def name(request: pytest.FixtureRequest) -> str:
    """The page (``index.html``): a module-wide parameter, so that the tests of one page and screen run together."""
    return str(request.param)


@pytest.fixture(scope="module")
def screen(request: pytest.FixtureRequest) -> Screen:
    """The screen: a module-wide parameter, as ``name``."""
    assert isinstance(request.param, Screen)
    return request.param


class Arrival(NamedTuple):
    """The visit of a page at a screen, and what it showed before any test here changed it."""

    visit: Visit
    first: FirstLoad
    figure_text: list[str]
    """What is wrong with its figures in the light palette (``figure_text``), on a page that places one."""


@pytest.fixture(scope="module")
def visited(browser: Browser, site_url: str, site_dir: Path, name: str, screen: Screen,
            request: pytest.FixtureRequest) -> Iterator[Arrival]:
    """Page ``name`` at ``screen``, loaded once for every test of that page and screen, with what its first
    moments showed (``first_load``: before and after the theme's script started) and, before any test
    switches the palette, its figures' text.

    pytest runs those tests one after the other, and opens the next page when they are done.
    """
    visit = Visit(browser, site_url, viewport=screen.viewport, is_mobile=screen.phone, has_touch=screen.phone)
    try:
        first = first_load(visit, name)
        # Measured only where a test of this run reads it (make check's pass does not).
        wanted = name in FIGURE_PAGES and any(item.name.startswith(f"{FIGURE_TEXT_TEST.__name__}[")
                                              for item in request.session.items)
        figures = figure_text_problems(visit, site_dir, screen.phone, SCHEMES[0]) if wanted else []
        yield Arrival(visit, first, figures)
    finally:
        visit.close()


@pytest.fixture(scope="module")
def loaded_first(visited: Arrival) -> FirstLoad:
    """What the page showed as it loaded, before and just after the theme's script started."""
    return visited.first


@pytest.fixture(scope="module")
def shown(visited: Arrival) -> Page:
    """The page shown whole, as a reader who scrolled through it has seen it."""
    page = visited.visit.page
    draw_every_race(page)
    show_all(page)
    return page


def in_palette(page: Page, scheme: str) -> Page:
    set_scheme(page, scheme)
    return page


every_page = pytest.mark.parametrize("name", PAGES, indirect=True)
every_screen = pytest.mark.parametrize("screen", SCREENS, indirect=True, ids=lambda s: s.name)
# Where things sit is the same in both palettes; what shows through or how it contrasts is not.
both_palettes = pytest.mark.parametrize("scheme", SCHEMES)


@every_page
@every_screen
def test_no_text_reaches_below_the_article_while_blocks_are_skipped(loaded_first: FirstLoad, name: str) -> None:
    """Just loaded, most blocks skipped off screen (layout.css): a skipped block's text, laid out at its real
    height in a box of guessed height, never reaches below the article, where a contrast check (axe, as
    Lighthouse runs it on the loaded page) would take the footer's dark background for the text's.
    """
    below = loaded_first.lowest_text - loaded_first.article_bottom
    assert below <= 1, f"{name}: text {below:.0f} px below the article"


@every_page
@every_screen
def test_nothing_in_the_article_moves_when_the_bundle_starts(loaded_first: FirstLoad, name: str,
                                                             screen: Screen) -> None:
    """The page reads without mkdocs-material's script, which starts on the reader's first move
    (hooks/theme/theme_loader.js): nothing of it was fetched or ran before, and nothing moved when it started.
    """
    seen = loaded_first
    assert seen.fetched_early == [] and not seen.running_early, seen.fetched_early
    assert seen.moved == [], f"{name} at {screen.name}: moved when the bundle started: {seen.moved[:3]}"
    assert seen.wraps_doubled == seen.wrapped_tables, "the bundle wraps each table once more"
    assert seen.problems == []


@pytest.mark.parametrize("name", FIGURE_PAGES, indirect=True)
@every_screen
def test_every_figure_draws_its_smallest_text_at_11_css_px_or_more(visited: Arrival, name: str,
                                                                  screen: Screen) -> None:
    """In the light palette, as the page arrived: only light SVGs fetched, and on a phone only narrow ones."""
    assert visited.figure_text == [], f"{name} at {screen.name}:\n" + "\n".join(visited.figure_text)


FIGURE_TEXT_TEST = test_every_figure_draws_its_smallest_text_at_11_css_px_or_more


@pytest.mark.check
@every_page
@every_screen
def test_formulas_are_drawn_whole_and_never_widen_the_page(shown: Page, loaded_first: FirstLoad, site_dir: Path,
                                                           name: str, screen: Screen) -> None:
    """No TeX in sight once the page is parsed; each display formula drawn, in the screen (formula_checks).

    Where a formula sits is the same in both palettes: the dark one is checked on the first screen only.
    """
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    assert loaded_first.tex_when_parsed == [], f"{name} at {screen.name}: TeX in sight at DOMContentLoaded"
    for scheme in SCHEMES if screen == SCREENS[0] else SCHEMES[:1]:
        check(in_palette(shown, scheme), f"{name} at {screen.name}, {scheme}")


@every_page
@pytest.mark.parametrize("screen", PHONES, indirect=True, ids=lambda s: s.name)
def test_no_display_formula_is_wider_than_a_phones_column(shown: Page, site_dir: Path, name: str,
                                                          screen: Screen) -> None:
    """Issue 39: on a phone a long display formula shows its narrow form, which fits: no formula scrolls
    sideways (what it holds is no wider than its box), and each shows one form.
    """
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    seen = shown.evaluate(FORMS_JS)
    wider = [(f["i"], f["scroll"], f["client"]) for f in seen if f["scroll"] > f["client"]]
    assert wider == [], f"{name} at {screen.name}: display formulas wider than their box (index, px, box px): {wider}"
    assert all(len(f["shown"]) == 1 for f in seen), [f for f in seen if len(f["shown"]) != 1]


@every_page
@pytest.mark.parametrize("screen", [DESKTOP], indirect=True, ids=lambda s: s.name)
@pytest.mark.parametrize("media", ["screen", "print"])
def test_a_desktop_and_a_printout_show_the_wide_forms(shown: Page, site_dir: Path, name: str, media: str) -> None:
    """At 1280 px, and printed, every display formula shows its wide form alone (and nothing of it is cut)."""
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    shown.emulate_media(media=media)  # type: ignore[arg-type]
    try:
        seen = shown.evaluate(FORMS_JS)
    finally:
        shown.emulate_media(media="screen")
    assert [f["i"] for f in seen if f["shown"] != ["wide"]] == [], f"{name}, {media}: not the wide form alone"
    if media == "screen":
        wider = [(f["i"], f["scroll"], f["client"]) for f in seen if f["wide"] and f["scroll"] > f["client"]]
        assert wider == [], f"{name}: long display formulas wider than their box (index, px, box px): {wider}"


@pytest.mark.check
@every_page
@every_screen
def test_the_page_never_scrolls_sideways(shown: Page) -> None:
    seen: dict[str, Any] = in_palette(shown, SCHEMES[0]).evaluate(STICKING_OUT_JS)
    assert seen["scrollWidth"] <= seen["width"], f"the page is {seen['scrollWidth']} px wide"
    assert seen["out"] == [], f"past the screen's edges, in no box that scrolls: {seen['out'][:10]}"


@every_page
@every_screen
@both_palettes
def test_a_table_that_scrolls_keeps_its_first_column_in_view(shown: Page, scheme: str) -> None:
    for table in in_palette(shown, scheme).evaluate(FIRST_COLUMN_JS):
        assert table["left"] == 0, f"table '{table['head']}': {table['left']} first-column cells scrolled away"
        assert table["seeThrough"] == 0, f"table '{table['head']}': first-column cells the rows show through"


@every_page
@every_screen
def test_a_table_that_scrolls_shows_a_cue_and_one_that_fits_none(shown: Page) -> None:
    tables = shown.evaluate(TABLE_CUES_JS)
    wrong = [t for t in tables if t["cue"] != t["scrolls"]]
    assert wrong == [], f"tables whose cue says otherwise than their scrolling: {wrong}"


@every_page
@pytest.mark.parametrize("screen", PHONES, indirect=True, ids=lambda s: s.name)
def test_on_a_phone_every_table_fits_the_screen(shown: Page) -> None:
    scrolling = [t["head"] for t in shown.evaluate(TABLE_CUES_JS) if t["scrolls"]]
    assert scrolling == [], f"tables that scroll sideways (first header cells): {scrolling}"


@every_page
@every_screen
def test_no_code_block_scrolls_sideways(shown: Page) -> None:
    scrolling = in_palette(shown, SCHEMES[0]).evaluate(CODE_SCROLLS_JS)
    assert scrolling == [], f"code blocks that scroll sideways (first lines): {scrolling}"


@every_page
@pytest.mark.parametrize("screen", PHONES, indirect=True, ids=lambda s: s.name)
def test_code_on_a_phone_is_at_least_12_px(shown: Page) -> None:
    sizes = shown.evaluate(CODE_SIZES_JS)
    assert min(sizes, default=SMALLEST_CODE_PX) >= SMALLEST_CODE_PX - 0.01, f"code font sizes: {sorted(set(sizes))}"


@every_page
@pytest.mark.parametrize("screen", PHONES, indirect=True, ids=lambda s: s.name)
def test_a_line_that_wraps_is_marked(shown: Page) -> None:
    lines = shown.evaluate(WRAPPED_LINES_JS)
    unmarked = [line for line in lines if not line["arrow"] or line["unhung"]]
    assert unmarked == [], f"wrapped lines without the arrow or the hanging indent: {unmarked[:5]}"


@pytest.mark.parametrize("screen", PHONES, indirect=True, ids=lambda s: s.name)
@pytest.mark.parametrize("name", ["in-practice.html"], indirect=True)
def test_copying_a_block_whose_lines_wrap_gives_its_code(shown: Page) -> None:
    """Its copy button, and a selection of it, copy the code as written: no line broken where it wraps,
    none doubled (each line is a block of its own while shown).
    """
    page = shown
    blocks = page.evaluate(WRAPPING_BLOCKS_JS)
    assert blocks, "no code block on the page has a line that wraps on a phone"
    for index in blocks:
        selected, code = page.evaluate(SELECTED_JS, index)
        assert selected == code, f"code block {index + 1}: a selection copies {selected!r}"
        pre = page.locator("article pre").nth(index)
        pre.scroll_into_view_if_needed()
        page.evaluate(CATCH_COPY_JS)
        pre.locator(".md-code__button").click()
        page.wait_for_function("() => window.fpsumCopied !== null")
        copied = page.evaluate("() => window.fpsumCopied")
        assert copied == code, f"code block {index + 1}: its copy button copies {copied!r}"


@every_page
@every_screen
def test_the_copy_button_covers_no_code(shown: Page) -> None:
    """Each block brought into view (mkdocs-material sets its button up then), scrolled to its start and end
    (a block that scrolled would have the button over its code scrolled under it).
    """
    page = shown
    for index in page.evaluate(CODE_BLOCKS_JS):
        pre = page.locator("article pre").nth(index)
        pre.scroll_into_view_if_needed()
        pre.locator(".md-code__button").wait_for(state="attached")
        for end in (False, True):
            covered = page.evaluate(BUTTON_OVER_TEXT_JS, [index, end])
            assert covered == [], f"code block {index + 1}{', scrolled to its end' if end else ''}: {covered}"


LEAD_COLUMNS = [("formats.html", "stall point"), ("in-practice.html", "result"), ("in-practice.html", "how it adds")]


@pytest.mark.parametrize("screen", PHONES, indirect=True, ids=lambda s: s.name)
@pytest.mark.parametrize(("name", "column"), LEAD_COLUMNS, indirect=["name"])
def test_the_column_a_reader_comes_for_is_on_the_first_screen(shown: Page, name: str, column: str) -> None:
    columns = in_palette(shown, SCHEMES[0]).evaluate(COLUMN_SHOWN_JS, column)
    assert columns is not None, f"{name}: no table has a column '{column}'"
    assert columns == [True, True], f"{name}: the column '{column}' (header, first row) is off the first screen"


TABLE_PAGES = ["accumulation-error.html", "conditioning.html", "formats.html", "in-practice.html", "teaching.html"]
"""The pages with tables (on a phone, three of their eight tables scroll sideways)."""


@pytest.mark.parametrize("screen", PHONES, indirect=True, ids=lambda s: s.name)
@pytest.mark.parametrize("name", TABLE_PAGES, indirect=True)
@both_palettes
def test_a_table_that_scrolls_is_reachable_and_readable(shown: Page, scheme: str) -> None:
    """axe's rules for a box that scrolls (the keyboard can reach it) and for contrast, on the phone's tables."""
    page = in_palette(shown, scheme)
    assert page.locator(f"article .{SCROLLWRAP} table").count() > 0, "no table here: update TABLE_PAGES"
    results = Axe().run(page, context=f".{SCROLLWRAP}",
                        options={"runOnly": ["scrollable-region-focusable", "color-contrast"]})
    found = [f"{v['id']}: {[n['target'] for n in v['nodes'][:5]]}" for v in results.response["violations"]]
    assert found == []


@pytest.mark.parametrize("phone", PHONES, ids=lambda s: s.name)
@pytest.mark.parametrize("page_name", PAGES)
def test_without_javascript_the_page_never_scrolls_sideways(browser: Browser, site_url: str, page_name: str,
                                                            phone: Screen) -> None:
    """With scripts off nothing moves mkdocs-material's header titles out of the way: they must fit too."""
    visit = Visit(browser, site_url, viewport=phone.viewport, is_mobile=True, has_touch=True,
                  java_script_enabled=False)
    try:
        visit.page.goto(site_url + page_name, wait_until="load")  # no race is set up without scripts
        show_all(visit.page)
        seen: dict[str, Any] = visit.page.evaluate(STICKING_OUT_JS)
    finally:
        visit.close()
    assert seen["scrollWidth"] <= seen["width"], f"the page is {seen['scrollWidth']} px wide"
    assert seen["out"] == [], f"past the screen's edges, in no box that scrolls: {seen['out'][:10]}"


def test_the_check_sees_what_sticks_out(browser: Browser, site_url: str) -> None:
    """An element wider than a phone, outside any box that scrolls, is caught, though the page cannot scroll."""
    phone = PHONES[0]
    visit = Visit(browser, site_url, "index.html", viewport=phone.viewport, is_mobile=True, has_touch=True)
    try:
        visit.page.evaluate("""() => {
          const wide = document.createElement('p');
          wide.style.width = '2000px';
          wide.textContent = 'too wide';
          document.querySelector('article').appendChild(wide);
        }""")
        seen = visit.page.evaluate(STICKING_OUT_JS)
    finally:
        visit.close()
    assert any(item.startswith("<p ") for item in seen["out"]), seen


# The first code block's font size and how many columns its lines have room for (0.602em a column).
CODE_ROOM_JS = """() => {
  const code = document.querySelector('article pre > code');
  const style = getComputedStyle(code);
  const font = parseFloat(style.fontSize);
  const room = code.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return {font, columns: room / (0.602 * font)};
}"""


@pytest.mark.parametrize("width", [600, 1280])
def test_from_a_small_tablet_up_a_block_holds_the_longest_shown_line(
    browser: Browser, site_url: str, width: int
) -> None:
    """At 600 px (a small tablet, a phone on its side) and on a desktop, no line of included code wraps.

    The desktop keeps mkdocs-material's size (0.85em of its 16 px text); no screen goes below 12 px.
    """
    visit = Visit(browser, site_url, "accumulation-error.html", viewport={"width": width, "height": 900})
    try:
        room = visit.page.evaluate(CODE_ROOM_JS)
    finally:
        visit.close()
    assert room["columns"] >= COLUMNS, f"{width} px: room for {room['columns']:.1f} columns at {room['font']} px"
    assert room["font"] >= SMALLEST_CODE_PX
    if width >= 1280:
        assert room["font"] == pytest.approx(0.85 * 16), f"{width} px: code at {room['font']} px"
