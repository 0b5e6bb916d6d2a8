"""The formulas in chromium, on every screen of ``tests/screens.py``, in both palettes: drawn, never raw, never wide.

On every page with formulas: every display formula draws something wider
and taller than 8 px (below 45em mkdocs-material's own rules once squeezed
each to 1 px); as soon as the page is parsed (DOMContentLoaded) no text a
reader sees outside code is TeX; no formula makes the page scroll sideways
(a long display formula scrolls inside its own box, which then takes the
keyboard focus).  The same with JavaScript off, and from disk (``file://``).
On a phone no display formula scrolls: a long one shows its narrow form
(``hooks/content/formula_forms.py``); at 1280 px, and printed, each shows its wide one.

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
from playwright.sync_api import Browser, Page

from browsing import FORMULAS_DRAWN_JS, TEX_LEFT, VISIBLE_PROSE_JS, Visit, doc_pages, has_formulas, set_scheme
from repocopy import REPO
from screens import SCHEMES, SCREENS, Screen

sys.path.insert(0, str(REPO))
from hooks.content.flat_svg import flatten  # noqa: E402
from hooks.content.mathjax_render import Formula, draw  # noqa: E402

PAGES = doc_pages()
SMALLEST_PX = 8
# Each display formula: whether it is shown, and its drawing's size; each formula a reader would see
# stick out of the screen (not inside a box that scrolls): its index and its box's edges.
MEASURE_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const displayed = [...document.querySelectorAll('div.arithmatex')].map(f => {
    const forms = [...f.querySelectorAll(':scope > mjx-container')];  // a long one: its wide and narrow form
    const shown = forms.find(c => c.checkVisibility()) || forms[0];
    const box = shown.querySelector(':scope > svg').getBoundingClientRect();
    return {shown: f.checkVisibility(), width: box.width, height: box.height};
  });
  // What a reader sees of a formula: its box, clipped by every box around it that scrolls or clips.
  const clips = el => getComputedStyle(el).overflowX !== 'visible';
  const sticking = [...document.querySelectorAll('.arithmatex')].map((f, i) => {
    const box = f.getBoundingClientRect();
    let [left, right] = [box.left, box.right];
    for (let el = f; el && el !== document.documentElement; el = el.parentElement) {
      if (clips(el)) {
        const clip = el.getBoundingClientRect();
        [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
      }
    }
    return {i, left, right};
  }).filter(b => b.right > b.left && (b.left < -0.5 || b.right > innerWidth + 0.5));
  // Each display formula that can scroll is reachable with the keyboard (a11y.js), if scripts run.
  const unreachable = [...document.querySelectorAll('div.arithmatex')]
    .filter(f => f.scrollWidth > f.clientWidth + 1 && f.tabIndex < 0).length;
  // How wide the page is, and how wide it would be without its formulas.
  const pageWidth = document.documentElement.scrollWidth;
  const without = document.createElement('style');
  without.textContent = '.arithmatex { display: none !important; }';
  document.head.append(without);
  const widthWithout = document.documentElement.scrollWidth;
  without.remove();
  return {displayed, sticking, unreachable, pageWidth, widthWithout, innerWidth};
}"""


def formula_pages(site_dir: Path) -> list[str]:
    return [p for p in PAGES if has_formulas(site_dir, p)]


def check(page: Page, where: str, *, scripts: bool = True) -> None:
    """Every display formula drawn larger than 8 px each way; none out of the screen; the page no wider
    than the screen because of them (without them it may be: mkdocs-material's header title, without
    JavaScript at 360 px, is not a formula's doing).
    """
    seen: dict[str, Any] = page.evaluate(MEASURE_JS)
    hidden = [i for i, d in enumerate(seen["displayed"]) if not d["shown"]]
    small = [(i, round(d["width"], 1), round(d["height"], 1)) for i, d in enumerate(seen["displayed"])
             if d["shown"] and not (d["width"] > SMALLEST_PX and d["height"] > SMALLEST_PX)]
    assert hidden == [], f"{where}: display formulas not shown: {hidden}"
    assert small == [], f"{where}: display formulas drawn too small (index, width, height): {small}"
    assert seen["sticking"] == [], f"{where}: formulas out of the screen: {seen['sticking'][:5]}"
    widest = max(seen["innerWidth"], seen["widthWithout"])
    assert seen["pageWidth"] <= widest, f"{where}: the formulas make the page {seen['pageWidth']} px wide"
    if scripts:
        assert seen["unreachable"] == 0, f"{where}: a display formula scrolls, but takes no keyboard focus"
    assert page.evaluate(FORMULAS_DRAWN_JS), f"{where}: a formula's glyph has no outline, or it draws nothing"


def no_tex_at_dom_content_loaded(page: Page, url: str, where: str) -> None:
    """Open ``url`` and, once it is parsed and before it is loaded, find no TeX in the text a reader sees."""
    page.goto(url, wait_until="domcontentloaded")
    tex = TEX_LEFT.findall(page.evaluate(VISIBLE_PROSE_JS))
    assert tex == [], f"{where}: TeX in sight at DOMContentLoaded: {tex[:10]}"
    page.wait_for_load_state("load")


@pytest.mark.check
@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
@pytest.mark.parametrize("name", PAGES)
def test_formulas_are_drawn_whole_and_never_widen_the_page(browser: Browser, site_url: str, site_dir: Path,
                                                           name: str, screen: Screen) -> None:
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    visit = Visit(browser, site_url, viewport=screen.viewport, is_mobile=screen.phone, has_touch=screen.phone)
    try:
        no_tex_at_dom_content_loaded(visit.page, site_url + name, f"{name} at {screen.name}")
        # Where a formula sits is the same in both palettes: the dark one is checked on the first screen only.
        for scheme in SCHEMES if screen == SCREENS[0] else SCHEMES[:1]:
            set_scheme(visit.page, scheme)
            check(visit.page, f"{name} at {screen.name}, {scheme}")
        assert visit.problems() == []
    finally:
        visit.close()


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


# ---------------------------------------------------------------- a long formula's narrow form

# Each display formula a reader can see (the answers unfolded; every block and drawing laid out, which
# layout.css and math.css skip off screen): how wide its box's content is and how wide what it holds
# (scrollWidth, clientWidth), and which of its forms show (hooks/content/formula_forms.py).
FORMS_JS = """() => {
  const drawn = document.createElement('style');
  drawn.textContent = '.md-typeset > *, mjx-container > svg { content-visibility: visible !important; }';
  document.head.append(drawn);
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const seen = [...document.querySelectorAll('div.arithmatex')].map((f, i) => ({
    i, visible: f.checkVisibility(), scroll: f.scrollWidth, client: f.clientWidth,
    wide: !!f.querySelector(':scope > .fpsum-wide'),
    shown: [...f.querySelectorAll(':scope > mjx-container')].filter(c => c.checkVisibility())
      .map(c => c.classList.contains('fpsum-narrow') ? 'narrow' : 'wide'),
  }));
  drawn.remove();
  return seen.filter(f => f.visible);
}"""
PHONES = [s for s in SCREENS if s.width in (360, 390)]
DESKTOP = next(s for s in SCREENS if s.width == 1280)


def forms_seen(browser: Browser, site_url: str, name: str, screen: Screen, media: str = "screen") -> list[Any]:
    visit = Visit(browser, site_url, viewport=screen.viewport, is_mobile=screen.phone, has_touch=screen.phone)
    try:
        visit.goto(name)
        visit.page.emulate_media(media=media)  # type: ignore[arg-type]
        seen: list[Any] = visit.page.evaluate(FORMS_JS)
        assert visit.problems() == []
        return seen
    finally:
        visit.close()


@pytest.mark.parametrize("screen", PHONES, ids=[s.name for s in PHONES])
@pytest.mark.parametrize("name", PAGES)
def test_no_display_formula_is_wider_than_a_phones_column(browser: Browser, site_url: str, site_dir: Path,
                                                          name: str, screen: Screen) -> None:
    """Issue 39: on a phone a long display formula shows its narrow form, which fits: no formula scrolls
    sideways (what it holds is no wider than its box), and each shows one form.
    """
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    seen = forms_seen(browser, site_url, name, screen)
    wider = [(f["i"], f["scroll"], f["client"]) for f in seen if f["scroll"] > f["client"]]
    assert wider == [], f"{name} at {screen.name}: display formulas wider than their box (index, px, box px): {wider}"
    assert all(len(f["shown"]) == 1 for f in seen), [f for f in seen if len(f["shown"]) != 1]


@pytest.mark.parametrize("media", ["screen", "print"])
@pytest.mark.parametrize("name", PAGES)
def test_a_desktop_and_a_printout_show_the_wide_forms(browser: Browser, site_url: str, site_dir: Path,
                                                      name: str, media: str) -> None:
    """At 1280 px, and printed, every display formula shows its wide form alone (and nothing of it is cut)."""
    if not has_formulas(site_dir, name):
        pytest.skip("no formula on this page")
    seen = forms_seen(browser, site_url, name, DESKTOP, media)
    assert [f["i"] for f in seen if f["shown"] != ["wide"]] == [], f"{name}, {media}: not the wide form alone"
    if media == "screen":
        wider = [(f["i"], f["scroll"], f["client"]) for f in seen if f["wide"] and f["scroll"] > f["client"]]
        assert wider == [], f"{name}: long display formulas wider than their box (index, px, box px): {wider}"


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
