"""The browser tests of one page run in one pytest-xdist worker, so the loads they share are made once.

``conftest.pytest_collection_modifyitems`` puts each page's browser tests in
a group of that page, and ``make test`` runs pytest-xdist with ``--dist
loadgroup``, which must send each group whole to one worker.  With pytest
9.2, pytest-xdist 3.8 stops doing so without a word (its issue 1386: it marks
the group in a node id that pytest no longer reads), and every worker loads
every page: so the pinned pair is checked here, on a small suite of its own
that groups its tests the same way.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from repocopy import REPO

CONFTEST = '''
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(item.callspec.params["name"]))
'''
TESTS = '''
import pytest

@pytest.mark.parametrize("name", ["a.html", "b.html", "c.html", "d.html"])
@pytest.mark.parametrize("check", range(4))
def test_{module}(name, check):
    pass
'''


def inner_environment(**variables: str) -> dict[str, str]:
    """The environment of a pytest run inside a test: this one's, with ``variables``, and without the outer
    run's ``PYTEST_ADDOPTS`` (a maintainer's ``PYTEST_ADDOPTS="tests/model --durations=0"`` would give the inner
    run other tests).
    """
    env = dict(os.environ, **variables)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def test_each_group_runs_whole_in_one_worker(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for module in ("first", "second"):
        (tmp_path / f"test_{module}.py").write_text(TESTS.format(module=module))
    env = inner_environment(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "xdist", "-n", "2", "--dist", "loadgroup", "-v",
                             "-p", "no:cacheprovider", "-o", "addopts=", str(tmp_path)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-2000:]
    ran = re.findall(r"\[(gw\d)\].* PASSED \S+\[\d+-(\w)\.html\]", result.stdout)
    assert len(ran) == 32, result.stdout[-2000:]
    workers: dict[str, set[str]] = {}
    for worker, page in ran:
        workers.setdefault(page, set()).add(worker)
    assert all(len(used) == 1 for used in workers.values()), f"a page's tests ran in several workers: {workers}"
    assert len(set().union(*workers.values())) == 2, f"the pages did not spread over both workers: {workers}"


# Prints, in the order the tests will run, the page and screen of each test that shares test_fits_screen's
# page load (``visited``, module-wide): pytest sets the load up again each time that pair changes.
LOADS_PLUGIN = '''
def pytest_collection_finish(session):
    for item in session.items:
        if "visited" in getattr(item, "fixturenames", ()):
            params = item.callspec.params
            print("LOAD", params["name"], params["screen"].name)
'''


def test_each_page_and_screen_of_test_fits_screen_is_loaded_once(tmp_path: Path) -> None:
    """``conftest``'s later ``pytest_collection_modifyitems`` runs the tests of one page load together.

    pytest's own order split them (134 loads for 60 pairs of page and screen) where tests take different
    subsets of pages and screens.
    """
    (tmp_path / "loads_plugin.py").write_text(LOADS_PLUGIN)
    env = inner_environment(PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "loads_plugin", "--collect-only", "-q",
                             "-p", "no:cacheprovider", "tests/browser/test_fits_screen.py"],
                            cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-2000:]
    loads = [tuple(line.split()[1:]) for line in result.stdout.splitlines() if line.startswith("LOAD ")]
    runs = [pair for i, pair in enumerate(loads) if i == 0 or loads[i - 1] != pair]
    assert loads, result.stdout[-2000:]
    assert len(runs) == len(set(loads)), f"{len(runs)} loads for {len(set(loads))} pairs of page and screen"
