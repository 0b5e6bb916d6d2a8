"""Sentences on the pages that state a behaviour, each checked on the model's output for the inputs it names.

The parameters come from the records that compute the pages' numbers
(``figures.stagnation``, ``figures.kahan_limits``), so a test follows the
page when a parameter changes; the expected behaviour is the sentence's,
never a number copied from the program.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from figures import kahan_limits, stagnation, sum_order
from figures.build import registry
from fpsum.array_rounding import to_format
from fpsum.cli import main
from fpsum.exact import exact_running, exact_sum, exact_total
from fpsum.formats import BF16, E4M3, E5M2, FP16, Format, get_format
from fpsum.inputs import make_inputs
from fpsum.methods import running_totals, total
from fpsum.race import RACE_N

STAGNATION = stagnation.StagnationParams()
KAHAN = kahan_limits.KahanLimitsParams()


def run_cli(command: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Run a page's ``[yes X | head -n N |] fpsum ...`` command in process, with ``--json``; its result."""
    stdin = ""
    if command.startswith("yes "):
        words = shlex.split(command)
        value, count = words[1], int(words[words.index("-n") + 1])
        stdin = f"{value}\n" * count
        command = command[command.rindex("fpsum"):]
    argv = shlex.split(command)[1:] + ["--json"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    assert main(argv, out) == 0, command
    result: dict[str, object] = json.loads(out.getvalue())
    return result


# ---------------------------------------------------------------- stagnation before the stall


def seeded(kind: str, n: int = STAGNATION.quote_n) -> np.ndarray:
    return stagnation.draw_inputs(STAGNATION, kind, n)


def relative(total: float, values: np.ndarray) -> float:
    exact = float(exact_sum(values))
    return abs(total - exact) / exact


def test_every_sum_of_the_stagnation_figure_stays_below_the_stall_point() -> None:
    """"Every sum shown stays below the stall point" (caption), and the page's runs too."""
    for kind in stagnation.KINDS:
        values = stagnation.draw_inputs(STAGNATION, kind, STAGNATION.n_max, STAGNATION.trials)
        assert running_totals("naive", values, FP16).max() < FP16.stall_point, kind


@pytest.mark.parametrize("kind", ["squares", "exp", "constant"])
def test_skewed_inputs_lose_more_than_the_probabilistic_bound_before_the_stall(kind: str) -> None:
    """Skewed one-sign inputs pass √n·u while every partial sum is below 2^p; uniform ones stay under it."""
    n = STAGNATION.quote_n
    scale = math.sqrt(n) * FP16.unit_roundoff
    values = seeded(kind)
    assert relative(float(total("naive", values, FP16)), values) > scale
    uniform = seeded("uniform")
    assert relative(float(total("naive", uniform, FP16)), uniform) < scale / 5  # "well below it"


@pytest.mark.parametrize("kind", ["squares", "exp"])
def test_increasing_order_helps_skewed_inputs(kind: str) -> None:
    values = seeded(kind)
    unsorted = relative(float(total("naive", values, FP16)), values)
    ascending = relative(float(total("naive", np.sort(values), FP16)), values)
    assert ascending < unsorted / 2


def test_sorting_is_no_cure_all() -> None:
    """Uniform inputs sorted ascending end worse than unsorted; a constant is not helped at all."""
    uniform = seeded("uniform")
    assert (relative(float(total("naive", np.sort(uniform), FP16)), uniform)
            > relative(float(total("naive", uniform, FP16)), uniform))
    constant = seeded("constant")
    assert total("naive", np.sort(constant), FP16) == total("naive", constant, FP16)


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2], ids=lambda f: f.name)
@pytest.mark.parametrize("kind", ["uniform", "squares", "exp", "normal"])
def test_the_naive_error_never_exceeds_u_times_the_partial_sums(fmt: Format, kind: str) -> None:
    """|ŝ − s| ≤ u Σ_{k≥2} |ŝ_k| after every input (Higham 2002, sec. 4.2): a bound, so no input may break it."""
    values = make_inputs(kind, 3000, fmt, seed=5, trials=8)  # type: ignore[arg-type]
    partial = running_totals("naive", values, fmt).astype(np.float64)
    finite = np.isfinite(partial).all(axis=-1)  # the bound assumes no overflow (E4M3/E5M2 may overflow)
    steps = np.arange(1, values.shape[-1] + 1)
    exact = exact_running(values[finite], steps)
    bound = fmt.unit_roundoff * np.cumsum(np.abs(partial[finite]) * (steps > 1), axis=-1)
    assert finite.any()
    assert (np.abs(partial[finite] - exact) <= bound).all()


@pytest.mark.parametrize("kind", ["uniform", "squares", "exp", "constant"])
def test_the_stagnation_commands_repeat_the_pages_runs(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = stagnation.quoted(STAGNATION)[kind]
    assert isinstance(numbers, dict)
    result = run_cli(numbers["command"], monkeypatch)
    values = seeded(kind)
    naive = float(total("naive", values, FP16))
    text = json.dumps(result)
    assert str(naive) in text or repr(naive) in text, (numbers["command"], result)


# ---------------------------------------------------------------- Kahan's limits


@pytest.mark.parametrize("case", KAHAN.cases, ids=[c[0] for c in KAHAN.cases])
def test_kahan_counterexamples_break_one_ulp_and_their_commands_show_it(
    case: tuple[str, str, float, int], monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, name, value, n = case
    fmt = get_format(name)
    result = run_cli(f"yes {value!r} | head -n {n} | fpsum sum --format {name} --method kahan", monkeypatch)
    total, exact = float(result["result"]), float(result["exact"])  # type: ignore[arg-type]
    assert exact == value * n  # the inputs are exact in the format, and so is their sum
    assert abs(total - exact) > fmt.ulp(exact)


@pytest.mark.parametrize("fmt", [FP16, BF16], ids=lambda f: f.name)
def test_kahan_is_within_one_ulp_for_every_constant_up_to_four_times_two_to_the_p(fmt: Format) -> None:
    worst = float(kahan_limits.reliable(fmt)["worst"])
    assert worst < 1.0


def test_long_bf16_sums_split_uniform_within_one_ulp_squares_beyond() -> None:
    """"Uniform inputs stay within one ulp in every one of the trials ... squared uniforms end beyond it"."""
    runs = kahan_limits.kahan_runs(KAHAN)  # the runs both numbers come from, computed once as the record does
    random = kahan_limits.random_trials(KAHAN, runs)
    uniform, squares = random["uniform"], random["squares"]
    assert isinstance(uniform, dict) and isinstance(squares, dict)
    assert float(uniform["worst"]) < 1 and float(uniform["share"]) == 0
    assert float(squares["share"]) > 0
    assert kahan_limits.first_beyond_one_ulp(KAHAN, runs) > 2 ** (BF16.precision + 2)


def test_kahan_in_fp8_is_far_worse_than_pairwise() -> None:
    e5m2 = get_format("e5m2")
    values = make_inputs("uniform", KAHAN.fp8_n, e5m2, KAHAN.seed, trials=KAHAN.trials)
    exact = exact_running(values, np.array([KAHAN.fp8_n]))[:, 0]
    error = {m: float(np.median(np.abs(total(m, values, e5m2) - exact) / exact)) for m in ("kahan", "pairwise")}
    assert error["kahan"] > 10 * error["pairwise"]


# ---------------------------------------------------------------- the FP32 accumulator still grows


def test_an_fp32_accumulator_still_grows_with_n(site_dir: Path) -> None:
    """"The wider accumulator does not remove the growth with n": the plotted medians grow tenfold or more."""
    params = next(r for r in registry() if r.id == "error-vs-n").params
    with open(site_dir / "figures" / "error-vs-n.csv", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["format"] == "fp16" and r["method"] == "wide"]
    median = {int(r["n"]): float(r["median"]) for r in rows}
    assert median[params.n_max] > 10 * median[256]


# ---------------------------------------------------------------- formats, Maths: abrupt for uniform inputs only


def test_the_stall_is_abrupt_for_uniform_inputs_and_gradual_for_squares() -> None:
    """Uniform FP16 inputs keep pace with the exact sum up to 2^p, then stop dead; squares lose ground gradually."""
    uniform = make_inputs("uniform", 3 * int(FP16.stall_point), FP16, seed=STAGNATION.seed)
    running = running_totals("naive", uniform, FP16).astype(np.float64)
    exact = exact_running(uniform, np.arange(1, uniform.size + 1))
    k = int(np.argmax(running >= FP16.stall_point))
    assert running[k] == FP16.stall_point and (running[k:] == FP16.stall_point).all()
    assert abs(running[k] - exact[k]) / exact[k] < math.sqrt(k + 1) * FP16.unit_roundoff  # no loss until then
    squares = seeded("squares")
    partial = running_totals("naive", squares, FP16).astype(np.float64)
    steps = np.arange(1, squares.size + 1)
    error = np.abs(partial - exact_running(squares, steps)) / exact_running(squares, steps)
    quarters = error[[squares.size // 4 - 1, squares.size // 2 - 1, 3 * squares.size // 4 - 1, squares.size - 1]]
    assert (np.diff(quarters) > 0).all() and partial.max() < FP16.stall_point
    assert quarters[-1] > math.sqrt(squares.size) * FP16.unit_roundoff


# ---------------------------------------------------------------- accumulation-error: the sweep's qualifications


def test_a_pairwise_tree_still_loses_a_tiny_input_paired_with_a_large_one() -> None:
    """"A tiny input paired with a large one is still lost whole": the race's first level of pairs in FP16."""
    values = make_inputs("uniform", RACE_N, FP16, seed=0).astype(np.float64)
    a, b = values[0::2], values[1::2]
    pair = to_format(a + b, FP16).astype(np.float64)  # a + b is exact in float64: one rounding
    assert (((pair == a) & (b > 0)) | ((pair == b) & (a > 0))).any()


def test_only_positive_inputs_are_all_lost_once_half_the_gap_above_exceeds_them() -> None:
    """At a power of two the gap below is half the gap above: a negative input below half the gap above moves it."""
    stall = FP16.stall_point
    half_above = FP16.ulp(stall) / 2
    assert float(np.float16(stall) + np.float16(0.75 * half_above)) == stall
    assert float(np.float16(stall) - np.float16(0.75 * half_above)) < stall


def test_the_stall_condition_needs_a_positive_total_and_the_rounded_sum_can_overflow() -> None:
    """"If S > 0": from a negative power of two a small positive input moves the total; "short of overflow"."""
    assert float(np.float16(-2048) + np.float16(0.75)) == -2047 and FP16.ulp(-2048.0) / 2 > 0.75
    values = to_format(np.array([FP16.max_finite, 32.0]), FP16)
    assert math.isinf(float(total("correct", values, FP16)))


# ---------------------------------------------------------------- error-vs-n: the sweep's qualifications


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2], ids=lambda f: f.name)
def test_inputs_below_one_need_at_least_two_to_the_p_terms_to_reach_the_stall_point(fmt: Format) -> None:
    """Every constant of the format in (0, 1), the fastest inputs below 1: 2^p - 1 of them sum below 2^p."""
    positive = np.arange(1, 2 ** (fmt.bits - 1), dtype=np.uint16 if fmt.bits == 16 else np.uint8)
    with np.errstate(invalid="ignore"):  # the bit patterns include NaNs; they fail "< 1"
        values = positive.view(fmt.dtype).astype(np.float64)
    below_one = values[values < 1]
    n = 2**fmt.precision - 1
    running = running_totals("naive", to_format(np.repeat(below_one[:, None], n, axis=1), fmt), fmt)
    assert (running[:, -1].astype(np.float64) < fmt.stall_point).all()


def test_the_worst_case_bound_needs_no_overflow() -> None:
    """"Holds for every input while ku < 1, short of overflow": two FP16 maxima overflow with k = 1."""
    values = to_format(np.array([FP16.max_finite, FP16.max_finite]), FP16)
    assert math.isinf(float(total("naive", values, FP16))) and FP16.unit_roundoff < 1


# ---------------------------------------------------------------- in practice: orders of a stalled sum


def test_no_running_order_helps_the_bf16_uniform_inputs_but_a_tree_and_a_wider_accumulator_do() -> None:
    """"For these inputs no order of a running sum helps; a tree or a wider accumulator does"."""
    params = sum_order.OrderParams()
    values = params.inputs(BF16, "uniform")
    exact = exact_total(values)
    stalled = float(total("naive", values, BF16))
    assert stalled == BF16.stall_point
    for order in (np.sort(values), np.sort(values)[::-1]):
        assert float(total("naive", order, BF16)) == stalled
    for method in ("pairwise", "wide"):
        assert abs(float(total(method, values, BF16)) - exact) < (exact - stalled) / 10, method
