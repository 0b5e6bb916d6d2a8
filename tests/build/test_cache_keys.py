"""A record's cache key covers what its builder runs, and an edit changes the keys of its importers only.

The proof that no record can go stale holds, for every record, the modules a
fresh interpreter loaded to build it (in the cold build of the repository
copy, ``built_copy``: ``figures.alone``) to the key's; the other tests read
keys alone, and the import reader on small packages of their own.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import RECORD_MODULES
from figures import cache, imports
from figures.build import registry
from figures.cache import ROOTS, Sources, builder_module, cache_key
from figures.imports import ImportGraph
from figures.record import Built, Record
from repocopy import BuiltCopy

ENVIRONMENT = "python=test"  # the environment's part of the key is not under test here


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


# The import reader, on small packages written for the test.

PACKAGE = {
    "pkg/__init__.py": "from .names import NAME\n",
    "pkg/names.py": "NAME = 1\n",
    "pkg/relative.py": "from .plain import f\nfrom . import sibling\n",
    "pkg/plain.py": "def f() -> None:\n    pass\n",
    "pkg/sibling.py": "",
    "pkg/from_package.py": "from pkg import sibling, NAME\n",
    "pkg/name_only.py": "from pkg import NAME\n",
    "pkg/lazy.py": ("import numpy\n\n\ndef later() -> None:\n    import pkg.deep.inner\n\n\n"
                    "class Holder:\n    try:\n        from .plain import f\n    except ImportError:\n"
                    "        with open('x'):\n            import pkg.sibling as alias\n"),
    "pkg/deep/__init__.py": "from ..names import NAME\n",
    "pkg/deep/inner.py": "from .. import plain\nfrom .leaf import *\n",
    "pkg/deep/leaf.py": "",
    "pkg/deep/other.py": "from ...above import nothing\n",
    "pkg/uses_sub.py": "from .deep.inner import x\n",
    "pkg/star.py": "from pkg.deep import *\n",
    "pkg/computed.py": "import importlib\n\n\ndef load(name):\n    return importlib.import_module(name)\n",
    "pkg/literal.py": "import importlib\n\nimportlib.import_module('pkg.sibling')\n",
    "pkg/literal_by_name.py": "from importlib import import_module\n\nimport_module('pkg.plain')\n",
    "pkg/renamed.py": "from importlib import import_module as load\n",
    "pkg/handed_on.py": "import importlib\n\nloader = importlib.import_module\n",
    "pkg/broken.py": "def (:\n",
    "alone.py": "import pkg.plain\n",
}
INIT = {"pkg", "pkg.names"}
"""What importing any module of ``pkg`` runs: the package's ``__init__.py`` and what it imports."""


@pytest.fixture
def graph(tmp_path: Path) -> ImportGraph:
    return ImportGraph([_write(tmp_path / "root", PACKAGE)])


def test_a_relative_import_resolves_from_the_module_s_package(graph: ImportGraph) -> None:
    assert graph.closure({"pkg.relative"}) == INIT | {"pkg.relative", "pkg.plain", "pkg.sibling"}


def test_from_a_package_a_submodule_counts_and_a_name_of_its_init_does_not_add_a_module(graph: ImportGraph) -> None:
    assert graph.closure({"pkg.from_package"}) == INIT | {"pkg.from_package", "pkg.sibling"}
    assert graph.closure({"pkg.name_only"}) == INIT | {"pkg.name_only"}


def test_imports_inside_functions_classes_try_and_with_count(graph: ImportGraph) -> None:
    deep = {"pkg.deep", "pkg.deep.inner", "pkg.deep.leaf"}
    assert graph.closure({"pkg.lazy"}) == INIT | deep | {"pkg.lazy", "pkg.plain", "pkg.sibling"}


def test_a_subpackage_s_init_runs_with_any_module_inside_it(graph: ImportGraph) -> None:
    assert graph.imports("pkg.uses_sub") >= {"pkg.deep", "pkg.deep.inner"}
    assert graph.closure({"pkg.uses_sub"}) == INIT | {"pkg.uses_sub", "pkg.deep", "pkg.deep.inner", "pkg.deep.leaf",
                                                      "pkg.plain"}


def test_a_star_import_from_a_package_counts_every_module_in_it(graph: ImportGraph) -> None:
    assert graph.imports("pkg.star") >= {"pkg.deep.inner", "pkg.deep.leaf", "pkg.deep.other"}


def test_a_relative_import_above_the_top_package_is_left_out(graph: ImportGraph) -> None:
    assert graph.closure({"pkg.deep.other"}) == INIT | {"pkg.deep", "pkg.deep.other"}


def test_a_module_outside_a_package_and_imports_from_outside_the_roots(graph: ImportGraph) -> None:
    assert graph.closure({"alone"}) == INIT | {"alone", "pkg.plain"}
    assert "numpy" not in graph.imports("pkg.lazy")
    assert graph.closure({"numpy", "no.such.module"}) == frozenset()


def test_a_literal_dynamic_import_counts_and_a_computed_or_unparsable_one_counts_everything(
        graph: ImportGraph) -> None:
    assert graph.imports("pkg.literal") == {"pkg", "pkg.sibling"}
    assert graph.imports("pkg.literal_by_name") == {"pkg", "pkg.plain"}
    everything = graph.everything()
    assert {"alone", "pkg", "pkg.deep", "pkg.deep.leaf", "pkg.broken"} <= everything
    for module in ("pkg.computed", "pkg.renamed", "pkg.handed_on", "pkg.broken"):
        assert graph.imports(module) == everything, module


def test_the_first_root_with_a_package_has_all_of_it(tmp_path: Path) -> None:
    first = _write(tmp_path / "first", {"pkg/__init__.py": "", "pkg/a.py": ""})
    second = _write(tmp_path / "second", {"pkg/__init__.py": "", "pkg/a.py": "", "pkg/b.py": "", "solo.py": ""})
    graph = ImportGraph([first, second])
    assert graph.find("pkg.a") == first / "pkg" / "a.py"
    assert graph.find("pkg.b") is None  # Python looks in the first pkg/ only
    assert graph.find("solo") == second / "solo.py"


def test_a_namespace_folder_holds_modules_but_is_none(tmp_path: Path) -> None:
    root = _write(tmp_path / "root", {"space/mod.py": "import space.other\n", "space/other.py": ""})
    graph = ImportGraph([root])
    assert graph.find("space") is None
    assert graph.closure({"space.mod"}) == {"space.mod", "space.other"}


def test_each_module_is_parsed_once_however_many_records_use_it(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    parse = ast.parse

    def counting(source: str | bytes, filename: str = "<unknown>", *args: object, **kwargs: object) -> ast.Module:
        parsed.append(filename)
        return parse(source, filename, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(imports.ast, "parse", counting)
    sources = Sources()
    for record in registry():
        cache_key(record, sources, ENVIRONMENT)
    assert parsed, "no module was parsed"
    assert len(parsed) == len(set(parsed)), sorted(name for name in parsed if parsed.count(name) > 1)


# The keys of the registry's records, from a copy of the sources that a test may edit.


# A package that loads its names on demand (PEP 562), as fpsum does.

ON_DEMAND = {
    "lazy/__init__.py": ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .typed import T\n"
                         "else:\n    from .untyped import U\n\nDEFINED = 1\n\n\n"
                         "def __getattr__(name):\n    from .heavy import H\n    return H\n"),
    "lazy/light.py": "X = 1\n",
    "lazy/heavy.py": "import lazy.heavier\n",
    "lazy/heavier.py": "",
    "lazy/typed.py": "",
    "lazy/untyped.py": "",
    "from_sub.py": "from lazy.light import X\n",
    "from_sub_as.py": "import lazy.light as light\n",
    "binds.py": "import lazy\n",
    "binds_by_sub.py": "import lazy.light\n",
    "asks_name.py": "from lazy import H\n",
    "asks_defined.py": "from lazy import DEFINED\n",
    "asks_sub.py": "from lazy import light\n",
    "through.py": "from binds import lazy\n",
}
EAGER = {"lazy", "lazy.untyped"}
"""What importing any module of ``lazy`` runs: its ``__init__.py`` and what it imports outside TYPE_CHECKING."""
HEAVY = {"lazy.heavy", "lazy.heavier"}


@pytest.fixture
def lazy(tmp_path: Path) -> ImportGraph:
    return ImportGraph([_write(tmp_path / "root", ON_DEMAND)])


def test_what_a_package_loads_on_demand_is_not_run_by_importing_its_submodules(lazy: ImportGraph) -> None:
    assert lazy.closure({"from_sub"}) == EAGER | {"from_sub", "lazy.light"}
    assert lazy.closure({"asks_defined"}) == EAGER | {"asks_defined"}


def test_what_a_package_loads_on_demand_counts_for_a_module_that_may_read_its_names(lazy: ImportGraph) -> None:
    assert lazy.on_demand("lazy") == {"lazy", "lazy.heavy"}
    for module in ("binds", "binds_by_sub", "from_sub_as", "asks_name", "asks_sub", "through"):
        assert lazy.closure({module}) >= EAGER | HEAVY, module


def test_an_import_under_type_checking_never_runs_and_its_else_does(lazy: ImportGraph) -> None:
    assert "lazy.typed" not in lazy.closure({"binds"})
    assert "lazy.untyped" in lazy.imports("lazy")


def test_importing_fpsum_or_one_of_its_modules_runs_no_other_module() -> None:
    script = ("import sys, {0}\nprint(sorted(m for m in sys.modules if m.startswith('fpsum')))")
    env = dict(os.environ, PYTHONPATH=str(ROOTS[0]))
    for module, expected in (("fpsum", ["fpsum"]), ("fpsum.names", ["fpsum", "fpsum.names"])):
        done = subprocess.run([sys.executable, "-c", script.format(module)], env=env, capture_output=True, text=True,
                              check=True)
        assert json.loads(done.stdout.replace("'", '"')) == expected


@pytest.fixture(scope="module")
def records() -> list[Record]:
    return registry()


@pytest.fixture
def copy(tmp_path: Path) -> tuple[Path, ...]:
    """The model's and the builders' sources (``src``, ``scripts``) copied: the roots of keys to edit."""
    roots = tuple(tmp_path / root.name for root in ROOTS)
    for root, target in zip(ROOTS, roots):
        shutil.copytree(root, target, ignore=shutil.ignore_patterns("__pycache__"))
    return roots


def _keys(records: list[Record], roots: tuple[Path, ...]) -> dict[str, str]:
    sources = Sources(roots)
    return {record.id: cache_key(record, sources, ENVIRONMENT) for record in records}


def test_keys_depend_on_the_sources_contents_not_on_where_they_are(records: list[Record],
                                                                  copy: tuple[Path, ...]) -> None:
    keys = _keys(records, ROOTS)
    assert _keys(records, copy) == keys
    assert len(set(keys.values())) == len(records), "two records share a key"


def test_no_record_s_parameters_name_a_place_in_this_checkout(records: list[Record]) -> None:
    """A parameter is in the key as written: a path of this checkout would give a copy of the repository (the
    tests' builds, a clone) other keys, and rebuild that record there.  A file read belongs in ``inputs``.
    """
    here = str(ROOTS[0].parent)
    placed = [record.id for record in records if here in repr(record.params)]
    assert placed == []


@pytest.mark.parametrize("module", ["src/fpsum/hardware.py", "src/fpsum/blocks.py", "scripts/figures/csvfile.py",
                                    "scripts/figures/races.py", "scripts/figures/race/svg.py"])
def test_an_edit_changes_the_keys_of_the_records_that_import_the_module_and_no_other(
        records: list[Record], copy: tuple[Path, ...], module: str) -> None:
    sources = Sources(copy)
    before = {record.id: cache_key(record, sources, ENVIRONMENT) for record in records}
    importers = {record.id for record in records if module_file(copy, module) in key_files(sources, record)}
    edited = module_file(copy, module)
    edited.write_bytes(edited.read_bytes() + b"\n# an edit that changes no behaviour\n")
    after = _keys(records, copy)
    assert importers, f"no record imports {module}: pick another module for this test"
    assert {name for name in before if before[name] != after[name]} == importers


def test_editing_a_builder_module_changes_its_records_keys_and_not_every_key(records: list[Record],
                                                                             copy: tuple[Path, ...]) -> None:
    """Said without the import graph: the records a module defines are rebuilt, those of some other are not."""
    before = _keys(records, copy)
    races = copy[1] / "figures" / "races.py"
    races.write_text(races.read_text() + "\n# an edit that changes no behaviour\n")
    after = _keys(records, copy)
    changed = {name for name in before if before[name] != after[name]}
    assert {record.id for record in records if record.build.__module__ == "figures.races"} <= changed
    assert changed != set(before)


@pytest.mark.parametrize("module", ["hardware", "blocks", "updates", "matmul", "dot2"])
def test_a_model_module_most_records_do_not_import_leaves_most_keys_alone(records: list[Record],
                                                                          copy: tuple[Path, ...], module: str) -> None:
    """Said without the import graph: builders read names from the model's modules, not from the package (whose
    ``__init__.py`` would bring every module into every key).
    """
    before = _keys(records, copy)
    edited = copy[0] / "fpsum" / f"{module}.py"
    edited.write_text(edited.read_text() + "\n# an edit that changes no behaviour\n")
    after = _keys(records, copy)
    changed = [name for name in before if before[name] != after[name]]
    assert len(changed) < len(records) / 4, f"an edit of fpsum/{module}.py rebuilds {changed}"
    edited.write_text(edited.read_text().removesuffix("\n# an edit that changes no behaviour\n"))
    assert _keys(records, copy) == before, "the edit undone, the keys are not those before it"


def test_a_file_of_a_package_that_is_not_python_changes_every_key(records: list[Record],
                                                                   copy: tuple[Path, ...]) -> None:
    before = _keys(records, copy)
    (copy[0] / "fpsum" / "table.json").write_text("[]\n")
    after = _keys(records, copy)
    assert all(before[name] != after[name] for name in before)


def test_a_builder_outside_the_sources_is_keyed_on_all_of_them(copy: tuple[Path, ...]) -> None:
    record = Record("outside", _Params(), lambda _id, _params: Built(files={}))
    sources = Sources(copy)
    assert key_files(sources, record) >= {path for path in copy[0].rglob("*.py") if "__pycache__" not in path.parts}
    key = cache_key(record, sources, ENVIRONMENT)
    hardware = copy[0] / "fpsum" / "hardware.py"
    hardware.write_text(hardware.read_text() + "\n# an edit that changes no behaviour\n")
    assert cache_key(record, Sources(copy), ENVIRONMENT) != key


@dataclass(frozen=True)
class _Params:
    n: int = 1


def module_file(roots: tuple[Path, ...], module: str) -> Path:
    """``module`` (a path from the repository's top, ``src/fpsum/x.py``) in the copy."""
    return roots[0].parent / module


def key_files(sources: Sources, record: Record) -> set[Path]:
    """The files of the modules in the record's key."""
    files = {sources.graph.find(name) for name in sources.modules(record)}
    return {path for path in files if path is not None}


# The proof: every module a record's build loads is in its key.


@pytest.fixture(scope="module")
def loaded(built_copy: BuiltCopy) -> dict[str, list[str]]:
    """Each record's loaded module files in the cold build of the copy: one fresh interpreter per record."""
    listed: dict[str, list[str]] = json.loads((built_copy.repo.parent / RECORD_MODULES).read_text())
    return listed


@pytest.mark.parametrize("record", registry(), ids=lambda record: record.id)
def test_every_module_a_build_loads_is_in_its_key(built_copy: BuiltCopy, loaded: dict[str, list[str]],
                                                  record: Record) -> None:
    """Measured, not read: the cold build of the repository copy built each record in a fresh interpreter
    (``figures.alone``), which loaded the record's builder to unpickle it, then what its build imports; every
    loaded module under the copy's ``src`` and ``scripts`` (``fpsum``, ``figures`` and what they import) must be
    in the record's key, read from the copy's sources.
    """
    roots = tuple(built_copy.repo / root.relative_to(cache.REPO) for root in ROOTS)
    files = {Path(name) for name in loaded[record.id]}
    ours = {path for path in files if any(path.is_relative_to(root.resolve()) for root in roots)}
    ours.discard((built_copy.repo / "scripts" / "figures" / "alone.py").resolve())  # the worker's own
    builder = builder_module(record)
    assert any(path.name == f"{builder.rpartition('.')[2]}.py" for path in ours), "the builder was not loaded"
    missing = ours - {path.resolve() for path in key_files(Sources(roots), record)}
    assert not missing, f"{record.id}'s key lacks modules its build loaded: {sorted(map(str, missing))}"


def test_the_proof_lists_every_record(loaded: dict[str, list[str]]) -> None:
    """Every record was built in the cold build, each alone (a worker that built two would list the first's
    builder for the second, which its key need not hold: the test above would fail).
    """
    assert sorted(loaded) == sorted(record.id for record in registry())
