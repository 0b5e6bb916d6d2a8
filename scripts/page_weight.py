"""`make bench`: each page's weight before the reader scrolls, gzipped as a real host would send it.

What counts: every response the page receives, from its navigation until it
has settled, in Debian's chromium with a phone's viewport (Lighthouse's mobile
one, 412 x 823), the reader doing nothing -- no scrolling, no tap, no key.
That is the page's HTML, its style sheets and scripts, its fonts (the site has
none of its own), the images the browser fetches without scrolling, and what
the scripts fetch on their own: mkdocs-material's search index, search worker
and sitemap.  A page's formulas are in its HTML, drawn (``hooks/content/formulas.py``).  An image
marked ``loading="lazy"`` far enough below the fold, or inside ``<noscript>``,
is not fetched, so it does not count; a lazy one the browser fetches anyway
(it is near the top) does.  Settled means loaded, and no request in flight for
half a second.

Bytes are the response bodies as the bench's server sends them
(``gzip_server.serve``: gzip for text files of 512 bytes or more, like a
real host), headers left out, each file counted as often as it is sent.  The
browser starts with an empty cache on every page.

Goal: at most 400 KB on every page.  Run alone: ``python scripts/page_weight.py SITE_DIR``.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, ViewportSize, sync_playwright

from gzip_server import serve
from lighthouse_bench import CHROME_FLAGS, site_pages

GOAL_BYTES = 400 * 1024
VIEWPORT: ViewportSize = {"width": 412, "height": 823}
SETTLE_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class PageWeight:
    """What one page transferred before the reader scrolled: response bodies, by path as requested."""

    page: str
    files: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        """Bytes of every response body, gzipped where the server gzips."""
        return sum(size for _, size in self.files)

    @property
    def over(self) -> bool:
        """Whether the page weighs more than the goal."""
        return self.total > GOAL_BYTES

    def heaviest(self, count: int = 3) -> list[tuple[str, int]]:
        """The largest responses, largest first."""
        return sorted(self.files, key=lambda f: -f[1])[:count]


def page_weights(site: Path, pages: list[str] | None = None, browser: Browser | None = None) -> list[PageWeight]:
    """Load each page (by default every page of the site) and record what it transfers before it settles.

    In ``browser`` if given, else in Debian's chromium, launched here; ``RuntimeError`` if it is not installed.
    """
    if browser is None:
        chromium = shutil.which("chromium")
        if chromium is None:
            raise RuntimeError("chromium is not installed")
        flags = ["--no-sandbox", *(flag for flag in CHROME_FLAGS if not flag.startswith("--headless"))]
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=chromium, args=flags)
            try:
                return page_weights(site, pages, launched)
            finally:
                launched.close()
    sent: list[tuple[str, int]] = []
    weights = []
    with serve(site, sent) as root:
        for page in pages if pages is not None else site_pages(site):
            context = browser.new_context(viewport=VIEWPORT, is_mobile=True, has_touch=True)
            try:
                tab = context.new_page()
                sent.clear()
                tab.goto(root + page, wait_until="load")
                tab.wait_for_load_state("networkidle", timeout=SETTLE_TIMEOUT_MS)
                weights.append(PageWeight(page, tuple(sent)))
            finally:
                context.close()
    return weights


def short(path: str) -> str:
    """A response's path, its last two parts (``input/tex.js``, not only ``tex.js``)."""
    return "/".join(path.rsplit("/", 2)[-2:]).lstrip("/")


def report(weights: list[PageWeight]) -> bool:
    """Print each page's gzipped weight with the goal; True when every page meets it."""
    goal = GOAL_BYTES // 1024
    print(f"\npage weight before the reader scrolls (gzipped as sent, phone viewport), goal <= {goal} KB:")
    for weight in weights:
        heaviest = ", ".join(f"{short(path)} {size / 1024:.0f}" for path, size in weight.heaviest())
        print(f"  {weight.page:32s} {weight.total / 1024:7.1f} KB in {len(weight.files):3d} files   "
              f"{'OVER' if weight.over else 'ok'}   (largest, KB: {heaviest})")
    return not any(weight.over for weight in weights)


def measure(site: Path) -> bool:
    """Print every page's weight with the goal (or why it cannot be measured); True when every page meets it."""
    try:
        weights = page_weights(site)
    except RuntimeError as error:
        print(f"\npage weight: skipped, {error}")
        return False
    return report(weights)


if __name__ == "__main__":
    raise SystemExit(0 if measure(Path(sys.argv[1])) else 1)
