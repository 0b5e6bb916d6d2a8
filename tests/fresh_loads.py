"""Fresh loads of a page in chromium, each measured once per test process and read by several tests.

A page load costs chromium about a second of CPU, so one fresh load of each
page at a phone's size and one at a desktop's (over HTTP) serve every test that
looks at a page as it first loads: its lazy images, its code blocks' heights,
its layout shifts, the glyph outlines its formulas draw and every file it
fetched (``test_page_speed``, and ``test_offline``, which compares the outlines
drawn from disk with these).  The session fixture ``loaded`` (conftest) hands them out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from playwright.sync_api import Browser

from browsing import Visit, let_frames_pass
from page_weight import VIEWPORT

PHONE = dict(VIEWPORT)  # the bench's phone, Lighthouse's mobile viewport
# Each formula's glyphs, in order: the code point and outline of every glyph it draws, a glyph the
# page's outlines (hooks/content/formulas.py) lack as null.  A glyph is a <use> of the page's outline.
OUTLINES_JS = """() => [...document.querySelectorAll('.arithmatex > mjx-container > svg')].map(
  svg => [...svg.querySelectorAll('[data-c]')].filter(g => g.matches('use, path')).map(g => {
    const href = g.getAttribute('href') || g.getAttribute('xlink:href');
    const outline = g.matches('path') ? g : href && document.getElementById(href.slice(1));
    return [g.getAttribute('data-c'), outline ? outline.getAttribute('d') : null];
  }))"""
# The images below the first screen (of ``height`` px) that are not lazy: fetched at once.
IMAGES_EAGER_BELOW_JS = """(height) => [...document.querySelectorAll('article img')]
  .filter(img => !img.closest('noscript') && img.getBoundingClientRect().top + scrollY > height)
  .filter(img => img.loading !== 'lazy').map(img => img.getAttribute('src'))"""
# Each shown code block's height while skipped (contain-intrinsic-size) and drawn.
# Each code block the browser may skip (content-visibility: auto): its guessed height and its height drawn.
# Blocks that wrap (all below 720 px; any with a line over 79 columns) are never skipped, so never guessed.
CODE_HEIGHTS_JS = """() => [...document.querySelectorAll('.md-typeset pre')]
  .filter(pre => pre.checkVisibility() && getComputedStyle(pre).contentVisibility === 'auto').map(pre => {
    const skipped = parseFloat(getComputedStyle(pre).containIntrinsicHeight.replace('auto', ''));
    pre.style.contentVisibility = 'visible';
    const drawn = pre.getBoundingClientRect().height;
    pre.style.contentVisibility = '';
    return [skipped, drawn];
  })"""
# Adds up every layout shift from the page's start (before any script of its own runs).
LAYOUT_SHIFTS_JS = """window.__shift = 0; new PerformanceObserver(list => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value;
}).observe({type: 'layout-shift', buffered: true});"""


@dataclass
class Measured:
    """What one fresh load of a page showed, in the order a reader meets it: at once, then scrolled."""

    eager_images: list[str] = field(default_factory=list)
    code_heights: list[tuple[float, float]] = field(default_factory=list)
    formula_boxes: list[tuple[int, float, float]] = field(default_factory=list)
    outlines: list[Any] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    layout_shift: float = 0.0


def on_phone(browser: Browser, site_url: str, name: str) -> Measured:
    """At a phone's size: the images and code blocks as loaded (nothing scrolled), then each display formula
    scrolled to: its box's and its drawing's heights.
    """
    visit = Visit(browser, site_url, name, viewport=PHONE)
    try:
        page = visit.page
        seen = Measured(eager_images=page.evaluate(IMAGES_EAGER_BELOW_JS, PHONE["height"]),
                        code_heights=page.evaluate(CODE_HEIGHTS_JS))
        formulas = page.locator("div.arithmatex")
        for i in range(formulas.count()):
            formula = formulas.nth(i)
            if not formula.evaluate("f => f.checkVisibility()"):
                continue  # in a folded answer or a hidden tab
            formula.scroll_into_view_if_needed()
            box, drawn = formula.evaluate("""f => {
              const svg = [...f.querySelectorAll('mjx-container')].find(c => c.checkVisibility())
                .querySelector('svg').getBoundingClientRect();  // a long one's shown form
              return [f.getBoundingClientRect().height, svg.height];
            }""")
            seen.formula_boxes.append((i, box, drawn))
        return seen
    finally:
        visit.close()


def on_desktop(browser: Browser, site_url: str, name: str) -> Measured:
    """At a desktop's size, over HTTP: the code blocks as loaded, then the layout shifts since the start
    (five frames on), every formula's outlines and every request the page made by then.
    """
    visit = Visit(browser, site_url)
    try:
        visit.page.add_init_script(LAYOUT_SHIFTS_JS)
        visit.goto(name)
        seen = Measured(code_heights=visit.page.evaluate(CODE_HEIGHTS_JS))
        let_frames_pass(visit.page, 5)
        seen.layout_shift = visit.page.evaluate("window.__shift")
        seen.outlines = visit.page.evaluate(OUTLINES_JS)
        seen.requests = list(visit.requests)
        return seen
    finally:
        visit.close()


How = Literal["phone", "desktop"]
Loaded = Callable[[How, str], Measured]
"""``loaded(how, name)``: what the one fresh load of page ``name`` at a phone's or a desktop's size showed."""


def fresh_loads(browser: Browser, site_url: str) -> Loaded:
    """``loaded`` over the site at ``site_url``: each page loaded at most once per size, on first asking."""
    seen: dict[tuple[How, str], Measured] = {}

    def get(how: How, name: str) -> Measured:
        if (how, name) not in seen:
            load = on_phone if how == "phone" else on_desktop
            seen[how, name] = load(browser, site_url, name)
        return seen[how, name]

    return get
