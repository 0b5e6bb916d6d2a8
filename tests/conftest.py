"""Shared fixtures: the built site, a local server for it, Debian's chromium and a browser."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from browsing import CHROMIUM_ARGS, Visit  # noqa: E402 (tests/ is on sys.path: pytest's rootdir conftest)
from repocopy import BuiltCopy, build_copy, copy_repo  # noqa: E402


def build_site(target: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` into ``target``, as ``make site`` does; output captured."""
    env = dict(os.environ, SOURCE_DATE_EPOCH=os.environ.get("SOURCE_DATE_EPOCH", "1700000000"))
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per test session into a temporary folder."""
    target = tmp_path_factory.mktemp("site")
    result = build_site(target)
    assert result.returncode == 0, f"strict build failed:\n{result.stderr[-4000:]}"
    return target


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def site_url(site_dir: Path) -> Iterator[str]:
    """The built site served on localhost; the URL of its root."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's chromium; the browser tests need it (``make test`` installs it)."""
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is not installed: run `make test`, which installs Debian's chromium")
    return path


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    """Debian's chromium driven by Playwright, one per test module (each test opens its own context).

    Not one per session: Playwright's sync API runs one instance at a time in
    a thread, and other modules start their own.
    """
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def opened(browser: Browser, site_url: str) -> Iterator[Callable[[str], Visit]]:
    """Each page of the served site opened once per test module, its formulas typeset.

    For the tests that look without changing anything, or that put back what
    they change (palette, print media, selected tabs); a test that plays with
    the figures opens a ``Visit`` of its own.
    """
    visits: dict[str, Visit] = {}

    def get(name: str) -> Visit:
        if name not in visits:
            visits[name] = Visit(browser, site_url, name)
            visits[name].wait_for_formulas()
        return visits[name]

    yield get
    for visit in visits.values():
        visit.close()


@pytest.fixture(scope="session")
def built_copy(tmp_path_factory: pytest.TempPathFactory) -> BuiltCopy:
    """A copy of the repository, built once from an empty figure cache (which it then holds).

    Made once per test run even when pytest-xdist spreads its users over
    several workers: the first worker to get here builds, the others wait.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this run's folder, shared by its workers
    built = BuiltCopy(repo=base / "copy-repo", site=base / "copy-site-cold")
    done, failed = base / "copy.done", base / "copy.failed"
    try:
        os.close(os.open(base / "copy.lock", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        deadline = time.monotonic() + 600
        while not (done.exists() or failed.exists()) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert done.exists(), failed.read_text() if failed.exists() else "the copy was not built in 10 minutes"
        return built
    built.repo.mkdir()
    copy_repo(built.repo)
    assert not (built.repo / ".cache").exists()
    result = build_copy(built.repo, built.site)
    if result.returncode != 0:
        failed.write_text(f"strict build of the copy failed:\n{result.stderr[-4000:]}")
        pytest.fail(failed.read_text())
    done.write_text("built\n")
    return built
