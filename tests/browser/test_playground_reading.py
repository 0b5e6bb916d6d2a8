"""The playground read as a reader reads it, in chromium (issue 39's reader items).

- After a run fails, the results still on the page are marked as those of the previous run.
- A sum that overflows says so beside its inf or NaN.
- The step trace names the format of the step.
- Each axis of the chart writes its tick labels in one number style, and they read back as
  evenly spaced values.
- Each guided experiment's link, opened, shows the numbers its worked answer quotes.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from playwright.sync_api import Browser
from test_playground_page import RESULTS_JS, finished, open_playground

STALE_JS = """() => [...document.querySelectorAll('[data-result]')].map(e => {
  const stale = e.closest('[data-stale]');
  return {stale: !!stale, note: stale ? (stale.querySelector('.fpsum-pg-stale')?.innerText ?? '') : ''};
})"""


def test_results_of_a_run_before_a_failed_one_are_marked_stale(browser: Browser, site_url: str) -> None:
    visit = open_playground(browser, site_url, "?format=fp16&methods=naive,kahan&inputs=uniform&n=3000&seed=1")
    try:
        page = visit.page
        assert finished(page) == "done"
        assert all(not r["stale"] for r in page.evaluate(STALE_JS))
        for field, text in (("#pg-n", "12x"), ("#pg-n", "0")):
            page.fill(field, text)
            page.click(".fpsum-pg-form button[type=submit]")
            page.wait_for_function("(t) => document.querySelector('.fpsum-pg-problem').textContent.includes(t)",
                                   arg=text)
            shown = page.evaluate(STALE_JS)
            # Removed, or every result left standing marked as the previous run's, in words a reader sees.
            assert all(r["stale"] and "previous run" in r["note"] for r in shown), shown
        page.fill("#pg-n", "2000")
        page.click(".fpsum-pg-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('fpsum-playground').dataset.state === 'done'")
        shown = page.evaluate(STALE_JS)
        assert shown and all(not r["stale"] for r in shown), shown
    finally:
        visit.close()


def test_an_overflowing_sum_says_so_beside_its_inf_or_nan(browser: Browser, site_url: str) -> None:
    # 60,000 + 10,000 passes FP16's largest value, 65,504: naive ends at inf, Kahan's correction at NaN.
    visit = open_playground(browser, site_url, "?format=fp16&methods=naive,kahan,pairwise&x=60000,10000,-20000")
    try:
        page = visit.page
        assert finished(page) == "done"
        shown = page.evaluate(RESULTS_JS)
        assert shown["naive"] == "Infinity" and shown["kahan"] == "NaN" and shown["exact"] == "50000", shown
        for method, result in shown.items():
            cell = page.locator(f'[data-method="{method}"]')
            text = " ".join(cell.inner_text().split())
            if result in ("Infinity", "-Infinity", "NaN"):
                assert "overflow" in text and "65,504" in text, (method, text)
            else:
                assert "overflow" not in text, (method, text)
    finally:
        visit.close()


def test_the_trace_names_the_format(browser: Browser, site_url: str) -> None:
    visit = open_playground(browser, site_url, "?format=bf16&methods=naive&inputs=uniform&n=1000&seed=0")
    try:
        page = visit.page
        assert finished(page) == "done"
        page.fill("#pg-trace-k", "5")
        page.click("#pg-trace-form button[type=submit]")
        page.wait_for_selector(".fpsum-pg-trace-out [data-trace]")
        assert "BF16" in page.inner_text(".fpsum-pg-trace-out")
    finally:
        visit.close()


AXIS_JS = """() => {
  const svg = document.querySelector('.fpsum-pg-chart svg');
  const heads = [...svg.querySelectorAll('text')];
  const errHead = heads.find(t => t.textContent.startsWith('error')).getAttribute('y');
  const labels = heads.filter(t => !t.getAttribute('class'));
  const y = (t) => Number(t.getAttribute('y'));
  const left = labels.filter(t => t.getAttribute('text-anchor') === 'end');
  return {
    total: left.filter(t => y(t) < Number(errHead)).map(t => t.textContent),
    error: left.filter(t => y(t) > Number(errHead)).map(t => t.textContent),
    steps: labels.filter(t => t.getAttribute('text-anchor') === 'middle').map(t => t.textContent),
  };
}"""
EXPONENT = re.compile(r"^-?\d+(\.\d+)?e-?\d+$")
PLAIN = re.compile(r"^-?\d{1,3}(,\d{3})*(\.\d+)?$")


@pytest.mark.parametrize("query", [
    # Running totals up to 1,500,000 (ticks at 500,000 steps) and errors of many decades.
    "?format=fp32&methods=naive,kahan&inputs=constant&c=150&n=10000&seed=0",
    # Errors from 0.1 to ten million ulps: 1 is lost beside 1e8, and the exact total is 1.
    "?format=fp32&methods=naive,kahan&x=1,1e8,-1e8",
])
def test_each_axis_writes_its_labels_in_one_number_style(browser: Browser, site_url: str, query: str) -> None:
    visit = open_playground(browser, site_url, query)
    try:
        page = visit.page
        assert finished(page) == "done"
        page.wait_for_selector(".fpsum-pg-chart svg")
        axes: dict[str, list[str]] = page.evaluate(AXIS_JS)
        for axis, labels in axes.items():
            nonzero = [t for t in labels if t != "0"]
            assert len(nonzero) >= 2, (axis, labels)
            styles = {"exponent" if EXPONENT.match(t) else "plain" if PLAIN.match(t) else t for t in nonzero}
            assert len(styles) == 1, (axis, labels)
        values = [float(t.replace(",", "")) for t in axes["total"]]
        steps = {round(b - a, 9) for a, b in zip(sorted(values), sorted(values)[1:])}
        assert len(steps) == 1, axes["total"]
    finally:
        visit.close()


# ---------------------------------------------------------------- the guided experiments


def test_each_guided_experiment_shows_what_its_answer_states(browser: Browser, site_url: str, site_dir: Path) -> None:
    """Each experiment's link on the page, opened, shows the totals (and the stall) its answer quotes."""
    from figures.guided import GuidedParams
    from figures.text import number

    numbers = json.loads((site_dir / "data" / "numbers.json").read_text())
    html = (site_dir / "playground.html").read_text(encoding="utf-8")
    section = html[html.index('id="guided-experiments"'):html.index('id="concept"')]
    for e in GuidedParams().experiments:
        said = {k.split(".")[-1]: v for k, v in numbers.items() if k.startswith(f"guided.{e.key}.")}
        links = re.findall(r'href="(playground\.html\?[^"]+)"', section)
        assert f"playground.html{e.query()}" in [unescape(link) for link in links], (e.key, links)
        for method in (*e.methods, "exact"):
            assert said[method] in section, (e.key, method, said[method])  # the answer quotes it
        visit = open_playground(browser, site_url, e.query())
        try:
            page = visit.page
            assert finished(page) == "done"
            shown = page.evaluate(RESULTS_JS)
            assert set(shown) == {*e.methods, "exact"}, shown
            assert {m: number(float(v)) for m, v in shown.items()} == {m: said[m] for m in shown}, e.key
            if "stall_step" in said:
                stalled = page.locator('tr:has([data-method="naive"]) td').nth(3).inner_text()
                expected = "–" if said["stall_step"] == "none" else f"{said['stall_step']} inputs"
                assert stalled == expected, (e.key, stalled)
        finally:
            visit.close()
