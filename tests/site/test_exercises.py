"""Every worked answer of the Exercises sections, worked out again from the model by another route.

The record ``exercises`` computes the answers' numbers with the vectorised
model; these tests recompute them with the textbook loops, exact fractions,
the ``fpsum`` command the answer names, or brute force, and hold the page's
text to them.  Every topic page has an Exercises section with at least three
exercises, each answered in a collapsed block.
"""

from __future__ import annotations

import io
import json
import math
import re
import shlex
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from browsing import topic_pages
from figures import exercises
from figures.contract import flatten
from fpsum.cli import main
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16
from fpsum.inputs import make_inputs
from fpsum.textbook import add, naive, pairwise

PARAMS = exercises.ExercisesParams()


@pytest.fixture(scope="module")
def answers() -> dict[str, str]:
    flat = flatten("exercises", exercises.build("exercises", PARAMS).numbers)
    return {path.removeprefix("exercises."): text for path, text in flat.items()}


def value(text: str) -> float:
    """A number as the site writes it (thousands separators, a true minus sign, NaN) as a float."""
    return float(text.replace(",", "").replace("−", "-"))


def run(command: str, monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...] = ()) -> dict[str, object]:
    """Run an answer's shell pipeline (``yes``, ``printf`` or none, then ``fpsum``) in process; its JSON."""
    stdin = ""
    producer, _, tail = command.rpartition("| fpsum ")
    if producer:
        words = shlex.split(producer.split("|")[0])
        if words[0] == "yes":
            count = int(shlex.split(producer.split("|")[1])[-1])
            stdin = (" ".join(words[1:]) + "\n") * count
        elif words[0] == "printf":
            stdin = words[1].encode().decode("unicode_escape")
    argv = shlex.split(tail if producer else command.removeprefix("fpsum ")) + list(extra) + ["--json"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    assert main(argv, out) == 0, command
    result: dict[str, object] = json.loads(out.getvalue())
    return result


def test_the_constant_stalls_where_and_when_the_textbook_loop_says(answers: dict[str, str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    stored = round_exact(PARAMS.constant, FP16)
    running = naive([stored] * PARAMS.constant_n, FP16)
    final = running[-1]
    after = next(i + 1 for i in range(len(running)) if all(v == final for v in running[i:]))
    assert value(answers["accumulation.constant.stall"]) == final == 256  # 2**11 * 2**-3, Exercise 1
    assert value(answers["accumulation.constant.after"]) == after
    assert value(answers["accumulation.constant.exact_at_stall"]) == pytest.approx(after * stored, abs=5e-4)
    assert after * stored < final  # it got there ahead of the exact total, as the answer says
    assert run(answers["accumulation.constant.command"], monkeypatch)["result"] == final


def test_kahans_correction_is_the_rounding_error_exactly(answers: dict[str, str]) -> None:
    s, y = 2048.0, round_exact(0.3, FP16)
    t = add(s, y, FP16)
    error = Fraction(t) - (Fraction(s) + Fraction(y))
    assert float(answers["accumulation.fast_two_sum.c"]) == float(error)
    assert float(answers["accumulation.fast_two_sum.error"]) == float(error)
    assert value(answers["accumulation.fast_two_sum.t"]) == t


def test_the_bf16_race_answer_is_the_commands(answers: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    report = run(answers["accumulation.race.command"], monkeypatch)
    final = report["final"]
    assert isinstance(final, dict)
    assert value(answers["accumulation.race.naive"]) == final["naive"] == BF16.stall_point
    assert value(answers["accumulation.race.pairwise"]) == final["pairwise"]
    stalls = report["stalled_after"]
    assert isinstance(stalls, dict) and value(answers["accumulation.race.stalled_after"]) == stalls["naive"]


def test_where_the_bounds_reach_their_marks(answers: dict[str, str]) -> None:
    for fmt in (FP16, BF16):
        worst = int(value(answers[f"error_vs_n.{fmt.name}.worst"]))
        assert (worst - 1) * fmt.unit_roundoff >= 1 > (worst - 2) * fmt.unit_roundoff
        typical = int(value(answers[f"error_vs_n.{fmt.name}.typical"]))
        target = value(answers["error_vs_n.percent"]) / 100
        assert math.sqrt(typical) * fmt.unit_roundoff >= target > math.sqrt(typical - 1) * fmt.unit_roundoff
    assert value(answers["error_vs_n.fp32_stall_n"]) == 2 * 2**24


def test_e4m3_overflow_answers(answers: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    top, tie, over = PARAMS.overflow_terms
    assert value(answers["formats.overflow.tie_sum"]) == round_exact(Fraction(top) + Fraction(tie), E4M3)
    assert math.isnan(round_exact(Fraction(top) + Fraction(over), E4M3))
    assert answers["formats.overflow.over_sum"] == "NaN"
    assert run(answers["formats.overflow.command"], monkeypatch)["result"] == "nan"


def test_fp8_stall_points_are_where_a_naive_sum_of_inputs_below_one_stops(answers: dict[str, str]) -> None:
    for fmt in (E4M3, E5M2):
        just_below_one = float(np.nextafter(fmt.dtype.type(1), fmt.dtype.type(0)))
        running = naive([just_below_one] * 64, fmt)
        assert value(answers[f"formats.stalls.{fmt.name}"]) == running[-1]


@pytest.mark.parametrize("method", ["naive", "kahan", "neumaier"])
def test_the_cancelling_sum_by_each_method(method: str, answers: dict[str, str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    command = answers["beyond_kahan.cancelling.command"].replace("--method neumaier", f"--method {method}")
    report = run(command, monkeypatch)
    assert value(answers[f"beyond_kahan.cancelling.{method}"]) == report["result"]
    assert value(answers["beyond_kahan.cancelling.exact"]) == report["exact"]


def test_stochastic_rounding_of_a_third(answers: dict[str, str]) -> None:
    low, high = float(answers["beyond_kahan.unbiased.low"]), float(answers["beyond_kahan.unbiased.high"])
    assert low < 1 / 3 < high and np.nextafter(np.float16(low), np.float16(1)) == np.float16(high)
    share = (Fraction(1, 3) - Fraction(low)) / (Fraction(high) - Fraction(low))
    assert value(answers["beyond_kahan.unbiased.p_up"]) == pytest.approx(float(share), abs=5e-5)
    # Unbiased: the sample mean is within a few standard errors of the exact 1/3.
    mean, stderr = value(answers["beyond_kahan.unbiased.mean"]), value(answers["beyond_kahan.unbiased.stderr"])
    assert abs(mean - 1 / 3) < 4 * stderr


def test_the_best_block_size_is_the_square_root(answers: dict[str, str]) -> None:
    n = PARAMS.blocked_n
    best = min(range(1, n + 1), key=lambda b: b + n / b)
    assert value(answers["beyond_kahan.blocked.b"]) == best
    assert value(answers["beyond_kahan.blocked.bound"]) == pytest.approx((best + n / best) * FP16.unit_roundoff)


def test_the_bf16_dot_product_is_first_half_wrong_where_the_answer_says(answers: dict[str, str]) -> None:
    fmt = BF16
    k = int(value(answers["dot.half_wrong.k"]))
    x = make_inputs("uniform", k, fmt, PARAMS.seed).astype(np.float64).tolist()
    y = make_inputs("uniform", k, fmt, PARAMS.seed + 1).astype(np.float64).tolist()
    s = 0.0
    exact = Fraction(0)
    errors = []
    for a, b in zip(x, y):
        p = round_exact(Fraction(a) * Fraction(b), fmt)
        s = add(s, p, fmt)
        exact += Fraction(a) * Fraction(b)
        errors.append(abs(Fraction(s) - exact) / exact)
    assert errors[-1] >= Fraction(1, 2) > max(errors[:-1])
    assert value(answers["dot.half_wrong.result"]) == s


def test_ones_through_the_truncating_accumulator(answers: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    command = answers["dot.ones.command"]
    assert run(command, monkeypatch)["result"] == value(answers["dot.ones.never"]) == 2.0**PARAMS.bits
    every = ("--promote-every", answers["dot.ones.every"])
    assert run(command, monkeypatch, every)["result"] == value(answers["dot.ones.promoted"]) == PARAMS.ones


def test_the_median_condition_number_estimate(answers: dict[str, str]) -> None:
    """Against a brute-force sample: 400 draws of K standard normal pairs (drawn in float32, summed in float64)."""
    k = PARAMS.kappa_k
    rng = np.random.default_rng(5)
    xy = rng.standard_normal((400, k), dtype=np.float32) * rng.standard_normal((400, k), dtype=np.float32)
    sample = np.median(np.abs(xy).sum(axis=1, dtype=np.float64) / np.abs(xy.sum(axis=1, dtype=np.float64)))
    assert value(answers["dot.kappa.median"]) == pytest.approx(sample, rel=0.15)


def test_a_bf16_weight_of_one_loses_updates_below_each_threshold(answers: dict[str, str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Brute force over BF16 updates: the largest lost one on each side is the answer's threshold."""
    fmt = BF16
    updates = np.arange(1, 2**14, dtype=np.uint16).view(fmt.dtype).astype(np.float64)  # every positive BF16 < 2
    lost_up = [u for u in updates.tolist() if add(1.0, u, fmt) == 1.0]
    lost_down = [u for u in updates.tolist() if add(1.0, -u, fmt) == 1.0]
    assert max(lost_up) == float(answers["practice.thresholds.up"])  # the tie, lost to the even 1
    assert max(lost_down) == float(answers["practice.thresholds.down"])  # a tie too: 1 is the even neighbour
    assert run(answers["practice.thresholds.tie_command"], monkeypatch)["result"] == 1.0
    assert run(answers["practice.thresholds.probe_command"], monkeypatch)["result"] == \
        float(answers["practice.thresholds.probe_sum"]) > 1.0


def test_the_workers_a_bf16_reduction_needs(answers: dict[str, str]) -> None:
    """Each worker's strided share summed by the textbook loop, the partial sums by the textbook pairwise tree."""
    fmt = BF16
    values = make_inputs("uniform", PARAMS.tree_n, fmt, PARAMS.seed).astype(np.float64).tolist()
    correct = round_exact(sum((Fraction(v) for v in values), Fraction(0)), fmt)
    first = None
    for workers in (1, 2, 4, 8, 16, 32):
        partials = [naive(values[t::workers], fmt)[-1] for t in range(workers)]
        total = pairwise(partials, fmt)
        assert value(answers[f"practice.tree.w{workers}"]) == total
        if first is None and total == correct:
            first = workers
    assert value(answers["practice.tree.first"]) == first
    assert value(answers["practice.tree.correct"]) == correct


def test_memory_per_weight(answers: dict[str, str]) -> None:
    sizes = {"nearest": 2, "kahan": 2 + 2, "stochastic": 2, "master": 2 + 4}  # BF16 weight, BF16 buffer, FP32 copy
    for method, size in sizes.items():
        assert value(answers[f"practice.memory.{method}.bytes"]) == size
        assert value(answers[f"practice.memory.{method}.gb"]) == size * PARAMS.parameters / 1e9


def test_an_ill_conditioned_pair_is_summed_exactly(answers: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = (Fraction(v) for v in PARAMS.cancel_pair)
    assert value(answers["conditioning.sterbenz.kappa"]) == (abs(a) + abs(b)) / abs(a + b)
    report = run(answers["conditioning.sterbenz.command"], monkeypatch)
    assert report["result"] == report["exact"] == value(answers["conditioning.sterbenz.result"])
    assert report["abs_error"] == 0


@pytest.mark.parametrize("page", topic_pages())
def test_every_topic_page_ends_with_three_exercises_answered_in_collapsed_blocks(page: str) -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / page.replace(".html", ".md")).read_text(encoding="utf-8")
    section = text[text.index("\n## Exercises\n"):text.index("\n## References")]
    questions = re.findall(r"^\*\*Exercise \d+ \((?:derivation|numerical|derivation and numerical)\): ", section,
                           re.MULTILINE)
    answers_ = re.findall(r'^\?\?\? success "Answer"\n    \S', section, re.MULTILINE)
    assert len(questions) >= 3 and len(answers_) == len(questions), page


# ---------------------------------------------------------------- error-vs-n, exercise 2: the scale against measurement


def bf16_naive_errors(kind: str, n: int, trials: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent route: ml_dtypes' bfloat16 addition step by step, against math.fsum; errors, inputs, totals."""
    values = make_inputs(kind, n, BF16, PARAMS.seed, trials)  # type: ignore[arg-type]
    totals = np.zeros((trials, n), dtype=values.dtype)
    s = np.zeros(trials, dtype=values.dtype)
    for k in range(n):
        s = s + values[:, k]  # ml_dtypes rounds each bfloat16 addition once, to nearest
        totals[:, k] = s
    exact = np.array([math.fsum(row) for row in values.astype(np.float64).tolist()])
    return np.abs(s.astype(np.float64) - exact) / exact, values.astype(np.float64), totals.astype(np.float64)


def test_a_handful_of_bf16_terms_is_typically_off_by_far_less_than_a_per_cent(answers: dict[str, str]) -> None:
    """Not "typically off by a per cent": the median and 90th percentile are what the page says, below 1 %."""
    n = int(value(answers["error_vs_n.handful.n"]))
    assert n == int(value(answers["error_vs_n.bf16.typical"]))  # the n where √n·u reaches 1 %
    errors, _, _ = bf16_naive_errors("uniform", n, PARAMS.handful_trials)
    median, p90 = 100 * np.median(errors), 100 * np.quantile(errors, 0.9)
    assert value(answers["error_vs_n.handful.median"]) == pytest.approx(median, abs=0.005)
    assert value(answers["error_vs_n.handful.p90"]) == pytest.approx(p90, abs=0.005)
    assert value(answers["error_vs_n.handful.reach"]) == pytest.approx(100 * (errors >= 0.01).mean(), rel=0.05)
    assert median < p90 < 1 / 2  # a per cent is far out in the tail
    assert (errors >= 0.01).mean() < 0.01
    page = (Path(__file__).resolve().parents[2] / "docs" / "error-vs-n.md").read_text(encoding="utf-8")
    assert "{{ exercises.error_vs_n.handful.median }} %" in page and "typically off by a per cent" not in page
    longer, _, _ = bf16_naive_errors("uniform", PARAMS.longer_n, PARAMS.handful_trials)
    assert value(answers["error_vs_n.handful.longer_median"]) == pytest.approx(100 * np.median(longer), abs=0.005)
    assert np.median(longer) < 0.01


def test_bf16_squares_lose_terms_whole_yet_mostly_stay_below_the_scale(answers: dict[str, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Losing whole terms does not by itself put a sum above √n·u; the rounded-up inputs win part back."""
    n, trials = PARAMS.lossy_n, PARAMS.lossy_trials
    errors, values, totals = bf16_naive_errors("squares", n, trials)
    before = np.concatenate([np.zeros((trials, 1)), totals[:, :-1]], axis=1)
    lost = (totals == before) & (values > 0)
    scale = math.sqrt(n) * BF16.unit_roundoff
    assert lost.sum(axis=1).mean() > n / 2  # more than half the inputs lost whole, on average
    assert value(answers["error_vs_n.lossy.lost"]) == pytest.approx(lost.sum(axis=1).mean(), abs=0.5)
    assert np.median(errors) < scale and (errors < scale).mean() > 0.5
    assert value(answers["error_vs_n.lossy.below"]) == pytest.approx(100 * (errors < scale).mean(), abs=0.5)
    assert value(answers["error_vs_n.lossy.median"]) == pytest.approx(100 * np.median(errors), abs=0.05)
    carried = (values * lost).sum(axis=1) / values.sum(axis=1)
    assert value(answers["error_vs_n.lossy.carried"]) == pytest.approx(100 * np.median(carried), abs=0.5)
    gained = np.clip(totals - before - values, 0, None).sum(axis=1)  # what additions rounded up added
    assert np.median(carried) > np.median(errors) and (gained > 0).all()
    final = run(answers["error_vs_n.lossy.command"], monkeypatch)["final"]
    assert isinstance(final, dict) and final["naive"] == totals[0, -1]  # the command is the first trial


def test_half_a_gap_is_a_tie_that_goes_to_the_even_neighbour(answers: dict[str, str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Accumulation, exercise 1: the inputs that move the sum are (a/2, a); a/2 ties to even (numpy float16)."""
    even, odd, half = (np.float16(value(answers[f"accumulation.tie.{k}"])) for k in ("even", "odd", "half"))
    assert np.nextafter(even, np.float16(np.inf)) - even == 1 == 2 * half  # spacing a = 1, the input a/2
    assert int(even.view(np.uint16)) % 2 == 0 and int(odd.view(np.uint16)) % 2 == 1
    assert even + half == even == value(answers["accumulation.tie.even_sum"])  # lost: back to the even total
    assert odd + half == odd + 1 == value(answers["accumulation.tie.odd_sum"])  # a whole gap, to the even 1026
    assert run(answers["accumulation.tie.command"], monkeypatch)["result"] == float(odd + half)


def test_the_blocked_bound_does_not_promise_a_leading_digit(answers: dict[str, str]) -> None:
    """Beyond Kahan, exercise 3: the answer's example meets the bound and has another leading digit."""
    bound = Fraction(answers["beyond_kahan.blocked.bound"])
    true, computed = Fraction(answers["beyond_kahan.blocked.true"]), Fraction(answers["beyond_kahan.blocked.computed"])
    assert abs(computed - true) / true <= bound
    assert str(float(true))[2] != str(float(computed))[2]  # 0.9... against 0.7...
    assert Fraction(answers["beyond_kahan.blocked.low"]) == 1 - bound
    assert Fraction(answers["beyond_kahan.blocked.high"]) == 1 + bound


def test_the_bf16_tree_loses_a_few_inputs_whole_at_its_first_level(answers: dict[str, str]) -> None:
    """Accumulation, exercise 3: not "none is lost"; ml_dtypes' bfloat16 addition of neighbouring pairs."""
    values = make_inputs("uniform", PARAMS.race_n, BF16, PARAMS.seed)
    left, right = values[0::2], values[1::2]
    pair = left + right  # ml_dtypes rounds each bfloat16 addition once
    lost = ((pair == left) & (right > 0)) | ((pair == right) & (left > 0))
    assert value(answers["accumulation.race.pair_lost"]) == lost.sum() > 0


def test_scaling_by_a_power_of_two_keeps_the_stall_count_until_the_subnormals(answers: dict[str, str]) -> None:
    """Formats: the count is unchanged for scalings that stay normal, and changes in the subnormals (numpy float16)."""
    values = make_inputs("uniform", PARAMS.race_n, FP16, PARAMS.seed).astype(np.float64)

    def frozen_after(power: int) -> int:
        scaled = (values * 2.0**power).astype(np.float16)  # numpy's correctly rounded cast
        running = np.add.accumulate(scaled, dtype=np.float16).astype(np.float64)
        return int(np.nonzero(running[1:] != running[:-1])[0][-1]) + 2

    unscaled = frozen_after(0)
    assert all(frozen_after(k) == unscaled for k in (1, 2, 3))  # the sum stays below 65504
    power = -int(answers["formats.scaled.power"])
    assert value(answers["formats.scaled.unscaled_after"]) == unscaled
    assert value(answers["formats.scaled.after"]) == frozen_after(power) != unscaled
