"""mkdocs-gen-files entry point: build every figure and hand the files to the site.

mkdocs-gen-files runs this file on every build, including each rebuild of
``mkdocs serve``; modules it imports stay in ``sys.modules`` between
rebuilds, so the model and the builders are dropped first, or an edit to
them would not show.  Any failure stops the build with one line that names
the figure and the file where it went wrong.
"""

from __future__ import annotations

import logging
import sys
import time
import traceback
from pathlib import Path

import mkdocs_gen_files
from mkdocs.exceptions import PluginError

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
log = logging.getLogger("mkdocs.plugins.fpsum")


def _fresh_imports() -> None:
    for name in [m for m in sys.modules if m == "fpsum" or m.startswith(("fpsum.", "figures"))]:
        del sys.modules[name]
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))


def where(error: BaseException) -> str:
    """``path:line`` of the deepest frame inside the repository (or of a syntax error)."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{Path(error.filename).resolve().relative_to(REPO)}:{error.lineno}"
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(str(REPO))]
    if not frames:
        return "?"
    last = frames[-1]
    return f"{Path(last.filename).relative_to(REPO)}:{last.lineno}"


def main() -> None:
    start = time.perf_counter()
    _fresh_imports()
    try:
        from figures.build import build_all

        files, _, rebuilt = build_all()
    except Exception as error:  # one line, not a traceback: the build cannot be right
        cause = error.__cause__ or error
        raise PluginError(f"{error} [{type(cause).__name__} at {where(cause)}]") from None
    for path, data in sorted(files.items()):
        with mkdocs_gen_files.open(path, "wb") as handle:
            handle.write(data)
    took = time.perf_counter() - start
    log.info(f"figures: {len(files)} files, rebuilt {len(rebuilt)} ({', '.join(rebuilt) or 'none'}) in {took:.1f} s")


main()
