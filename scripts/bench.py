"""`make bench`: model throughput, build times, what a model edit rebuilds, animation sizes and page weights
(not a test).

Machines differ (the same build took 8 s on one 2-core machine and 24 s on
another), so times carry no absolute goal (issue 28): each is printed in
seconds and as a multiple of a calibration workload timed in the same run
(:func:`calibration_seconds`: a plain Python loop and a NumPy sort, the two
kinds of work a build does), which moves with the machine.  A change that
touches the build or the tests is judged by running the bench before and
after it on one machine.  The throughputs are shares of NumPy's own
accumulation and the reader's speed a ratio to the exact route, each with a
goal; each race animation has a size limit of 150 KB.  ``BENCH_TESTS=0``
leaves out the timing of ``make test`` and ``make check`` in a fresh clone
(it takes a quarter of an hour).  The playground's JavaScript port is timed in chromium against its
own goals (scripts/playground_speed.py).
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))  # the figure builders: their record times
CACHE = REPO / ".cache" / "figures"
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


@functools.cache
def calibration_seconds(repeats: int = 3) -> float:
    """The fastest of ``repeats`` runs of a fixed workload: a Python loop summing 3 million floats, then NumPy
    sorting 2 million seeded doubles.  Timed once per bench run; times are printed as multiples of it.
    """
    import numpy as np

    values = np.random.default_rng(0).random(2_000_000)
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        total = 0.0
        for i in range(3_000_000):
            total += i * 0.5
        np.sort(values)
        best = min(best, time.perf_counter() - start)
    return best


def in_calibrations(seconds: float) -> str:
    """``seconds`` and the same as a multiple of :func:`calibration_seconds`."""
    return f"{seconds:7.2f} s  = {seconds / calibration_seconds():6.1f} calibrations"


def figure_times() -> None:
    """Each record's time in the last build that made it, slowest first: the one to make faster is on top."""
    from figures.build import last_times, registry

    times = {record.id: last_times().get(record.id, math.nan) for record in registry()}
    print(f"  each record, built on {os.cpu_count()} cores ({sum(times.values()):.1f} s of work in all):")
    for name, seconds in sorted(times.items(), key=lambda item: -item[1]):
        print(f"    {name:28s} {seconds:6.2f} s")


def model_reach() -> dict[str, int]:
    """How many records an edit of each model module rebuilds (its path under the repository: count): those whose
    key holds the module (the modules their builder imports, at any depth; see figures/cache.py).  Read from the
    sources, nothing is built.
    """
    from figures.build import registry
    from figures.cache import Sources

    sources = Sources()
    keyed = [sources.modules(record) for record in registry()]
    reach = {}
    for name in sorted(name for name in sources.graph.everything() if name.partition(".")[0] == "fpsum"):
        path = sources.graph.find(name)
        shown = str(path.relative_to(REPO)) if path is not None else name
        reach[shown] = sum(name in modules for modules in keyed)
    return reach


def edit_reach() -> None:
    """Print :func:`model_reach`."""
    from figures.build import registry

    print(f"\nrecords an edit of each model module rebuilds (of {len(registry())}):")
    for module, count in model_reach().items():
        print(f"  {module.removeprefix('src/'):28s} {count:3d}")


MODEL_HUB = "src/fpsum/formats.py"
"""The model module nearly every record imports: an edit of it is the slow end of the maintainer's loop."""


def serve_edits() -> None:
    """How long ``mkdocs serve`` takes to show an edit of a leaf model module (the one that rebuilds the fewest
    records, at least one) and of :data:`MODEL_HUB`; or FAILED with the server's own words.
    """
    from serve_edit import edit_seconds  # scripts/serve_edit.py: mkdocs serve in a copy of the repository

    reach = model_reach()
    leaf = min((module for module, count in reach.items() if count), key=lambda module: (reach[module], module))
    try:
        took = edit_seconds([leaf, MODEL_HUB])
    except RuntimeError as error:
        print(f"model edit shown by mkdocs serve: FAILED ({error})")
        return
    for module, seconds in took.items():
        print(f"edit of {module.removeprefix('src/')} ({reach[module]} records) shown by mkdocs serve: "
              f"{in_calibrations(seconds)}")


def builds(site: Path) -> None:
    """Cold and warm build times, each record's time in the cold one, and the model-edit path of ``make serve``."""
    shutil.rmtree(CACHE, ignore_errors=True)
    cold = timed_build(site)
    warm = timed_build(site)
    print(f"\ncold build (empty figure cache):  {in_calibrations(cold)}")
    figure_times()
    print(f"warm build (nothing changed):     {in_calibrations(warm)}")
    serve_edits()


THROUGHPUT_GOALS = {"naive": 0.5, "pairwise": 0.5, "kahan": 0.1, "neumaier": 0.1, "stochastic": 0.2}


def best_rate(run: Callable[[], object], additions: int, repeats: int = 3) -> float:
    """Element-additions per second of the fastest of ``repeats`` runs."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return additions / best


def float16_reference(trials: int, n: int) -> tuple[Any, float]:
    """The reference every throughput is a share of: numpy's own float16 ``np.add.accumulate`` over
    ``trials`` rows of ``n`` (its input, and element-additions per second); printed as it is measured.
    """
    import numpy as np

    values = np.random.default_rng(0).random((trials, n)).astype(np.float16)
    native = best_rate(lambda: np.add.accumulate(values, axis=-1), trials * n)
    print(f"  numpy np.add.accumulate, float16:  {native / 1e6:8.1f} M/s   (the reference)")
    return values, native


def print_rate(label: str, method: str, rate: float, native: float, goal: float | None) -> None:
    """One method's line: its rate, its share of the reference and, where it has one, its goal met or missed."""
    mark = "" if goal is None else f"goal >= {goal:.0%}  {'ok' if rate >= goal * native else 'MISSED'}"
    print(f"  {label:5s} {method:11s} {rate / 1e6:8.1f} M/s  {rate / native:6.1%} of native   {mark}")


def throughput(trials: int = 64, n: int = 2**16) -> None:
    """Each method's speed in FP16 and BF16 against numpy's own float16 np.add.accumulate."""
    from fpsum.formats import BF16, FP16
    from fpsum.inputs import make_inputs
    from fpsum.methods import total
    from fpsum.names import METHODS

    additions = trials * n
    print(f"\nthroughput, {trials} trials x {n:,} inputs (element-additions per second):")
    _, native = float16_reference(trials, n)
    for fmt in (FP16, BF16):
        values = make_inputs("uniform", n, fmt, seed=0, trials=trials)
        for method in METHODS:
            rate = best_rate(functools.partial(total, method, values, fmt), additions)
            print_rate(fmt.label, method, rate, native, THROUGHPUT_GOALS.get(method))


VARIANCE_GOALS = {"two-pass": 0.3, "welford": 0.1, "chan": 0.1}
"""The variance methods' shares of NumPy's float16 np.add.accumulate (issue 41); textbook has none."""


def variance_throughput(trials: int = 64, n: int = 2**16) -> None:
    """Each variance method (fpsum.moments) in FP16 and BF16, accumulated in the input format, against numpy's
    own float16 np.add.accumulate; numpy's float32 var of the same shape beside it for scale (no goal).
    """
    import numpy as np

    from fpsum.formats import BF16, FP16
    from fpsum.inputs import make_inputs
    from fpsum.moments import MOMENT_METHODS, mean_variance

    updates = trials * n
    print(f"\nvariance, {trials} trials x {n:,} inputs (element updates per second):")
    native_input, native = float16_reference(trials, n)
    wide = native_input.astype(np.float32)
    numpy_var = best_rate(lambda: np.var(wide, axis=-1), updates)
    print(f"  numpy np.var, float32:             {numpy_var / 1e6:8.1f} M/s  {numpy_var / native:6.1%} of native   "
          "(for scale)")
    for fmt in (FP16, BF16):
        values = make_inputs("uniform", n, fmt, seed=0, trials=trials)
        for method in MOMENT_METHODS:
            rate = best_rate(functools.partial(mean_variance, values, fmt, method), updates)
            print_rate(fmt.label, method, rate, native, VARIANCE_GOALS.get(method))


DOT_GOALS = {"naive": 0.5, "pairwise": 0.5, "truncated": 0.1, "truncated, promoted every 128": 0.1}


def dot_throughput(trials: int = 64, k: int = 2**14) -> None:
    """Dot-product accumulation (FP16 inputs, FP32 accumulator) and the truncating model, against numpy's float16."""
    import numpy as np

    from fpsum.dot import dot
    from fpsum.formats import FP16, FP32
    from fpsum.hardware import TruncatedAccumulator, truncated_dot
    from fpsum.inputs import make_inputs

    additions = trials * k
    native_input = np.random.default_rng(0).random((trials, k)).astype(np.float16)
    native = best_rate(lambda: np.add.accumulate(native_input, axis=-1), additions)
    x = make_inputs("uniform", k, FP16, seed=1, trials=trials)
    y = make_inputs("uniform", k, FP16, seed=2, trials=trials)
    runs: dict[str, Callable[[], object]] = {
        "naive": lambda: dot(x, y, FP16, FP32, "naive"),
        "pairwise": lambda: dot(x, y, FP16, FP32, "pairwise"),
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


READING_LINES = 10**6
READING_GOAL = 10.0
"""``fpsum sum`` reads a million lines at least this many times faster than by exact arithmetic alone."""


def reading_speed(sample: int = 10**5) -> None:
    """``fpsum sum``'s reader on a million lines of random decimals, against reading each exactly.

    The exact route (the exact rational of every token, rounded once) was
    the reader before issue 28; it is timed on the first ``sample`` lines and
    scaled, since its cost per line does not depend on how many there are.
    """
    import io

    import numpy as np

    from fpsum.exact_rounding import round_exact
    from fpsum.formats import FP16
    from fpsum.reading import parse_number, read_numbers

    rng = np.random.default_rng(0)
    values = rng.uniform(0, 1, READING_LINES) * 10.0 ** rng.integers(-3, 3, READING_LINES)
    lines = [f"{v:.{int(d)}g}" for v, d in zip(values, rng.integers(3, 17, READING_LINES))]
    text = "\n".join(lines) + "\n"
    start = time.perf_counter()
    read_numbers(io.StringIO(text), "<bench>", FP16)
    fast = time.perf_counter() - start
    start = time.perf_counter()
    for token in lines[:sample]:
        round_exact(parse_number(token), FP16)
    exact = (time.perf_counter() - start) * READING_LINES / sample
    speedup = exact / fast
    print(f"\nfpsum sum reading {READING_LINES:,} lines of random decimals into FP16:")
    print(f"  exact route alone (before)  {exact:6.1f} s   (timed on {sample:,} lines, scaled)")
    print(f"  reader                      {fast:6.1f} s   {speedup:5.1f} times faster   "
          f"goal >= {READING_GOAL:.0f}  {'ok' if speedup >= READING_GOAL else 'MISSED'}")


CHECK_GOAL = 0.25
"""``make check`` at most this share of ``make test`` on the same machine (issue 40)."""


def timed_make(clone: Path, target: str) -> float | None:
    """Seconds ``make target`` takes in ``clone``, its summary printed; None (and the end of its output) if it fails."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}  # not bench's make
    start = time.perf_counter()
    result = subprocess.run(["make", target], cwd=clone, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if result.returncode != 0:
        print(f"  make {target:26s} FAILED after {took:.0f} s:\n{(result.stdout + result.stderr)[-2000:]}")
        return None
    summary = next((line.strip("= ") for line in reversed(result.stdout.splitlines()) if " passed" in line), "")
    print(f"  make {target:26s} {in_calibrations(took)}   ({summary})")
    return took


def timed_tests() -> None:
    """``make test`` in a fresh clone of the last commit (its virtual environment made from the lock, as CI
    does), then ``make check`` in that clone, whose figure cache ``make test``'s build has filled (as the
    maintainer's is after ``make site``): each in seconds and calibrations, and check's share of test against
    :data:`CHECK_GOAL`; or FAILED with the end of its output.
    """
    print("\ntests, in a fresh clone of the last commit (uncommitted changes are not in it):")
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "fresh"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        whole = timed_make(clone, "test")
        loop = timed_make(clone, "check") if whole else None
        if whole and loop:
            share = loop / whole
            print(f"  make check / make test          {share:6.2f}          goal <= {CHECK_GOAL:.2f}  "
                  f"{'ok' if share <= CHECK_GOAL else 'MISSED'}")


def main() -> None:
    """Print every measurement: ratios with their goals, times in seconds and calibrations."""
    print(f"calibration (a Python loop over 3 million floats and a NumPy sort of 2 million): "
          f"{calibration_seconds():.3f} s")
    throughput()
    variance_throughput()
    dot_throughput()
    reading_speed()
    from playground_speed import measure as playground_speed  # scripts/playground_speed.py: the port in chromium

    playground_speed()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        builds(site)
        edit_reach()
        print("\nrace animations (limit 150 KB each):")
        for svg in sorted((site / "figures").glob("race-*.svg")):
            size = svg.stat().st_size
            print(f"  {svg.name:32s} {size / 1024:7.1f} KB   {'ok' if size <= ANIMATION_LIMIT else 'OVER'}")
        from page_weight import measure as page_weights  # scripts/page_weight.py: gzipped, before the reader scrolls

        page_weights(site)
        from lighthouse_bench import measure  # scripts/lighthouse_bench.py: every page, desktop and mobile

        measure(site)
    if os.environ.get("BENCH_TESTS", "1") != "0":
        timed_tests()


if __name__ == "__main__":
    main()
