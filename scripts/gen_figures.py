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


def main() -> None:
    """Build every figure (or take it from the cache) and hand its files to mkdocs-gen-files."""
    start = time.perf_counter()
    _fresh_imports()
    from figures.errors import located  # stdlib only: imports even when the model is broken

    try:
        from figures.build import FigureError, build_all
    except Exception as error:  # the model or a builder does not even import
        raise PluginError(f"the figure scripts do not import: {type(error).__name__}: {error} "
                          f"[at {located(error)}]") from None
    try:
        files, _, rebuilt = build_all()
    except FigureError as error:  # one line, not a traceback: the build cannot be right
        raise PluginError(str(error)) from None
    except Exception as error:
        raise PluginError(f"building the figures failed: {type(error).__name__}: {error} "
                          f"[at {located(error)}]") from None
    for path, data in sorted(files.items()):
        with mkdocs_gen_files.open(path, "wb") as handle:
            handle.write(data)
    took = time.perf_counter() - start
    slowest = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in sorted(rebuilt.items(), key=lambda i: -i[1]))
    log.info(f"figures: {len(files)} files, rebuilt {len(rebuilt)} ({slowest or 'none'}) in {took:.1f} s")


main()
