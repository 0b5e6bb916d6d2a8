"""The formulas in chromium, on every screen of ``tests/screens.py``, in both palettes: drawn, never raw, never wide.

On every page with formulas: every display formula draws something wider
and taller than 8 px (below 45em mkdocs-material's own rules once squeezed
each to 1 px); as soon as the page is parsed (DOMContentLoaded) no text a
reader sees outside code is TeX; no formula makes the page scroll sideways
(a long display formula scrolls inside its own box, which then takes the
keyboard focus).  The same with JavaScript off, and from disk (``file://``).
On a phone no display formula scrolls: a long one shows its narrow form
(``hooks/content/formula_forms.py``); at 1280 px, and printed, each shows its wide one.
Over HTTP these checks (``formula_checks``) run in ``test_fits_screen``, on each
page's one load per screen; here, without JavaScript and from disk.

The drawing as the pages hold it puts every glyph where MathJax's own drawing
does (``hooks/content/flat_svg.py`` folds MathJax's nested groups into the glyphs;
chromium, not the folding code, says where each glyph lands).  A drawing
skipped off screen (``content-visibility`` in math.css) keeps its size, no
glyph reaches past the margin its box paints, and printed, every drawing is
drawn.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from browsing import Visit, doc_pages, has_formulas
from formula_checks import check, no_tex_at_dom_content_loaded
from repocopy import REPO
from screens import SCHEMES, SCREENS

sys.path.insert(0, str(REPO))
from hooks.content.flat_svg import flatten  # noqa: E402
from hooks.content.mathjax_render import Formula, draw  # noqa: E402

PAGES = doc_pages()
@pytest.mark.parametrize("where", ["no-javascript", "file"])
@pytest.mark.parametrize("name", PAGES)
def test_formulas_are_drawn_without_javascript_and_from_disk(browser: Browser, site_url: str, site_dir: Path,
                                                             name: str, where: str) -> None:
    """Without scripts (palette as the reader's system prefers it), or opened from disk, on every screen."""
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    base = site_dir.resolve().as_uri() + "/" if where == "file" else site_url
    options: dict[str, Any] = {"java_script_enabled": False} if where == "no-javascript" else {}
    for scheme, preferred in zip(SCHEMES, ("light", "dark"), strict=True):
        visit = Visit(browser, base, viewport=SCREENS[0].viewport, color_scheme=preferred, **options)
        try:
            no_tex_at_dom_content_loaded(visit.page, base + name, f"{name}, {where}")
            for screen in SCREENS if scheme == SCHEMES[0] else SCREENS[:1]:  # geometry in one palette
                visit.page.set_viewport_size(screen.viewport)
                check(visit.page, f"{name}, {where}, at {screen.name}, {scheme}", scripts=where == "file")
            assert visit.problems() == []
        finally:
            visit.close()


# ---------------------------------------------------------------- the drawing as folded, and as skipped

CONSTRUCTS = [
    Formula(r"\frac{a}{b} + \sqrt{x_i^{2^k}} - \hat{s}_n", display=False),
    Formula(r"\left| \sum_{i=1}^{n} \tilde{x}_i \right| \le \gamma_{n-1} \sum_i |x_i|", display=True),
    Formula(r"\begin{aligned} s_1 &= x_1 \\ s_k &= \operatorname{fl}(s_{k-1} + x_k) \end{aligned}", display=True),
    Formula(r"\color{red}{x} + \cancel{y} + \underbrace{a+b}_{n} + \overline{z} + \text{naive: } w",
            display=True),
    Formula(r"\left(\frac{\frac{1}{2}}{3}\right)^{2} \bigg/ \boldsymbol{u}", display=True),
]
"""What MathJax draws with nesting: fractions, roots, scripts on scripts, accents, stretched delimiters
(a nested <svg>), a table, a colour, a strike, braces, text."""
# Each drawn element but the groups, in order: its tag, its glyph, where chromium puts it on the screen.
PLACES_JS = """() => [...document.querySelectorAll('mjx-container > svg')].map(svg =>
  [...svg.querySelectorAll('*')].filter(e => e.tagName !== 'g').map(e => {
    const m = e.getScreenCTM(), b = e.getBoundingClientRect();
    return [e.tagName, e.getAttribute('data-c') || '', m.a, m.b, m.c, m.d, m.e, m.f, b.x, b.y, b.width, b.height];
  }))"""
PLACE_TOLERANCE_PX = 0.01


def formulas_page(containers: list[str], glyphs: dict[str, str]) -> str:
    """A page with the site's formula style sheet, the outlines, and each container in a 40 px paragraph."""
    css = (REPO / "docs" / "assets" / "stylesheets" / "math.css").read_text(encoding="utf-8")
    outlines = "".join(f'<path id="{gid}" d="{d}"></path>' for gid, d in sorted(glyphs.items()))
    body = "".join(f'<p style="font-size: 40px">{c}</p>' for c in containers)
    return (f'<!doctype html><html><head><style>{css}</style></head><body>'
            f'<svg style="display: none"><defs>{outlines}</defs></svg>{body}</body></html>')


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to draw formulas")
def test_folding_the_groups_moves_no_glyph(browser: Browser, tmp_path: Path) -> None:
    """Each glyph, rule and delimiter of MathJax's drawing, and of the folded one, lands on the same place
    on the screen, at the same size, to a hundredth of a pixel at 40 px to the em.
    """
    drawn = draw(CONSTRUCTS, tmp_path)
    glyphs = {gid: d for each in drawn.values() for gid, d in each.glyphs.items()}
    page = browser.new_page(viewport={"width": 1600, "height": 1200})
    try:
        places = []
        for containers in ([d.container for d in drawn.values()], [flatten(d.container) for d in drawn.values()]):
            page.set_content(formulas_page(containers, glyphs))
            places.append(page.evaluate(PLACES_JS))
    finally:
        page.close()
    for formula, nested, folded in zip(drawn, *places, strict=True):
        assert [p[:2] for p in folded] == [p[:2] for p in nested], f"{formula.tex}: not the same glyphs in order"
        worst = max(abs(a - b) for n, f in zip(nested, folded, strict=True) for a, b in zip(n[2:], f[2:]))
        assert worst <= PLACE_TOLERANCE_PX, f"{formula.tex}: a glyph moved by {worst} px"
        assert len(nested) >= 3 and any(p[0] == "use" for p in nested)


# Each drawing's box, and how far each glyph (or nested <svg>, which clips its own) reaches past it, in px.
SKIPPED_JS = """(visible) => {
  if (!document.getElementById('blocks-drawn')) {  // the blocks around them drawn (layout.css skips them too)
    const blocks = document.createElement('style');
    blocks.id = 'blocks-drawn';
    blocks.textContent = '.md-typeset > * { content-visibility: visible !important; }';
    document.head.append(blocks);
  }
  if (visible) {
    const style = document.createElement('style');
    style.textContent = 'mjx-container > svg { content-visibility: visible !important; }';
    document.head.append(style);
  }
  return {
    height: document.documentElement.scrollHeight,
    skipped: [...document.querySelectorAll('mjx-container > svg')].map(svg => svg.firstElementChild)
      .filter(top => top.checkVisibility() && !top.checkVisibility({contentVisibilityAuto: true})).length,
    drawings: [...document.querySelectorAll('.arithmatex > mjx-container > svg')].map(svg => {
      const box = svg.getBoundingClientRect(), em = parseFloat(getComputedStyle(svg).fontSize);
      const parts = [...svg.querySelectorAll('*')]
        .filter(e => e.tagName !== 'g' && !e.parentElement.closest('svg svg'));
      const past = Math.max(0, ...parts.map(e => {
        const b = e.getBoundingClientRect();
        return Math.max(box.left - b.left, b.right - box.right, box.top - b.top, b.bottom - box.bottom);
      }));
      return {x: box.x + scrollX, y: box.y + scrollY, width: box.width, height: box.height, past, em,
              margin: parseFloat(getComputedStyle(svg).overflowClipMargin)};
    }),
  };
}"""
CLIP_MARGIN_EM = 0.5
"""math.css's overflow-clip-margin on a formula's drawing (chromium gives it in 1/64 px)."""


@pytest.mark.parametrize("name", PAGES)
def test_a_drawing_skipped_off_screen_keeps_its_size_and_paints_every_glyph(browser: Browser, site_url: str,
                                                                          site_dir: Path, name: str) -> None:
    """On a phone, loaded and not scrolled: the drawings off screen are skipped, each in the box it has when
    drawn (the page as long); drawn, no glyph reaches past its box by more than the clip margin; printed,
    none is skipped, nor any block.  The blocks that hold them are drawn for both measures: layout.css
    skips a whole block off screen at a guessed height, which its real one replaces once it is drawn.
    """
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    visit = Visit(browser, site_url, viewport=SCREENS[1].viewport, is_mobile=True, has_touch=True)
    try:
        visit.goto(name)
        # The playground draws its first run's results when the run ends: the page is as long as it will be then.
        visit.page.wait_for_function("() => ['done', 'error', undefined].includes("
                                     "document.getElementById('fpsum-playground')?.dataset.state)", timeout=120_000)
        visit.page.emulate_media(media="print")
        printed = visit.page.evaluate("() => [...document.querySelectorAll('mjx-container > svg, .md-typeset > *')]"
                                      ".filter(e => getComputedStyle(e).contentVisibility !== 'visible').length")
        visit.page.emulate_media(media="screen")
        skipped: dict[str, Any] = visit.page.evaluate(SKIPPED_JS, False)
        drawn: dict[str, Any] = visit.page.evaluate(SKIPPED_JS, True)
    finally:
        visit.close()
    assert printed == 0, f"{name}: {printed} drawings skipped in print"
    if len(drawn["drawings"]) > 20:  # a long page: most of its formulas are off a phone's first screen
        assert skipped["skipped"] > len(drawn["drawings"]) // 2, f"{name}: only {skipped['skipped']} skipped"
    assert drawn["skipped"] == 0
    assert skipped["height"] == drawn["height"], f"{name}: the page's height changes as its formulas are drawn"
    for i, (was, now) in enumerate(zip(skipped["drawings"], drawn["drawings"], strict=True)):
        moved = max(abs(was[k] - now[k]) for k in ("x", "y", "width", "height"))
        assert moved <= 0.5, f"{name}, formula {i}: skipped at {was}, drawn at {now}"
        assert now["margin"] == pytest.approx(CLIP_MARGIN_EM * now["em"], abs=1 / 32), f"{name}: {now['margin']} px"
        assert now["past"] <= CLIP_MARGIN_EM * now["em"], f"{name}, formula {i}: a glyph {now['past']:.1f} px out"
