"""Which modules a module runs when it is imported, read from its import statements with ``ast``.

An :class:`ImportGraph` knows the modules under a few source folders (the
roots, as on ``sys.path``: ``src`` holds ``fpsum``, ``scripts`` holds
``figures``) and reads each file once, the first time it is asked about it;
one graph serves one build.  Imports of anything not under the roots (the
standard library, numpy) are left out: their code is not the project's.

What counts as imported, so that the closure of a module holds every module
of the roots that importing it and calling its functions may run:

- every import statement anywhere in the file (in functions, under ``if``
  or ``try``), whether it runs or not, except under ``if TYPE_CHECKING:``
  (which never runs; its ``else`` counts);
- ``import a.b.c`` runs ``a``, ``a.b`` and ``a.b.c``: a package's
  ``__init__.py`` counts whenever any module inside it is imported, and a
  module's own packages count with it;
- ``from a import x`` is the module ``a.x`` if there is one, else a name of
  ``a`` (``a`` counts either way); ``from a import *`` counts every module
  directly inside the package ``a`` (its ``__all__`` may name them);
- relative imports (``from . import x``, ``from ..a import x``) are resolved
  from the importing module's package (a package's ``__init__.py`` is its
  own package); one that climbs above the top package is left out (Python
  refuses it too);
- a call of ``__import__``, ``importlib.import_module`` or
  ``runpy.run_module`` (by that name, whatever it is called on) with a
  literal absolute name counts as ``import`` of that name;
- a file that does not parse, that calls one of those with a computed or
  relative name, or that hands one on uncalled (``load = import_module``,
  ``from importlib import import_module as load``) may run anything: it
  counts as importing every module under the roots.

A module may load what it exports on demand (PEP 562): the imports in its
module-level ``__getattr__`` run only when it is asked for a name it does
not bind itself, so they count for a module that may ask it for one, and not
for one that only imports its submodules:

- ``import a.b`` gives the importer ``a`` (and ``a.b`` as its attribute):
  what ``a`` and ``a.b`` load on demand counts;
- ``from a import x`` asks ``a`` for ``x`` (Python does so before it looks
  for a submodule ``a.x``): what ``a`` loads on demand counts, unless ``a``
  binds ``x`` at its top level (a ``def``, a ``class``, an assignment or an
  import not under any block); what ``a.x`` loads on demand counts too, if
  ``a.x`` is a module;
- ``from a.b import x`` imports ``a`` and ``a.b`` and asks only ``a.b``;
- a dynamic import gives the module it names.

Not seen: code run from a file by its path (``runpy.run_path``, ``exec`` of
its text), which is no import (a builder that does so names the file among
its record's inputs: :mod:`figures.snippets`), and an import function
reached by a name built at run time (``getattr(importlib, name)``).

A module is found as Python finds it: a package (``a/__init__.py``) before
a module file (``a.py``), the first root that has the top-level name, then
inside that package's folder.  Folders without ``__init__.py`` (namespace
packages) hold modules but are no module themselves.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

DYNAMIC_IMPORTS = frozenset({"__import__", "import_module", "run_module"})
"""Calls (by name, or as an attribute: ``importlib.import_module``) that import a module named at run time."""


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module in ``path`` under ``root``: ``a/b/__init__.py`` is ``a.b``."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def parents(name: str) -> list[str]:
    """``name`` and the packages above it, outermost first: ``a.b.c`` gives ``a``, ``a.b``, ``a.b.c``."""
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(1, len(parts) + 1)]


class ImportGraph:
    """The modules under ``roots`` and what each imports; every file read (and parsed) at most once."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = tuple(roots)
        self._files: dict[str, Path | None] = {}
        self._sources: dict[str, bytes] = {}
        self._imports: dict[str, frozenset[str]] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._readings: dict[str, _Reading] = {}
        self._everything: frozenset[str] | None = None

    def find(self, name: str) -> Path | None:
        """The file of module ``name`` (its ``__init__.py`` for a package), or None if it is not under the roots."""
        if name not in self._files:
            self._files[name] = self._find(name)
        return self._files[name]

    def _find(self, name: str) -> Path | None:
        top, *rest = name.split(".")
        for root in self.roots:  # the first root with a package or module of that name has all of it
            if (root / top / "__init__.py").is_file() or (root / f"{top}.py").is_file():
                return _inside(root.joinpath(top, *rest))
        for root in self.roots:  # else a namespace package: its folders in every root, in order
            if (root / top).is_dir() and (found := _inside(root.joinpath(top, *rest))) is not None:
                return found
        return None

    def source(self, name: str) -> bytes:
        """The bytes of module ``name`` as read for this graph (read once: what is parsed is what is hashed).

        ``KeyError`` if the module is not under the roots.
        """
        if name not in self._sources:
            path = self.find(name)
            if path is None:
                raise KeyError(f"no module {name!r} under {', '.join(map(str, self.roots))}")
            self._sources[name] = path.read_bytes()
        return self._sources[name]

    def everything(self) -> frozenset[str]:
        """Every module under the roots: every ``.py`` file whose path, from its root, is made of Python names."""
        if self._everything is None:
            self._everything = frozenset(
                module_name(path, root) for root in self.roots for path in root.rglob("*.py")
                if all(part.isidentifier() for part in path.relative_to(root).with_suffix("").parts))
        return self._everything

    def imports(self, name: str) -> frozenset[str]:
        """The modules under the roots that module ``name`` may run when it is imported and its functions are
        called, their packages included (not transitively: not what those import): what its import statements
        name, and what the modules it reads names from may import on demand (:meth:`on_demand`).
        """
        if name not in self._imports:
            reading = self._reading(name)
            if reading.eager is None:
                self._imports[name] = self.everything()
            else:
                named, read = reading.eager
                on_demand = {module for bound in read for module in self.on_demand(bound)}
                self._imports[name] = frozenset(module for module in named | on_demand if module != name)
        return self._imports[name]

    def on_demand(self, name: str) -> frozenset[str]:
        """The modules that reading a name module ``name`` does not define may import: those its module-level
        ``__getattr__`` (PEP 562) names, and what the modules that function reads names from may import on
        demand in turn.  Empty for a module without one.
        """
        found: set[str] = set()
        seen: set[str] = set()
        todo = [name]
        while todo:
            module = todo.pop()
            if module in seen:
                continue
            seen.add(module)
            lazy = self._reading(module).lazy
            if lazy is None:
                return self.everything()
            named, read = lazy
            found |= named
            todo += read
        return frozenset(found)

    def _reading(self, name: str) -> _Reading:
        if name not in self._readings:
            self._readings[name] = self._read(name)
        return self._readings[name]

    def _tree(self, name: str) -> ast.Module | None:
        """Module ``name`` parsed (once); None if it does not parse (Python will refuse it, later)."""
        if name not in self._trees:
            path = self.find(name)
            assert path is not None, name
            try:
                self._trees[name] = ast.parse(self.source(name), filename=str(path))
            except (SyntaxError, ValueError):  # ValueError: a null byte
                self._trees[name] = None
        return self._trees[name]

    def _read(self, name: str) -> _Reading:
        """Module ``name``'s imports, apart: its module-level ``__getattr__`` (lazy) and everything else (eager)."""
        tree = self._tree(name)
        if tree is None:
            return _Reading(None, None)
        path = self.find(name)
        package = name if path is not None and path.name == "__init__.py" else name.rpartition(".")[0]
        getattr_def: list[ast.stmt] = [
            node for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "__getattr__"]
        eager = [node for node in tree.body if node not in getattr_def]
        return _Reading(self._statements_imports(name, eager, package),
                        self._statements_imports(name, getattr_def, package) if getattr_def else (set(), set()))

    def _defines(self, name: str, names: set[str]) -> bool:
        """Whether module ``name`` binds each of ``names`` at its top level, unconditionally (so that reading
        one never runs its ``__getattr__``); False for a module that does not parse.
        """
        tree = self._tree(name)
        return tree is not None and names <= _top_level_names(tree.body)

    def _statements_imports(self, name: str, body: list[ast.stmt], package: str) -> _Imports | None:
        """The modules under the roots that the import statements and dynamic imports in ``body`` name, and
        those whose names the code may read (whose ``__getattr__`` may run); None if they may import anything.
        """
        named: set[str] = set()
        read: set[str] = set()
        for node in _statements(body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    named.update(parents(alias.name))
                    read.update(parents(alias.name))  # ``import a.b`` gives ``a``, and ``a.b`` as its attribute
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(node, package)
                if base is None:
                    continue
                named.update(parents(base))
                if any(alias.name == "*" for alias in node.names):
                    named.update(self._submodules(base))
                modules = {f"{base}.{alias.name}" for alias in node.names if alias.name != "*"}
                named |= modules
                read |= modules
                # ``from base import x`` asks ``base`` for x first, submodule or not: unless base binds x itself,
                # base's ``__getattr__`` runs.
                if self.find(base) is not None and not self._defines(base, {alias.name for alias in node.names}):
                    read.add(base)
        # Walking every expression takes most of the time: only a file that names such a call is walked.
        if any(dynamic.encode() in self.source(name) for dynamic in DYNAMIC_IMPORTS):
            dynamic = _dynamic_imports(body)
            if dynamic is None:
                return None
            named.update(parent for imported in dynamic for parent in parents(imported))
            read |= dynamic
        return ({module for module in named if self.find(module) is not None},
                {module for module in read if self.find(module) is not None})

    @staticmethod
    def _absolute(node: ast.ImportFrom, package: str) -> str | None:
        """The absolute name ``from`` imports from; None for a relative import above the top package."""
        if node.level == 0:
            return node.module
        parts = package.split(".") if package else []
        if node.level - 1 >= len(parts):
            return None
        base = ".".join(parts[:len(parts) - (node.level - 1)])
        return f"{base}.{node.module}" if node.module else base

    def _submodules(self, package: str) -> set[str]:
        """The modules directly inside ``package``: none if it is a module, not a package."""
        path = self.find(package)
        if path is None or path.name != "__init__.py":
            return set()
        return {f"{package}.{child.stem}" for child in path.parent.iterdir()
                if child.suffix == ".py" and child.stem != "__init__" and child.stem.isidentifier()}

    def closure(self, names: Iterable[str]) -> frozenset[str]:
        """``names`` (those under the roots), their packages and everything they import, transitively."""
        seen: set[str] = set()
        todo = [parent for name in names for parent in parents(name)]
        while todo:
            name = todo.pop()
            if name in seen or self.find(name) is None:
                continue
            seen.add(name)
            todo += self.imports(name)
        return frozenset(seen)


def _inside(path: Path) -> Path | None:
    """The file of the module at ``path`` (``path`` without its suffix): the package's ``__init__.py`` first."""
    for candidate in (path / "__init__.py", path.with_name(path.name + ".py")):
        if candidate.is_file():
            return candidate
    return None


_Imports = tuple[set[str], set[str]]
"""What some statements import: the modules they name, and those whose names the code may read."""


@dataclass(frozen=True)
class _Reading:
    """A module's imports (None: it may import anything): those its import runs or its functions may run
    (``eager``), and those its module-level ``__getattr__`` runs when it is asked for a name it lacks (``lazy``).
    """

    eager: _Imports | None
    lazy: _Imports | None


def _top_level_names(body: list[ast.stmt]) -> set[str]:
    """The names that statements directly in ``body`` bind (not under ``if``, ``try`` or any other block)."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(part.id for target in targets for part in ast.walk(target) if isinstance(part, ast.Name))
    return names


def _type_checking_only(node: ast.stmt) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): its body never runs."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body`` and of the blocks inside it (functions, classes, ``if``, ``try``, ``with``,
    loops, ``match``): an import is a statement, so no expression needs walking to find them all.
    """
    for node in body:
        yield node
        for block in ("orelse",) if _type_checking_only(node) else ("body", "orelse", "finalbody"):
            inner = getattr(node, block, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
            yield from _statements(part.body)


def _dynamic_imports(body: list[ast.stmt]) -> set[str] | None:
    """The names the dynamic imports of ``tree`` import; None if one may import anything: called with a name
    that is no literal, or passed on without a call (``load = importlib.import_module``, ``import ... as``).
    """
    names: set[str] = set()
    called: set[int] = set()  # the ``func`` of each call seen: a parent is walked before its children
    for node in (inner for statement in body for inner in ast.walk(statement)):
        if isinstance(node, ast.Call) and _called_name(node.func) in DYNAMIC_IMPORTS:
            imported = _literal_name(node)
            if imported is None:
                return None
            names.add(imported)
            called.add(id(node.func))
        elif isinstance(node, ast.Name | ast.Attribute) and _called_name(node) in DYNAMIC_IMPORTS:
            if id(node) not in called:
                return None
        elif isinstance(node, ast.alias) and node.name in DYNAMIC_IMPORTS and node.asname not in (None, node.name):
            return None
    return names


def _literal_name(call: ast.Call) -> str | None:
    """The absolute module name a dynamic import is called with, if it is a literal; else None (computed, or
    relative: ``import_module(".x", package)``).
    """
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and not first.value.startswith("."):
        return first.value
    return None


def _called_name(func: ast.expr) -> str | None:
    """The name a call calls: ``f`` for ``f(...)`` and for ``m.f(...)``; None for anything else."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
