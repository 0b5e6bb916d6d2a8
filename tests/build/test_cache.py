"""The figure cache: an entry is whole or absent, and a builder cannot write outside the site."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from figures import cache
from figures.build import FigureError, _record_times, build_all, last_times, longest_first
from figures.cache import lookup, store
from figures.record import Built, Record
from repocopy import BuiltCopy


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setattr(cache, "CACHE_DIR", folder)
    return folder


def test_a_stored_entry_reads_back_and_leaves_no_temporary_files(cache_dir: Path) -> None:
    built = Built(files={"figures/a.svg": b"<svg/>", "figures/deep/b.csv": b"x\n1\n"}, numbers={"a.n": "1,024"})
    store("k1", "a", built)
    assert lookup("k1") == built
    assert not [p for p in cache_dir.rglob("*") if p.name.endswith(".tmp")]
    store("k1", "a", built)  # storing the same entry again (another build did it too) changes nothing
    assert lookup("k1") == built


def test_an_entry_without_its_done_marker_is_a_miss(cache_dir: Path) -> None:
    store("k2", "b", Built(files={"figures/b.svg": b"<svg/>"}))
    (cache_dir / "k2" / "done").unlink()
    assert lookup("k2") is None
    assert lookup("never-stored") is None


@pytest.mark.parametrize("name", ["../escape.svg", "/etc/passwd", "figures/../../x"])
def test_a_file_outside_the_site_is_refused_and_nothing_is_written(cache_dir: Path, name: str) -> None:
    with pytest.raises(ValueError, match="outside the site"):
        store("k3", "bad", Built(files={"figures/ok.svg": b"<svg/>", name: b"x"}))
    assert not (cache_dir / "k3").exists()


def _record(name: str) -> Record:
    return Record(name, None, lambda _id, _params: Built(files={}))


def test_records_start_longest_first_and_the_never_timed_before_all() -> None:
    """Longest-processing-time first: on two cores a long record started last would leave one core waiting."""
    missing = [(_record(name), f"key-{name}") for name in ("short", "new-one", "long", "middle", "new-two")]
    order = [record.id for record, _ in longest_first(missing, {"short": 0.2, "long": 5.0, "middle": 1.0})]
    assert order == ["new-one", "new-two", "long", "middle", "short"]


def test_build_times_are_merged_and_an_unreadable_file_counts_as_none(tmp_path: Path) -> None:
    times = tmp_path / "times.json"
    assert last_times(times) == {}
    _record_times({"a": 1.23456, "b": 2.0}, times)
    _record_times({"b": 0.5}, times)
    assert last_times(times) == {"a": 1.235, "b": 0.5}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    for garbage in ("not json", "[1, 2]", '{"a": "slow"}'):
        times.write_text(garbage)
        assert last_times(times) == {}


@dataclass(frozen=True)
class _Wait:
    """How long a test record takes, and the file it writes once it has finished ("": none)."""

    seconds: float
    marker: str = ""


def _fails(figure_id: str, params: _Wait) -> Built:
    time.sleep(params.seconds)
    raise ZeroDivisionError("a broken model")


def _slow(figure_id: str, params: _Wait) -> Built:
    time.sleep(params.seconds)
    if params.marker:
        Path(params.marker).write_text("finished\n")
    return Built(files={f"figures/{figure_id}.svg": b"<svg/>"})


def test_the_first_failure_stops_the_build_and_what_has_not_started_is_not_built(cache_dir: Path) -> None:
    """A broken model fails every record: the build says so for the first, without building the rest."""
    records = [Record("broken", _Wait(0.0), _fails)] + [Record(f"slow-{k}", _Wait(0.3), _slow) for k in range(12)]
    with pytest.raises(FigureError, match=r"figure 'broken' .*ZeroDivisionError: a broken model"):
        build_all(records, workers=2)
    stored = [entry for entry in cache_dir.glob("*/done")] if cache_dir.exists() else []
    assert len(stored) < 6, f"{len(stored)} of the 12 records after the failure were built anyway"


def test_a_record_running_when_another_fails_is_stopped_not_waited_for(cache_dir: Path, tmp_path: Path) -> None:
    """The error comes at once (mkdocs serve says so at once), not once the longest record running has ended."""
    marker = tmp_path / "finished"
    records = [Record("long", _Wait(20.0, str(marker)), _slow), Record("broken", _Wait(0.5), _fails)]
    with pytest.raises(FigureError, match=r"figure 'broken' .*ZeroDivisionError"):
        build_all(records, workers=2)
    assert not marker.exists(), "the build waited for the record that was running to finish"
    assert not list(cache_dir.glob("*/done")), "a record was stored after the failure"


REBUILT = """
import json, sys
from figures.build import build_all, registry
records = [r for r in registry() if r.id == sys.argv[1]]
print(json.dumps(list(build_all(records, workers=1)[2])))
"""
INDIRECT = """
import ast, json, sys
import figures.{module} as builder
direct = {{"figures." + node.module for node in ast.walk(ast.parse(open(builder.__file__).read()))
          if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}}
loaded = [name for name, module in sys.modules.items() if name.startswith("figures.")
          and getattr(module, "__file__", None) and name not in direct | {{"figures.{module}"}}]
print(json.dumps(sorted(sys.modules[name].__file__ for name in loaded)))
"""


def _run(repo: Path, code: str, *args: str) -> list[str]:
    """Run ``code`` with the copy's scripts and model first on the path; what it prints, as JSON."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=f"{repo / 'scripts'}{os.pathsep}{repo / 'src'}")
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=repo, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: list[str] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_editing_a_module_a_figure_uses_only_indirectly_rebuilds_it(built_copy: BuiltCopy, tmp_path: Path) -> None:
    """The key follows imports at any depth: a module the race builder never imports itself still counts."""
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(built_copy.repo, repo, symlinks=True)
    assert _run(repo, REBUILT, "race-bf16-ones") == [], "the cold build's cache entry was not reused"
    # The cache module and what it imports are in every key whoever imports them: no test of the imports followed.
    graph = cache.Sources().graph
    every_key = {graph.find(name) for name in graph.closure({"figures.cache"})}
    indirect = [name for name in _run(repo, INDIRECT.format(module="races"))
                if cache.REPO / Path(name).relative_to(repo) not in every_key]
    assert indirect, "the race builder imports every module it uses directly: pick another figure for this test"
    module = Path(indirect[0])
    assert repo in module.parents, module
    module.write_text(module.read_text() + "\n# an edit that changes no behaviour\n")
    assert _run(repo, REBUILT, "race-bf16-ones") == ["race-bf16-ones"]
    assert _run(repo, REBUILT, "race-bf16-ones") == [], "the rebuilt entry was not stored"
