"""A content-addressed cache for built figures.

A figure's key is the hash of everything that made it: the model's source,
the builder's source, its parameters and the versions of the libraries that
drew it.  The files of a figure are stored under ``.cache/figures/<key>/``;
the key's ``done`` marker is written last, so a build that fails half way
leaves nothing that a later build would trust.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

REPO = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO / ".cache" / "figures"
MODEL_DIR = REPO / "src" / "fpsum"
SCRIPTS_DIR = REPO / "scripts"
LIBRARIES = ("numpy", "ml_dtypes", "matplotlib")



@dataclass(frozen=True)
class Built:
    """What a figure builder makes: files for the site, and numbers for the pages.

    ``files`` maps a path relative to the site (``figures/x.svg``) to bytes;
    ``numbers`` maps a token name (``race.fp16.uniform.naive``) to its text.
    """

    files: dict[str, bytes]
    numbers: dict[str, str] = field(default_factory=dict)


def _sources(paths: list[Path]) -> bytes:
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(path.read_bytes())
    return digest.digest()


def environment_fingerprint() -> str:
    """Python and library versions: a figure drawn by other versions is another figure."""
    versions = [f"python={platform.python_version()}"]
    versions += [f"{name}={importlib.metadata.version(name)}" for name in LIBRARIES]
    return ";".join(versions)


def cache_key(name: str, builder_files: list[Path], params: Mapping[str, object]) -> str:
    """Hash of the model, the builder's files, the parameters and the environment."""
    digest = hashlib.sha256()
    digest.update(name.encode())
    digest.update(_sources(sorted(MODEL_DIR.glob("*.py"))))
    digest.update(_sources(builder_files))
    digest.update(repr(sorted(params.items())).encode())
    digest.update(environment_fingerprint().encode())
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
