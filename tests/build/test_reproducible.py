"""Two builds of the same sources make the same site, byte for byte.

The first build (``built_copy``, in a copy of the repository) starts from an
empty figure cache; the second runs in another copy, at another path, from the
cache the first filled; each builds into a folder of its own.
``SOURCE_DATE_EPOCH`` is set, as ``make site`` sets it.
Any difference -- a date, a random id, a path, an ordering -- fails the test,
which names the files that differ and where.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from repocopy import BuiltCopy, build_copy


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at byte {at}: {a[max(0, at - 40):at + 40]!r} vs {b[max(0, at - 40):at + 40]!r}"


def test_two_builds_one_from_an_empty_cache_are_byte_identical(built_copy: BuiltCopy,
                                                               tmp_path: Path) -> None:
    repo = tmp_path / "elsewhere" / "repo"
    shutil.copytree(built_copy.repo, repo, symlinks=True)
    second = tmp_path / "site-warm"
    result = build_copy(repo, second)
    assert result.returncode == 0, result.stderr[-3000:]
    cold, warm = tree(built_copy.site), tree(second)
    assert len(cold) > 50 and "index.html" in cold
    assert sorted(cold) == sorted(warm), f"different files: {sorted(set(cold) ^ set(warm))}"
    differ = [f"{name} {first_difference(cold[name], warm[name])}" for name in cold if cold[name] != warm[name]]
    assert differ == [], "\n".join(differ[:10])
