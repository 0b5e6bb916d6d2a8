"""Does each patch of mkdocs-material's output make a page readable sooner?  Measured with and without it.

Each variant is the site built (``mkdocs build --strict``) from mkdocs.yml
with some patches left out: a hook taken off the ``hooks:`` list, or the
``search.html`` fork taken out of a copy of ``overrides/``.  A patch that only
exists for another goes with it (table_wraps.py with theme_on_demand.py).
build_errors.py acts only while the site is built, so no variant drops it.

The profile, a mid-range phone in Debian's chromium driven by Playwright, with
throttling *applied* through the DevTools protocol (not simulated): the CPU
4x slower (``Emulation.setCPUThrottlingRate``), the network at 150 ms latency
added to each request (no connection set-up is emulated), 1.6 Mbps down and
750 kbps up (``Network.emulateNetworkConditions``), a 412 x 823 viewport at 1.75 device
pixels, touch; a new context (empty cache) for every load; the site served
from localhost with gzip (gzip_server.py).  The reader does nothing until
the page has settled (loaded, no request for 0.5 s), then moves the pointer.

What each load gives, in ms from the navigation's start:

- ``fcp``: First Contentful Paint;
- ``read``: readable, the later of the paints of the article's ``h1`` and of
  its first paragraph after it (Element Timing, the attribute set by a
  script before they are painted); the site has no web fonts (system fonts
  only, ``theme.font: false``), so painted text is final text;
- ``tbt``: the long tasks' time over 50 ms each, from FCP until settled;
- ``move``: from the first pointer move to mkdocs-material's bundle running
  (hooks/theme_loader.js marks the root), only where the bundle waits for it;
- bytes: JS, CSS and all responses as sent (gzipped) until settled, in KB.

Beside FCP and readable, their difference from the run's load of the same
page with all patches (the loads next to each other in time): a variant
slower than all patches shows a positive difference.

Within a run each page is loaded in every variant in turn (A B C ..., then
the next page), so that a slow moment of a shared machine falls on all.
The medians say more than any one load: on a busy machine loads vary by
hundreds of ms.

Run: ``python scripts/theme_patch_speed.py [--runs N] [--sites DIR]``; with
``--sites`` the built variants are kept there and reused by the next run
(not rebuilt after an edit: empty the folder then).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from gzip_server import serve
from lighthouse_bench import CHROME_FLAGS

REPO = Path(__file__).resolve().parents[1]
PAGES = ("index.html", "conditioning.html", "in-practice.html", "playground.html")
CPU_SLOWDOWN = 4
LATENCY_MS = 150
DOWN_BPS = 1_600_000
UP_BPS = 750_000
SETTLE_TIMEOUT_MS = 60_000
ATTEMPTS = 3


@dataclass(frozen=True)
class Variant:
    """The site built without the hooks ``drop`` (file names under hooks/), and without the fork if ``no_fork``."""

    name: str
    drop: tuple[str, ...] = ()
    no_fork: bool = False


VARIANTS = (
    Variant("all patches"),
    Variant("no theme_on_demand, table_wraps", ("theme_on_demand.py", "table_wraps.py")),
    Variant("no code_blocks", ("code_blocks.py",)),
    Variant("no search.html fork", no_fork=True),
)

Runs = dict[tuple[Variant, str], list[dict[str, float | None]]]
"""Each variant's loads of each page, in the order of the runs."""


# Runs before the page's own scripts: observers for the measures, and the Element Timing marks.
PROBE = """(() => {
  const m = window.__speed = {longtasks: [], element: {}, move: null, running: null};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) m.longtasks.push([e.startTime, e.duration]);
  }).observe({type: "longtask"});
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) m.element[e.identifier] = e.renderTime || e.loadTime;
  }).observe({type: "element", buffered: true});
  addEventListener("pointermove", () => { if (m.move === null) m.move = performance.now(); }, true);
  const watch = new MutationObserver(() => {
    const h1 = document.querySelector("article h1");
    const p = document.querySelector("article h1 ~ p");
    if (h1 && !h1.hasAttribute("elementtiming")) h1.setAttribute("elementtiming", "h1");
    if (p && !p.hasAttribute("elementtiming")) p.setAttribute("elementtiming", "p");
    const root = document.documentElement;
    const running = root && root.getAttribute("data-fpsum-theme") === "running";
    if (m.running === null && running) m.running = performance.now();
  });
  watch.observe(document, {childList: true, subtree: true, attributes: true, attributeFilter: ["data-fpsum-theme"]});
})()"""

READ_PROBE = """() => {
  const m = window.__speed;
  const fcp = performance.getEntriesByName("first-contentful-paint")[0];
  const start = fcp ? fcp.startTime : 0;
  const tbt = m.longtasks.filter(([at]) => at >= start).reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0);
  const read = ("h1" in m.element && "p" in m.element) ? Math.max(m.element.h1, m.element.p) : null;
  return {fcp: fcp ? fcp.startTime : null, read: read, tbt: tbt};
}"""

BYTES = (("js", (".js",)), ("css", (".css",)), ("all", ("",)))
"""The byte counts a load gives, each the responses whose path ends with one of the endings."""
PAIRED = ("fcp", "read")
"""The measures also shown as differences from all patches."""
TIMES = ("tbt", "move")


def config_text(variant: Variant, overrides: Path | None) -> str:
    """mkdocs.yml's text without the variant's hooks (and with ``overrides`` as custom_dir if given).

    Raises ValueError if a hook or the custom_dir line to change is not in mkdocs.yml (its layout changed).
    """
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    for hook in variant.drop:
        line = f"  - hooks/{hook}\n"
        if text.count(line) != 1:
            raise ValueError(f"mkdocs.yml has no line {line.strip()!r} (once)")
        text = text.replace(line, "")
    if overrides is not None:
        if text.count("custom_dir: overrides\n") != 1:
            raise ValueError("mkdocs.yml has no line 'custom_dir: overrides'")
        text = text.replace("custom_dir: overrides\n", f"custom_dir: {overrides}\n")
    return text


def build(variant: Variant, site: Path) -> None:
    """Build ``variant`` into ``site`` (strict); its config file sits in the repository's root while it builds."""
    with tempfile.TemporaryDirectory() as tmp:
        overrides = None
        if variant.no_fork:
            overrides = Path(tmp) / "overrides"
            shutil.copytree(REPO / "overrides", overrides)
            (overrides / "partials" / "search.html").unlink()
        config = REPO / f".theme-patch-speed-{os.getpid()}.yml"
        config.write_text(config_text(variant, overrides), encoding="utf-8")
        try:
            command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config),
                       "--site-dir", str(site)]
            result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
        finally:
            config.unlink()
    if result.returncode != 0:
        sys.exit(f"{variant.name}: build failed:\n{result.stderr[-3000:]}")


def load(browser: Browser, url: str, waits_for_move: bool, sent: list[tuple[str, int]]) -> dict[str, float | None]:
    """One throttled load of ``url`` in a new context: the measures (ms, None where not taken) and bytes.

    The bytes are those of ``sent`` (the server's log of responses) before the first move.
    """
    context = browser.new_context(viewport={"width": 412, "height": 823}, device_scale_factor=1.75,
                                  is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.add_init_script(PROBE)
        session = context.new_cdp_session(page)
        session.send("Network.enable")
        session.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": LATENCY_MS,
            "downloadThroughput": DOWN_BPS / 8, "uploadThroughput": UP_BPS / 8,
        })
        session.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
        page.goto(url, wait_until="load", timeout=SETTLE_TIMEOUT_MS)
        page.wait_for_load_state("networkidle", timeout=SETTLE_TIMEOUT_MS)
        found: dict[str, float | None] = page.evaluate(READ_PROBE)
        found["move"] = None
        for name, endings in BYTES:
            found[name] = sum(size for path, size in sent if path.endswith(endings)) / 1024
        if waits_for_move:
            page.mouse.move(200, 400)
            page.wait_for_function("() => window.__speed.running !== null", timeout=SETTLE_TIMEOUT_MS)
            found["move"] = page.evaluate("() => window.__speed.running - window.__speed.move")
        return found
    finally:
        context.close()


def retried(browser: Browser, url: str, waits_for_move: bool, sent: list[tuple[str, int]]) -> dict[str, float | None]:
    """:func:`load`, made again (``ATTEMPTS`` in all) when it stalls: on a busy machine one load in hundreds does.

    Raises playwright's ``TimeoutError`` if the last attempt stalls too.
    """
    for attempt in range(1, ATTEMPTS + 1):
        sent.clear()
        try:
            return load(browser, url, waits_for_move, sent)
        except PlaywrightTimeout:
            if attempt == ATTEMPTS:
                raise
            print(f"  {url}: stalled, loaded again", file=sys.stderr, flush=True)
    raise AssertionError("unreachable")


def values(loads: list[dict[str, float | None]], name: str) -> list[float]:
    """The measure ``name`` of each load that took it."""
    return [value for found in loads if (value := found[name]) is not None]


def paired(loads: list[dict[str, float | None]], baseline: list[dict[str, float | None]], name: str) -> list[float]:
    """Each load's ``name`` less that of the baseline's load of the same run, where both took it."""
    return [here - there for load, base in zip(loads, baseline)
            if (here := load[name]) is not None and (there := base[name]) is not None]


def cell(numbers: list[float]) -> str:
    """``median [min, max]``, rounded to 10 ms; a dash if no run gave a value."""
    if not numbers:
        return "-"
    low, middle, high = (round(x, -1) for x in (min(numbers), statistics.median(numbers), max(numbers)))
    return f"{middle:.0f} [{low:.0f}, {high:.0f}]"


def main(argv: list[str] | None = None) -> int:
    """Build every variant, load each page of each in turn ``--runs`` times, print the table in Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sites", type=Path, help="keep the built variants here, and reuse those already built")
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("chromium is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        sites = args.sites or Path(tmp)
        built = {}
        for number, variant in enumerate(VARIANTS):
            built[variant] = site = sites / f"variant{number}"
            if not (site / "index.html").is_file():
                print(f"building: {variant.name}", file=sys.stderr, flush=True)
                build(variant, site)
        runs: Runs = {}
        flags = ["--no-sandbox", *(flag for flag in CHROME_FLAGS if not flag.startswith("--headless"))]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=flags)
            for run in range(args.runs):
                print(f"run {run + 1} of {args.runs}", file=sys.stderr, flush=True)
                for page in PAGES:
                    for variant in VARIANTS:
                        log: list[tuple[str, int]] = []
                        with serve(built[variant], log) as root:
                            waits = "theme_on_demand.py" not in variant.drop
                            runs.setdefault((variant, page), []).append(retried(browser, root + page, waits, log))
            browser.close()
    report(runs, args.runs)
    return 0


def report(runs: Runs, count: int) -> None:
    """Print the table of each page and variant, then the differences of all pages together, in Markdown."""
    print(f"CPU {CPU_SLOWDOWN}x slower, {LATENCY_MS} ms, {DOWN_BPS / 1e6:g} Mbps down, {UP_BPS / 1e3:g} kbps up "
          f"(applied); {count} runs; ms, median [min, max]; Δ: paired difference from all patches; "
          "KB gzipped as sent before the first move, median\n")
    print("| page | variant | FCP | Δ FCP | readable | Δ readable | TBT | move to bundle | JS KB | CSS KB | all KB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for page in PAGES:
        baseline = runs[(VARIANTS[0], page)]
        for variant in VARIANTS:
            measured = runs[(variant, page)]
            columns = []
            for name in PAIRED:
                columns.append(cell(values(measured, name)))
                columns.append("" if variant is VARIANTS[0] else cell(paired(measured, baseline, name)))
            columns += [cell(values(measured, name)) for name in TIMES]
            columns += [f"{statistics.median(values(measured, name)):.0f}" for name, _ in BYTES]
            print(f"| {page} | {variant.name} | " + " | ".join(columns) + " |")
    print("\nAll pages together (each load paired with all patches' load of its page in its run):\n")
    print("| variant | Δ FCP | Δ readable |")
    print("|---|---|---|")
    for variant in VARIANTS[1:]:
        pooled = []
        for name in PAIRED:
            pairs = [paired(runs[(variant, page)], runs[(VARIANTS[0], page)], name) for page in PAGES]
            pooled.append(cell([d for deltas in pairs for d in deltas]))
        print(f"| {variant.name} | " + " | ".join(pooled) + " |")


if __name__ == "__main__":
    raise SystemExit(main())
