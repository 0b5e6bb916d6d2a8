"""Every record of the site, built (or taken from the cache) in one call.

:func:`builders` finds the builder modules: each declares its records (with
literal ids) in ``records()``.  What the cache lacks is built
in parallel, one process per core, the longest first (as long as it took
the last time, :data:`TIMES_PATH`), so no core waits at the end on a long
record started last.
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
import os
import pkgutil
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from pathlib import Path
from types import ModuleType

from .alone import MODULES_ENV, build_alone
from .cache import CACHE_DIR, REPO, Sources, cache_key, environment_fingerprint, lookup, store
from .contract import NUMBERS_PATH, flatten
from .errors import located
from .gallery import gallery_files
from .record import Built, Record

PACKAGE = __name__.rpartition(".")[0]


def builders() -> list[ModuleType]:
    """Every builder module: each module of this package that declares its records in a ``records()`` function,
    found, not listed (in name order; the build starts the records in the order of their last times).
    """
    modules = [importlib.import_module(f"{PACKAGE}.{info.name}")
               for info in pkgutil.iter_modules([str(Path(__file__).parent)]) if not info.ispkg]
    return [module for module in modules if callable(getattr(module, "records", None))]


TIMES_PATH = CACHE_DIR.parent / "figure-times.json"
"""Seconds each record took when it was last built (id -> seconds): the order of the next build, and
what ``make bench`` prints.  Outside the figure cache, so emptying the cache keeps it."""


class FigureError(RuntimeError):
    """A record could not be built; the message names it, its builder and where it failed."""


def registry() -> list[Record]:
    """All records of the site.

    ``FigureError`` naming the builder module and line if a module declares
    an invalid record (its parameters are checked as the record is made),
    and if two records share an id.
    """
    records: list[Record] = []
    for module in builders():
        try:
            records += module.records()
        except Exception as error:
            where = located(error, within=str(Path(str(module.__file__)).resolve().relative_to(REPO)))
            raise FigureError(f"the figure registry is invalid: {type(error).__name__}: {error} "
                              f"[at {where}]") from None
    seen: set[str] = set()
    for record in records:
        if record.id in seen:
            raise FigureError(f"two records have the id {record.id!r}")
        seen.add(record.id)
    return records


def _make(record: Record, key: str) -> tuple[Built, float, list[str]]:
    """Build one record and store it in the cache (possibly in a worker process); with the seconds it took
    (and no modules listed: :func:`figures.alone.build_alone` builds it).
    """
    built, seconds, modules = build_alone(record, list_modules=False)
    store(key, record.id, built)
    return built, seconds, modules


def _fail(record: Record, error: BaseException) -> FigureError:
    builder = Path(record.build.__code__.co_filename).resolve().relative_to(REPO)
    return FigureError(f"figure {record.id!r} ({builder}) failed: {error}")


def last_times(path: Path = TIMES_PATH) -> dict[str, float]:
    """Seconds each record took when last built; empty if none was recorded or the file is unreadable."""
    try:
        times = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(times, dict):
        return {}
    return {str(k): float(v) for k, v in times.items() if isinstance(v, int | float)}


def _record_times(times: dict[str, float], path: Path = TIMES_PATH) -> None:
    """Merge ``times`` into the file of last build times (two builds at once: the last one to write wins)."""
    merged = last_times(path) | {k: round(v, 3) for k, v in times.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(merged, sort_keys=True, indent=1) + "\n")
    os.replace(temporary, path)


def longest_first(missing: list[tuple[Record, str]], times: dict[str, float]) -> list[tuple[Record, str]]:
    """``missing`` in the order to start them: the longest last time first; never-timed ones first of all
    (they may be long), in registry order.
    """
    return sorted(missing, key=lambda item: -times.get(item[0].id, float("inf")))


PRELOADED = ("numpy", "matplotlib", "ml_dtypes")
"""What each record's fresh worker has loaded before it starts: libraries only, none of the project's modules
(whose list is the cache keys' proof), so that no record pays for importing them again."""


def _pool(workers: int, alone: bool) -> ProcessPoolExecutor:
    """Worker processes for the records: forked and reused, or with ``alone`` a fresh process per record.

    A fresh one is forked from a server that has loaded only :data:`PRELOADED`
    (multiprocessing's forkserver), so that it holds none of the project's modules until the record's
    build loads them, as a fresh interpreter would, in a fraction of the time.
    """
    if alone:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(PRELOADED))
        return ProcessPoolExecutor(max_workers=workers, mp_context=context, max_tasks_per_child=1)
    return ProcessPoolExecutor(max_workers=workers)


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` at once, the records it is building too: once one has failed their results are of no use,
    and waiting for them would hold the error back for as long as the longest runs (Python 3.14's
    ``terminate_workers`` does this).  A record stopped half-stored is not in the cache: its entry is whole
    only once its last file is written (:func:`figures.cache.store`).
    """
    processes: dict[int, multiprocessing.process.BaseProcess] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _build_missing(missing: list[tuple[Record, str]], workers: int) -> dict[str, tuple[Built, float]]:
    """Build what the cache lacks, in ``workers`` processes (in this one if 1), longest first.

    The first failure stops the build: records not started yet are not built
    (a broken model fails them all, and ``mkdocs serve`` should say so at once).
    With :data:`figures.alone.MODULES_ENV` set, each record is built in a fresh
    interpreter, and the modules each one loaded are written to that file.
    """
    missing = longest_first(missing, last_times())
    modules_file = os.environ.get(MODULES_ENV)
    results: dict[str, tuple[Built, float]] = {}
    if workers <= 1 and not modules_file:
        for record, key in missing:
            try:
                built, seconds, _ = _make(record, key)
                results[record.id] = built, seconds
            except Exception as error:
                raise _fail(record, error) from None
    elif missing:
        with _pool(max(workers, 1), alone=bool(modules_file)) as pool:
            futures = [(record, key, pool.submit(build_alone, record) if modules_file
                        else pool.submit(_make, record, key)) for record, key in missing]
            wait([future for _, _, future in futures], return_when=FIRST_EXCEPTION)
            failed = [(record, future) for record, _, future in futures if future.done() and future.exception()]
            if failed:  # the first to fail, in the order started; what has not started is not built
                _stop_now(pool)
                record, future = failed[0]
                raise _fail(record, future.exception() or RuntimeError("failed")) from None
            loaded: dict[str, list[str]] = {}
            for record, key, future in futures:
                built, seconds, loaded[record.id] = future.result()
                if modules_file:  # the worker stored nothing: its modules are only what the build loaded
                    store(key, record.id, built)
                results[record.id] = built, seconds
        if modules_file:
            Path(modules_file).write_text(json.dumps(loaded, sort_keys=True, indent=1) + "\n")
    if results:
        _record_times({name: seconds for name, (_, seconds) in results.items()})
    return results


def build_all(records: list[Record] | None = None, workers: int | None = None
              ) -> tuple[dict[str, bytes], dict[str, str], dict[str, float]]:
    """Build every record: all files, all numbers flattened to ``<id>.<key>`` (also in
    ``data/numbers.json``), and the records rebuilt with the seconds each took (in registry order).
    The files include the teaching page's gallery of every record's downloads (:mod:`figures.gallery`).

    Two records writing the same file is an error: each thing on the site has one maker.
    """
    records = records if records is not None else registry()
    sources, environment = Sources(), environment_fingerprint()
    results: dict[str, Built] = {}
    missing = []
    for record in records:
        key = cache_key(record, sources, environment)
        hit = lookup(key)
        if hit is None:
            missing.append((record, key))
        else:
            results[record.id] = hit
    made = _build_missing(missing, workers if workers is not None else min(len(missing), os.cpu_count() or 1))
    results |= {name: built for name, (built, _) in made.items()}
    files: dict[str, bytes] = {}
    all_numbers: dict[str, str] = {}
    for record in records:
        built = results[record.id]
        for path, data in built.files.items():
            if path in files:
                raise FigureError(f"figure {record.id!r} writes {path}, which another figure wrote too")
            files[path] = data
        all_numbers |= flatten(record.id, built.numbers)
    files |= gallery_files([record.id for record in records], files)  # every record's downloads, now all are made
    files[NUMBERS_PATH] = (json.dumps(all_numbers, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()
    rebuilt = {record.id: made[record.id][1] for record, _ in missing}
    return files, all_numbers, rebuilt
