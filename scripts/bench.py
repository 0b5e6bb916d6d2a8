"""`make bench`: model throughput, build times, animation sizes and page weights (not a test).

Goals on the 2-core reference machine: a cold build (empty figure cache) in
at most 15 s, a warm build (nothing changed) in at most 3 s, each race
animation at most 150 KB.
"""

from __future__ import annotations

import functools
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "figures"
GOALS = {"cold": 15.0, "warm": 3.0}
ANIMATION_LIMIT = 150 * 1024


def timed_build(target: Path) -> float:
    """Seconds one strict build into ``target`` takes; exits with the build's error if it fails."""
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


THROUGHPUT_GOALS = {"naive": 0.5, "pairwise": 0.5, "kahan": 0.1, "neumaier": 0.1}


def best_rate(run: Callable[[], object], additions: int, repeats: int = 3) -> float:
    """Element-additions per second of the fastest of ``repeats`` runs."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return additions / best


def throughput(trials: int = 64, n: int = 2**16) -> None:
    """Each method's speed in FP16 and BF16 against numpy's own float16 np.add.accumulate."""
    import numpy as np

    import fpsum

    additions = trials * n
    native_input = np.random.default_rng(0).random((trials, n)).astype(np.float16)
    native = best_rate(lambda: np.add.accumulate(native_input, axis=-1), additions)
    print(f"\nthroughput, {trials} trials x {n:,} inputs (element-additions per second):")
    print(f"  numpy np.add.accumulate, float16:  {native / 1e6:8.1f} M/s   (the reference)")
    for fmt in (fpsum.FP16, fpsum.BF16):
        values = fpsum.make_inputs("uniform", n, fmt, seed=0, trials=trials)
        for method in fpsum.METHODS:
            repeats = 1 if method == "stochastic" else 3  # the slowest: one run is long enough to time
            rate = best_rate(functools.partial(fpsum.total, method, values, fmt), additions, repeats)
            goal = THROUGHPUT_GOALS.get(method)
            verdict = "" if goal is None else f"goal >= {goal:.0%}  {'ok' if rate >= goal * native else 'MISSED'}"
            print(f"  {fmt.label:5s} {method:11s} {rate / 1e6:8.1f} M/s  {rate / native:6.1%} of native   {verdict}")


DOT_GOALS = {"naive": 0.5, "pairwise": 0.5, "truncated": 0.1, "truncated, promoted every 128": 0.1}


def dot_throughput(trials: int = 64, k: int = 2**14) -> None:
    """Dot-product accumulation (FP16 inputs, FP32 accumulator) and the truncating model, against numpy's float16."""
    import numpy as np

    import fpsum
    from fpsum.dot import dot
    from fpsum.hardware import TruncatedAccumulator, truncated_dot

    additions = trials * k
    native_input = np.random.default_rng(0).random((trials, k)).astype(np.float16)
    native = best_rate(lambda: np.add.accumulate(native_input, axis=-1), additions)
    x = fpsum.make_inputs("uniform", k, fpsum.FP16, seed=1, trials=trials)
    y = fpsum.make_inputs("uniform", k, fpsum.FP16, seed=2, trials=trials)
    runs: dict[str, Callable[[], object]] = {
        "naive": lambda: dot(x, y, fpsum.FP16, fpsum.FP32, "naive"),
        "pairwise": lambda: dot(x, y, fpsum.FP16, fpsum.FP32, "pairwise"),
        "truncated": lambda: truncated_dot(x, y, TruncatedAccumulator()),
        "truncated, promoted every 128": lambda: truncated_dot(x, y, TruncatedAccumulator(promote_every=128)),
    }
    print(f"\ndot products, {trials} x {k:,} FP16 pairs, FP32 accumulator (products added per second):")
    print(f"  numpy np.add.accumulate, float16:  {native / 1e6:8.1f} M/s   (the reference)")
    for name, run in runs.items():
        rate = best_rate(run, additions)
        goal = DOT_GOALS[name]
        print(f"  {name:31s} {rate / 1e6:8.1f} M/s  {rate / native:6.1%} of native   "
              f"goal >= {goal:.0%}  {'ok' if rate >= goal * native else 'MISSED'}")


def main() -> None:
    """Print every measurement with its goal."""
    throughput()
    dot_throughput()
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
        from lighthouse_bench import measure  # scripts/lighthouse_bench.py: every page, desktop and mobile

        measure(site)


if __name__ == "__main__":
    main()
