"""A committed data file of library rows: written from a fresh run, or compared with one (``--check``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def write_or_check(argv: list[str] | None, description: str, default: Path, fresh: Callable[[], str]) -> int:
    """Write ``fresh()`` to ``--out`` (default ``default``), or with ``--check`` compare it with that file.

    Returns the exit status: 0, or 1 when ``--check`` finds the file missing or different (the
    fresh text is printed then, so that a CI log shows what changed).
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=default)
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    text = fresh()
    if not args.check:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        return 0
    committed = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
    if text == committed:
        return 0
    sys.stdout.write(f"{args.out} differs from a fresh run (make libraries-data rewrites it):\n{text}")
    return 1
