"""What a page shows in its first moments, before mkdocs-material's script starts and just after.

Measured on the one load of each page at each screen that ``test_fits_screen`` then
shows whole, so that the page is loaded once for both (a load costs chromium about a
second of CPU): the page is opened with the theme's script held back
(``hooks/theme/theme_loader.js`` starts it on the reader's first move), looked at,
then started as a reader's first move starts it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from urllib.parse import urlsplit

from browsing import ALL_RACES_READY_JS, TEX_LEFT, THEME_RUNNING_JS, VISIBLE_PROSE_JS, Visit
from repocopy import REPO

sys.path.insert(0, str(REPO))
from hooks.theme.names import BUNDLE as BUNDLE_PATH  # noqa: E402
from hooks.theme.names import SCROLLWRAP, WRAPPED_TABLES  # noqa: E402

BUNDLE = re.compile(f"/{BUNDLE_PATH}$")
RUNNING_NOW_JS = THEME_RUNNING_JS.removeprefix("() => ")

# Where each part of the article is: its direct children, its tables and its display formulas.
ARTICLE_BOXES_JS = """() => [...document.querySelectorAll(
    'article > *, article table, article div.arithmatex')].map(e => {
  const r = e.getBoundingClientRect();
  return [e.tagName + '.' + e.className, ...[r.x, r.y + scrollY, r.width, r.height].map(Math.round)];
})"""

# The lowest edge, in page pixels, of any text in the article, and the article's own bottom edge.
LOWEST_TEXT_JS = """() => {
  const article = document.querySelector('article');
  // A closed fold's contents are laid out when asked where they are, but shown to no one (axe counts them
  // hidden): only its summary is on the page.
  const bottoms = [...article.querySelectorAll('a, p, li, td, th, span, code, figcaption, summary')]
    .filter(e => {
      const fold = e.closest('details:not([open])'), summary = e.closest('summary');
      return !fold || (summary !== null && summary.parentElement === fold
                       && !fold.parentElement.closest('details:not([open])'));
    })
    .map(e => e.getBoundingClientRect()).filter(r => r.height > 0).map(r => r.bottom);
  return [Math.max(...bottoms) + scrollY, article.getBoundingClientRect().bottom + scrollY];
}"""


@dataclass(frozen=True)
class FirstLoad:
    """What the page showed as it loaded (the theme's script not started), and once that script had started.

    ``fetched_early``: what it fetched of the bundle, the search index or its shim before the start
    (nothing is right); ``running_early``: whether the script ran anyway.  ``lowest_text`` and
    ``article_bottom``: in page pixels, with the blocks off screen skipped.  ``moved``: each part of the
    article whose box changed when the script started, before and after; ``wraps_doubled`` and
    ``wrapped_tables``: the scroll boxes inside a scroll box after the start, and the tables that had one.
    ``problems``: console errors and failed requests by then.  ``tex_when_parsed``: TeX a reader could
    see (outside code) once the page was parsed (DOMContentLoaded), before it had loaded.
    """

    tex_when_parsed: list[str]
    fetched_early: list[str]
    running_early: bool
    lowest_text: float
    article_bottom: float
    moved: list[tuple[list[object], list[object]]]
    wraps_doubled: int
    wrapped_tables: int
    problems: list[str]


def first_load(visit: Visit, name: str) -> FirstLoad:
    """Open ``name`` in ``visit`` (looking once it is parsed) without starting the theme's script, look, start
    it, look again.

    The visit is left with the script running, as :meth:`Visit.goto` leaves a page.
    """
    page = visit.page
    page.goto(visit.base + name, wait_until="domcontentloaded")
    tex = TEX_LEFT.findall(page.evaluate(VISIBLE_PROSE_JS))
    page.wait_for_load_state("load")
    page.wait_for_function(ALL_RACES_READY_JS)  # as Visit.goto opens a page
    page.wait_for_load_state("networkidle")
    fetched = [urlsplit(url).path for url in visit.requests]
    early = [path for path in fetched if BUNDLE.search(path) or "search_index" in path or "shim" in path]
    running_early = bool(page.evaluate(RUNNING_NOW_JS))
    lowest, bottom = page.evaluate(LOWEST_TEXT_JS)
    before = page.evaluate(ARTICLE_BOXES_JS)
    visit.start_theme()
    page.wait_for_load_state("networkidle")
    after = page.evaluate(ARTICLE_BOXES_JS)
    return FirstLoad(
        tex_when_parsed=tex, fetched_early=early, running_early=running_early,
        lowest_text=lowest, article_bottom=bottom,
        moved=[(b, a) for b, a in zip(before, after, strict=True) if b != a],
        wraps_doubled=page.locator(f".{SCROLLWRAP} .{SCROLLWRAP}").count(),
        wrapped_tables=page.locator(f"article {WRAPPED_TABLES}").count(),
        problems=visit.problems())
