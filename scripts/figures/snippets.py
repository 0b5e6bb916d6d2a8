"""The library snippets: run each file in scripts/snippets/ and keep what it prints.

The formats page shows each snippet (included from the file) and, below it,
this printed output: the result a reader gets by running it.
"""

from __future__ import annotations

import contextlib
import io
import runpy
from dataclasses import dataclass
from pathlib import Path

from .cache import REPO
from .record import Built, Record

SNIPPETS_DIR = REPO / "scripts" / "snippets"


@dataclass(frozen=True)
class SnippetParams:
    """The snippets run, by file name without ``.py``."""

    names: tuple[str, ...] = ("numpy_fp16_sum", "numpy_fp16_cumsum", "numpy_fp16_axis0", "ml_dtypes_bf16_sum",
                              "bf16_sum_fp32")

    def __post_init__(self) -> None:
        missing = [n for n in self.names if not (SNIPPETS_DIR / f"{n}.py").is_file()]
        if missing:
            raise ValueError(f"no snippet file for {missing} in {SNIPPETS_DIR}")

    @property
    def files(self) -> tuple[Path, ...]:
        """The snippet files, in the order of ``names``."""
        return tuple(SNIPPETS_DIR / f"{n}.py" for n in self.names)


def records() -> list[Record]:
    """What each library snippet prints; the snippet files are inputs."""
    params = SnippetParams()
    return [Record("snippets", params, build, inputs=params.files)]


def run_snippet(path: Path) -> str:
    """What running ``path`` as a script prints, without the trailing newline."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path(str(path), run_name="__main__")
    return printed.getvalue().rstrip("\n")


def build(record_id: str, params: SnippetParams) -> Built:
    """One number per snippet, named after its file: what it prints."""
    return Built(files={}, numbers={path.stem: run_snippet(path) for path in params.files})
