"""The animated race figure in chromium."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from browsing import ALL_RACES_READY_JS, assert_restarts, let_frames_pass, wait_until
from figures.race.svg import race_figure_html
from race_cases import CSS_FILE, JS_FILE, race, svg  # noqa: E402

NewContext = Callable[..., BrowserContext]


ERRORS_BOX_JS = """(layout) => {
  const use = [...document.querySelectorAll(`#one-svg ${layout} .lines use`)]
    .find(u => u.getAttributeNS('http://www.w3.org/1999/xlink', 'href') === '#one-errors');
  const box = use.getBoundingClientRect();
  return {width: box.width, height: box.height, clip: getComputedStyle(use.parentElement).clipPath};
}"""


def page_html() -> str:
    """Two races, one of them in the second of two content tabs, with race.css and race.js."""
    first = race_figure_html(race("fp16", "uniform"), "one")
    second = race_figure_html(race("bf16", "ones"), "two")
    return (
        f"<!doctype html><html><head><style>{CSS_FILE.read_text()}</style></head>"
        f'<body data-md-color-scheme="default">{first}'
        '<div class="tabbed-set tabbed-alternate">'
        '<input type="radio" name="t" id="t1" checked><input type="radio" name="t" id="t2">'
        '<div class="tabbed-labels"><label for="t1">A</label><label for="t2">B</label></div>'
        '<div class="tabbed-content"><div class="tabbed-block"><p>A</p></div>'
        f'<div class="tabbed-block" style="display:none">{second}</div></div></div>'
        f"<script>{JS_FILE.read_text()}</script></body></html>"
    )


def open_page(new_context: NewContext, tmp_path: Path, html: str, **options: Any) -> Page:
    """``html`` as a file, opened in a new page; returns once race.js has set every race up and drawn ``#one``."""
    path = tmp_path / "page.html"
    path.write_text(html)
    page = new_context(**{"viewport": {"width": 900, "height": 800}, **options}).new_page()
    page.goto(path.as_uri())
    page.wait_for_function(ALL_RACES_READY_JS)
    page.wait_for_function("document.querySelector('#one').hasAttribute('data-race-drawn')")
    return page


def test_buttons_pause_play_and_restart(new_context: NewContext, tmp_path: Path) -> None:
    page = open_page(new_context, tmp_path, page_html())
    toggle = page.locator('#one [data-race-action="pause"]')
    assert toggle.is_visible() and toggle.text_content() == "Pause"
    clock = "document.querySelector('#one svg').getCurrentTime()"
    count = "Number(document.querySelector('#one-svg .wide [data-race-live] .count').textContent.replace(/,/g, ''))"
    wait_until(page, f"{clock} > 1.0", message="the animation clock does not run")
    readout = page.locator("#one-svg .wide [data-race-live] .count")
    expect(readout, "the readout does not follow the clock").to_have_text(re.compile(r"[1-9][\d,]*"))  # above 0
    toggle.click()
    assert toggle.text_content() == "Play"
    held, shown = page.evaluate(clock), page.evaluate(count)
    let_frames_pass(page, 18)  # about 300 ms: paused, neither the clock nor the readout moves while frames go by
    assert page.evaluate(clock) == held and page.evaluate(count) == shown
    assert_restarts(page.locator("#one svg"), page.locator('#one [data-race-action="restart"]').click,
                    message="Restart")
    assert toggle.text_content() == "Pause"
    wait_until(page, f"{count} < {shown}", message="Restart does not take the readout back")
    page.evaluate("document.querySelector('#two').closest('.tabbed-block').style.display = ''")
    page.evaluate("document.querySelector('#two svg').setCurrentTime(5)")
    page.locator("#t2").check()
    assert page.evaluate("document.querySelector('#two svg').getCurrentTime()") < 0.5
    assert page.evaluate("getComputedStyle(document.querySelector('#one-svg .narrow')).display") == "none"


def test_reduced_motion_shows_the_final_frame_without_buttons(new_context: NewContext, tmp_path: Path) -> None:
    page = open_page(new_context, tmp_path, page_html(), reduced_motion="reduce")
    assert page.locator('#one [data-race-action="pause"]').is_hidden()
    shown = "(s) => getComputedStyle(document.querySelector(s)).display"
    assert page.evaluate(shown, "#one-svg .wide .anim") == "none"
    assert page.evaluate(shown, "#one-svg .wide .still") != "none"
    errors = page.evaluate(ERRORS_BOX_JS, ".wide")
    assert errors["clip"] == "none" and errors["height"] > 80 and errors["width"] > 300, errors


def test_narrow_figure_switches_to_the_phone_layout(new_context: NewContext, tmp_path: Path) -> None:
    page = open_page(new_context, tmp_path, page_html(), viewport={"width": 360, "height": 800})
    shown = "(s) => getComputedStyle(document.querySelector(s)).display"
    assert page.evaluate(shown, "#one-svg .wide") == "none"
    assert page.evaluate(shown, "#one-svg .narrow") != "none"
    box = page.locator("#one svg").bounding_box()
    assert box is not None and box["height"] > box["width"]
    errors = page.evaluate(ERRORS_BOX_JS, ".narrow")
    assert errors["height"] > 80 and errors["width"] > 0.7 * box["width"], errors


def test_instant_navigation_sets_up_each_new_page(new_context: NewContext, tmp_path: Path) -> None:
    """mkdocs-material swaps the page content and emits on ``document$``: the new figure gets working buttons."""
    stub = "<script>var document$ = {subscribe: function (f) { window.emitPage = f; f(); }};</script>"
    page = open_page(new_context, tmp_path, page_html().replace("<script>", stub + "<script>", 1))
    fresh = race_figure_html(race("fp16", "normal"), "three")
    page.evaluate("(html) => { document.body.innerHTML = html; window.emitPage(); }", fresh)
    page.wait_for_function("!document.querySelector('#three').hasAttribute('data-race-waiting')")
    toggle = page.locator('#three [data-race-action="pause"]')
    assert toggle.is_visible()
    toggle.click()
    assert toggle.text_content() == "Play"
    assert page.evaluate("document.querySelector('#three svg').animationsPaused()")


def test_without_javascript_the_standalone_svg_stands_in(new_context: NewContext, tmp_path: Path) -> None:
    (tmp_path / "one.svg").write_text(svg("fp16", "uniform", True), encoding="utf-8")
    figure = race_figure_html(race("fp16", "uniform"), "one", "one.svg")
    (tmp_path / "page.html").write_text(
        f"<!doctype html><html><head><style>{CSS_FILE.read_text()}</style></head><body>{figure}</body></html>")
    context = new_context(java_script_enabled=False, viewport={"width": 900, "height": 800})
    page = context.new_page()
    page.goto((tmp_path / "page.html").as_uri())
    assert page.locator("#one-svg").is_hidden()
    fallback = page.locator("#one img.race__fallback")
    assert fallback.is_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=fallback.element_handle())
    assert (fallback.get_attribute("alt") or "").startswith("FP16, 8,192 uniform inputs")
    context.close()


def test_a_figure_is_drawn_only_when_it_comes_near_or_its_button_gets_the_focus(new_context: NewContext,
                                                                                 tmp_path: Path) -> None:
    far = race_figure_html(race("bf16", "uniform"), "far")
    spaced = page_html().replace("<script>", f'<div style="height:4000px"></div>{far}<script>', 1)
    page = open_page(new_context, tmp_path, spaced)
    drawn = "id => document.getElementById(id).hasAttribute('data-race-drawn')"
    assert not page.evaluate(drawn, "far") and page.evaluate("document.querySelectorAll('#far template').length") == 1
    assert not page.evaluate(drawn, "two"), "a figure in a hidden tab is drawn"
    assert page.evaluate("document.querySelector('#far [data-race-action=pause]').hidden") is False, \
        "an undrawn figure's buttons are not in the Tab order"
    page.evaluate("window.scrollTo(0, document.getElementById('far').offsetTop - 1000)")
    page.wait_for_function(drawn, arg="far")
    assert page.evaluate("document.querySelectorAll('#far-svg use').length") > 0
    page.evaluate("document.querySelector('#two').closest('.tabbed-block').style.display = ''")
    page.evaluate("document.querySelector('#two [data-race-action=restart]').focus()")
    assert page.evaluate(drawn, "two"), "focus on a button does not draw its figure"


def test_printing_draws_every_figure_at_once(new_context: NewContext, tmp_path: Path) -> None:
    """A figure not drawn yet (far down, or in a hidden tab) is drawn when the page is about to print."""
    page = open_page(new_context, tmp_path, page_html())
    assert page.evaluate("document.querySelectorAll('#two template').length") == 1, "a hidden tab's figure is drawn"
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate("document.querySelectorAll('.race template').length") == 0
    assert page.evaluate("document.querySelectorAll('#two-svg use').length") > 0
