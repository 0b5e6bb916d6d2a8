"""``fpsum dot``: results against independent scalar computations, the hardware model, and every error path."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import reference
from figures import dot_accuracy
from fpsum.cli import main
from fpsum.dot import DOT_METHODS
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E5M2, FP16, FP32
from fpsum.hardware import TruncatedAccumulator, truncated_dot
from fpsum.textbook import naive

KEYS = {"format", "accumulate", "method", "n", "result", "exact", "abs_error", "rel_error"}


def run(argv: list[str], stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    out = io.StringIO()
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return main(["dot", *argv], out=out), out.getvalue()


def decimal_pairs(n: int) -> tuple[str, list[Fraction], list[Fraction]]:
    """n lines of two decimals in [-1, 1), as text and as the exact values they spell."""
    xs = [Fraction(((k * 7919) % 2000) - 1000, 997) for k in range(1, n + 1)]
    ys = [Fraction(((k * 104729) % 2000) - 1000, 991) for k in range(1, n + 1)]
    text = "\n".join(f"{float(x):.17g} {float(y):.17g}" for x, y in zip(xs, ys))
    exact_x = [Fraction(f"{float(x):.17g}") for x in xs]
    exact_y = [Fraction(f"{float(y):.17g}") for y in ys]
    return text, exact_x, exact_y


def test_json_matches_an_independent_computation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Round each decimal exactly to FP16, each product exactly to BF16, add in BF16 one step at a time."""
    text, xs, ys = decimal_pairs(500)
    status, out = run(["--format", "fp16", "--accumulate", "bf16", "--json"], text, monkeypatch)
    assert status == 0
    report = json.loads(out)
    assert set(report) == KEYS
    rx = [round_exact(v, FP16) for v in xs]
    ry = [round_exact(v, FP16) for v in ys]
    result = naive([round_exact(Fraction(a) * Fraction(b), BF16) for a, b in zip(rx, ry)], BF16)[-1]
    exact = sum((Fraction(a) * Fraction(b) for a, b in zip(rx, ry)), Fraction(0))
    assert report["format"] == "fp16" and report["accumulate"] == "bf16" and report["method"] == "naive"
    assert report["n"] == 500 and report["result"] == result
    assert report["exact"] == float(exact)
    assert report["abs_error"] == float(abs(Fraction(result) - exact))
    assert report["rel_error"] == pytest.approx(float(abs(Fraction(result) - exact) / abs(exact)), rel=1e-15)


@pytest.mark.parametrize("method", DOT_METHODS)
def test_every_method_against_the_reference(method: str, tmp_path: Path) -> None:
    text, xs, ys = decimal_pairs(37)
    data = tmp_path / "pairs.txt"
    data.write_text("\n" + text.replace("\n", "\n\n", 3) + "\n\n")  # blank lines are skipped
    status, out = run([str(data), "--format", "e5m2", "--accumulate", "fp16", "--method", method,
                       "--block", "8", "--json"])
    assert status == 0
    rx = [round_exact(v, E5M2) for v in xs]
    ry = [round_exact(v, E5M2) for v in ys]
    assert json.loads(out)["result"] == reference.dot_unfused(rx, ry, FP16, method, 8)[-1]


def test_fused_rounds_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """1 * 1 + 0.75 * (683 / 2**20) in FP16: 1 unfused, 1 + 2**-10 fused (worked out in test_dot.py)."""
    text = "1 1\n0.75 683/1048576\n"
    status, out = run(["--format", "fp16", "--accumulate", "fp16", "--json"], text, monkeypatch)
    assert status == 0 and json.loads(out)["result"] == 1.0
    status, out = run(["--format", "fp16", "--accumulate", "fp16", "--fused", "--json"], text, monkeypatch)
    assert status == 0 and json.loads(out)["result"] == 1.0 + 2.0**-10


def test_the_hardware_model(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "\n".join("0.3 1" for _ in range(1000))
    status, out = run(["--format", "fp16", "--truncate-bits", "14", "--json"], text, monkeypatch)
    report = json.loads(out)
    x = np.full(1000, round_exact(Fraction(3, 10), FP16), dtype=np.float16)
    y = np.ones(1000, dtype=np.float16)
    assert status == 0 and set(report) == KEYS | {"truncate_bits", "hw_block", "promote_every"}
    assert report["accumulate"] == "truncated" and report["promote_every"] is None and report["hw_block"] == 4
    assert report["result"] == float(truncated_dot(x, y, TruncatedAccumulator()))
    status, out = run(["--format", "fp16", "--truncate-bits", "10", "--hw-block", "2", "--promote-every", "8",
                       "--json"], text, monkeypatch)
    promoted = json.loads(out)
    assert promoted["result"] == float(truncated_dot(x, y, TruncatedAccumulator(10, 2, 8)))
    assert promoted["rel_error"] < report["rel_error"]


def test_decimal_inputs_are_rounded_exactly_not_through_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    """1 + 2**-8 + 2**-60 is just above a BF16 tie: correct rounding goes up; via float64 it would tie to 1."""
    value = Fraction(1) + Fraction(1, 2**8) + Fraction(1, 2**60)
    status, out = run(["--format", "bf16", "--accumulate", "fp32", "--json"],
                      f"{value.numerator}/{value.denominator} 1", monkeypatch)
    assert status == 0 and json.loads(out)["result"] == 1 + 2**-7


def test_non_finite_values_print_as_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    status, out = run(["--format", "fp16", "--accumulate", "fp16", "--json"], "300 300\n1 1", monkeypatch)
    report = json.loads(out)
    assert status == 0 and report["result"] == "inf" and report["exact"] == 90001.0
    assert report["abs_error"] == "inf"
    status, out = run(["--format", "fp16", "--accumulate", "fp32", "--json"], "inf 0\n1 1", monkeypatch)
    report = json.loads(out)
    assert report["result"] == report["exact"] == report["rel_error"] == "nan"
    status, out = run(["--format", "fp16", "--accumulate", "fp32", "--json"], "inf 2\n1 1", monkeypatch)
    report = json.loads(out)
    assert report["result"] == report["exact"] == "inf" and report["abs_error"] == 0.0


def test_text_output(monkeypatch: pytest.MonkeyPatch) -> None:
    status, out = run(["--format", "bf16", "--accumulate", "fp32", "--method", "blocked", "--block", "2"],
                      "1 2\n3 4\n", monkeypatch)
    assert status == 0
    assert out.splitlines() == [
        "format     BF16 (bf16)", "accumulate FP32 (fp32)", "method     blocked (block 2)", "n          2",
        "result     14.0", "exact      14.0", "abs error  0.0", "rel error  0.0",
    ]
    status, out = run(["--format", "fp32", "--truncate-bits", "14", "--promote-every", "128"], "1 2\n", monkeypatch)
    assert "accumulate truncated to 14 bits, 4 products a step, into FP32 every 128 products" in out
    status, out = run(["--format", "fp32", "--accumulate", "fp64", "--fused"], "1 2\n", monkeypatch)
    assert "method     naive (fused multiply-add)" in out


def test_a_binary_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "pairs.bin"
    data.write_bytes(b"\xff\xfe1 2\n")
    status, _ = run([str(data), "--format", "fp16", "--accumulate", "fp32"])
    assert status == 2 and "not a text file" in capsys.readouterr().err


def test_as_a_program() -> None:
    """Through ``python -m fpsum``: a good run on standard input, a bad one with one line and status 2, the help."""
    command = [sys.executable, "-m", "fpsum", "dot", "--format", "bf16", "--accumulate", "fp32", "--json"]
    done = subprocess.run(command, input="0.5 0.25\n2 3\n", capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["result"] == 6.125
    done = subprocess.run(command, input="0.5\n", capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "<stdin>: line 1: expected two numbers (x y), found 1"
    done = subprocess.run([sys.executable, "-m", "fpsum", "dot", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "example:" in done.stdout and "fpsum dot" in done.stdout and "--truncate-bits" in done.stdout


def test_the_pages_bf16_square_below_fp32_s_normal_range_is_rounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dot-products page's command: a BF16 value squared into FP32's subnormals comes out rounded."""
    built = dot_accuracy.build_cases("dot-cases", dot_accuracy.CasesParams())
    tiny = built.numbers["tiny"]
    assert isinstance(tiny, dict)
    command = str(tiny["command"])
    pair = command.split("'")[1]
    flags = command.split("fpsum dot ")[1].split()
    status, out = run([*flags, "--json"], pair + "\n", monkeypatch)
    assert status == 0
    report = json.loads(out)
    x = round_exact(Fraction(pair.split()[0]), BF16)
    exact = Fraction(x) ** 2
    assert report["exact"] == float(exact) and exact < Fraction(2) ** -126
    assert report["result"] == round_exact(exact, FP32) and Fraction(report["result"]) != exact
