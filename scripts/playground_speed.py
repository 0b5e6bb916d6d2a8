"""The playground's speed in chromium, as ``make bench`` prints it (not a test).

Each method of the playground's JavaScript port sums 2**20 inputs drawn as the
page draws them; the rate is element-additions per second next to a plain
double-precision loop over the same inputs in the same page
(``tools/playground/speed.js``, which ``tools/playground/bench.js`` runs in
node). Goals (issue 26): naive and pairwise at least 20 % of the plain loop,
kahan and neumaier at least 5 %, every method on 2**20 inputs with its running
totals kept (as the page draws them) in under 2 s. Debian's chromium, driven
by Playwright, loads the modules from a local server of the repository
(gzip_server.py, as Lighthouse is measured).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from gzip_server import serve  # the local server Lighthouse is measured with

REPO = Path(__file__).resolve().parents[1]
FORMATS = ("fp16", "bf16", "fp32", "e4m3", "e5m2")
SHARE_GOALS = {"naive": 0.20, "pairwise": 0.20, "kahan": 0.05, "neumaier": 0.05}
"""The least share of the plain loop's rate each method should reach."""
SECONDS_GOAL = 2.0
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
MEASURE_JS = """async (options) => {
  const { measureSpeed } = await import('/tools/playground/speed.js');
  return measureSpeed(options);
}"""


def _verdict(method: str, share: float) -> str:
    goal = SHARE_GOALS.get(method)
    if goal is None:
        return ""
    return f"goal >= {goal:.0%}  {'ok' if share >= goal else 'MISSED'}"


def measure() -> bool:
    """Print each format's rates with their goals; True when every goal is met (or False, and why not)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        print("\nplayground speed: skipped, chromium is not installed (make chromium)")
        return False
    from playwright.sync_api import sync_playwright

    met = True
    with serve(REPO) as origin, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(origin + "tools/playground/package.json")  # any page of the origin: modules load from it
            version = browser.version
            print(f"\nplayground speed in chromium {version}: element-additions per second on 2^20 uniform inputs,"
                  " share of a plain double loop (best of samples of 20 ms or more, over 0.5 s)")
            for fmt in FORMATS:
                speed: dict[str, Any] = page.evaluate(MEASURE_JS, {"format": fmt})
                kept: dict[str, Any] = page.evaluate(MEASURE_JS, {"format": fmt, "running": True, "budgetMs": 0})
                slowest = max(row["seconds"] for row in kept["rows"])
                plain = speed["rows"][0]
                print(f"  {fmt}: plain loop {plain['additionsPerSecond'] / 1e6:7.0f} M/s")
                for row in speed["rows"][1:]:
                    verdict = _verdict(row["method"], row["ofPlain"])
                    met &= "MISSED" not in verdict
                    print(f"    {row['method']:12s} {row['additionsPerSecond'] / 1e6:7.1f} M/s {row['ofPlain']:6.1%}"
                          f"   {verdict}")
                on_time = slowest < SECONDS_GOAL
                met &= on_time
                print(f"    slowest method with running totals kept: {slowest * 1000:6.0f} ms"
                      f"   goal < {SECONDS_GOAL:.0f} s  {'ok' if on_time else 'MISSED'}")
        finally:
            browser.close()
    return met


if __name__ == "__main__":
    raise SystemExit(0 if measure() else 1)
