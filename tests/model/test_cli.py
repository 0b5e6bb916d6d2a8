"""The fpsum command line: results against the model and exact sums, and every error path."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fpsum.cli import main
from fpsum.exact import exact_sum
from fpsum.exact_rounding import round_exact
from fpsum.formats import FORMATS, FP16
from fpsum.inputs import make_inputs
from fpsum.names import METHODS


def run(argv: list[str], stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    out = io.StringIO()
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return main(argv, out=out), out.getvalue()


def test_sum_json_matches_the_model_and_the_exact_sum(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = [((k * 7919) % 1000) / 997 for k in range(1, 3001)]  # in [0, 1), sum about 1,500
    text = "\n".join(f"{v:.17g}" for v in numbers)
    status, out = run(["sum", "--format", "fp16", "--method", "naive", "--json"], text, monkeypatch)
    assert status == 0
    report = json.loads(out)
    assert set(report) == {"format", "method", "n", "result", "exact", "abs_error", "rel_error"}
    # Independently: round each decimal exactly, sum in float16 one step at a time.
    rounded = [round_exact(Fraction(f"{v:.17g}"), FP16) for v in numbers]
    s = np.float16(rounded[0])
    for v in rounded[1:]:
        s = np.float16(s + np.float16(v))
    exact = sum(map(Fraction, rounded), Fraction(0))
    assert report["n"] == 3000 and report["result"] == float(s)
    assert report["exact"] == float(exact)
    assert report["abs_error"] == float(abs(Fraction(float(s)) - exact))
    assert report["rel_error"] == pytest.approx(float(abs(Fraction(float(s)) - exact) / exact), rel=1e-15)


def test_sum_reads_a_file_and_every_method_runs(tmp_path: Path) -> None:
    data = tmp_path / "x.txt"
    data.write_text("1 2 3\n4.5e0  -0.25\n\n7\n")
    for method in METHODS:
        status, out = run(["sum", str(data), "--format", "bf16", "--method", method, "--json"])
        assert status == 0
        assert json.loads(out)["result"] == 17.25, method


def test_decimal_inputs_are_rounded_exactly_not_through_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    """1 + 2**-8 + 2**-60 is just above a BF16 tie: correct rounding goes up; via float64 it would tie to 1."""
    value = Fraction(1) + Fraction(1, 2**8) + Fraction(1, 2**60)
    text = f"{value.numerator}/{value.denominator}"
    status, out = run(["sum", "--format", "bf16", "--method", "naive", "--json"], text, monkeypatch)
    assert status == 0 and json.loads(out)["result"] == 1 + 2**-7


def test_non_finite_values_print_as_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    status, out = run(["sum", "--format", "fp16", "--method", "naive", "--json"], "60000 60000", monkeypatch)
    report = json.loads(out)
    assert status == 0 and report["result"] == "inf" and report["exact"] == 120000.0
    status, out = run(["sum", "--format", "e4m3", "--method", "naive", "--json"], "300 300", monkeypatch)
    assert json.loads(out)["result"] == "nan"


def test_race_reports_every_method_and_the_fp16_stall() -> None:
    status, out = run(["race", "--format", "fp16", "--inputs", "uniform", "--json"])
    report = json.loads(out)
    assert status == 0
    assert set(report["final"]) == set(METHODS)
    assert report["final"]["naive"] == 2048.0
    values = make_inputs("uniform", 8192, FP16, 0)
    assert report["exact"] == float(exact_sum(values))
    running = np.add.accumulate(values).astype(float)
    assert report["stalled_after"]["naive"] == int(np.argmax(running == 2048.0)) + 1
    assert report["stalled_after"]["kahan"] is None


def test_formats_table_lists_every_format() -> None:
    status, out = run(["formats", "--json"])
    rows = {r["name"]: r for r in json.loads(out)["formats"]}
    assert status == 0 and set(rows) == set(FORMATS) | {"e8m0"}
    assert rows["e4m3"]["max_finite"] == 448.0 and "NaN" in rows["e4m3"]["overflow"]
    status, text = run(["formats"])
    assert status == 0 and all(name in text for name in [*FORMATS, "e8m0"])


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (["sum", "--format", "fp12", "--method", "naive"], "1", "unknown format 'fp12'"),
        (["sum", "--format", "fp16", "--method", "fast"], "1", "unknown method 'fast'"),
        (["sum", "--format", "fp16", "--method", "naive"], "", "no numbers"),
        (["sum", "--format", "fp16", "--method", "naive"], "1 2\n3 abc\n", "line 2: 'abc' is not a number"),
        (["sum", "--format", "fp16", "--method", "blocked", "--block", "0"], "1", "block size must be at least 1"),
        (["sum", "--format", "fp16", "--method", "blocked", "--block", "x"], "1", "block size must be a whole number"),
        (["sum", "/no/such/file", "--format", "fp16", "--method", "naive"], "", "/no/such/file: cannot read"),
        (["race", "--format", "fp16", "--inputs", "gaussian"], "", "invalid choice: 'gaussian'"),
        (["race", "--format", "fp16", "--inputs", "ones", "--n", "0"], "", "n must be at least 1"),
        (["race", "--format", "fp16", "--inputs", "ones", "--seed", "-3"], "", "seed must not be negative"),
        ([], "", "required: command"),
        (["dot", "--format", "fp16", "--accumulate", "fp32"], "1 2\n3\n",
         "line 2: expected two numbers (x y), found 1"),
        (["dot", "--format", "fp16", "--accumulate", "fp32"], "1 2 3\n", "line 1: expected two numbers (x y), found 3"),
        (["dot", "--format", "fp16", "--accumulate", "fp32"], "1 2\n\n3 x\n", "line 3: 'x' is not a number"),
        (["dot", "--format", "fp16", "--accumulate", "fp32"], "", "<stdin>: no pairs of numbers"),
        (["dot", "--format", "fp16", "--accumulate", "fp32"], "\n \n", "no pairs of numbers"),
        (["dot", "--format", "fp12", "--accumulate", "fp32"], "1 2", "unknown format 'fp12'"),
        (["dot", "--format", "fp16", "--accumulate", "fp99"], "1 2", "unknown format 'fp99'"),
        (["dot", "--format", "fp64", "--accumulate", "fp32"], "1 2",
         "fp64 cannot be an input format (choose from fp16, "),
        (["dot", "--format", "fp16", "--accumulate", "e4m3"], "1 2",
         "e4m3 cannot be an accumulator (choose from fp16, "),
        (["dot", "--format", "fp16", "--accumulate", "fp32", "--method", "wide"], "1 2", "unknown method 'wide'"),
        (["dot", "--format", "fp16", "--accumulate", "fp32", "--method", "kahan", "--fused"], "1 2",
         "--fused goes with --method naive only"),
        (["dot", "--format", "fp16"], "1 2", "give --accumulate (or --truncate-bits"),
        (["dot", "--format", "fp16", "--accumulate", "fp32", "--truncate-bits", "14"], "1 2", "are alternatives"),
        (["dot", "--format", "fp16", "--accumulate", "fp32", "--hw-block", "8"], "1 2",
         "--hw-block goes with --truncate"),
        (["dot", "--format", "fp16", "--accumulate", "fp32", "--promote-every", "8"], "1 2",
         "--promote-every goes with"),
        (["dot", "--format", "fp16", "--truncate-bits", "14", "--method", "pairwise"], "1 2", "naive only"),
        (["dot", "--format", "fp16", "--truncate-bits", "14", "--fused"], "1 2", "naive only"),
        (["dot", "--format", "fp16", "--truncate-bits", "14", "--promote-every", "6"], "1 2",
         "multiple of the block (4)"),
        (["dot", "--format", "fp16", "--truncate-bits", "60"], "1 2", "at most 50 bits"),
        (["dot", "--format", "fp16", "--truncate-bits", "1"], "1 2", "--truncate-bits must be at least 2"),
        (["dot", "--format", "fp16", "--accumulate", "fp32", "--block", "0"], "1 2", "block size must be at least 1"),
        (["dot", "/no/such/file", "--format", "fp16", "--accumulate", "fp32"], "", "/no/such/file: cannot read"),
        (["sum", "--format", "e8m0", "--method", "naive"], "1", "e8m0 is the MX scale format"),
        (["sum", "--format", "e2m1", "--method", "naive"], "1\nnan\n", "'nan' cannot be held in FP4 E2M1"),
        (["dot", "--format", "fp16", "--block-format", "mxfp5", "--accumulate", "fp32"], "1 2", "unknown block format"),
        (["dot", "--format", "fp16", "--block-format", "mxfp4", "--accumulate", "fp16"], "1 2", "not fp16"),
        (["dot", "--format", "fp16", "--block-format", "mxfp4", "--accumulate", "fp64"], "1 2", "not fp64"),
        (["dot", "--format", "fp16", "--block-format", "mxfp4", "--accumulate", "fp32", "--method", "kahan"], "1 2",
         "no --method or --fused"),
        (["dot", "--format", "fp16", "--block-format", "nvfp4", "--truncate-bits", "14", "--promote-every", "32"],
         "1 2", "does not fall on a step"),
        (["dot", "--format", "fp16", "--block-format", "mxfp8", "--accumulate", "fp32"], "1 2\ninf 3\n",
         "finite inputs"),
        (["dot", "--format", "fp16", "--block-format", "mxfp8", "--accumulate", "fp32"], "\n", "no pairs"),
        (["moments", "--format", "fp16", "--method", "welford"], "", "no numbers"),
        (["moments", "--format", "fp16", "--method", "welford"], "1 two 3", "'two' is not a number"),
        (["moments", "--format", "fp16", "--method", "median"], "1 2", "unknown method 'median'"),
        (["moments", "--format", "fp16"], "1 2", "--method"),
        (["moments", "--format", "fp16", "--method", "chan", "--accumulate", "bf16"], "1 2",
         "BF16 is narrower than the input format FP16"),
        (["moments", "--format", "fp32", "--method", "chan", "--accumulate", "fp16"], "1 2", "narrower"),
        (["moments", "--format", "fp16", "--method", "textbook"], "1 70000", "number 2 is inf in FP16"),
        (["moments", "--format", "e2m1", "--method", "textbook"], "1", "unknown format 'e2m1'"),
        (["moments", "/no/such/file", "--format", "fp16", "--method", "chan"], "", "/no/such/file: cannot read"),
        (["softmax", "--format", "fp16", "--order", "sorted"], "1 2", "unknown order 'sorted'"),
        (["softmax", "--format", "fp16", "--order", "naive"], "1 -inf", "number 2 is -inf in FP16"),
        (["softmax", "--format", "bf16", "--accumulate", "fp16", "--order", "naive"], "1 2", "narrower"),
        (["softmax", "--format", "fp16", "--order", "online"], "\n\n", "no numbers"),
        (["softmax", "--format", "e4m3", "--order", "online"], "1 nan", "number 2 is nan"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16"], "\n", "no numbers"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16"], "1 two 3", "line 1: 'two' is not a number"),
        (["allreduce", "--algorithm", "ring", "--wire", "fp16", "--accumulate", "bf16"],
         "1 2", "narrower than the wire format FP16"),
        (["allreduce", "--algorithm", "alltoall", "--wire", "fp32", "--accumulate", "fp16"], "1 2", "narrower"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16", "--chunk", "4"],
         "1 2 3 4", "--chunk 4 is outside 0..3"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16", "--chunk", "-1"],
         "1 2 3 4", "--chunk -1 is outside 0..3"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16", "--chunk", "one"], "1 2", "invalid int value"),
        (["allreduce", "--algorithm", "tree", "--wire", "bf16", "--chunk", "0"],
         "1 2", "--chunk goes with --algorithm ring"),
        (["allreduce", "--algorithm", "star", "--wire", "bf16"], "1 2", "invalid choice"),
        (["allreduce", "--algorithm", "tree", "--wire", "bf16", "--direction", "down"], "1 2",
         "--direction goes with --algorithm ring"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16", "--direction", "left"], "1 2", "invalid choice"),
        (["allreduce", "--algorithm", "ring", "--wire", "fp17"], "1 2", "unknown format"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16", "--average", "mean"], "1 2", "invalid choice"),
        (["allreduce", "--algorithm", "ring", "--wire", "bf16"], "1 inf", "finite"),
        (["allreduce", "--wire", "bf16"], "1 2", "--algorithm"),
    ],
)
def test_bad_input_gives_one_line_and_status_2(
    argv: list[str], stdin: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(argv, stdin, monkeypatch)
    err = capsys.readouterr().err
    assert status == 2 and out == ""
    assert message in err
    assert err.count("\n") == 1, err


def test_a_directory_is_not_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _ = run(["sum", str(tmp_path), "--format", "fp16", "--method", "naive"])
    assert status == 2 and "cannot read" in capsys.readouterr().err


def test_module_entry_point_exits_2_without_a_traceback() -> None:
    done = subprocess.run([sys.executable, "-m", "fpsum", "sum", "--format", "fp16", "--method", "naive"],
                          input="1 x\n", capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == "<stdin>: line 1: 'x' is not a number"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["sum", "race", "formats"])
def test_help_says_what_and_gives_an_example(command: str, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """In process (``python -m fpsum`` itself is run below): argparse prints the help and exits 0."""
    monkeypatch.setenv("COLUMNS", "80")  # the width a pipe gets
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "example:" in out and f"fpsum {command}" in out


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "fpsum"
    done = subprocess.run([str(script), "formats"], capture_output=True, text=True)
    assert done.returncode == 0 and "e5m2" in done.stdout
