"""A command a page shows, ``producer | fpsum ...``, run through ``fpsum.cli.main`` in the test's process.

The pages' claims tests run the very line a reader would paste; the producer
is one of the few the pages use (``echo``, ``yes V | head -n N``, or
``python3 -c`` with a one-line program that prints), emulated here, and
the ``fpsum`` part gets ``--json`` added.
"""

from __future__ import annotations

import io
import json
import shlex
import sys

import pytest

from fpsum.cli import main


def run_command(command: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """The JSON report of a page's ``producer | fpsum ...`` line; the command must succeed (exit status 0)."""
    producer, _, consumer = command.partition(" | fpsum ")
    stages = [shlex.split(stage) for stage in producer.split(" | ")]
    words = stages[0]
    if words[0] == "echo":
        text = " ".join(words[1:])
    elif words[0] == "yes":
        assert stages[1][:2] == ["head", "-n"], command
        text = "\n".join([words[1]] * int(stages[1][2]))
    else:
        assert words[:2] == ["python3", "-c"], command
        printed = io.StringIO()
        exec(words[2], {"print": lambda *a: printed.write(" ".join(map(str, a)) + "\n")})  # the page's one-liner
        text = printed.getvalue()
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert main([*shlex.split(consumer), "--json"], out=out) == 0
    report: dict[str, object] = json.loads(out.getvalue())
    return report
