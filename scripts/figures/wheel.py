"""The ``fpsum`` wheel the site serves, so that every ``fpsum`` command it shows can be run.

A pure-Python wheel (PEP 427) is a zip archive of the package and a
``.dist-info`` folder; this module writes one from ``src/fpsum`` and the
``[project]`` table of ``pyproject.toml``, with no build tool: the lock
pins none, and pip's isolated build would fetch setuptools from the
network.  It holds what setuptools' wheel holds (the package's modules, the
metadata, the ``fpsum`` command, the licence), and its bytes depend on
those files alone: entries in a fixed order, each dated
:data:`ZIP_EPOCH`, with fixed permissions, so two builds of one source give
the same file (with one zlib).  The record's inputs are every file of the package and
``pyproject.toml``, so its cache key is a hash of them.
"""

from __future__ import annotations

import base64
import hashlib
import io
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .cache import REPO
from .record import Built, Record

PYPROJECT = REPO / "pyproject.toml"
LICENSE = REPO / "LICENSE"
PACKAGE = REPO / "src" / "fpsum"
DOWNLOADS_DIR = "downloads"
"""The site folder of the wheel."""
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
"""Every entry's date: the earliest a zip can hold, so that no clock reaches the bytes."""
TAG = "py3-none-any"
"""Pure Python: one wheel for every platform."""


@dataclass(frozen=True)
class WheelParams:
    """The distribution's name and version, from ``pyproject.toml``."""

    name: str
    version: str


def records() -> list[Record]:
    """The wheel; its inputs are the package's files, ``pyproject.toml`` and the licence."""
    project = _project()
    inputs = (PYPROJECT, LICENSE, *package_files())
    return [Record("fpsum-wheel", WheelParams(str(project["name"]), str(project["version"])), build, inputs=inputs)]


def _project() -> dict[str, object]:
    project: dict[str, object] = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return project


def package_files() -> list[Path]:
    """The package's modules, sorted (what setuptools puts in the wheel: no ``__pycache__``, no other file)."""
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def wheel_name(params: WheelParams) -> str:
    """``fpsum-0.1.0-py3-none-any.whl``."""
    return f"{params.name.replace('-', '_')}-{params.version}-{TAG}.whl"


def metadata(project: dict[str, object]) -> str:
    """The core metadata (version 2.1) of ``pyproject.toml``'s ``[project]``: name, version, summary, licence,
    Python versions and dependencies.  ``KeyError`` if the table lacks one of the first three.
    """
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project['description']}"]
    if "license" in project:
        lines.append(f"License: {project['license']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    dependencies = project.get("dependencies", [])
    assert isinstance(dependencies, list)
    lines += [f"Requires-Dist: {dependency}" for dependency in dependencies]
    return "\n".join(lines) + "\n"


def entry_points(project: dict[str, object]) -> str:
    """``[console_scripts]`` from ``[project.scripts]``: the ``fpsum`` command."""
    scripts = project.get("scripts", {})
    assert isinstance(scripts, dict)
    return "[console_scripts]\n" + "".join(f"{name} = {target}\n" for name, target in sorted(scripts.items()))


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def wheel_bytes(params: WheelParams) -> bytes:
    """The wheel's bytes; ``ValueError`` if ``pyproject.toml`` now names another name or version than ``params``."""
    project = _project()
    if (str(project["name"]), str(project["version"])) != (params.name, params.version):
        raise ValueError(f"pyproject.toml names {project['name']} {project['version']}, "
                         f"not {params.name} {params.version}")
    info = f"{params.name.replace('-', '_')}-{params.version}.dist-info"
    entries = {f"fpsum/{path.relative_to(PACKAGE).as_posix()}": path.read_bytes() for path in package_files()}
    entries |= {
        f"{info}/METADATA": metadata(project).encode(),
        f"{info}/WHEEL": (f"Wheel-Version: 1.0\nGenerator: figures.wheel\nRoot-Is-Purelib: true\n"
                          f"Tag: {TAG}\n").encode(),
        f"{info}/entry_points.txt": entry_points(project).encode(),
        f"{info}/licenses/LICENSE": LICENSE.read_bytes(),
    }
    record_path = f"{info}/RECORD"
    record = "".join(_record_line(path, data) + "\n" for path, data in entries.items()) + f"{record_path},,\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in [*entries.items(), (record_path, record.encode())]:
            entry = zipfile.ZipInfo(path, date_time=ZIP_EPOCH)
            entry.external_attr = 0o644 << 16  # rw-r--r--, whoever built it
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data, compresslevel=9)
    return buffer.getvalue()


def build(record_id: str, params: WheelParams) -> Built:
    """The wheel at ``downloads/<name>``; numbers ``file`` (its site path), ``name``, ``sha256`` and ``kb``."""
    data = wheel_bytes(params)
    name = wheel_name(params)
    path = f"{DOWNLOADS_DIR}/{name}"
    return Built(files={path: data}, numbers={
        "file": path, "name": name, "sha256": hashlib.sha256(data).hexdigest(), "kb": str(round(len(data) / 1024)),
    })
