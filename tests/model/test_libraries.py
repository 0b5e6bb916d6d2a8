"""The PyTorch, JAX and MLX rows: what ``make libraries-data`` committed, held to the model, and a fresh run.

The committed ``data/libraries.json`` is what the snippets printed on this
machine's CPU.  Each claim the pages make about those rows is checked here on
the committed values against an oracle that owes nothing to the libraries: the
exact sum of the model's inputs (correctly rounded by ``fpsum``), or the
model's naive sum in the format.  The last test runs every row afresh in
``.venv-libraries`` and fails if anything differs; it needs that environment,
so it runs under ``make libraries`` (``LIBRARIES_PYTHON`` set) and is skipped
by a plain ``make test``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
from functools import cache

import ml_dtypes
import numpy as np
import pytest

from figures import numbers
from fpsum.array_rounding import to_format
from fpsum.correct import correct_sum
from fpsum.exact import exact_total
from fpsum.formats import BF16, E4M3, FP16, FP32, Format
from fpsum.inputs import make_inputs
from fpsum.methods import total
from libraries import run as libraries_run
from repocopy import REPO

N, SEED = libraries_run.N, libraries_run.SEED
FORMATS = {"fp16": FP16, "bf16": BF16}


@cache
def committed() -> dict[str, object]:
    data: dict[str, object] = json.loads(numbers.LIBRARIES_DATA.read_text(encoding="utf-8"))
    return data


def printed(name: str) -> list[list[float]]:
    """The values of each line snippet ``name`` printed, as committed."""
    runs = committed()["runs"]
    assert isinstance(runs, dict)
    return [numbers.printed_values(line) for line in runs[name]["printed"].splitlines()]


def inputs(fmt: str) -> np.ndarray:
    return make_inputs("uniform", N, FORMATS[fmt], SEED)


def correctly_rounded(values: np.ndarray, fmt: Format) -> float:
    return float(correct_sum(np.asarray(values)[np.newaxis], fmt)[0])


def rounded(value: float, fmt: Format) -> float:
    return float(np.asarray(to_format(np.array([value]), fmt), dtype=np.float64)[0])


def correct_mean(values: np.ndarray, fmt: Format) -> float:
    return rounded(exact_total(values) / values.size, fmt)


def tree_in_format(values: np.ndarray, fmt: Format, width: int = 32) -> float:
    """The oracle of XLA's CPU reduction: naive sums of ``width`` consecutive values, each addition rounded to
    ``fmt``, then the same over those partial sums, until one is left (the last group may be narrower).
    """
    level = np.asarray(values)
    while level.size > 1:
        groups = level.reshape(-1, min(width, level.size))
        level = np.asarray(total("naive", groups, fmt))
    return float(np.asarray(level, dtype=np.float64).ravel()[0])


# ---------------------------------------------------------------- the committed file


def test_the_committed_output_is_the_snippets_as_they_are_on_the_models_inputs_the_same_on_two_threads() -> None:
    runs = committed()["runs"]
    assert isinstance(runs, dict) and set(runs) == set(libraries_run.SNIPPETS)
    assert set(libraries_run.SUM_SNIPPETS) == set(numbers.CPU_LIBRARY_RUNS)
    for name, run in runs.items():
        source = (libraries_run.SNIPPETS_DIR / f"{name}.py").read_bytes()
        assert run["source_sha256"] == hashlib.sha256(source).hexdigest(), f"{name}: run make libraries-data"
        assert run["same_with_two_threads"] is True, name
        if name in libraries_run.SUM_SNIPPETS:
            assert numbers.read_run(name, run["printed"])  # every line as CPU_LIBRARY_RUNS says
    assert committed()["same_inputs"] == {**{n: True for n in libraries_run.SUM_SNIPPETS}, "jax_e4m3": True}
    assert committed()["n"] == N == numbers.LibraryParams().n and committed()["seed"] == numbers.LibraryParams().seed
    versions = committed()["versions"]
    assert isinstance(versions, dict)
    pinned = dict(line.split("==") for line in (REPO / "requirements-libraries.txt").read_text().splitlines()
                  if "==" in line and not line.startswith("#"))
    assert {p: versions[p] for p in libraries_run.PACKAGES} == {p: pinned[p] for p in libraries_run.PACKAGES}


def test_the_snippets_draw_the_same_values_as_the_rest_of_the_table() -> None:
    u = np.random.default_rng(SEED).random(N)
    for fmt, dtype in (("fp16", np.float16), ("bf16", ml_dtypes.bfloat16)):
        assert np.array_equal(np.asarray(inputs(fmt), dtype=np.float64), u.astype(dtype).astype(np.float64))


# ---------------------------------------------------------------- the claims


def test_pytorch_cpu_sums_means_and_cumsum_are_the_exact_ones_rounded_once() -> None:
    """"A float32 accumulator, one rounding at the end": on these inputs the sum, the mean and cumsum's last entry
    are the exact values rounded once to the type, and the float16 column sums too (no axis trap).
    """
    lines = printed("torch_cpu_sums")
    for line, (fmt, f) in zip(lines, FORMATS.items()):
        x = inputs(fmt)
        summed, mean, last = line
        assert summed == last == correctly_rounded(x, f), fmt
        assert mean == correct_mean(x, f), fmt
        assert summed > f.stall_point
    table = np.random.default_rng(SEED).random((N, 4)).astype(np.float16)
    assert lines[2] == [correctly_rounded(table[:, j], FP16) for j in range(4)]


def float32_running(values: np.ndarray, fmt: Format) -> float:
    """A float32 accumulation in the given order, every addition rounded to float32, the total rounded to ``fmt``."""
    return rounded(float(total("naive", np.asarray(values, dtype=np.float32), FP32)), fmt)


def test_pytorch_and_mlx_add_16_bit_values_in_float32_in_their_order_not_the_exact_sum_rounded_once() -> None:
    """"float32 inside, in its own order" [in practice and dot products tables]: on the cancelling values the sum
    and mean are a float32 running sum's, and not the exact ones rounded once; on the uniform inputs the sum is a
    float32 running sum's too, and not the naive sum in the type (which stalls).
    """
    for name, first in (("torch_cpu_sums", 3), ("mlx_cpu_sums", 2)):
        lines = printed(name)
        assert len(lines) == first + 2, name
        for line, (fmt, values) in zip(lines[first:], numbers.CANCELLING.items()):
            f = FORMATS[fmt]
            x = to_format(np.asarray(values), f)
            assert np.array_equal(np.asarray(x, dtype=np.float64), values), (name, fmt)  # held exactly
            summed, mean = line
            assert summed == float32_running(x, f) and mean == rounded(float32_running(x, FP32) / x.size, f)
            assert summed != correctly_rounded(x, f) and mean != correct_mean(x, f), (name, fmt)
        for line, (fmt, f) in zip(lines, FORMATS.items()):
            x = inputs(fmt)
            assert line[0] == float32_running(x, f) != float(total("naive", x, f)), (name, fmt)


def test_the_snippets_sum_the_cancelling_values_the_pages_quote() -> None:
    """The torch and MLX snippets spell out :data:`numbers.CANCELLING`, which the exact sums beside them are of."""
    spelled = {"fp16": "[2048, 2**-14, -2048]", "bf16": "[2**24, 1, -2**24]"}
    for fmt, text in spelled.items():
        # Each value is a constant expression as the snippet writes it (2**-14): evaluated with no names.
        values = [float(eval(v, {"__builtins__": {}})) for v in text.strip("[]").split(", ")]
        assert values == list(numbers.CANCELLING[fmt]), fmt
        for name in ("torch_cpu_sums", "mlx_cpu_sums"):
            assert text in (libraries_run.SNIPPETS_DIR / f"{name}.py").read_text(encoding="utf-8"), (name, fmt)


def how_it_adds(page: str, call: str) -> str:
    """The "how it adds" cell of the library table's row that starts with ``call`` (Markdown source)."""
    rows = [line for line in (REPO / "docs" / page).read_text(encoding="utf-8").splitlines() if line.startswith(call)]
    assert len(rows) == 1, (page, call)
    return rows[0].split(" | ")[3]


def test_the_pages_say_float32_in_its_own_order_and_show_the_cancelling_sums() -> None:
    """The rows the test above holds: neither says the sum is the exact one rounded once without the lists that
    show it is not, and each quotes those lists' sums from its own snippet beside the model's exact sums.
    """
    for call, name in (("| PyTorch {{ library.versions.torch }} `t.sum()`", "torch_cpu_sums"),
                       ("| MLX {{ library.versions.mlx }} `mx.sum(x)`", "mlx_cpu_sums")):
        cell = how_it_adds("in-practice.md", call)
        assert cell.startswith("float32 inside, in its own order"), cell
        for fmt in numbers.CANCELLING:
            assert f"{{{{ library.{name}.{fmt}_cancel_sum }}}}" in cell, (name, fmt)
    torch_row = how_it_adds("in-practice.md", "| PyTorch {{ library.versions.torch }} `t.sum()`")
    assert "{{ library.fp16_cancel_exact }}" in torch_row and "{{ library.bf16_cancel_exact }}" in torch_row
    dot = (REPO / "docs" / "dot-products.md").read_text(encoding="utf-8")
    bullet = dot[dot.index("- **PyTorch** on this site's CPU"):dot.index("- **JAX.**")]
    assert "in float32, in its own order" in " ".join(bullet.split())
    assert "{{ library.torch_cpu_sums.fp16_cancel_sum }}" in bullet and "{{ library.fp16_cancel_exact }}" in bullet
    for page in ("in-practice.md", "dot-products.md"):
        text = " ".join((REPO / "docs" / page).read_text(encoding="utf-8").split())
        assert "the exact sum and mean rounded once: float32 inside" not in text, page
        assert "rounded once: float32 inside" not in text, page


def test_jax_sum_is_rounded_once_and_the_lax_primitive_rounds_every_partial_sum_to_the_type() -> None:
    """`jnp.sum` is the exact sum rounded once; `jax.lax.reduce_sum` is the tree of 32-wide naive sums in the type
    (BF16: not the correctly rounded sum, and far from the stall point); cumsum does not stall [in practice table].
    """
    lines = printed("jax_cpu_sums")
    for line, (fmt, f) in zip(lines, FORMATS.items()):
        x = inputs(fmt)
        summed, primitive, last = line
        assert summed == correctly_rounded(x, f), fmt
        assert rounded(primitive, f) == tree_in_format(x, f), fmt
        exact = exact_total(x)
        assert abs(last - exact) <= 2 * f.ulp(exact) and last > f.stall_point, fmt
    bf16 = inputs("bf16")
    assert lines[1][1] != correctly_rounded(bf16, BF16) and lines[1][1] > 8 * BF16.stall_point


def test_jax_sums_fp8_in_fp8_until_a_partial_sum_overflows_to_nan() -> None:
    """`jnp.sum` of float8_e4m3fn gives NaN, as the tree in E4M3 does (partial sums pass 448, E4M3 has no
    infinity); with `dtype=jnp.float32` it is the exact sum to float32 accuracy.
    """
    (default, wide), = printed("jax_cpu_sums")[2:]
    e4m3 = np.random.default_rng(SEED).random(N).astype(ml_dtypes.float8_e4m3fn)
    assert math.isnan(default) and math.isnan(tree_in_format(e4m3, E4M3))
    assert exact_total(e4m3) > float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max)
    assert wide == pytest.approx(exact_total(e4m3), rel=1e-6)


def test_mlx_cpu_sums_are_rounded_once_but_its_cumsum_stalls() -> None:
    """MLX on this CPU: sum and mean are the exact values rounded once; cumsum's last entry is the naive sum in
    the type, at the stall point.
    """
    for line, (fmt, f) in zip(printed("mlx_cpu_sums"), FORMATS.items()):
        x = inputs(fmt)
        summed, mean, last = line
        assert summed == correctly_rounded(x, f) and mean == correct_mean(x, f), fmt
        assert last == float(total("naive", x, f)) == f.stall_point, fmt


# ---------------------------------------------------------------- a fresh run


def test_a_fresh_run_prints_what_is_committed() -> None:
    """Every row run again in .venv-libraries gives the committed file byte for byte (make libraries)."""
    python = os.environ.get("LIBRARIES_PYTHON")
    if not python:
        pytest.skip("needs .venv-libraries: make libraries runs this test")
    done = subprocess.run([python, str(REPO / "scripts" / "libraries" / "run.py"), "--check"], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
