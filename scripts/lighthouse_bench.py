"""`make bench`, last part: Lighthouse's four scores and total blocking time for every page, desktop and mobile.

The built site is served from localhost by a small static server that
compresses with gzip, as any real host would (gzip_server.py); Lighthouse 12.2.3 (pinned in
``tools/lighthouse``, installed by ``make bench`` with ``npm ci``) drives
Debian's chromium.  The pages are the built site's HTML files, so a new page
is measured without being named here.

Goals: Accessibility, Best practices and SEO 100 on every page and preset;
Performance at least 95 on desktop and on mobile (Lighthouse's simulated slow
4G and 4x slower CPU), and a total blocking time (TBT: the main thread's
tasks' time over 50 ms each, from first paint until the page is
interactive, as Lighthouse simulates it) of at most 150 ms.  Each run's
performance and TBT are printed beside the medians: on a busy machine one
mobile run varies by several points.  So is the host's benchmarkIndex: the
mobile preset slows the CPU 4x on any machine, so its TBT depends on the host.

Run alone: ``python scripts/lighthouse_bench.py [SITE_DIR]``; without a
directory it builds the site (strictly) into a temporary one first.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from gzip_server import serve

REPO = Path(__file__).resolve().parents[1]
LIGHTHOUSE_DIR = REPO / "tools" / "lighthouse"
LIGHTHOUSE_CLI = LIGHTHOUSE_DIR / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
LABELS = {"performance": "Perf", "accessibility": "A11y", "best-practices": "BP", "seo": "SEO"}
PRESETS = ("desktop", "mobile")
GOALS: dict[str, dict[str, int]] = {
    "performance": {"desktop": 95, "mobile": 95},
    "accessibility": {"desktop": 100, "mobile": 100},
    "best-practices": {"desktop": 100, "mobile": 100},
    "seo": {"desktop": 100, "mobile": 100},
}
# Headless chromium that never calls home (without these it tries to reach Google at start-up).
CHROME_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-domain-reliability", "--metrics-recording-only",
]
TBT = "tbt"
"""The key of the total blocking time (ms) among a run's results."""
TBT_GOAL_MS = 150.0
BENCHMARK = "benchmark"
"""The key of the host's Lighthouse ``benchmarkIndex`` (how fast this machine ran Lighthouse's fixed workload)."""
SLOW_HOST_INDEX = 1000
"""Below this benchmarkIndex Lighthouse warns that the host is slower than its throttling expects."""
RUNS = int(os.environ.get("LIGHTHOUSE_RUNS", "5"))
"""Runs per page and preset; the median counts.  Five, as Lighthouse's guide to variability advises
(its docs/variability.md: the median of five runs is twice as stable as one run): one mobile run here varies by
about 5 points, and its total blocking time from about 20 to 260 ms on the same page."""
RUN_TIMEOUT_S = float(os.environ.get("LIGHTHOUSE_RUN_TIMEOUT", "180"))
"""Longest a single Lighthouse run may take (seconds).  A run takes 15-70 s here (idle to loaded), but
Lighthouse has been seen to stall for good (a node process idle for 6.5 min on a bench's sixth run):
such a run is stopped, with the chromium it started, and made again, once."""
ATTEMPTS = 2


# ---------------------------------------------------------------- pages and Lighthouse runs


def site_pages(site: Path) -> list[str]:
    """Every page of the built site, as paths from its root (``index.html``, ...): its HTML files but the 404 page.

    Not the sitemap: a build without an address (no ``SITE_URL``) lists no page there.
    """
    return sorted(path.name for path in site.glob("*.html") if path.name != "404.html")


def lighthouse_ready() -> str | None:
    """Why Lighthouse cannot run, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not LIGHTHOUSE_CLI.is_file():
        return f"lighthouse is not installed: run `npm ci` in {LIGHTHOUSE_DIR.relative_to(REPO)}"
    if chrome_path() is None:
        return "chromium is not installed"
    return None


def chrome_path() -> str | None:
    """Debian's chromium, or None if it is not installed."""
    return os.environ.get("CHROME_PATH") or shutil.which("chromium")


class LighthouseStalled(RuntimeError):
    """A Lighthouse run that did not end within ``RUN_TIMEOUT_S``."""


def _child_pids(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc; none elsewhere)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (command) state ppid ...": the command may hold spaces and parentheses.
            fields = stat.read_text(encoding="utf-8", errors="replace").rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while the folder was read
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _stop(process: subprocess.Popen[str]) -> None:
    """Kill a stalled run and what it started.

    That is node's process group and each chromium's: chrome-launcher puts chromium in a process group of
    its own (``detached``), so killing node alone would leave it running.
    """
    groups = {process.pid}
    profiles = []  # chromium's profile folders, which chrome-launcher removes only when a run ends
    for child in _child_pids(process.pid):
        try:
            groups.add(os.getpgid(child))
            arguments = Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except (ProcessLookupError, OSError):
            continue
        profiles += [Path(a.split("=", 1)[1]) for a in arguments if a.startswith("--user-data-dir=")]
    groups.discard(os.getpgrp())  # never this script's own group
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    process.communicate()
    for profile in profiles:
        if profile.name.startswith("lighthouse."):
            shutil.rmtree(profile, ignore_errors=True)


def _run_once(command: list[str], env: dict[str, str], url: str, preset: str) -> None:
    """One Lighthouse run; raises ``LighthouseStalled`` if it outlasts ``RUN_TIMEOUT_S``, RuntimeError if it fails."""
    process = subprocess.Popen(
        command, cwd=LIGHTHOUSE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its own process group, which _stop can kill whole
    )
    try:
        _, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _stop(process)
        raise LighthouseStalled(f"lighthouse on {url} ({preset}) still running after {RUN_TIMEOUT_S:.0f} s") from None
    if process.returncode != 0:
        raise RuntimeError(f"lighthouse failed on {url} ({preset}): {stderr.strip()[-1500:]}")


def run_lighthouse(url: str, preset: str, out: Path) -> dict[str, float]:
    """Lighthouse's category scores (0-100) for ``url`` with ``preset`` (desktop or mobile), and its TBT in ms.

    A run that stalls is stopped and made again (``ATTEMPTS`` in all); RuntimeError if none ends, or one fails.
    """
    command = [
        "node", str(LIGHTHOUSE_CLI), url, "--quiet", "--output=json", f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={' '.join(CHROME_FLAGS)}",
        "--max-wait-for-load=30000",
    ]
    if preset == "desktop":
        command.append("--preset=desktop")
    env = dict(os.environ, CHROME_PATH=chrome_path() or "")
    for attempt in range(1, ATTEMPTS + 1):
        out.unlink(missing_ok=True)
        try:
            _run_once(command, env, url, preset)
            break
        except LighthouseStalled as stalled:
            if attempt == ATTEMPTS:
                raise RuntimeError(f"{stalled}, {ATTEMPTS} times") from None
            print(f"      ({stalled}: stopped, and run again)", flush=True)
    if not out.is_file():
        raise RuntimeError(f"lighthouse on {url} ({preset}) wrote no report")
    report = json.loads(out.read_text(encoding="utf-8"))
    if report.get("runtimeError"):
        raise RuntimeError(f"lighthouse on {url} ({preset}): {report['runtimeError']}")
    scores = {}
    for name in CATEGORIES:
        score = report["categories"][name]["score"]
        scores[name] = -1.0 if score is None else round(score * 100, 1)
    scores[TBT] = float(report["audits"]["total-blocking-time"]["numericValue"])
    scores[BENCHMARK] = float(report["environment"]["benchmarkIndex"])
    return scores


def host_speed(indexes: list[float]) -> str:
    """The runs' benchmarkIndex, and what it says of the mobile figures (Lighthouse's docs/throttling.md).

    The mobile preset's 4x CPU slowdown, made for a high-end desktop (index 1500-2000), stands for a mid-tier
    phone there: a slower host overstates that phone's TBT, a faster one understates it.
    """
    if not indexes:
        return "  host's benchmarkIndex: no run ended"
    median = statistics.median(indexes)
    too_slow = median < SLOW_HOST_INDEX
    slow = f" (below {SLOW_HOST_INDEX}: Lighthouse warns this host is too slow for it)" if too_slow else ""
    return (f"  host's benchmarkIndex: median {median:.0f} ({min(indexes):.0f}-{max(indexes):.0f}){slow}; "
            "the 4x mobile CPU slowdown is made for 1500-2000, compare mobile TBT across machines with it")


def failing_audits(report_path: Path, limit: int = 6) -> list[str]:
    """The scored audits that lost points, worst first: what to fix."""
    report = json.loads(report_path.read_text(encoding="utf-8"))
    lost: list[tuple[float, str]] = []
    for category in report["categories"].values():
        for ref in category["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref.get("weight", 0) > 0 and audit.get("score") is not None and audit["score"] < 1:
                value = audit.get("displayValue", "")
                lost.append((ref["weight"] * (1 - audit["score"]), f"{ref['id']} {value}".strip()))
    return [text for _, text in sorted(lost, reverse=True)[:limit]]


def meets(category: str, preset: str, score: float) -> bool:
    """Whether ``score`` meets the goal of ``category`` under ``preset``."""
    return score >= GOALS[category][preset]


def measure(site: Path, reports: Path | None = None) -> bool:
    """Print each page's scores per preset and whether every goal is met; True when all are."""
    why_not = lighthouse_ready()
    if why_not:
        print(f"\nlighthouse: skipped, {why_not}")
        return False
    pages = site_pages(site)
    goals = ", ".join(
        f"{LABELS[c]} {GOALS[c]['desktop']}" if GOALS[c]["desktop"] == GOALS[c]["mobile"]
        else f"{LABELS[c]} >= {GOALS[c]['desktop']} desktop / {GOALS[c]['mobile']} mobile"
        for c in CATEGORIES
    )
    how = f", median of {RUNS} runs" if RUNS > 1 else ", 1 run (LIGHTHOUSE_RUNS sets how many; the median counts)"
    print(f"\nlighthouse 12.2.3, served with gzip from localhost{how}; goals: {goals}")
    print(f"  {'page':32s} {'preset':8s} " + " ".join(f"{LABELS[c]:>5s}" for c in CATEGORIES)
          + f" {'TBT':>6s}   goals (TBT <= {TBT_GOAL_MS:.0f} ms)")
    all_met = True
    indexes: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, serve(site) as root:
        folder = reports or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for page in pages:
            for preset in PRESETS:
                runs: list[tuple[dict[str, float], Path]] = []
                try:
                    for run in range(RUNS):
                        out = folder / f"{page.replace('/', '_')}.{preset}.{run}.json"
                        runs.append((run_lighthouse(root + page, preset, out), out))
                except RuntimeError as error:
                    print(f"  {page:32s} {preset:8s} FAILED: {error}")
                    all_met = False
                    continue
                indexes += [r[0][BENCHMARK] for r in runs]
                runs.sort(key=lambda r: r[0]["performance"])
                scores, out = runs[len(runs) // 2]  # the run with the median performance
                scores = {c: statistics.median(r[0][c] for r in runs) for c in (*CATEGORIES, TBT)}
                missed = [LABELS[c] for c in CATEGORIES if not meets(c, preset, scores[c])]
                if scores[TBT] > TBT_GOAL_MS:
                    missed.append("TBT")
                all_met &= not missed
                verdict = "ok" if not missed else "MISSED " + ", ".join(missed)
                cells = " ".join(f"{scores[c]:5.0f}" for c in CATEGORIES) + f" {scores[TBT]:6.0f}"
                each = ", ".join(f"{r[0]['performance']:.0f}/{r[0][TBT]:.0f}" for r in runs)
                runs_seen = f"   (runs' perf/TBT: {each})" if RUNS > 1 else ""
                print(f"  {page:32s} {preset:8s} {cells}   {verdict}{runs_seen}")
                if missed:
                    for audit in failing_audits(out):
                        print(f"      - {audit}")
    print(host_speed(indexes))
    print(f"  all lighthouse goals met: {'yes' if all_met else 'NO'}")
    return all_met


def main(argv: list[str] | None = None) -> int:
    """Build the site, serve it, run Lighthouse on every page and print the scores with their goals."""
    args = sys.argv[1:] if argv is None else argv
    if args:
        return 0 if measure(Path(args[0])) else 1
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)]
        result = subprocess.run(build, cwd=REPO, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.exit(f"build failed:\n{result.stderr[-3000:]}")
        return 0 if measure(site) else 1


if __name__ == "__main__":
    raise SystemExit(main())
