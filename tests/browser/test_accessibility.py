"""Accessibility of every page: axe-core in both palettes, text alternatives, the keyboard.

axe-core comes bundled in PyPI's axe-playwright-python (no network); no rule
is switched off.  Its color-contrast rule checks WCAG AA contrast, so running
it in the light and the dark palette covers contrast in both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page

from browsing import (
    Visit,
    all_pages,
    assert_restarts,
    built_html,
    draw_every_block,
    draw_every_race,
    first_tabs,
    has_races,
    let_frames_pass,
    set_scheme,
    show,
    skip_blocks_again,
    wait_for_clock,
)

PAGES = all_pages()
Opened = Callable[[str], Visit]
MAX_TABS = 400  # Tab presses to go once round a page


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


def settle(visit: Visit) -> None:
    """Wait until the page stops changing (opening it waited for the races): two frames, in which a11y.js's
    ResizeObserver has made each box that scrolls sideways (a wide table or formula) a focusable region.
    """
    let_frames_pass(visit.page, 2)


COLOUR_RULES = ("color-contrast", "link-in-text-block")
"""The axe rules whose outcome depends on the palette: the rest read structure, names and roles, which the
palette does not change, so the dark palette runs these alone."""


def violations(axe: Axe, page: Page, rules: tuple[str, ...] | None = None) -> list[str]:
    """Axe's violations on the page as it is now: every rule, or only ``rules``."""
    only = {"runOnly": {"type": "rule", "values": list(rules)}} if rules else {}
    results = axe.run(page, options={"resultTypes": ["violations"], **only})
    found = []
    for violation in results.response["violations"]:
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"][:5]]
        found.append(f"{violation['id']} ({violation['impact']}): {violation['help']} -- {targets}")
    return found


@pytest.mark.check(pages=("index.html", "conditioning.html", "playground.html"))
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_violation_in_either_palette(opened: Opened, axe: Axe, name: str) -> None:
    visit = opened(name)
    page = visit.page
    settle(visit)
    draw_every_race(page)
    draw_every_block(page)
    try:
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
        light = violations(axe, page)
        set_scheme(page, "slate")
        dark = violations(axe, page, COLOUR_RULES)
        assert (light, dark) == ([], []), "\n".join(["light:", *light, "dark:", *dark])
    finally:
        set_scheme(page, "default")
        skip_blocks_again(page)


# ---------------------------------------------------------------- text alternatives


# ---------------------------------------------------------------- the keyboard

# What a keyboard user sees of the focused element: its own outline or shadow or,
# for a visually hidden radio button, that of its label or of its tab strip.
FOCUS_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const shows = e => {
    if (!e) return false;
    const s = getComputedStyle(e);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
  };
  const near = [el, ...(el.labels || [])];
  if (el.nextElementSibling && el.nextElementSibling.matches('label')) near.push(el.nextElementSibling);
  const strip = el.closest('.tabbed-set');
  if (strip && el.matches('input')) near.push(strip.querySelector(':scope > .tabbed-labels'));
  const race = el.closest('.race');
  if (!el.hasAttribute('data-tab-stop')) {
    el.setAttribute('data-tab-stop', String(++window.__tabStops || (window.__tabStops = 1)));
  }
  return {
    stop: el.getAttribute('data-tab-stop'),
    what: el.tagName.toLowerCase()
          + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '')
          + ' ' + (el.getAttribute('href') || el.textContent.trim().slice(0, 30)),
    focusVisible: el.matches(':focus-visible'),
    indicator: near.some(shows),
    action: el.getAttribute('data-race-action'),
    race: race ? race.id : null,
  };
}"""


def tab_round(page: Page) -> list[dict[str, object]]:
    """Press Tab until focus comes back round; what was focused, in order.

    Focus is left on the first stop again, so pressing Tab ``i`` more times
    focuses stop ``i``.
    """
    seen: list[dict[str, object]] = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_JS)
        if focused is None:
            continue
        if seen and focused["stop"] == seen[0]["stop"]:
            return seen
        seen.append(focused)
    raise AssertionError(f"focus did not come back round after {MAX_TABS} presses of Tab")


@pytest.mark.parametrize("name", PAGES)
def test_keyboard_focus_is_always_visible(opened: Opened, name: str) -> None:
    visit = opened(name)
    settle(visit)
    stops = tab_round(visit.page)
    assert len(stops) >= 5
    hidden = [s["what"] for s in stops if not (s["focusVisible"] and s["indicator"])]
    assert hidden == [], f"focus not visible on: {hidden}"


@pytest.mark.parametrize("name", PAGES)
def test_keyboard_reaches_and_operates_every_race_control(browser: Browser, site_url: str, site_dir: Path,
                                                          name: str) -> None:
    """Tab reaches each race's Pause and Restart; Enter and Space work them, with the focus in sight.

    A race in a content tab is reached from its tab strip, once the arrow
    keys have selected its tab (test_keyboard_switches_tabs_and_palette).
    """
    if not has_races(site_dir, name):
        return
    fresh = Visit(browser, site_url, name)
    try:
        page = fresh.page
        settle(fresh)
        stops = tab_round(page)
        races = page.eval_on_selector_all(".race", "races => races.map(r => r.id)")
        shown = [r for r in races if page.locator(f"#{r}").is_visible()]
        for race_id in shown:
            mine = [s["action"] for s in stops if s["race"] == race_id]
            assert mine == ["pause", "restart"], f"{race_id}: its controls are not in the Tab order: {mine}"
        for race_id in races:
            race = page.locator(f"#{race_id}")
            show(race)
            page.wait_for_function(f"!document.getElementById('{race_id}').hasAttribute('data-race-waiting')")
            # Start from the race's tab strip (the selected tab's radio input), if it is in tabs.
            race.evaluate("r => { const s = r.closest('.tabbed-set');"
                          " if (s) s.querySelector(':scope > input:checked').focus(); }")
            for _ in range(len(stops) + 2):
                page.keyboard.press("Tab")
                focused = page.evaluate(FOCUS_JS)
                if focused and focused["race"] == race_id and focused["action"] == "pause":
                    break
            else:
                raise AssertionError(f"{race_id}: Tab never reaches its Pause button")
            assert focused["focusVisible"] and focused["indicator"], f"{race_id}: focus on Pause is not visible"
            svg = race.locator("svg").first
            toggle = race.locator("[data-race-action=pause]")
            if toggle.inner_text() == "Play":
                # On a busy machine the race can run to its end while Tab walks to it: then the
                # button reads Play, and Enter starts the race again before it can pause it.
                page.keyboard.press("Enter")
                assert not svg.evaluate("s => s.animationsPaused()"), f"{race_id}: Enter on Play does not play"
                assert toggle.inner_text() == "Pause"
            page.keyboard.press("Enter")
            assert svg.evaluate("s => s.animationsPaused()"), f"{race_id}: Enter on Pause does not pause"
            assert toggle.inner_text() == "Play"
            page.keyboard.press("Space")
            assert not svg.evaluate("s => s.animationsPaused()"), f"{race_id}: Space on Play does not play"
            wait_for_clock(svg, 0.2, message=f"{race_id}: the clock does not run")  # Restart must have a way to go back
            page.keyboard.press("Tab")
            focused = page.evaluate(FOCUS_JS)
            assert focused["action"] == "restart" and focused["focusVisible"] and focused["indicator"], race_id
            assert_restarts(svg, lambda: page.keyboard.press("Enter"), message=f"{race_id}: Enter on Restart")
    finally:
        fresh.close()


@pytest.mark.parametrize("name", PAGES)
def test_keyboard_switches_tabs_and_palette(opened: Opened, site_dir: Path, name: str) -> None:
    visit = opened(name)
    page = visit.page
    settle(visit)
    try:
        # The palette toggle: Tab to it, Enter switches the scheme, Enter again switches it back.
        for _ in range(MAX_TABS):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.closest('[data-md-component=palette]') !== null"):
                break
        else:
            raise AssertionError("Tab never reaches the palette toggle")
        focused = page.evaluate(FOCUS_JS)
        assert focused["focusVisible"] and focused["indicator"], "focus on the palette toggle is not visible"
        for scheme in ("slate", "default"):
            page.keyboard.press("Enter")
            page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === '{scheme}'")
        if "tabbed-set" not in built_html(site_dir, name):
            return
        sets = page.locator(".tabbed-set")
        for s in range(sets.count()):
            tab_set = sets.nth(s)
            show(tab_set)
            blocks = tab_set.locator(":scope > .tabbed-content > .tabbed-block")
            checked = tab_set.evaluate("set => [...set.querySelectorAll(':scope > input')].findIndex(i => i.checked)")
            tab_set.locator(":scope > input:checked").focus()
            page.keyboard.press("ArrowRight")
            shown = [blocks.nth(j).is_visible() for j in range(blocks.count())]
            expected = [j == (checked + 1) % blocks.count() for j in range(blocks.count())]
            assert shown == expected, f"set {s}: ArrowRight from tab {checked} shows {shown}"
    finally:
        first_tabs(page)
        set_scheme(page, "default")
