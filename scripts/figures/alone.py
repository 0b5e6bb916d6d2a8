"""One record built in an interpreter of its own, with the modules its build loaded: the cache keys' proof.

When :data:`MODULES_ENV` names a file, :mod:`figures.build` builds each
record the cache lacks in a fresh process (forked from a server that has
loaded libraries only, :data:`figures.build.PRELOADED`; it builds one record
and stops) through :func:`build_alone`, and writes there, for each
record, every module file the worker had loaded once the record was built.
``tests/build/test_cache_keys.py`` holds each record's cache key to that
list: a module a build loads but its key leaves out would let the record go
stale.  The tests' cold build of a repository copy does this, so the proof
costs no build of its own.

This module imports nothing of the project at module level, so that it adds
nothing to what a worker loads: the worker loads the record's builder (to
unpickle the record) and what its build imports, and nothing else of ours.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # never at run time: the worker's modules are what the build loads
    from .record import Built, Record

MODULES_ENV = "FPSUM_RECORD_MODULES"
"""The environment variable naming the JSON file of each record's loaded modules (unset: records share workers)."""


def loaded_files() -> list[str]:
    """The resolved file of every module this interpreter has loaded (built-in modules have none)."""
    files = {getattr(module, "__file__", None) for module in list(sys.modules.values())}
    return sorted(str(Path(name).resolve()) for name in files if name)


def build_alone(record: Record, list_modules: bool = True) -> tuple[Built, float, list[str]]:
    """``record`` built here, the seconds it took, and :func:`loaded_files` after it (empty unless
    ``list_modules``: :mod:`figures.build` builds every record through here, and lists them only when asked).

    A failure comes back as a plain message with its location: a worker's
    traceback does not survive the trip between processes (the module that
    finds the location is imported only then, so a build that succeeds never
    loads it).
    """
    start = time.perf_counter()
    try:
        built = record.build(record.id, record.params)
    except Exception as error:
        from .errors import located

        raise RuntimeError(f"{type(error).__name__}: {error} [at {located(error)}]") from None
    return built, time.perf_counter() - start, loaded_files() if list_modules else []
