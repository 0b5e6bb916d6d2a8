"""A static server for a built site, with gzip, as a real host serves it: what Lighthouse and the benches load.

Text files of :data:`MIN_GZIP_BYTES` or more go out gzip-compressed to a
client that accepts it; files named by their content's hash may be kept for
a year.  ``serve(site)`` serves a folder on a free port of 127.0.0.1 for the
length of a ``with`` block; ``running(server)`` does it for any server.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import mimetypes
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlsplit

COMPRESSIBLE = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".csv", ".txt", ".map"}
MIN_GZIP_BYTES = 512
HASHED = re.compile(r"\.[0-9a-f]{8}(\.min)?\.(css|js|svg)$")
"""Files named by their content's hash: mkdocs-material's assets and the site's joined style sheet
(hooks/content/one_stylesheet.py); served as a real host would, cacheable for a year."""


class GzipHandler(http.server.BaseHTTPRequestHandler):
    """Serves one folder, read-only, gzip-compressed when the client accepts it.

    Compressed bodies are made once and kept (the site does not change while
    it is measured).  Unknown paths get ``404.html`` with status 404.
    """

    root: Path
    compressed: dict[Path, bytes]
    lock: threading.Lock
    sent: list[tuple[str, int]] | None
    protocol_version = "HTTP/1.1"

    def __init__(self, *args: object, root: Path, compressed: dict[Path, bytes], lock: threading.Lock,
                 sent: list[tuple[str, int]] | None = None) -> None:
        self.root, self.compressed, self.lock, self.sent = root, compressed, lock, sent
        super().__init__(*args)  # type: ignore[arg-type]

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet: the bench prints scores, not requests."""
        pass

    def _resolve(self) -> Path | None:
        path = unquote(urlsplit(self.path).path)
        target = (self.root / path.lstrip("/")).resolve()
        if target.is_dir():
            target = target / "index.html"
        if self.root not in target.parents or not target.is_file():
            return None
        return target

    def _gzip(self, target: Path, data: bytes) -> bytes:
        with self.lock:
            if target not in self.compressed:
                self.compressed[target] = gzip.compress(data, compresslevel=9, mtime=0)
            return self.compressed[target]

    def _respond(self, send_body: bool) -> None:
        target = self._resolve()
        status = 200
        if target is None:
            status, target = 404, self.root / "404.html"
        data = target.read_bytes() if target.is_file() else b"not found"
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "image/svg+xml", "application/json"):
            ctype += "; charset=utf-8"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        zipped = accepts and target.suffix in COMPRESSIBLE and len(data) >= MIN_GZIP_BYTES
        body = self._gzip(target, data) if zipped else data
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        # Hashed theme assets never change; everything else is revalidated.
        immutable = HASHED.search(target.name) is not None
        self.send_header("Cache-Control", "public, max-age=31536000, immutable" if immutable else "no-cache")
        if zipped:
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        if send_body:
            if self.sent is not None:
                with self.lock:
                    self.sent.append((urlsplit(self.path).path, len(body)))
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser went away mid-response (a closed tab, a cancelled request)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        """Serve the file, gzipped when the client accepts it."""
        self._respond(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        """Headers only, as for GET."""
        self._respond(send_body=False)


class QuietServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server that keeps quiet when a client hangs up mid-response."""

    def handle_error(self, request: object, client_address: object) -> None:
        """A browser that closes a page while a file is still being sent is not an error of the site."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def running(server: http.server.ThreadingHTTPServer) -> Iterator[str]:
    """``server`` (bound to 127.0.0.1) answering in a thread until the block ends; yields its root URL."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(site: Path, sent: list[tuple[str, int]] | None = None) -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 (a free port) with gzip; yields the root URL.

    With ``sent``, each response body's path and size as sent (gzipped or not) is appended to it.
    """
    handler = functools.partial(GzipHandler, root=site.resolve(), compressed={}, lock=threading.Lock(), sent=sent)
    with running(QuietServer(("127.0.0.1", 0), handler)) as url:
        yield url
