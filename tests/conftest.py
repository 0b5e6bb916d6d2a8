"""Shared fixtures: the built site, a local server for it, and Debian's chromium."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))


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
