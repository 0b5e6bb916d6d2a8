"""A build that cannot be right stops, with one clear error line that names the file.

Each case breaks a fresh copy of the repository (never the real tree) in one
way, then runs ``mkdocs build --strict`` there: it must exit non-zero, print
no Python traceback, and print an ERROR line that names both the culprit file
and what is wrong with it.  The copies start from the figure cache of the
session's cold build of an unbroken copy, so only what a case breaks is rebuilt.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from repocopy import BuiltCopy, build_copy

PAGE = "docs/index.md"  # every site has a home page: the page cases break it


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def divide_by_zero_in_every_function(path: Path) -> None:
    """Make every top-level function of ``path`` start with ``1 / 0`` (after its docstring)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    starts = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            body = node.body
            docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
            first = body[1] if docstring and len(body) > 1 else body[0]
            starts.append((first.lineno - 1, first.col_offset))
    assert starts, f"no function in {path}"
    for line, column in sorted(starts, reverse=True):
        lines.insert(line, " " * column + "_broken = 1 / 0\n")
    path.write_text("".join(lines), encoding="utf-8")


def fork_of_another_partial(path: Path) -> None:
    """Record another upstream text for the search.html fork, as if the installed partial had changed since."""
    source = path.read_text(encoding="utf-8")
    broken, count = re.subn(r'(Fork\("overrides/partials/search\.html", "partials/search\.html",\s*")[0-9a-f]{64}"',
                            lambda m: m.group(1) + "0" * 64 + '"', source)
    assert count == 1, f"no fork of search.html in {path}: update this test to the contract's form"
    path.write_text(broken, encoding="utf-8")


def unknown_race_format(path: Path) -> None:
    """Give the first race record a format that does not exist."""
    source = path.read_text(encoding="utf-8")
    broken, count = re.subn(r"RaceParams\(format=[^,)]+", 'RaceParams(format="fp99"', source, count=1)
    assert count == 1, f"no RaceParams(format=...) in {path}: update this test to the records' form"
    path.write_text(broken, encoding="utf-8")


@dataclass(frozen=True)
class Breakage:
    """How to break a copy, which file the error line must name, and what else it must say."""

    name: str
    file: str
    says: str
    apply: Callable[[Path], None]


BREAKAGES = [
    Breakage("missing snippet", "index.md", "no_such_file.py",
             lambda repo: append(repo / PAGE, '\n```python\n--8<-- "fpsum/no_such_file.py"\n```\n')),
    Breakage("unknown figure", "index.md", "nope",
             lambda repo: append(repo / PAGE, "\n{{ figure nope }}\n")),
    Breakage("unknown number", "index.md", "nope.nothing",
             lambda repo: append(repo / PAGE, "\nThe answer is {{ nope.nothing }}.\n")),
    Breakage("error in the model", "methods.py", "ZeroDivisionError",
             lambda repo: divide_by_zero_in_every_function(repo / "src" / "fpsum" / "methods.py")),
    Breakage("invalid figure parameter", "races.py", "fp99",
             lambda repo: unknown_race_format(repo / "scripts" / "figures" / "races.py")),
    Breakage("theme partial changed", "overrides/partials/search.html", "has changed since it was forked",
             lambda repo: fork_of_another_partial(repo / "hooks" / "theme" / "contract.py")),
]


@pytest.mark.parametrize("breakage", BREAKAGES, ids=[b.name.replace(" ", "-") for b in BREAKAGES])
def test_a_broken_build_stops_with_one_clear_line(built_copy: BuiltCopy, tmp_path: Path,
                                                  breakage: Breakage) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(built_copy.repo, repo, symlinks=True)
    breakage.apply(repo)
    result = build_copy(repo, tmp_path / "site")
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    assert result.returncode != 0, f"the build went through:\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr, f"a traceback instead of one line:\n{result.stderr[-3000:]}"
    clear = [line for line in errors if breakage.file in line and breakage.says in line]
    assert len(clear) == 1, f"no single ERROR line names {breakage.file} and {breakage.says!r}:\n" + "\n".join(errors)
    assert len(errors) <= 2, "\n".join(errors)  # mkdocs may add "Error reading page '...':" before it


@pytest.mark.parametrize("anchor", ["fig-race-fp16-uniform", "fig-nope"])
def test_links_to_figure_permalinks_are_checked(built_copy: BuiltCopy, tmp_path: Path, anchor: str) -> None:
    """A link to a figure's ``#fig-<id>`` on another page builds if the figure is there, and stops the build if not."""
    repo = tmp_path / "repo"
    shutil.copytree(built_copy.repo, repo, symlinks=True)
    append(repo / "docs" / "cite.md", f"\nSee [the race](index.md#{anchor}).\n")
    result = build_copy(repo, tmp_path / "site")
    if anchor == "fig-nope":
        assert result.returncode != 0
        assert any("cite.md" in line and f"#{anchor}" in line for line in result.stderr.splitlines()), \
            result.stderr[-2000:]
    else:
        assert result.returncode == 0, result.stderr[-2000:]
