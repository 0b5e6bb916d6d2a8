"""mkdocs-gen-files entry point: build every figure and hand the files to the site.

mkdocs-gen-files runs this file on every build, including each rebuild of
``mkdocs serve``; modules it imports stay in ``sys.modules`` between
rebuilds, so the model and the builders are dropped first, or an edit to
them would not show.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import mkdocs_gen_files

SCRIPTS = Path(__file__).resolve().parent
for name in [m for m in sys.modules if m == "fpsum" or m.startswith(("fpsum.", "figures"))]:
    del sys.modules[name]
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

from figures.build import build_all  # noqa: E402

log = logging.getLogger("mkdocs.plugins.fpsum")


def main() -> None:
    start = time.perf_counter()
    files, _, rebuilt = build_all()
    for path, data in sorted(files.items()):
        with mkdocs_gen_files.open(path, "wb") as handle:
            handle.write(data)
    took = time.perf_counter() - start
    log.info(f"figures: {len(files)} files, rebuilt {len(rebuilt)} ({', '.join(rebuilt) or 'none'}) in {took:.1f} s")


main()
