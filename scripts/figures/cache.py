"""A content-addressed cache for built records.

A record's key is the hash of everything that made it: the modules its
builder runs, the non-Python files of the model and builder packages, the
record's own input files, its id and parameters, and the versions of
Python and the libraries that drew it.  The modules are the one that
defines the record's ``build`` function (and its parameters' class) and
every module under ``src`` and ``scripts`` that it imports, at any depth,
as :mod:`figures.imports` reads the import statements (a package's
``__init__.py`` with any module inside it), plus this module, which decides
what an entry holds.  So an edit rebuilds the records whose builders import
the edited module, and only those; a builder defined outside ``src`` and
``scripts`` (a test's) is keyed on every module under them.  A record's
files are stored under ``.cache/figures/<key>/``; the key's ``done`` marker
is written last, so a build that fails half way leaves nothing that a
later build would trust.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import os
import platform
from collections.abc import Iterable
from pathlib import Path

from .imports import ImportGraph
from .record import Built, Record

REPO = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO / ".cache" / "figures"
ROOTS = (REPO / "src", REPO / "scripts")
"""Where the build imports the model (``fpsum``) and the builders (``figures``) from: a module under these
folders that a builder imports, directly or not, goes into the builder's keys."""
PACKAGES = ("fpsum", "figures")
"""The model and builder packages: each of their files that is not Python goes into every key (a builder may
read any of them, and nothing checks which)."""
LIBRARIES = ("numpy", "ml_dtypes", "matplotlib")


def _named_digest(items: Iterable[tuple[str, bytes]]) -> bytes:
    """The hash of named contents, in the order of the names (a name cannot run into its content)."""
    digest = hashlib.sha256()
    for name, data in sorted(items):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(hashlib.sha256(data).digest())
    return digest.digest()


def _files_digest(paths: Iterable[Path]) -> bytes:
    return _named_digest((str(path.relative_to(REPO)), path.read_bytes()) for path in paths)


def data_files(roots: tuple[Path, ...] = ROOTS, packages: tuple[str, ...] = PACKAGES) -> list[tuple[Path, Path]]:
    """Each file of the packages that is neither Python nor compiled Python, with the root it is under."""
    return [(root, path) for root in roots for package in packages if (root / package).is_dir()
            for path in (root / package).rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".py", ".pyc")]


def builder_module(record: Record) -> str | None:
    """The name of the module that defines the record's ``build`` (through ``functools.partial``); None if unknown."""
    build: object = record.build
    while isinstance(build, functools.partial):
        build = build.func
    module = getattr(build, "__module__", None)
    return module if isinstance(module, str) else None


class Sources:
    """The sources that keys are made of, read once for one build: the import graph of ``roots`` (each module
    read and parsed once) and the packages' non-Python files.  Edits made after it was read are not seen.
    """

    def __init__(self, roots: tuple[Path, ...] = ROOTS, packages: tuple[str, ...] = PACKAGES) -> None:
        self.graph = ImportGraph(roots)
        self.data = _named_digest((str(path.relative_to(root)), path.read_bytes())
                                  for root, path in data_files(roots, packages))
        self._module_digests: dict[str, bytes] = {}
        self._closures: dict[frozenset[str], frozenset[str]] = {}

    def modules(self, record: Record) -> frozenset[str]:
        """The modules whose code goes into the record's key (see the module docstring).

        Every module under the roots if the builder's module is not under
        them (a test's builder, a ``lambda`` typed in ``__main__``).
        """
        builder = builder_module(record)
        if builder is None or self.graph.find(builder) is None:
            return self.graph.everything()
        # The parameters' class may define properties the builder reads; this module, how entries are stored.
        starts = frozenset({builder, type(record.params).__module__, __name__})
        if starts not in self._closures:  # a builder module's records share one
            self._closures[starts] = self.graph.closure(starts)
        return self._closures[starts]

    def modules_digest(self, record: Record) -> bytes:
        """The hash of the names and contents of :meth:`modules`."""
        digest = hashlib.sha256()
        for name in sorted(self.modules(record)):
            if name not in self._module_digests:
                self._module_digests[name] = hashlib.sha256(self.graph.source(name)).digest()
            digest.update(name.encode())
            digest.update(b"\0")
            digest.update(self._module_digests[name])
        return digest.digest()


def environment_fingerprint() -> str:
    """Python and library versions: a figure drawn by other versions is another figure."""
    versions = [f"python={platform.python_version()}"]
    versions += [f"{name}={importlib.metadata.version(name)}" for name in LIBRARIES]
    return ";".join(versions)


def cache_key(record: Record, sources: Sources, environment: str) -> str:
    """Hash of the modules the record's builder runs, the packages' other files, the record's input files,
    id and parameters, and the environment.

    ``sources`` and ``environment`` are a :class:`Sources` and
    :func:`environment_fingerprint`'s, made once per build (reading the
    libraries' versions takes longer than hashing a record; each module is
    read, parsed and hashed once however many records use it).
    """
    digest = hashlib.sha256()
    digest.update(sources.modules_digest(record))
    digest.update(sources.data)
    digest.update(_files_digest(record.inputs))
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
