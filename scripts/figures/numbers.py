"""Numbers the pages quote that belong to no single figure: the bounds, and the libraries' own sums."""

from __future__ import annotations

import hashlib
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from fpsum.bounds import first_order_bounds
from fpsum.exact import exact_total
from fpsum.formats import get_format
from fpsum.race import RACE_N
from libraries import run as libraries_run

from .record import Built, Record
from .snippets import SNIPPETS_DIR, run_snippet
from .text import number, significant

LIBRARY_RUNS: dict[str, tuple[tuple[str, ...], ...]] = {
    "numpy_fp16_axis_trap": (("axis0",), ("fortran",), ("float32",)),
    "numpy_fp16_inner_loop": (("column_view",), ("transposed",), ("mean_axis0",), ("issue_view", "issue_axis0")),
    "numpy_fp16_scans_mean": (("cumsum",), ("accumulate",), ("mean",)),
    "ml_dtypes_sum_mean": (("bf16_sum", "bf16_mean", "bf16_sum_fp32"), ("e4m3_sum", "e4m3_mean", "e4m3_sum_fp32")),
    "python_sum": (("sum",), ("fsum",)),
    "python_fsum_order": ((), ("fsum_reordered",)),
}
"""The snippets of the library table, and what each line they print is: one key per printed value, or one
key for a whole printed array (its values joined by `` / ``); no key for a line of text (an exception)."""

CPU_LIBRARY_RUNS: dict[str, tuple[tuple[str, ...], ...]] = {
    "torch_cpu_sums": (("fp16_sum", "fp16_mean", "fp16_cumsum"), ("bf16_sum", "bf16_mean", "bf16_cumsum"),
                       ("columns",), ("fp16_cancel_sum", "fp16_cancel_mean"), ("bf16_cancel_sum", "bf16_cancel_mean")),
    "jax_cpu_sums": (("fp16_sum", "fp16_reduce_sum", "fp16_cumsum"), ("bf16_sum", "bf16_reduce_sum", "bf16_cumsum"),
                     ("e4m3_sum", "e4m3_sum_fp32")),
    "mlx_cpu_sums": (("fp16_sum", "fp16_mean", "fp16_cumsum"), ("bf16_sum", "bf16_mean", "bf16_cumsum"),
                     ("fp16_cancel_sum", "fp16_cancel_mean"), ("bf16_cancel_sum", "bf16_cancel_mean")),
}
"""The PyTorch, JAX and MLX snippets, run by ``make libraries-data`` in an environment of their own: their
printed output comes from :data:`LIBRARIES_DATA`, read as :data:`LIBRARY_RUNS` reads the others."""

CANCELLING: dict[str, tuple[float, ...]] = {"fp16": (2048.0, 2.0**-14, -2048.0), "bf16": (2.0**24, 1.0, -2.0**24)}
"""Three values whose float32 running sum loses the small one, by format: the PyTorch and MLX snippets print
their sums and means (their last two lines), and the pages set them beside the exact sums."""

LIBRARIES_DATA = libraries_run.DATA
"""What the PyTorch, JAX and MLX snippets printed, with the versions that printed it (``scripts/libraries/run.py``,
which owns the path)."""


@dataclass(frozen=True)
class BoundsParams:
    """The formats whose bounds are quoted and the n they are evaluated at."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    n: int = RACE_N

    def __post_init__(self) -> None:
        if self.n < 2:
            raise ValueError(f"bounds need n >= 2, got {self.n}")
        for name in self.formats:
            get_format(name)


@dataclass(frozen=True)
class LibraryParams:
    """How many uniform values the libraries sum, the seed that draws them, the columns of the axis example
    and the snippets run for the library table (they draw the same values).
    """

    n: int = RACE_N
    seed: int = 0
    columns: int = 4
    runs: tuple[str, ...] = tuple(LIBRARY_RUNS)

    def __post_init__(self) -> None:
        if self.n < 1 or self.columns < 1:
            raise ValueError(f"the library sums need n >= 1 and columns >= 1, got {self.n} and {self.columns}")
        missing = [n for n in self.runs if n not in LIBRARY_RUNS or not (SNIPPETS_DIR / f"{n}.py").is_file()]
        if missing:
            raise ValueError(f"no snippet file or no line keys for {missing} (scripts/snippets/, LIBRARY_RUNS)")

    @property
    def files(self) -> tuple[Path, ...]:
        """The snippet files run, in the order of ``runs``."""
        return tuple(SNIPPETS_DIR / f"{name}.py" for name in self.runs)

    @property
    def inputs(self) -> tuple[Path, ...]:
        """What the record is made from: the snippets run here, those run elsewhere and their committed output."""
        return (*self.files, *(SNIPPETS_DIR / f"{name}.py" for name in CPU_LIBRARY_RUNS), LIBRARIES_DATA)


def records() -> list[Record]:
    """The error bounds the pages quote, and what numpy, ml_dtypes and Python return."""
    library = LibraryParams()
    return [
        Record("bounds", BoundsParams(), build_bounds),
        Record("library", library, build_library, inputs=library.inputs),
    ]


def printed_values(line: str) -> list[float]:
    """The numbers of one printed line: a scalar, several separated by spaces, a NumPy array ``[a b c]`` or a
    Python list ``[a, b, c]``.
    """
    return [float(word) for word in line.translate(str.maketrans("[],", "   ")).split()]


def printed_number(value: float) -> str:
    """A printed value for prose: as :func:`number` with six decimals, or from 10^15 up in exponent notation with
    six significant digits (``1e+308``), as Python prints it, rather than 309 digits.
    """
    return f"{value:.6g}" if math.isfinite(value) and abs(value) >= 1e15 else number(value, 6)


def read_run(name: str, printed: str) -> dict[str, str]:
    """What snippet ``name`` printed (key ``printed``), and each printed value under its key of :data:`LIBRARY_RUNS`
    or :data:`CPU_LIBRARY_RUNS`.

    ``ValueError`` if the lines or values are not what those say they are.
    """
    lines = printed.splitlines()
    keys = LIBRARY_RUNS[name] if name in LIBRARY_RUNS else CPU_LIBRARY_RUNS[name]
    if len(lines) != len(keys):
        raise ValueError(f"snippet {name} printed {len(lines)} lines, expected {len(keys)}: {printed!r}")
    numbers = {"printed": printed}
    for line, names in zip(lines, keys):
        if not names:
            continue
        values = printed_values(line)
        if len(names) == 1:
            numbers[names[0]] = " / ".join(printed_number(v) for v in values)
        elif len(names) == len(values):
            numbers |= {k: printed_number(v) for k, v in zip(names, values)}
        else:
            raise ValueError(f"snippet {name} printed {line!r}, expected values for {names}")
    return numbers


def build_library(record_id: str, params: LibraryParams) -> Built:
    """What numpy, ml_dtypes and Python themselves return for n uniform values, computed by running them.

    The pages quote these beside the model: they are the libraries' own
    reductions, not the model's methods.  The library table's snippets run
    here too: per snippet, its output (``printed``) and each value it printed
    under its key of :data:`LIBRARY_RUNS` (``{{ library.python_sum.fsum }}``);
    the exact sums beside them come from the model.
    """
    drawn = np.random.default_rng(params.seed).random(params.n)
    fp16 = drawn.astype(np.float16)
    bf16 = drawn.astype(ml_dtypes.bfloat16)
    e4m3 = drawn.astype(ml_dtypes.float8_e4m3fn)
    table = np.random.default_rng(params.seed).random((params.n, params.columns)).astype(np.float16)
    numbers: dict[str, str | dict[str, str]] = {
        "n": number(params.n),
        "columns": number(params.columns),
        "shape": f"({params.n}, {params.columns})",
        "fp16_sum": number(float(fp16.sum())),
        "fp16_cumsum": number(float(np.cumsum(fp16)[-1])),
        "fp16_exact": number(exact_total(fp16)),
        "bf16_sum": number(float(bf16.sum())),
        "bf16_sum_fp32": number(float(bf16.sum(dtype=np.float32))),
        "bf16_exact": number(exact_total(bf16)),
        # The exact sums and means of what the table's snippets sum.
        "columns_exact": " / ".join(number(exact_total(table[:, j])) for j in range(params.columns)),
        "column0_exact": number(exact_total(table[:, 0])),
        "columns_exact_mean": " / ".join(significant(exact_total(table[:, j]) / params.n, 4)
                                         for j in range(params.columns)),
        "fp16_exact_mean": significant(exact_total(fp16) / params.n, 4),
        "bf16_exact_mean": significant(exact_total(bf16) / params.n, 4),
        "e4m3_exact": number(exact_total(e4m3)),
        "e4m3_exact_mean": significant(exact_total(e4m3) / params.n, 4),
        # How the Python that ran the snippets sums floats (its version would read as a model number).
        "python_sum_adds": "a compensated (Neumaier) sum" if sys.version_info >= (3, 12) else "a plain running sum",
        # The exact sums of the values a float32 running sum cannot hold (CANCELLING).
        **{f"{fmt}_cancel_exact": number(exact_total(np.array(values)), 8) for fmt, values in CANCELLING.items()},
    }
    for name, path in zip(params.runs, params.files):
        numbers[name] = read_run(name, run_snippet(path))
    return Built(files={}, numbers=numbers | cpu_library_numbers())


def cpu_library_numbers() -> dict[str, str | dict[str, str]]:
    """The PyTorch, JAX and MLX rows, from :data:`LIBRARIES_DATA`: per snippet what it printed and its values,
    and under ``versions`` the version of each package that ran them.

    ``ValueError`` if a snippet's committed output is missing, or was printed by another version of its file
    than the one in ``scripts/snippets/`` (``make libraries-data`` runs them again).
    """
    data = json.loads(LIBRARIES_DATA.read_text(encoding="utf-8"))
    numbers: dict[str, str | dict[str, str]] = {"versions": dict(data["versions"]), "threads": str(data["threads"])}
    for name in CPU_LIBRARY_RUNS:
        run = data["runs"].get(name)
        source = SNIPPETS_DIR / f"{name}.py"
        if run is None or run["source_sha256"] != hashlib.sha256(source.read_bytes()).hexdigest():
            raise ValueError(f"{LIBRARIES_DATA.name} holds no output of {source.name} as it is now: "
                             "run make libraries-data")
        numbers[name] = read_run(name, run["printed"])
    return numbers


def build_bounds(record_id: str, params: BoundsParams) -> Built:
    """``n``, and per format the relative error bounds at ``n``.

    They are ``naive``, ``pairwise``, ``kahan`` (first-order terms) and ``sqrt``, √n·u: the
    probabilistic bound with its constant set to 1, not a typical size.
    """
    n = params.n
    numbers: dict[str, str | dict[str, str]] = {"n": number(n)}
    for name in params.formats:
        bounds = first_order_bounds(n, get_format(name))
        numbers[name] = {which: significant(value) for which, value in bounds.items()}
    return Built(files={}, numbers=numbers)
