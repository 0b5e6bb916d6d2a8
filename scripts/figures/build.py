"""Every record of the site, built (or taken from the cache) in one call.

:data:`BUILDERS` is the one list of builder modules; each declares its
records (with literal ids) in ``records()``.  What the cache lacks is built
in parallel, one process per core.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import (
    blocked,
    conditioning,
    dot_error,
    error_vs_n,
    exercises,
    formats_table,
    kahan_limits,
    looks_css,
    matmul_error,
    neumaier,
    numbers,
    promotion,
    races,
    site_info,
    snippets,
    spacing,
    stagnation,
    stochastic_race,
    sum_order,
    weight_updates,
)
from .cache import REPO, cache_key, lookup, packages_digest, store
from .contract import NUMBERS_PATH, flatten
from .errors import located
from .record import Built, Record

BUILDERS = (races, error_vs_n, stagnation, kahan_limits, formats_table, spacing, neumaier, stochastic_race, blocked,
            dot_error, promotion, matmul_error, conditioning, exercises, weight_updates, sum_order,
            numbers, snippets, site_info, looks_css)
"""Every builder module; the order is the order of the records in messages and in ``numbers.json``."""


class FigureError(RuntimeError):
    """A record could not be built; the message names it, its builder and where it failed."""


def registry() -> list[Record]:
    """All records of the site.

    ``FigureError`` naming the builder module and line if a module declares
    an invalid record (its parameters are checked as the record is made),
    and if two records share an id.
    """
    records: list[Record] = []
    for module in BUILDERS:
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


def _make(record: Record, key: str) -> Built:
    """Build one record and store it in the cache (possibly in a worker process).

    A failure comes back as a plain message with its location: a worker's
    traceback does not survive the trip between processes.
    """
    try:
        built = record.build(record.id, record.params)
    except Exception as error:
        raise RuntimeError(f"{type(error).__name__}: {error} [at {located(error)}]") from None
    store(key, record.id, built)
    return built


def _fail(record: Record, error: BaseException) -> FigureError:
    builder = Path(record.build.__code__.co_filename).resolve().relative_to(REPO)
    return FigureError(f"figure {record.id!r} ({builder}) failed: {error}")


def _build_missing(missing: list[tuple[Record, str]], workers: int) -> dict[str, Built]:
    """Build what the cache lacks, in ``workers`` processes (in this one if 1)."""
    if workers <= 1:
        results = {}
        for record, key in missing:
            try:
                results[record.id] = _make(record, key)
            except Exception as error:
                raise _fail(record, error) from None
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [(record, pool.submit(_make, record, key)) for record, key in missing]
        results = {}
        for record, future in futures:
            try:
                results[record.id] = future.result()
            except Exception as error:
                raise _fail(record, error) from None
        return results


def build_all(records: list[Record] | None = None, workers: int | None = None
              ) -> tuple[dict[str, bytes], dict[str, str], list[str]]:
    """Build every record: all files, all numbers flattened to ``<id>.<key>`` (also in
    ``data/numbers.json``), and the ids rebuilt.

    Two records writing the same file is an error: each thing on the site has one maker.
    """
    records = records if records is not None else registry()
    packages = packages_digest()
    results: dict[str, Built] = {}
    missing = []
    for record in records:
        key = cache_key(record, packages)
        hit = lookup(key)
        if hit is None:
            missing.append((record, key))
        else:
            results[record.id] = hit
    results |= _build_missing(missing, workers if workers is not None else min(len(missing), os.cpu_count() or 1))
    files: dict[str, bytes] = {}
    all_numbers: dict[str, str] = {}
    for record in records:
        built = results[record.id]
        for path, data in built.files.items():
            if path in files:
                raise FigureError(f"figure {record.id!r} writes {path}, which another figure wrote too")
            files[path] = data
        all_numbers |= flatten(record.id, built.numbers)
    files[NUMBERS_PATH] = (json.dumps(all_numbers, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()
    return files, all_numbers, [record.id for record, _ in missing]
