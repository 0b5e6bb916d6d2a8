"""``fpsum moments`` and ``fpsum softmax``: what they print, checked against exact arithmetic, and every error path."""

from __future__ import annotations

import io
import json
import sys
from fractions import Fraction

import numpy as np
import pytest

from fpsum.cli import main
from fpsum.exact_rounding import round_exact
from fpsum.formats import FP16, FP32, Format
from fpsum.moments import MOMENT_METHODS, moments

MOMENT_KEYS = {"format", "accumulate", "method", "n", "mean", "variance", "exact_mean", "exact_variance",
               "mean_rel_error", "variance_rel_error"}
SOFTMAX_KEYS = {"format", "accumulate", "order", "n", "denominator", "exact_denominator", "denominator_rel_error",
                "probability_sum", "exact_probability_sum"}


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return main(argv, out=out), out.getvalue()


def decimals(n: int) -> tuple[str, list[Fraction]]:
    """n decimals near 2000 as text, and the exact values they spell."""
    texts = [f"{2000 + ((k * 7919) % 2000 - 1000) / 997:.9f}" for k in range(1, n + 1)]
    return "\n".join(texts), [Fraction(t) for t in texts]


def rounded(exact: list[Fraction], fmt: Format) -> list[float]:
    return [round_exact(v, fmt) for v in exact]


def test_moments_json_matches_exact_arithmetic(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two-pass in FP16 accumulated in FP32, one exact operation rounded at a time, against the JSON."""
    text, exact = decimals(300)
    status, out = run(["moments", "--format", "fp16", "--accumulate", "fp32", "--method", "two-pass", "--json"],
                      text, monkeypatch)
    assert status == 0
    report = json.loads(out)
    assert set(report) == MOMENT_KEYS
    xs = rounded(exact, FP16)

    def r(v: Fraction) -> float:
        return round_exact(v, FP32)

    total = xs[0]
    for x in xs[1:]:
        total = r(Fraction(total) + Fraction(x))
    mean = r(Fraction(total) / len(xs))
    deviations = [r(Fraction(x) - Fraction(mean)) for x in xs]
    squares = [r(Fraction(d) ** 2) for d in deviations]
    var_sum = squares[0]
    for s in squares[1:]:
        var_sum = r(Fraction(var_sum) + Fraction(s))
    variance = r(Fraction(var_sum) / len(xs))
    exact_mean = sum(map(Fraction, xs), Fraction(0)) / len(xs)
    exact_variance = sum(((Fraction(x) - exact_mean) ** 2 for x in xs), Fraction(0)) / len(xs)
    assert (report["format"], report["accumulate"], report["method"], report["n"]) == ("fp16", "fp32", "two-pass", 300)
    assert (report["mean"], report["variance"]) == (mean, variance)
    assert (report["exact_mean"], report["exact_variance"]) == (float(exact_mean), float(exact_variance))
    assert report["variance_rel_error"] == float(abs(Fraction(variance) - exact_variance) / exact_variance)
    assert report["mean_rel_error"] == float(abs(Fraction(mean) - exact_mean) / exact_mean)


@pytest.mark.parametrize("method", MOMENT_METHODS)
def test_every_method_prints_the_model_s_moments(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command hands the exactly rounded inputs to the model: its numbers, in text and in JSON."""
    text, exact = decimals(77)
    want = moments(np.array(rounded(exact, FP32)), FP32, FP32, method)  # type: ignore[arg-type]
    status, out = run(["moments", "--format", "fp32", "--method", method, "--json"], text, monkeypatch)
    report = json.loads(out)
    assert status == 0 and (report["mean"], report["variance"]) == (want.mean, want.variance)
    assert report["accumulate"] == "fp32"
    status, out = run(["moments", "--format", "fp32", "--method", method], text, monkeypatch)
    lines = {line[:21].strip(): line[22:] for line in out.splitlines()}  # the name padded to 21, then the value
    assert status == 0 and float(lines["variance"]) == want.variance and lines["method"] == method
    assert float(lines["exact variance"]) == float(want.exact_variance)


def test_fp32_textbook_gives_a_negative_variance(monkeypatch: pytest.MonkeyPatch) -> None:
    """The row of four values near 2000 (pytorch#51102's case) whose FP32 textbook variance is -0.75."""
    row = np.float32([2000.9987, 2000.7917, 2000.8596, 2000.639])
    text = " ".join(repr(float(v)) for v in row)
    report = json.loads(run(["moments", "--format", "fp32", "--method", "textbook", "--json"], text, monkeypatch)[1])
    assert report["variance"] < 0 < report["exact_variance"]
    report = json.loads(run(["moments", "--format", "fp32", "--method", "welford", "--json"], text, monkeypatch)[1])
    assert report["variance"] > 0 and report["variance_rel_error"] < 1e-3


def test_softmax_of_equal_fp16_logits(monkeypatch: pytest.MonkeyPatch) -> None:
    """4,096 equal logits: FP16 naive order gives the denominator 2048 and probabilities adding up to 2."""
    text = " ".join(["0"] * 4096)
    status, out = run(["softmax", "--format", "fp16", "--order", "naive", "--json"], text, monkeypatch)
    report = json.loads(out)
    assert status == 0 and set(report) == SOFTMAX_KEYS
    assert (report["denominator"], report["exact_denominator"], report["denominator_rel_error"]) == (2048, 4096, 0.5)
    assert (report["probability_sum"], report["exact_probability_sum"]) == (1.0, 2.0)
    status, out = run(["softmax", "--format", "fp16", "--accumulate", "fp32", "--order", "online", "--json"], text,
                      monkeypatch)
    report = json.loads(out)
    assert (report["denominator"], report["exact_probability_sum"], report["accumulate"]) == (4096, 1.0, "fp32")
    status, out = run(["softmax", "--format", "fp16", "--order", "pairwise"], text, monkeypatch)
    assert status == 0 and "denominator           4096.0" in out


@pytest.mark.parametrize("command", ["moments", "softmax"])
def test_help_says_what_and_gives_an_example(command: str, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "example:" in out and f"fpsum {command}" in out


def test_an_exact_variance_beyond_the_doubles_prints_as_inf(monkeypatch: pytest.MonkeyPatch) -> None:
    """FP64 inputs of +-1e300: the exact variance, 1e600, has no double; the JSON says "inf", as for a result."""
    status, out = run(["moments", "--format", "fp64", "--method", "two-pass", "--json"], "-1e300 1e300",
                      monkeypatch)
    report = json.loads(out)
    assert status == 0 and report["exact_variance"] == "inf" and report["variance"] == "inf"
    assert report["exact_mean"] == 0.0
