"""How long ``mkdocs serve`` takes to show an edit of the model: the maintainer's loop, timed by ``make bench``.

The server runs in a copy of the repository (``repo_copy``: MathJax's packages
linked, the figure cache empty, so its first build is cold), on a port the
system picks free.  Each edit appends a comment to one model module and is
timed until the server logs that it reloads the browsers.  If the server
stops, the error is the end of what it printed, not a timeout.
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from repo_copy import copy_repo

STARTED = "Serving on"
REBUILT = "Reloading browsers"
LOG_TAIL = 12
"""Lines of the server's own output shown when it stops."""


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now (the system's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """``mkdocs serve`` in ``repo``, its log read line by line as it comes."""

    def __init__(self, repo: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(repo / "src"))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--livereload", "-a", f"127.0.0.1:{free_port()}"],
            cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stderr or ():
            self.lines.put(line)
        self.lines.put(None)  # the server has closed its log: it stopped

    def wait_for(self, text: str, timeout: float) -> None:
        """Until the server logs ``text``; ``RuntimeError`` with its last lines if it stops, or after ``timeout`` s."""
        deadline = time.perf_counter() + timeout
        while (left := deadline - time.perf_counter()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                self.process.wait(timeout=30)
                tail = "".join(self.log[-LOG_TAIL:]).rstrip()
                raise RuntimeError(f"mkdocs serve stopped (exit {self.process.returncode}):\n{tail}")
            self.log.append(line)
            if text in line:
                return
        raise RuntimeError(f"mkdocs serve did not log {text!r} within {timeout:.0f} s")

    def stop(self) -> None:
        """Stop the server and wait for it to end."""
        self.process.terminate()
        self.process.wait(timeout=30)


@contextmanager
def serving_copy() -> Iterator[tuple[Path, Server]]:
    """A copy of the repository and ``mkdocs serve`` running in it, started; stopped and removed afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = copy_repo(Path(tmp) / "repo")
        server = Server(repo)
        try:
            server.wait_for(STARTED, timeout=300)
            time.sleep(1.0)  # let the file watcher settle
            yield repo, server
        finally:
            server.stop()


def edit_seconds(modules: Sequence[str], timeout: float = 180.0) -> dict[str, float]:
    """Seconds from an edit of each of ``modules`` (paths under the repository, edited one after the other)
    to the server having rebuilt the site.  ``RuntimeError`` (with the server's own last lines if it stopped)
    when it does not start or rebuild in time.
    """
    took: dict[str, float] = {}
    with serving_copy() as (repo, server):
        for module in modules:
            path = repo / module
            start = time.perf_counter()
            path.write_text(path.read_text() + "\n# An edit, as a maintainer makes one.\n")
            server.wait_for(REBUILT, timeout)
            took[module] = time.perf_counter() - start
    return took
