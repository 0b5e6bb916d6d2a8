"""The playground page in chromium, held to the model (issue 26).

- The URL contract: a link's experiment gives, in the elements with
  ``data-method`` and ``data-result``, the doubles ``fpsum`` gives for the same
  experiment (computed here with the model), the exact total included; drawn
  inputs and the reader's own numbers, stochastic rounding and blocks too.
- The ``fpsum`` command the page shows beside its results, run in a shell,
  prints the same numbers.
- A bad input gives one clear message naming what is wrong.
- The trace of a step agrees with the step computed here with Fractions, the
  "Is it lost?" box too.
- From disk (the unpacked class archive, ``file://``) the page works, on the
  page's own thread; over HTTP the run goes to a worker.
- Without JavaScript the page says what it does and links to the races.
- The keyboard alone sets up and runs an experiment, the focus in sight; at
  360 px nothing sticks out, a run's results and a trace shown.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Browser, Page
from test_fits_screen import STICKING_OUT_JS

from browsing import Visit
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, FP16, Format, get_format
from fpsum.inputs import make_inputs
from fpsum.methods import total
from fpsum.reading import read_numbers
from fpsum.textbook import add, sub

PAGE = "playground.html"
RUN_TIMEOUT_MS = 60_000
FINISHED_JS = "() => ['done', 'error'].includes(document.getElementById('fpsum-playground')?.dataset.state)"
RESULTS_JS = """() => Object.fromEntries([...document.querySelectorAll('[data-method][data-result]')]
  .map(e => [e.dataset.method, e.dataset.result]))"""
TRACE_JS = """(where) => Object.fromEntries([...document.querySelectorAll(where + ' [data-trace]')]
  .map(e => [e.dataset.trace, e.dataset.value]))"""


# The results table's first row: the label its "stalled after" cell shows, whether the cell is inside the
# screen and its box, and whether the box scrolls sideways.
STALLED_SHOWN_JS = """() => {
  const box = document.querySelector('.fpsum-pg-scroll');
  const table = box.querySelector('table');
  const column = [...table.tHead.rows[0].cells].findIndex(c => c.textContent === 'stalled after');
  const cell = table.tBodies[0].rows[0].cells[column];
  const r = cell.getBoundingClientRect(), view = box.getBoundingClientRect();
  const label = getComputedStyle(cell, '::before').content;
  return {label: label.startsWith('"') ? JSON.parse(label.split(' / ')[0]) : label,
          within: r.width > 1 && r.left >= Math.max(view.left, 0) - 1
            && r.right <= Math.min(view.right, document.documentElement.clientWidth) + 1,
          scrolls: box.scrollWidth > box.clientWidth + 1};
}"""


def finished(page: Page) -> str:
    """Wait for the run the page is on to end; its state, ``done`` or ``error``."""
    page.wait_for_function(FINISHED_JS, timeout=RUN_TIMEOUT_MS)
    return str(page.get_attribute("#fpsum-playground", "data-state"))


def open_playground(browser: Browser, base: str, query: str, **options: Any) -> Visit:
    visit = Visit(browser, base, **options)
    visit.page.goto(f"{base}{PAGE}{query}", wait_until="load")
    return visit


def same_double(shown: str, expected: float) -> bool:
    """``shown`` is the shortest decimal of exactly ``expected``: Python's repr is one too, so their
    decimal values agree (``2048`` and ``2048.0``, ``1e-05`` and ``0.00001``), and so do the signs of zero.
    """
    value = float(shown)
    if math.isnan(expected) or math.isinf(expected):
        return math.isnan(value) if math.isnan(expected) else value == expected
    return Decimal(shown) == Decimal(repr(expected)) and math.copysign(1, value) == math.copysign(1, expected)


def model_results(fmt: Format, values: np.ndarray, methods: list[str], block: int,
                  sr_seed: int) -> dict[str, float]:
    """What fpsum gives for each method on ``values`` (in ``fmt``), and the exact total rounded to double."""
    found = {m: float(total(m, values, fmt, block=block, seed=sr_seed)) for m in methods}  # type: ignore[arg-type]
    found["exact"] = float(sum((Fraction(float(v)) for v in values), Fraction(0)))
    return found


def assert_results(page: Page, expected: dict[str, float]) -> dict[str, str]:
    shown: dict[str, str] = page.evaluate(RESULTS_JS)
    assert set(shown) == set(expected), f"the page shows {sorted(shown)}, fpsum gives {sorted(expected)}"
    wrong = {m: (shown[m], repr(v)) for m, v in expected.items() if not same_double(shown[m], v)}
    assert wrong == {}, f"page result != fpsum's: {wrong}"
    return shown


DRAWN = [
    ("fp16", "uniform", 8192, 0, ["naive", "wide", "kahan", "pairwise"], {}),
    ("bf16", "normal", 5000, 7, ["naive", "kahan", "neumaier", "blocked", "stochastic"], {"block": 64, "sr_seed": 3}),
    ("e4m3", "ones", 300, 0, ["naive", "wide", "kahan", "neumaier", "pairwise", "blocked", "stochastic"], {}),
    ("e5m2", "squares", 1000, 2, ["naive", "neumaier", "pairwise"], {}),
    ("fp32", "symmetric", 1 << 16, 1, ["naive", "kahan", "pairwise", "stochastic"], {}),
    ("e2m1", "uniform", 200, 4, ["naive", "wide", "kahan", "neumaier", "pairwise", "stochastic"], {}),
    ("e4m3fnuz", "normal", 2000, 5, ["naive", "kahan", "neumaier", "blocked"], {"block": 16}),
]


def drawn_query(fmt: str, kind: str, n: int, seed: int, methods: list[str], extra: dict[str, int]) -> str:
    query = f"?format={fmt}&methods={','.join(methods)}&inputs={kind}&n={n}&seed={seed}"
    return query + "".join(f"&{k}={v}" for k, v in extra.items())


@pytest.mark.parametrize(("fmt", "kind", "n", "seed", "methods", "extra"), DRAWN, ids=lambda v: str(v)[:20])
def test_a_link_gives_the_models_results(browser: Browser, site_url: str, fmt: str, kind: str, n: int, seed: int,
                                         methods: list[str], extra: dict[str, int]) -> None:
    visit = open_playground(browser, site_url, drawn_query(fmt, kind, n, seed, methods, extra))
    try:
        assert finished(visit.page) == "done", visit.page.inner_text(".fpsum-pg-problem")
        form = get_format(fmt)
        values = make_inputs(kind, n, form, seed)  # type: ignore[arg-type]
        assert_results(visit.page, model_results(form, values, methods, extra.get("block", 128),
                                                 extra.get("sr_seed", seed)))
        assert visit.page.get_attribute("#fpsum-playground", "data-ran-in") == "worker"
        assert visit.problems() == []
    finally:
        visit.close()


def run_shown_command(page: Page, workdir: Path) -> str:
    """Run the fpsum command the page shows, in ``workdir`` (with the file it offers, if any); what it prints."""
    command = page.inner_text("[data-command]")
    link = page.locator("[data-file]")
    if link.count():
        text = page.evaluate("(a) => fetch(a.href).then(r => r.text())", link.element_handle())
        (workdir / str(link.get_attribute("data-file"))).write_text(text)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["bash", "-c", command], cwd=workdir, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command}\n{done.stderr}"
    return done.stdout


def printed_results(out: str, methods: list[str]) -> dict[str, float]:
    """The totals an fpsum race, or a loop of fpsum sum, printed: by method, and the exact one."""
    found: dict[str, float] = {}
    if out.lstrip().startswith("format"):  # fpsum sum, one block per method
        for block in out.split("format")[1:]:
            method = re.search(r"^method\s+(\w+)", block, re.M)
            result, exact = (re.search(rf"^{key}\s+(\S+)", block, re.M) for key in ("result", "exact"))
            assert method and result and exact, block
            found[method.group(1)] = float(result.group(1))
            found["exact"] = float(exact.group(1))
    else:  # fpsum race
        for line in out.splitlines()[1:]:
            name, value = line.split()[:2]
            found[name] = float(value)
    return {m: v for m, v in found.items() if m in [*methods, "exact"]}


@pytest.mark.parametrize("query", [
    "?format=fp16&methods=naive,wide,kahan,pairwise&inputs=uniform&n=8192&seed=0",
    "?format=bf16&methods=naive,blocked,stochastic&inputs=uniform&n=3000&seed=5&block=64&sr_seed=2",
    "?format=e5m2&methods=naive,kahan&x=0.1,0.2,0.3,100,1e-3,-7.5",
    "?format=fp16&methods=naive,kahan,pairwise&inputs=constant&c=0.3&n=4000&seed=0",
    "?format=bf16&methods=naive,wide,kahan,neumaier,pairwise,blocked,stochastic&inputs=exp&n=2000&seed=1",
], ids=["race", "options", "own-numbers", "constant", "page-inputs"])
def test_the_command_shown_prints_the_same_numbers(browser: Browser, site_url: str, query: str,
                                                   tmp_path: Path) -> None:
    visit = open_playground(browser, site_url, query)
    try:
        assert finished(visit.page) == "done"
        shown = visit.page.evaluate(RESULTS_JS)
        printed = printed_results(run_shown_command(visit.page, tmp_path), list(shown))
        assert set(printed) == set(shown), (printed, shown)
        assert {m: float(v) for m, v in shown.items()} == printed
    finally:
        visit.close()


def test_pasted_numbers_are_rounded_and_summed_as_fpsum_sum_does(browser: Browser, site_url: str) -> None:
    numbers = ["0.1", "0.2", "0.3", "2048", "1", "1", "1e-5", "-3.25", "65504", "-65504", "1/3"][:-1]
    visit = open_playground(browser, site_url, "")
    try:
        page = visit.page
        assert finished(page) == "done"
        page.check("#pg-own")
        page.fill("#pg-x", "\n".join(numbers))
        page.select_option("#pg-format", "fp16")
        for box in page.locator("[name=methods]").all():
            box.set_checked(box.get_attribute("value") in ("naive", "kahan", "neumaier"))
        page.click(".fpsum-pg-form button[type=submit]")
        page.wait_for_function("() => new URLSearchParams(location.search).has('x')")
        assert finished(page) == "done"
        form = FP16
        values = np.array(read_numbers(StringIO(" ".join(numbers)), "<test>", form)).astype(form.dtype)
        assert_results(page, model_results(form, values, ["naive", "kahan", "neumaier"], 128, 0))
        # The link reproduces the experiment.
        url = page.url
        again = open_playground(browser, site_url, url[url.index("?"):])
        try:
            assert finished(again.page) == "done"
            assert again.page.evaluate(RESULTS_JS) == page.evaluate(RESULTS_JS)
        finally:
            again.close()
    finally:
        visit.close()


@pytest.mark.parametrize(("query", "words"), [
    ("?format=fp16&methods=naive&x=0.1,zero,0.3", ["zero"]),
    ("?format=fp99&methods=naive&inputs=uniform&n=10", ["fp99"]),
    ("?format=fp16&methods=naive&inputs=uniform&n=lots", ["n", "lots"]),
])
def test_a_bad_input_gives_a_clear_message(browser: Browser, site_url: str, query: str, words: list[str]) -> None:
    visit = open_playground(browser, site_url, query)
    try:
        finished(visit.page)
        message = visit.page.inner_text(".fpsum-pg-problem")
        assert message and all(w in message for w in words), message
        assert len(message.splitlines()) == 1
        # The form says so too, for a field typed wrong.
        visit.page.check("#pg-drawn")
        visit.page.fill("#pg-n", "12x")
        visit.page.click(".fpsum-pg-form button[type=submit]")
        visit.page.wait_for_function("() => document.querySelector('.fpsum-pg-problem').textContent.includes('12x')")
        assert visit.page.get_attribute("#fpsum-playground", "data-state") == "error"
    finally:
        visit.close()


def neighbours(exact: Fraction, form: Format) -> tuple[Fraction, Fraction]:
    """The two values of ``form`` on either side of ``exact`` (the same one twice if it is one)."""
    size = abs(exact)
    binade = max(math.floor(math.log2(size)) if size else form.emin, form.emin)
    if size and Fraction(2) ** binade > size:
        binade -= 1
    elif size and Fraction(2) ** (binade + 1) <= size:
        binade += 1
    quantum = Fraction(2) ** (max(binade, form.emin) - form.precision + 1)
    low = math.floor(exact / quantum) * quantum
    return low, (low if low == exact else low + quantum)


def decimal(value: Fraction) -> str:
    """A dyadic rational as its exact decimal."""
    sign, value = ("-" if value < 0 else ""), abs(value)
    digits = 0
    while (value * 10 ** digits).denominator != 1:
        digits += 1
    whole = str(int(value * 10 ** digits)).rjust(digits + 1, "0")
    return sign + (whole[:-digits] + "." + whole[-digits:] if digits else whole)


def expected_step(total: float, x: float, form: Format) -> dict[str, Fraction]:
    exact = Fraction(total) + Fraction(x)
    below, above = neighbours(exact, form)
    result = Fraction(round_exact(exact, form))
    return {"total": Fraction(total), "input": Fraction(x), "exactSum": exact, "below": below, "above": above,
            "gap": above - below, "result": result, "lost": exact - result}


def assert_step(shown: dict[str, str], expected: dict[str, Fraction]) -> None:
    assert Fraction(shown["exactSum"]) == expected["exactSum"], shown
    for key in ("total", "input", "below", "above", "gap", "result", "lost"):
        assert Fraction(shown[key]) == Fraction(float(expected[key])), f"{key}: {shown[key]} != {float(expected[key])}"


def test_the_trace_of_a_step_agrees_with_fractions(browser: Browser, site_url: str) -> None:
    n, seed = 6000, 4
    visit = open_playground(browser, site_url, f"?format=fp16&methods=naive,kahan&inputs=uniform&n={n}&seed={seed}")
    try:
        page = visit.page
        assert finished(page) == "done"
        values = [float(v) for v in make_inputs("uniform", n, FP16, seed)]
        # The naive sum's first lost step: the first nonzero input that leaves the total as it was.
        page.select_option("#pg-trace-method", "naive")
        page.click("[data-action=first-lost]")
        page.wait_for_selector(".fpsum-pg-trace-out [data-trace]")
        s, first = 0.0, None
        for k, x in enumerate(values, start=1):
            t = add(s, x, FP16)
            if t == s and x != 0 and first is None:
                first = k
                break
            s = t
        assert first is not None and page.input_value("#pg-trace-k") == str(first)
        shown = page.evaluate(TRACE_JS, ".fpsum-pg-trace-out")
        assert_step(shown, expected_step(s, values[first - 1], FP16))
        assert "lost" in page.inner_text(".fpsum-pg-verdict").lower()
        # Kahan at a chosen step: the same fields, and the compensation of the textbook loop.
        k = 3001
        page.select_option("#pg-trace-method", "kahan")
        page.fill("#pg-trace-k", str(k))
        page.click("#pg-trace-form button[type=submit]")
        page.wait_for_function("(k) => document.querySelector('.fpsum-pg-trace-out').textContent.includes('step ' + k)",
                               arg=f"{k:,}")
        s, c = 0.0, 0.0
        for x in values[:k - 1]:
            y = sub(x, c, FP16)
            t = add(s, y, FP16)
            c = sub(sub(t, s, FP16), y, FP16)
            s = t
        shown = page.evaluate(TRACE_JS, ".fpsum-pg-trace-out")
        y = sub(values[k - 1], c, FP16)
        t = add(s, y, FP16)
        assert Fraction(shown["total"]) == Fraction(s)
        assert Fraction(shown["result"]) == Fraction(t)
        assert Fraction(shown["compensation"]) == Fraction(sub(sub(t, s, FP16), y, FP16))
    finally:
        visit.close()


def test_is_it_lost_says_what_one_addition_keeps(browser: Browser, site_url: str) -> None:
    visit = open_playground(browser, site_url, "?format=fp16&methods=naive&inputs=ones&n=10&seed=0")
    try:
        page = visit.page
        assert finished(page) == "done"
        for total, x, lost in (("2048", "0.9", True), ("2048", "1.1", False), ("1000", "0.3", False)):
            page.fill("#pg-lost-total", total)
            page.fill("#pg-lost-input", x)
            page.click("#pg-lost-form button[type=submit]")
            page.wait_for_function(f"() => document.querySelector('.fpsum-pg-lost-out [data-trace=input]')"
                                   f"?.dataset.value === String({float(round_exact(Fraction(x), FP16))})")
            shown = page.evaluate(TRACE_JS, ".fpsum-pg-lost-out")
            s, v = round_exact(Fraction(total), FP16), round_exact(Fraction(x), FP16)
            assert_step(shown, expected_step(s, v, FP16))
            verdict = page.inner_text(".fpsum-pg-lost-out .fpsum-pg-verdict")
            assert ("input is lost" in verdict) == lost, verdict
        page.fill("#pg-lost-input", "two")
        page.click("#pg-lost-form button[type=submit]")
        page.wait_for_function("() => document.querySelector('.fpsum-pg-lost-out').textContent.includes('two')")
    finally:
        visit.close()


def test_the_page_works_from_disk(browser: Browser, unpacked: Path) -> None:
    base = unpacked.resolve().as_uri() + "/"
    query = "?format=bf16&methods=naive,kahan,pairwise&inputs=uniform&n=20000&seed=3"
    visit = open_playground(browser, base, query)
    try:
        page = visit.page
        assert finished(page) == "done"
        assert page.get_attribute("#fpsum-playground", "data-ran-in") == "page"
        values = make_inputs("uniform", 20000, BF16, 3)
        assert_results(page, model_results(BF16, values, ["naive", "kahan", "pairwise"], 128, 3))
        assert visit.problems() == []
        assert all(url.startswith((base, "data:", "blob:")) for url in visit.requests)
    finally:
        visit.close()


RUN_FRAMES_JS = """(() => {
  // Set before the page's own scripts: frames from the first one in which the run is under way to its end.
  const seen = window.__runFrames = {count: 0, worst: 0, run: null};
  let start = null, last = null;
  const frame = (now) => {
    const state = document.getElementById('fpsum-playground')?.dataset.state;
    if (state === 'running') {
      if (start === null) { start = now; } else { seen.worst = Math.max(seen.worst, now - last); seen.count += 1; }
      last = now;
    } else if (start !== null) { seen.run = now - start; return; }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();"""


def test_a_long_run_keeps_the_page_answering(browser: Browser, site_url: str) -> None:
    """2^20 inputs in a worker: the page keeps drawing frames while it computes.

    Measured against the run itself, not the clock (issue 28: a fixed 200 ms bound failed at 433 ms on a
    loaded machine), from the page's first frame on, so a quick run is seen too: at least three frames are
    drawn while the run is under way, and no gap between two of them takes half the run.  A run on the
    main thread, in one piece, would draw none until it was done.  Drawing its results, once it is done,
    is a task of the page's like any other.
    """
    query = "?format=fp16&methods=naive,kahan,pairwise&inputs=uniform&n=1048576&seed=0"
    visit = Visit(browser, site_url)
    try:
        page = visit.page
        page.add_init_script(RUN_FRAMES_JS)
        page.goto(f"{site_url}{PAGE}{query}", wait_until="load")
        assert finished(page) == "done"
        assert page.get_attribute("#fpsum-playground", "data-ran-in") == "worker"
        page.wait_for_function("window.__runFrames.run !== null")
        frames = page.evaluate("window.__runFrames")
        assert frames["count"] >= 3, f"only {frames['count']} frames drawn during a run of {frames['run']:.0f} ms"
        assert frames["worst"] < frames["run"] / 2, \
            f"a frame waited {frames['worst']:.0f} ms during a run of {frames['run']:.0f} ms"
    finally:
        visit.close()


def test_without_javascript_the_page_explains_and_links_to_the_races(browser: Browser, site_url: str) -> None:
    visit = open_playground(browser, site_url, "", java_script_enabled=False)
    try:
        box = visit.page.locator("#fpsum-playground")
        assert "JavaScript" in box.inner_text()
        hrefs = box.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
        assert "accumulation-error.html#the-race" in hrefs
        assert visit.page.locator("#concept").is_visible()
    finally:
        visit.close()


def test_the_keyboard_alone_sets_up_and_runs_an_experiment(browser: Browser, site_url: str) -> None:
    visit = open_playground(browser, site_url, "")
    try:
        page = visit.page
        assert finished(page) == "done"
        page.focus("#pg-format")
        page.keyboard.press("ArrowDown")  # fp16 -> the next format
        chosen = page.input_value("#pg-format")
        assert chosen != "fp16"
        seen = []
        for _ in range(40):
            page.keyboard.press("Tab")
            focused = page.evaluate("""() => { const e = document.activeElement; const s = getComputedStyle(e);
              return {id: e.id, text: e.textContent.trim(), visible: e.matches(':focus-visible')
                && s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0}; }""")
            seen.append(focused)
            if focused["text"] == "Run":
                break
        else:
            raise AssertionError(f"Tab never reached Run: {seen}")
        hidden = [f["id"] or f["text"] for f in seen if not f["visible"]]
        assert hidden == [], f"focus not visible on {hidden}"
        assert {"pg-method-kahan", "pg-n", "pg-seed"} <= {f["id"] for f in seen}
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => location.search.includes('format={chosen}')")
        assert finished(page) == "done"
    finally:
        visit.close()


def test_at_360_px_a_run_and_a_trace_fit_the_screen(browser: Browser, site_url: str) -> None:
    visit = open_playground(browser, site_url, "?format=bf16&methods=naive,wide,kahan,neumaier,pairwise,blocked,"
                            "stochastic&inputs=uniform&n=3000&seed=0&block=64&sr_seed=9",
                            viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True)
    try:
        page = visit.page
        assert finished(page) == "done"
        page.click("[data-action=first-lost]")
        page.wait_for_selector(".fpsum-pg-trace-out [data-trace]")
        seen = page.evaluate(STICKING_OUT_JS)
        assert seen["scrollWidth"] <= seen["width"], f"the page is {seen['scrollWidth']} px wide"
        assert seen["out"] == [], seen["out"][:10]
        # The results are cards, one per method: the stall shows, named, without scrolling the table.
        stalled = page.evaluate(STALLED_SHOWN_JS)
        assert stalled == {"label": "stalled after", "within": True, "scrolls": False}, stalled
        longest = max(len(line) for line in page.inner_text("[data-command]").splitlines())
        assert longest <= 56
        code = page.locator("[data-command]")
        assert code.evaluate("c => c.parentElement.scrollWidth <= c.parentElement.clientWidth + 1")
    finally:
        visit.close()
