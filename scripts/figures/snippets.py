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

from .cache import SCRIPTS_DIR, Built

SNIPPETS_DIR = SCRIPTS_DIR / "snippets"


@dataclass(frozen=True)
class SnippetParams:
    names: tuple[str, ...] = ("numpy_fp16_sum", "numpy_fp16_cumsum", "numpy_fp16_axis0", "ml_dtypes_bf16_sum",
                              "bf16_sum_fp32")

    def __post_init__(self) -> None:
        missing = [n for n in self.names if not (SNIPPETS_DIR / f"{n}.py").is_file()]
        if missing:
            raise ValueError(f"no snippet file for {missing} in {SNIPPETS_DIR}")

    @property
    def files(self) -> list[Path]:
        return [SNIPPETS_DIR / f"{n}.py" for n in self.names]


def run_snippet(path: Path) -> str:
    """What running ``path`` as a script prints, without the trailing newline."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path(str(path), run_name="__main__")
    return printed.getvalue().rstrip("\n")


def build(params: SnippetParams) -> Built:
    return Built(files={}, numbers={f"snippet.{p.stem}": run_snippet(p) for p in params.files})
