"""Where the conditioning page's promises end at kappa = 1 (issue 39, items 1 and 6).

"Neumaier's method and Sum2 hold to about u⁻², SumK to about u⁻ᴷ" holds for
sums whose n·u is well below 1: in a long FP16 sum of one sign their
corrections stall as a naive sum does.  "The correctly rounded sum is within
u whatever κ is" holds short of overflow.  Each checked on the model for
the inputs the page names, against exact rationals, with the page's commands
run as a reader would run them.
"""

from __future__ import annotations

import io
import json
import shlex
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from test_claims import run_cli

from figures import conditioning_limits
from figures.text import number
from fpsum.cli import main
from fpsum.formats import FP16
from fpsum.inputs import make_inputs
from fpsum.methods import total
from spoken import code_texts, section, spoken_text

PARAMS = conditioning_limits.LimitsParams()
NUMBERS = conditioning_limits.build("conditioning-limits", PARAMS).numbers


def exact(values: np.ndarray) -> Fraction:
    return sum((Fraction(float(v)) for v in values), Fraction(0))


def relative(result: float, values: np.ndarray) -> Fraction:
    s = exact(values)
    return abs(Fraction(result) - s) / abs(s)


def run_printf(command: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Run a page's ``printf '...' | fpsum ...`` command in process, with ``--json``: printf's text is its input."""
    printer, rest = command.split(" | ", 1)
    words = shlex.split(printer)
    assert words[0] == "printf" and len(words) == 2, command
    argv = shlex.split(rest)[1:] + ["--json"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(words[1].replace("\\n", "\n")))
    out = io.StringIO()
    assert main(argv, out) == 0, command
    result: dict[str, object] = json.loads(out.getvalue())
    return result


def test_a_long_uniform_fp16_sum_stalls_neumaier_and_sum2_at_twice_the_naive_stall_and_not_kahan() -> None:
    """κ = 1 and n·u far above 1: Neumaier and Sum2 lose about half the sum, Kahan stays within u."""
    values = make_inputs("uniform", PARAMS.uniform_n, FP16, PARAMS.uniform_seed)
    assert np.all(values >= 0)  # one sign: κ = 1
    u = FP16.unit_roundoff
    assert PARAMS.uniform_n * u > 1  # the length condition fails
    naive, kahan, neumaier, sumtwo, correct = (float(total(m, values, FP16))
                                               for m in ("naive", "kahan", "neumaier", "sumtwo", "correct"))
    assert naive == FP16.stall_point
    assert neumaier == sumtwo == 2 * naive
    assert relative(neumaier, values) > Fraction(2, 5)
    assert kahan == correct and relative(kahan, values) <= u
    uniform = NUMBERS["uniform"]
    assert isinstance(uniform, dict)
    assert uniform["neumaier"] == uniform["sumtwo"] == number(2 * naive)
    assert uniform["kahan"] == number(kahan) and uniform["exact"] == number(float(exact(values)), 0)


def test_each_fold_of_sumk_adds_one_stall_to_a_long_sum_of_copies() -> None:
    """SumK with K folds returns K times the naive stall; Kahan the exact sum."""
    values = np.full(PARAMS.copies, PARAMS.value, dtype=FP16.dtype)
    naive = float(total("naive", values, FP16))
    assert naive == FP16.stall_point
    for folds in (2, PARAMS.folds, PARAMS.folds + 1):
        assert float(total("sumk", values, FP16, folds=folds)) == folds * naive
    assert float(total("neumaier", values, FP16)) == 2 * naive
    assert Fraction(float(total("kahan", values, FP16))) == exact(values)
    assert relative(float(total("sumk", values, FP16, folds=PARAMS.folds + 1)), values) > Fraction(4, 5)


def test_the_long_sum_commands_print_the_pages_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    uniform, copies = NUMBERS["uniform"], NUMBERS["copies"]
    assert isinstance(uniform, dict) and isinstance(copies, dict)
    race = run_cli(uniform["command"], monkeypatch)
    final = race["final"]
    assert isinstance(final, dict)
    for method in ("naive", "kahan", "neumaier", "sumtwo"):
        assert number(final[method]) == uniform[method], method
    assert number(float(str(race["exact"])), 0) == uniform["exact"]
    for method, key in (("kahan", "kahan"), ("neumaier", "neumaier"), ("sumk", "sumk_next")):
        result = run_cli(copies[f"command_{method}"], monkeypatch)
        assert number(float(str(result["result"]))) == copies[key], method
        assert number(float(str(result["exact"]))) == copies["exact"]


def test_a_correctly_rounded_sum_of_kappa_one_overflows(monkeypatch: pytest.MonkeyPatch) -> None:
    """FP16 65504 + 16: κ = 1, the exact sum is the midpoint above the largest value, rounded once it is inf."""
    pair = np.array(PARAMS.overflow, dtype=FP16.dtype)
    assert np.all(pair > 0)
    s = exact(pair)
    assert s == Fraction(FP16.max_finite) + Fraction(FP16.ulp(FP16.max_finite)) / 2
    assert np.isinf(float(total("correct", pair, FP16)))
    overflow = NUMBERS["overflow"]
    assert isinstance(overflow, dict)
    result = run_printf(overflow["command"], monkeypatch)
    assert result["result"] == "inf" and Fraction(float(str(result["exact"]))) == s
    assert overflow["correct"] == "∞" and overflow["exact"] == number(float(s))


def test_the_page_states_both_limits(site_dir: Path) -> None:
    """The built page: In short keeps the length and overflow conditions; the long sums are shown with commands."""
    html = (site_dir / "conditioning.html").read_text(encoding="utf-8")
    text = spoken_text(html)
    short = section(text, "In short", "What to do")
    assert "well below 1" in short and "short of overflow" in short
    uniform, copies, overflow = NUMBERS["uniform"], NUMBERS["copies"], NUMBERS["overflow"]
    assert isinstance(uniform, dict) and isinstance(copies, dict) and isinstance(overflow, dict)
    long_sums = section(text, "Long sums", "SumK in FP16")
    for value in (uniform["exact"], uniform["kahan"], uniform["neumaier"], copies["sumk"], copies["sumk_next"],
                  copies["exact"]):
        assert value in long_sums, value
    shown = "\n".join(code_texts(html))
    for command in (uniform["command"], copies["command_kahan"], copies["command_neumaier"], copies["command_sumk"],
                    overflow["command"]):
        assert command in shown, command
    rounded = section(text, "The correctly rounded sum, and the trap", "Maths: the condition number")
    assert "short of overflow" in rounded and overflow["exact"] in rounded and "∞" in rounded
