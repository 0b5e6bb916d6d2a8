"""The command line of issue 27: the new formats in ``fpsum formats`` and ``fpsum sum``, and ``fpsum dot
--block-format``, each against the model's own functions, and its bad input (one line, exit status 2).
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.block_dot import block_dot
from fpsum.blocks import BLOCK_FORMATS, get_block_format
from fpsum.cli import main
from fpsum.e8m0 import E8M0
from fpsum.formats import BF16, FORMATS, FP32, Format
from fpsum.hardware import TruncatedAccumulator
from fpsum.methods import total
from fpsum.names import METHODS
from reference import NEW_FORMATS


def run(argv: list[str], stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    out = io.StringIO()
    if monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(argv, out), out.getvalue()


def test_formats_lists_the_new_formats_e8m0_and_every_value_of_fp4_and_fp6() -> None:
    status, out = run(["formats", "--json"])
    rows = {r["name"]: r for r in json.loads(out)["formats"]}
    assert status == 0
    for fmt in NEW_FORMATS:
        row = rows[fmt.name]
        assert (row["precision"], row["max_finite"], row["stall_point"]) == (fmt.precision, fmt.max_finite,
                                                                              fmt.stall_point)
        codes = np.arange(1 << fmt.bits, dtype=np.uint8).view(fmt.dtype).astype(np.float64)
        if fmt.bits <= 6:
            assert len(row["values"]) == 1 << fmt.bits and sorted(row["values"]) == sorted(codes.tolist())
        else:
            assert "values" not in row
    assert rows["e8m0"]["max_finite"] == 2.0**127 and rows["e8m0"]["stall_point"] is None
    status, text = run(["formats"])
    assert "values of FP4 E2M1 (16):\n  -6 -4 -3 -2 -1.5 -1 -0.5 -0 0 0.5 1 1.5 2 3 4 6" in text
    assert "e8m0" in text and "saturates at ±6" in text


@pytest.mark.parametrize("fmt", NEW_FORMATS, ids=lambda f: f.name)
def test_sum_works_in_every_new_format_by_every_method(fmt: Format, monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = [0.3, 1.7, -0.25, 2.5, 0.1, 3.0, -1.0, 0.05] * 4
    values = to_format(np.array(numbers), fmt)
    for method in METHODS:
        status, out = run(["sum", "--format", fmt.name, "--method", method, "--json"],
                          " ".join(map(str, numbers)), monkeypatch)
        assert status == 0, (method, out)
        got = json.loads(out)["result"]
        want = float(total(method, values, fmt))
        assert (got == want) or (got == "nan" and math.isnan(want)), method


@pytest.mark.parametrize("name", list(BLOCK_FORMATS))
def test_dot_with_a_block_format_reports_what_the_model_computes(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(len(name))
    x, y = rng.standard_normal(100), rng.random(100)
    x32, y32 = (to_format(v, FP32).astype(np.float64) for v in (x, y))
    text = "".join(f"{a!r} {b!r}\n" for a, b in zip(x32.tolist(), y32.tolist()))
    truncated = (TruncatedAccumulator(14, 4, 128), ["--truncate-bits", "14", "--promote-every", "128"])
    for accumulate, options in ((FP32, ["--accumulate", "fp32"]), (BF16, ["--accumulate", "bf16"]), truncated):
        status, out = run(["dot", "--format", "fp32", "--block-format", name, *options, "--json"], text, monkeypatch)
        assert status == 0, out
        report = json.loads(out)
        want = block_dot(x32, y32, get_block_format(name), accumulate)[0]
        assert report["result"] == want.result and report["block_format"] == name
        assert report["quantization_rel_error"] == want.quantization_rel_error
        assert report["accumulation_rel_error"] == want.accumulation_rel_error


def test_e8m0_is_listed_but_not_summable() -> None:
    assert E8M0.name not in FORMATS
