"""A content-addressed cache for built records.

A record's key is the hash of everything that made it: every file of the
model package (``src/fpsum``) and of the builder package
(``scripts/figures``), found by listing the folders (so a new module is
covered without anyone adding it to a list), the record's own input files,
its id and parameters, and the versions of Python and the libraries that
drew it.  A record's files are stored under ``.cache/figures/<key>/``; the
key's ``done`` marker is written last, so a build that fails half way
leaves nothing that a later build would trust.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import os
import platform
from pathlib import Path

from .record import Built, Record

REPO = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO / ".cache" / "figures"
PACKAGES = (REPO / "src" / "fpsum", REPO / "scripts" / "figures")
"""Every file under these folders goes into every key: any record may use any of it."""
LIBRARIES = ("numpy", "ml_dtypes", "matplotlib")


def _files_digest(paths: list[Path]) -> bytes:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.digest()


def package_files(packages: tuple[Path, ...] = PACKAGES) -> list[Path]:
    """Every file of the packages, compiled bytecode excepted: sources, data, anything a builder may read."""
    return [path for folder in packages for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"]


def packages_digest(packages: tuple[Path, ...] = PACKAGES) -> bytes:
    """The hash of every file of the model and builder packages; computed once per build."""
    return _files_digest(package_files(packages))


def environment_fingerprint() -> str:
    """Python and library versions: a figure drawn by other versions is another figure."""
    versions = [f"python={platform.python_version()}"]
    versions += [f"{name}={importlib.metadata.version(name)}" for name in LIBRARIES]
    return ";".join(versions)


def cache_key(record: Record, packages: bytes, environment: str) -> str:
    """Hash of the packages' digest, the record's input files, id and parameters, and the environment.

    ``packages`` and ``environment`` are :func:`packages_digest`'s and
    :func:`environment_fingerprint`'s, worked out once per build (reading
    the libraries' versions takes longer than hashing a record).
    """
    digest = hashlib.sha256()
    digest.update(packages)
    digest.update(_files_digest(list(record.inputs)))
    digest.update(record.id.encode())
    digest.update(repr(sorted(dataclasses.asdict(record.params).items())).encode())
    digest.update(environment.encode())
    return digest.hexdigest()[:24]


def lookup(key: str) -> Built | None:
    """The cached outputs under ``key``, or None if there is no complete entry."""
    entry = CACHE_DIR / key
    marker = entry / "done"
    if not marker.is_file():
        return None
    names = marker.read_text().splitlines()
    files = {n: (entry / "files" / n).read_bytes() for n in names if n}
    numbers = json.loads((entry / "numbers.json").read_text())
    return Built(files=files, numbers=numbers)


def _write_whole(target: Path, data: bytes) -> None:
    """Write ``target`` so that a reader sees the old file or the new one, never a part.

    Two builds may store the same entry at once (the test workers do); each
    writes a temporary file of its own and renames it into place.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)


def store(key: str, name: str, built: Built) -> None:
    """Write an entry; its ``done`` marker last, so a half-written entry is never trusted.

    File names must be relative paths that stay inside the site (no ``..``).
    """
    entry = CACHE_DIR / key
    for rel in built.files:
        if rel.startswith("/") or ".." in Path(rel).parts:
            raise ValueError(f"figure {name!r} wants to write outside the site: {rel!r}")
    for rel, data in built.files.items():
        _write_whole(entry / "files" / rel, data)
    _write_whole(entry / "numbers.json", json.dumps(built.numbers, sort_keys=True, indent=1).encode())
    _write_whole(entry / "done", "\n".join(sorted(built.files)).encode())
