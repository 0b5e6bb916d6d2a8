"""``fpsum allreduce``: the JSON and text reports against sums worked by hand, and every bad input's one line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from fpsum.cli import main

KEYS = {"algorithm", "wire", "accumulate", "average", "n", "result", "exact", "abs_error", "rel_error"}


def run(argv: list[str], stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    out = io.StringIO()
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return main(["allreduce", *argv], out=out), out.getvalue()


@pytest.mark.parametrize(("chunk", "order", "result"), [
    (0, [1, 2, 3, 0], 260.0),  # 1 + 1 + 1 = 3, + 256 = 259: a BF16 tie between 258 and 260, to the even 260
    (1, [2, 3, 0, 1], 260.0),  # 1 + 1 = 2, + 256 = 258, + 1 = 259: the same tie
    (2, [3, 0, 1, 2], 256.0),  # 1 + 256 = 257: a tie, to 256, and each later 1 is lost the same way
    (3, [0, 1, 2, 3], 256.0),
])
def test_ring_json_gives_the_order_and_the_sum_by_hand(chunk: int, order: list[int], result: float,
                                                        tmp_path: Path) -> None:
    data = tmp_path / "ranks.txt"
    data.write_text("256\n1\n1\n1\n")
    status, out = run([str(data), "--algorithm", "ring", "--wire", "bf16", "--chunk", str(chunk), "--json"])
    assert status == 0
    report = json.loads(out)
    assert set(report) == KEYS | {"chunk", "direction", "order"}
    assert report["order"] == order and report["chunk"] == chunk and report["direction"] == "up"
    assert report["result"] == result and report["exact"] == 259
    assert report["rel_error"] == float(abs(Fraction(result) - 259) / 259)
    assert report["wire"] == report["accumulate"] == "bf16" and report["n"] == 4


def test_other_algorithms_have_no_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # alltoall in FP32: 256 + 1 + 1 + 1 = 259 exactly, rounded once to BF16: the tie 259 goes to 260
    status, out = run(["--algorithm", "alltoall", "--wire", "bf16", "--accumulate", "fp32", "--json"],
                      "256 1 1 1", monkeypatch)
    report = json.loads(out)
    assert status == 0 and set(report) == KEYS and report["result"] == 260 and report["accumulate"] == "fp32"
    # tree: (256 + 1) + (1 + 1) = 256 + 2 = 258
    status, out = run(["--algorithm", "tree", "--wire", "bf16", "--json"], "256 1 1 1", monkeypatch)
    assert json.loads(out)["result"] == 258
    # switch: 259 rounded once, to 260; averaged after: 260 / 4 = 65
    status, out = run(["--algorithm", "switch", "--wire", "bf16", "--average", "post", "--json"],
                      "256 1 1 1", monkeypatch)
    report = json.loads(out)
    assert report["result"] == 65 and report["exact"] == 64.75 and report["average"] == "post"


def test_pre_divide_by_three_in_bf16(monkeypatch: pytest.MonkeyPatch) -> None:
    """1/3 rounds to 0.333984375 in BF16: one rank holding 1 gets it back, 1/512 relative high."""
    status, out = run(["--algorithm", "ring", "--wire", "bf16", "--average", "pre", "--json"], "1 0 0", monkeypatch)
    report = json.loads(out)
    assert report["result"] == 0.333984375 and report["rel_error"] == 1 / 512


def test_decimals_are_rounded_to_the_wire_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """0.1 is not a BF16 value: the exact sum is of the rounded values (0.10009765625 each)."""
    status, out = run(["--algorithm", "switch", "--wire", "bf16", "--json"], "0.1 0.1", monkeypatch)
    report = json.loads(out)
    assert report["exact"] == 0.2001953125 and report["result"] == 0.2001953125 and report["rel_error"] == 0


def test_text_output(monkeypatch: pytest.MonkeyPatch) -> None:
    status, out = run(["--algorithm", "ring", "--wire", "bf16", "--accumulate", "fp32", "--chunk", "2"],
                      "256\n1\n1\n1\n", monkeypatch)
    assert status == 0
    lines = out.splitlines()
    assert lines[:6] == ["algorithm  ring (chunk 2, going up)", "wire       BF16 (bf16)", "accumulate FP32 (fp32)",
                         "average    none", "n          4", "order      3 0 1 2"]
    assert lines[6:8] == ["result     256.0", "exact      259.0"]
    assert lines[8].startswith("abs error  3.0") and lines[9].startswith("rel error  0.0115")


def test_as_a_program_with_its_help() -> None:
    command = [sys.executable, "-m", "fpsum", "allreduce", "--algorithm", "ring", "--wire", "bf16", "--json"]
    done = subprocess.run(command, input="256 1\n", capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["result"] == 256  # Lightning #18620: 256 + 1 = 256
    done = subprocess.run(command + ["--chunk", "2"], input="256 1\n", capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "fpsum", "allreduce", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "example:" in done.stdout and "fpsum allreduce" in done.stdout


def test_direction_down_gives_gloo_s_committed_result_where_up_does_not(tmp_path: Path) -> None:
    """An element of a committed 8-rank BF16 gloo run whose two ways round the ring differ: down is gloo's."""
    from fpsum.formats import get_format
    from libraries import gloo_allreduce as gloo

    data = json.loads(gloo.DATA.read_text(encoding="utf-8"))
    row = next(r for r in data["runs"] if r["ranks"] == 8 and r["dtype"] == "bfloat16" and r["op"] == "SUM"
               and "result" in r)
    fmt = get_format(gloo.DTYPES["bfloat16"])
    values = gloo.rank_values(8, row["numel"], fmt).T.astype(float)
    chunks = gloo.gloo_chunks(row["numel"], 8, fmt.bits // 8)
    found = 0
    for element, (ranks, chunk) in enumerate(zip(values, chunks, strict=True)):
        (tmp_path / "data.txt").write_text("\n".join(repr(float(v)) for v in ranks) + "\n")
        common = [str(tmp_path / "data.txt"), "--algorithm", "ring", "--wire", "bf16", "--accumulate", "fp32",
                  "--chunk", str(chunk), "--json"]
        down = json.loads(run([*common, "--direction", "down"])[1])
        up = json.loads(run(common)[1])
        assert down["result"] == row["result"][element]
        assert down["order"] == [(int(chunk) - 1 - hop) % 8 for hop in range(8)] and down["direction"] == "down"
        found += up["result"] != row["result"][element]
    assert found > 0  # going up misses gloo's bits somewhere in the run
