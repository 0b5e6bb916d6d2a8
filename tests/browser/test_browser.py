"""Every page of the built site in a real browser: Debian's chromium driven by Playwright.

Pages are discovered (``browsing.doc_pages()``, checked against the sitemap),
and so are the figures, formulas, tabs and links on each page: a new page or
figure is tested without being named here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from browsing import (
    ALL_RACES_READY_JS,
    FORMULAS_DRAWN_JS,
    TITLE_JS,
    Visit,
    all_pages,
    assert_restarts,
    built_html,
    doc_pages,
    draw_every_race,
    first_tabs,
    formula_count,
    has_formulas,
    has_races,
    let_frames_pass,
    serving,
    set_scheme,
    show,
    title_of,
    wait_for_clock,
    wait_until,
)

PAGES = all_pages()
Opened = Callable[[str], Visit]
# Whether an element is drawn. checkVisibility() is no use inside SVG: it answers true under display:none.
RENDERED_JS = """const RENDERED = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
    && (!(el instanceof HTMLElement) || el.checkVisibility());"""


def with_rendered(function: str) -> str:
    """A JS function that can call RENDERED(element)."""
    return f"(arg) => {{ {RENDERED_JS} return ({function})(arg); }}"
RACE_JS_READY = ALL_RACES_READY_JS


@pytest.fixture(scope="module")
def visit(browser: Browser, site_url: str) -> Iterator[Visit]:
    """The accumulation-error page, for its own tests at the end of this file (in order)."""
    page = Visit(browser, site_url, "accumulation-error.html")
    yield page
    page.close()


def race_ids(page: Page) -> list[str]:
    return list(page.eval_on_selector_all(".race", "races => races.map(r => r.id)"))


# ---------------------------------------------------------------- the pages themselves


STORAGE_JS = "() => JSON.stringify(Object.entries(localStorage).sort())"


def test_a_reused_context_loads_a_page_as_a_new_one_and_remembers_nothing(browser: Browser, site_dir: Path) -> None:
    """What makes a reused context as good as a new one for every test (browsing.ContextPool).

    The first visit's options (a locale no other visit asks for) give it a
    new context; the second visit, with the same options, gets that context
    back.  The server answers it every request it answered the first (none is
    taken from a cache), and the dark palette the first chose is forgotten.
    """
    name, options = "accumulation-error.html", {"locale": "en-GB"}
    served: list[str] = []
    with serving(site_dir, served) as url:
        first = Visit(browser, url, name, **options)
        try:
            first.settle()
            stored = first.page.evaluate(STORAGE_JS)
            set_scheme(first.page, "slate")
            assert first.page.evaluate(STORAGE_JS) != stored  # the palette is remembered...
            context, first_served = first.context, sorted(served)
        finally:
            first.close()
        served.clear()
        second = Visit(browser, url, name, **options)
        try:
            second.settle()
            assert second.context is context
            assert sorted(served) == first_served
            assert second.page.evaluate(STORAGE_JS) == stored  # ...but not in the next visit
            assert second.problems() == []
        finally:
            second.close()


@pytest.mark.check
@pytest.mark.parametrize("name", PAGES)
def test_page_loads_cleanly_and_draws_every_formula(opened: Opened, site_dir: Path, name: str) -> None:
    """No console error, no failed or outside request; every formula drawn, no TeX left in sight."""
    visit = opened(name)
    formulas = visit.page.locator(".arithmatex").count()
    assert formulas == formula_count(site_dir, name)
    assert visit.page.locator(".arithmatex > mjx-container:not(.fpsum-narrow) > svg").count() == formulas
    assert visit.page.evaluate(FORMULAS_DRAWN_JS)
    assert visit.tex_left() == []
    visit.settle()  # late errors: images, workers
    assert visit.problems() == []


def serve_sitemap_as_if_deployed(page: Page, site_dir: Path, site_url: str) -> None:
    """Serve the sitemap with the local server's address in place of ``site_url``.

    mkdocs-material's instant navigation takes over only links to pages its
    sitemap lists; it maps the sitemap's addresses to the current host and
    scheme, but not the port.  Deployed at ``site_url``, or under ``mkdocs
    serve`` (which rewrites ``site_url``), they match; on the test server's
    random port they would not, and every click would load a whole page.
    """
    sitemap = (site_dir / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>\s*(.*?)\s*</loc>", sitemap)
    prefix = os.path.commonprefix(locs)
    prefix = prefix[: prefix.rindex("/") + 1]
    local = sitemap.replace(prefix, site_url)
    page.route("**/sitemap.xml", lambda route: route.fulfill(body=local, content_type="application/xml"))


def test_formulas_are_drawn_after_instant_navigation(browser: Browser, addressed_site_url: str,
                                                     addressed_site: Path) -> None:
    """Clicking nav links swaps each page in without a reload, and every formula of each is drawn.

    On the site built with an address (``SITE_URL``): without one there is no
    instant navigation (``hooks/theme/address.py``, tests/build/test_citation.py).

    One walk through every other page (in the order of their paths), from a
    page without formulas when there is one, as a reader going from page to
    page has it: each page swapped in brings the glyph outlines its formulas
    use (hooks/content/formulas.py puts them inside the content that is swapped), and
    the page left takes its own away.
    """
    site_dir, site_url = addressed_site / "site", addressed_site_url
    pages = doc_pages()
    plain = [p for p in pages if not has_formulas(site_dir, p)]
    start = (plain or pages)[0]
    walk = [p for p in pages if p != start]
    assert any(has_formulas(site_dir, p) for p in walk), "no page with formulas to walk to"
    titles = [title_of(site_dir, p) for p in pages]
    assert len(set(titles)) == len(titles), f"pages share a heading, which tells them apart here: {titles}"
    fresh = Visit(browser, site_url)
    try:
        page = fresh.page
        serve_sitemap_as_if_deployed(page, site_dir, site_url)
        # Instant navigation takes over only the links of the sitemap, once it has fetched it: a click
        # before that (a busy machine) is an ordinary page load.
        with page.expect_response(lambda response: response.url.endswith("/sitemap.xml")) as sitemap:
            fresh.goto(start)
        sitemap.value.finished()
        let_frames_pass(page, 2)
        page.evaluate("window.__sameDocument = true")
        for name in walk:
            target = site_url + name
            page.evaluate("""(target) => {
                document.querySelectorAll('[data-test-target]').forEach(a => a.removeAttribute('data-test-target'));
                [...document.querySelectorAll('.md-sidebar--primary a.md-nav__link')]
                  .find(a => a.href === target).setAttribute('data-test-target', '');
            }""", target)
            page.locator("a[data-test-target]").click()
            page.wait_for_url(re.compile(re.escape(name) + "$"))
            # Its own heading, not just as many formulas as the page before had (two pages may have as many).
            title = titles[pages.index(name)]
            wait_until(page, f"title => ({TITLE_JS})() === title", title, message=f"{name}: not swapped in")
            formulas = formula_count(site_dir, name)
            assert page.evaluate("document.querySelectorAll('.arithmatex').length") == formulas, name
            assert page.evaluate(FORMULAS_DRAWN_JS), f"{name}: a formula is not drawn after instant navigation"
            assert page.locator("#fpsum-glyphs").count() == (1 if formulas else 0), f"{name}: glyph outlines"
            assert page.evaluate("window.__sameDocument === true"), f"{name}: navigation.instant reloaded the page"
            assert fresh.tex_left() == [], f"{name}: TeX in sight"
        assert fresh.problems() == []
    finally:
        fresh.close()


# ---------------------------------------------------------------- the race animations


@pytest.mark.check
@pytest.mark.parametrize("name", PAGES)
def test_every_race_plays_pauses_and_restarts(browser: Browser, site_url: str, site_dir: Path, name: str) -> None:
    if not has_races(site_dir, name):
        return
    fresh = Visit(browser, site_url, name)
    try:
        page = fresh.page
        page.wait_for_function(RACE_JS_READY)
        ids = race_ids(page)
        assert ids
        for race_id in ids:
            show(page.locator(f"#{race_id}"))
            race = page.locator(f"#{race_id}")
            svg = race.locator("svg").first
            pause = race.locator("[data-race-action=pause]")
            restart = race.locator("[data-race-action=restart]")
            assert svg.is_visible() and pause.is_visible() and restart.is_visible(), race_id
            page.wait_for_function(f"!document.getElementById('{race_id}').hasAttribute('data-race-waiting')")
            t0 = svg.evaluate("s => s.getCurrentTime()")
            wait_for_clock(svg, t0, message=f"{race_id}: the animation does not run")
            pause.click()
            assert svg.evaluate("s => s.animationsPaused()"), f"{race_id}: Pause does not pause"
            assert pause.inner_text() == "Play"
            frozen = svg.evaluate("s => s.getCurrentTime()")
            let_frames_pass(page)  # paused, the clock stands still while frames go by
            assert svg.evaluate("s => s.getCurrentTime()") == pytest.approx(frozen, abs=1e-3), race_id
            pause.click()
            assert not svg.evaluate("s => s.animationsPaused()"), f"{race_id}: Play does not resume"
            assert pause.inner_text() == "Pause"
            # Playing again, until Restart has at least half a second to go back.
            wait_for_clock(svg, max(frozen + 0.05, 0.5), message=f"{race_id}: Play does not set the clock going")
            assert_restarts(svg, restart.click, message=f"{race_id}: Restart")
            assert not svg.evaluate("s => s.animationsPaused()")
        assert fresh.problems() == []
    finally:
        fresh.close()


# The reveal's clip rectangle: its width as drawn now, and the width it grows to (the animation's last value).
REVEAL_JS = """svg => {
  const rect = svg.querySelector('clipPath[id$="-reveal"] > rect');
  const clock = rect.querySelector('animate[data-race-clock]');
  const last = parseFloat(clock.getAttribute('values').split(';').pop());
  return {time: svg.getCurrentTime(), width: rect.width.animVal.value, first: rect.width.baseVal.value, last: last,
          duration: clock.getSimpleDuration()};
}"""


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("name", PAGES)
def test_every_race_draws_its_lines_as_its_clock_runs(browser: Browser, site_url: str, site_dir: Path, name: str,
                                                       width: int) -> None:
    """What the reader sees move: 0.75 s and 1.5 s into each race, the lines are revealed as far as its clock says.

    A race's clock is its SVG's; the drawing is moved into that SVG from a
    template when the race comes near the view.  Chromium once left the moved
    animations unsampled, so the counter climbed while the plot stayed empty
    for five seconds and then jumped half-drawn (empty at both readings): the clock alone (what the
    other race tests read) could not see it.  The reveal may lag its clock by a
    frame or two on a loaded machine, so it must have covered at least half of
    the distance the clock calls for, and grown between the two readings.
    """
    if not has_races(site_dir, name):
        return
    fresh = Visit(browser, site_url, name, viewport={"width": width, "height": 800})
    try:
        page = fresh.page
        page.wait_for_function(RACE_JS_READY)
        for race_id in race_ids(page):
            show(page.locator(f"#{race_id}"))
            page.wait_for_function(f"!document.getElementById('{race_id}').hasAttribute('data-race-waiting')")
            svg = page.locator(f"#{race_id} svg").first
            seen = []
            for at in (0.75, 1.5):
                wait_for_clock(svg, at, message=f"{race_id}: the clock does not run")
                reveal = svg.evaluate(REVEAL_JS)
                due = (reveal["last"] - reveal["first"]) * min(1.0, reveal["time"] / reveal["duration"])
                assert reveal["width"] - reveal["first"] >= due / 2, (
                    f"{race_id} at {width} px: {reveal['time']:.2f} s in, the lines are revealed "
                    f"{reveal['width'] - reveal['first']:.1f} of {due:.1f} units")
                seen.append(reveal["width"])
            assert seen[1] > seen[0], f"{race_id} at {width} px: the reveal stands still ({seen})"
        assert fresh.problems() == []
    finally:
        fresh.close()


NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


@pytest.mark.parametrize("name", PAGES)
def test_with_reduced_motion_every_race_shows_its_final_frame_and_stands_still(
        browser: Browser, site_url: str, site_dir: Path, name: str) -> None:
    if not has_races(site_dir, name):
        return
    fresh = Visit(browser, site_url, name, reduced_motion="reduce")
    try:
        page = fresh.page
        page.wait_for_function(RACE_JS_READY)
        for race_id in race_ids(page):
            show(page.locator(f"#{race_id}"))
            race = page.locator(f"#{race_id}")
            state = race.evaluate(
                with_rendered("""race => {
                  const svg = race.querySelector('svg');
                  const shown = RENDERED;
                  return {
                    still: [...svg.querySelectorAll('.still')].filter(shown)
                      .map(g => [...g.querySelectorAll('text')].map(t => t.textContent).join(' ')),
                    moving: [...svg.querySelectorAll('.anim')].filter(shown).length,
                    buttons: [...race.querySelectorAll('[data-race-action]')].filter(shown).length,
                    title: svg.querySelector('title').textContent,
                    desc: svg.querySelector('desc').textContent,
                  };
                }"""))
            assert len(state["still"]) == 1, f"{race_id}: the final frame is not shown"
            assert state["moving"] == 0, f"{race_id}: animated parts are shown"
            assert state["buttons"] == 0, f"{race_id}: play controls are offered for a still figure"
            shown = set(NUMBER.findall(state["still"][0]))
            inputs = re.findall(r"([\d,]+) inputs", state["title"])[0]  # "... 8,192 inputs ...": the last count
            exact = NUMBER.findall(state["desc"].split("exact total")[-1])[0]
            assert {inputs, exact} <= shown, f"{race_id}: the still frame is not the final one: {shown}"
            assert shown <= set(NUMBER.findall(state["title"] + state["desc"])), race_id
            # Still: two screenshots about 300 ms apart (18 frames) are the same, where a running animation would
            # show a change.  A loaded machine may still be painting the first frame when the first is taken, so
            # a few pairs are allowed; an animation changes in every one of them.
            shots = [race.locator("svg").first.screenshot()]
            for _ in range(5):
                let_frames_pass(page, 18)
                shots.append(race.locator("svg").first.screenshot())
                if shots[-1] == shots[-2]:
                    break
            assert shots[-1] == shots[-2], f"{race_id} moves: {len(shots)} screenshots, each unlike the one before"
        assert fresh.problems() == []
    finally:
        fresh.close()


# ---------------------------------------------------------------- tabs, palette, downloads, print


@pytest.mark.parametrize("name", PAGES)
def test_every_tab_switches(opened: Opened, site_dir: Path, name: str) -> None:
    if "tabbed-set" not in built_html(site_dir, name):
        return
    visit = opened(name)
    page = visit.page
    problems = len(visit.problems())
    try:
        sets = page.locator(".tabbed-set")
        for s in range(sets.count()):
            tab_set = sets.nth(s)
            labels = tab_set.locator(":scope > .tabbed-labels > label")
            blocks = tab_set.locator(":scope > .tabbed-content > .tabbed-block")
            assert labels.count() == blocks.count() >= 2
            if not labels.first.is_visible():
                show(tab_set)  # a set inside another set's hidden tab
            for i in [*range(1, labels.count()), 0]:
                labels.nth(i).click()
                visible = [blocks.nth(j).is_visible() for j in range(blocks.count())]
                assert visible == [j == i for j in range(blocks.count())], f"set {s}, tab {i}: {visible}"
        assert visit.problems()[problems:] == []
    finally:
        first_tabs(page)
        page.evaluate("window.scrollTo(0, 0)")


TRANSITIONS_BACK_ON = "!document.body.hasAttribute('data-md-color-switching')"


def palette_state(page: Page) -> dict[str, object]:
    """What each figure shows: the visible image of each static figure, a stroke colour of each race."""
    return dict(page.evaluate(
        """() => ({
          scheme: document.body.getAttribute('data-md-color-scheme'),
          images: [...document.querySelectorAll('figure img[src*="#only-"]')]
            .filter(img => img.checkVisibility()).map(img => img.getAttribute('src')),
          imageFigures: new Set([...document.querySelectorAll('figure img[src*="#only-"]')]
            .map(img => img.closest('figure'))).size,
          races: [...document.querySelectorAll('.race svg')].map(svg => {
            const line = svg.querySelector('path[style*="--look-naive"]');
            return getComputedStyle(line).stroke;
          }),
        })"""))


@pytest.mark.parametrize("name", PAGES)
def test_palette_toggle_switches_every_figure_to_its_dark_variant(opened: Opened, name: str) -> None:
    visit = opened(name)
    page = visit.page
    problems = len(visit.problems())
    draw_every_race(page)
    try:
        # hooks/theme/overrides/main.html gives the body the attribute that turns transitions off, and the
        # bundle takes it away a frame after each palette change: it must not stay.
        page.wait_for_function(TRANSITIONS_BACK_ON)
        light = palette_state(page)
        assert light["scheme"] == "default"
        images = light["images"]
        assert isinstance(images, list) and len(images) == light["imageFigures"]
        assert all(src.endswith(".svg#only-light") for src in images), images
        set_scheme(page, "slate")
        page.wait_for_function(TRANSITIONS_BACK_ON)
        dark = palette_state(page)
        assert dark["images"] == [src.replace(".svg#only-light", "-dark.svg#only-dark") for src in images]
        races = list(zip(light["races"], dark["races"]))  # type: ignore[call-overload]
        assert all(before != after for before, after in races), f"a race keeps its colours: {races}"
        for figure in page.locator("figure img[src*='#only-dark']").all():
            if figure.is_visible():
                figure.scroll_into_view_if_needed()
                page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
        assert visit.problems()[problems:] == []
    finally:
        set_scheme(page, "default")


@pytest.mark.parametrize("name", PAGES)
def test_print_view_shows_final_frames_and_formulas_without_navigation(opened: Opened, name: str) -> None:
    visit = opened(name)
    page = visit.page
    try:
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # as the browser does before printing
        page.emulate_media(media="print")
        state = page.evaluate(
            with_rendered("""() => {
              const shown = RENDERED;
              const some = selector => [...document.querySelectorAll(selector)].filter(shown).length;
              return {
                navigation: ['.md-header', '.md-tabs', '.md-sidebar--primary', '.md-sidebar--secondary',
                             '.md-footer', '.md-search'].filter(s => some(s) > 0),
                formulas: document.querySelectorAll('.arithmatex').length,
                drawn: some('.arithmatex > mjx-container > svg'),
                answers: document.querySelectorAll('details').length,
                unfolded: [...document.querySelectorAll('details')].filter(d => d.open).length,
                races: [...document.querySelectorAll('.race svg')].map(svg => ({
                  id: svg.id, visible: shown(svg),
                  still: [...svg.querySelectorAll('.still')].filter(shown).length,
                  moving: [...svg.querySelectorAll('.anim')].filter(shown).length,
                })),
                controls: some('[data-race-action]'),
              };
            }"""))
        assert state["navigation"] == [], f"navigation shown in print: {state['navigation']}"
        assert state["drawn"] == state["formulas"], "formulas missing from the print view"
        for race in state["races"]:
            assert race["visible"] and race["still"] == 1 and race["moving"] == 0, race
        assert state["controls"] == 0
        assert state["unfolded"] == state["answers"]  # mkdocs-material unfolds every answer for print
        assert visit.tex_left() == []
    finally:
        page.emulate_media(media="screen")


# ---------------------------------------------------------------- the accumulation-error page in detail


def test_loads_without_console_errors_or_remote_requests(visit: Visit) -> None:
    visit.settle()  # late errors and requests: images, workers
    assert visit.errors == []
    assert visit.outside == []


def test_the_formulas_arrive_drawn(visit: Visit) -> None:
    visible = visit.page.evaluate("document.querySelector('article').innerText")
    assert "\\(" not in visible and "\\[" not in visible and "\\sum" not in visible
    assert visit.page.locator("mjx-container svg").count() >= 6
    assert visit.page.evaluate(FORMULAS_DRAWN_JS)


def test_race_animation_plays_and_its_pause_control_works(visit: Visit) -> None:
    race = visit.page.locator("#race-fp16-uniform")
    race.scroll_into_view_if_needed()
    svg = race.locator("svg").first
    assert svg.is_visible()
    visit.page.wait_for_function("!document.getElementById('race-fp16-uniform').hasAttribute('data-race-waiting')")
    t0 = svg.evaluate("s => s.getCurrentTime()")
    wait_for_clock(svg, t0, message="the animation clock does not run")
    t1 = svg.evaluate("s => s.getCurrentTime()")
    assert t1 > t0, "the animation clock runs"
    pause = race.locator("[data-race-action=pause]")
    assert pause.is_visible(), "the pause control is shown when JavaScript runs"
    pause.click()
    assert svg.evaluate("s => s.animationsPaused()")
    frozen = svg.evaluate("s => s.getCurrentTime()")
    let_frames_pass(visit.page, 24)  # about 400 ms: paused, the clock stands still while frames go by
    assert svg.evaluate("s => s.getCurrentTime()") == pytest.approx(frozen, abs=1e-3)
    pause.click()
    assert not svg.evaluate("s => s.animationsPaused()")
    wait_for_clock(svg, max(frozen, 1.5), message="Play does not set the clock going")  # so that Restart shows
    assert_restarts(svg, race.locator("[data-race-action=restart]").click, message="Restart")


def test_tabs_switch_format_and_inputs(visit: Visit) -> None:
    page = visit.page
    assert page.locator("#race-fp16-uniform").is_visible()
    assert not page.locator("#race-bf16-uniform").is_visible()
    page.locator(".tabbed-labels label", has_text="BF16").first.click()
    assert page.locator("#race-bf16-uniform").is_visible()
    assert not page.locator("#race-fp16-uniform").is_visible()
    page.locator("#race-bf16-uniform").locator("xpath=ancestor::div[contains(@class,'tabbed-set')][1]") \
        .locator(".tabbed-labels label", has_text="ones").first.click()
    assert page.locator("#race-bf16-ones").is_visible()
    assert not page.locator("#race-bf16-uniform").is_visible()
