"""The maintainer's guides name files that exist: every repository path in README.md and CONTRIBUTING.md.

A path is a span in backticks that starts with one of the repository's
tracked top-level folders or names a tracked top-level file; spans with a
placeholder (``<version>``) or a wildcard are left out, and so are the
folders a build makes (``site/``, ``.cache/``, ...), which are ignored.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from repocopy import REPO

GUIDES = ("README.md", "CONTRIBUTING.md")
SPAN = re.compile(r"`([^`\s]+)`")


def tracked_tops() -> set[str]:
    """The first part of every tracked path: top-level files and folders."""
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return {line.split("/")[0] for line in listed.splitlines()}


def named_paths(text: str, tops: set[str]) -> list[str]:
    """The spans of ``text`` that name a path in the repository."""
    spans = (span.rstrip(".,:;") for span in SPAN.findall(text))
    return sorted({span for span in spans if "<" not in span and "*" not in span
                   and span.split("/")[0] in tops and (span.endswith("/") or "/" in span or "." in span)})


def test_the_rule_finds_paths_and_leaves_out_commands_and_placeholders() -> None:
    text = "`src/fpsum` `make test` `dist/x-<version>.zip` `Makefile` `tests/*.py` `--check-pass`"
    assert named_paths(text, {"src", "Makefile", "dist", "tests"}) == ["src/fpsum"]


@pytest.mark.parametrize("guide", GUIDES)
def test_every_path_a_guide_names_exists(guide: str) -> None:
    tops = tracked_tops()
    named = named_paths((REPO / guide).read_text(encoding="utf-8"), tops)
    assert len(named) >= 5, f"{guide}: the rule found almost no paths"
    missing = [path for path in named if not (REPO / path).exists()]
    assert missing == [], f"{guide} names paths that do not exist: {missing}"
