"""One owner for each name and record id, read from the sources with ``ast`` (issue 40).

- Each name has one import path, the module that defines it: no module
  imports a name from a module that only imports it in turn (a facade such
  as the package re-exporting its modules' names).
- Each record id is a literal string in a ``Record(...)`` call of its
  builder, so a grep for the id a page names finds the builder.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from figures.build import registry
from repocopy import REPO

ROOTS = (REPO / "src", REPO / "scripts", REPO / "tests", REPO)
"""The folders on ``sys.path`` when the model, the builders, the tests and the hooks (``hooks.x``) run."""


def sources() -> Iterator[tuple[Path, Path]]:
    """Every Python file of the model, the builders, the hooks and the tests, with the root its name starts at."""
    for folder, root in (("src", ROOTS[0]), ("scripts", ROOTS[1]), ("tests", ROOTS[2]), ("hooks", REPO)):
        for path in sorted((REPO / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield root, path


def module_file(name: str) -> Path | None:
    """The file of module ``name`` under the roots (a package's ``__init__.py``), or None (not the project's)."""
    for root in ROOTS:
        base = root.joinpath(*name.split("."))
        for path in (base / "__init__.py", base.with_suffix(".py")):
            if path.is_file():
                return path
    return None


def defined(path: Path) -> set[str]:
    """The names module ``path`` binds at its top level other than by importing them (in ``if`` and ``try`` too)."""
    names: set[str] = set()

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, ast.If | ast.Try):
                walk(node.body)
                walk(node.orelse)
                for handler in getattr(node, "handlers", []):
                    walk(handler.body)

    walk(ast.parse(path.read_text(encoding="utf-8")).body)
    return names


def absolute(node: ast.ImportFrom, path: Path, root: Path) -> str:
    """The module an import statement in ``path`` names, with a relative one resolved from the file's package."""
    if not node.level:
        return node.module or ""
    package = list(path.relative_to(root).parent.parts)
    base = package[:len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def dotted(node: ast.expr) -> list[str]:
    """``a.b.c`` as ``["a", "b", "c"]``; empty for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute) and (inner := dotted(node.value)):
        return [*inner, node.attr]
    return []


def test_every_name_is_imported_from_the_module_that_defines_it() -> None:
    """``from m import x`` and ``m.x`` (after ``import m``) both read ``x`` from ``m``: ``m`` must define it."""
    found: list[str] = []
    checked = 0
    for root, path in sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        read: list[tuple[int, str, str]] = []  # (line, module, name)
        imported = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import) for alias in node.names}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                read += [(node.lineno, absolute(node, path, root), alias.name) for alias in node.names]
            elif isinstance(node, ast.Attribute) and (parts := dotted(node)) and parts[0] in imported:
                modules = [k for k in range(1, len(parts)) if module_file(".".join(parts[:k])) is not None]
                if modules and modules[-1] == len(parts) - 1:  # the last part is read from a module
                    read.append((node.lineno, ".".join(parts[:-1]), parts[-1]))
        for line, module, name in read:
            home = module_file(module)
            if home is None or name.startswith("__"):
                continue
            checked += 1
            if module_file(f"{module}.{name}") is None and name not in defined(home):
                found.append(f"{path.relative_to(REPO)}:{line}: {name} read from {module}, which does not define it")
    assert checked > 500  # the walk reached the project's imports
    assert found == []


def record_ids_in_source() -> list[str]:
    """The id of every ``Record(...)`` call in the builders, as written: a literal, or ``<computed>``."""
    ids: list[str] = []
    for path in sorted((REPO / "scripts" / "figures").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and (getattr(node.func, "id", None) == "Record"
                                                    or getattr(node.func, "attr", None) == "Record")):
                continue
            given = node.args[0] if node.args else next(k.value for k in node.keywords if k.arg == "id")
            literal = isinstance(given, ast.Constant) and isinstance(given.value, str)
            ids.append(given.value if literal else f"<computed in {path.name}:{node.lineno}>")  # type: ignore[union-attr]
    return ids


def test_every_record_id_is_a_literal_string_in_its_builder() -> None:
    written = record_ids_in_source()
    assert [i for i in written if i.startswith("<")] == []
    assert sorted(written) == sorted(record.id for record in registry())
