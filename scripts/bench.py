"""`make bench`: build times, animation sizes and page weights (a benchmark, not a test).

Goals on the 2-core reference machine: a cold build (empty figure cache) in
at most 15 s, a warm build (nothing changed) in at most 3 s, each race
animation at most 150 KB.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "figures"
GOALS = {"cold": 15.0, "warm": 3.0}
ANIMATION_LIMIT = 150 * 1024


def timed_build(target: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(target)],
                            cwd=REPO, capture_output=True, text=True, env=dict(os.environ))
    took = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stderr[-3000:]}")
    return took


def page_weight(site: Path, page: Path) -> tuple[int, int]:
    """Bytes of the page and of the files it loads directly (scripts, styles, images)."""
    html = page.read_text(encoding="utf-8")
    refs = set(re.findall(r'(?:src|href)="([^"#?]+)[^"]*"', html))
    total, count = page.stat().st_size, 1
    for ref in refs:
        if ref.startswith(("http:", "https:", "mailto:", "data:")) or ref.endswith(".html") or ref.endswith("/"):
            continue
        path = (page.parent / ref).resolve()
        if path.is_file() and site in path.parents and path.suffix in (".js", ".css", ".svg", ".png", ".woff2"):
            total += path.stat().st_size
            count += 1
    return total, count


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.rmtree(CACHE, ignore_errors=True)
        cold = timed_build(site)
        warm = timed_build(site)
        print(f"cold build (empty figure cache): {cold:6.2f} s   goal <= {GOALS['cold']:.0f} s"
              f"   {'ok' if cold <= GOALS['cold'] else 'MISSED'}")
        print(f"warm build (nothing changed):    {warm:6.2f} s   goal <= {GOALS['warm']:.0f} s"
              f"   {'ok' if warm <= GOALS['warm'] else 'MISSED'}")
        print("\nrace animations (limit 150 KB each):")
        for svg in sorted((site / "figures").glob("race-*.svg")):
            size = svg.stat().st_size
            print(f"  {svg.name:32s} {size / 1024:7.1f} KB   {'ok' if size <= ANIMATION_LIMIT else 'OVER'}")
        print("\npage weight (the page and the files it loads, uncompressed):")
        for page in sorted(site.glob("*.html")):
            if page.name == "404.html":
                continue
            total, count = page_weight(site, page)
            print(f"  {page.name:32s} {total / 1024:8.1f} KB in {count} files")


if __name__ == "__main__":
    main()
