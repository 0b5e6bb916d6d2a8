"""The training page's sentences that state a behaviour, each checked on the model's output (issue 42).

The parameters are the records' own (``figures.running_loss``,
``figures.microbatch_error``, ``figures.allreduce_error``,
``figures.training_cases``, ``figures.gloo_match``); the expected behaviour
is the sentence's, worked out by another route where there is one (a scalar
loop of ml_dtypes' bfloat16, exact fractions, the ``fpsum`` command the page
shows, gloo's committed results), never a number copied from the build.  The
numbers of huggingface/transformers PR #8561 are the PR's, cited on the page.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from figures import allreduce_error, gloo_match, microbatch_error, running_loss, training_cases
from figures.contract import flatten
from fpsum.allreduce import reduce_ranks, ring_orders
from fpsum.array_rounding import to_format
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, FP16, FP32, Format
from fpsum.training_sums import logged_loss
from libraries import gloo_allreduce as gloo
from look_checks import assert_looks_of_their_own
from page_commands import run_command

LOSS = running_loss.RunningLossParams()
MICRO = microbatch_error.MicrobatchErrorParams()
REDUCE = allreduce_error.AllreduceErrorParams()
CASES = training_cases.TrainingCasesParams()
PR_8561 = {100: 904.0, 200: 1704.0, 300: 2960.0}
"""huggingface/transformers PR #8561: the BF16 running loss after 100, 200 and 300 steps of a loss of 10."""
PR_8561_STALL = 4096.0
"""... and where it stayed from then on."""
BFLOAT16 = ml_dtypes.bfloat16


def bf16_running(values: list[float]) -> list[float]:
    """A naive running sum by ml_dtypes' bfloat16 addition, one step at a time (each correctly rounded)."""
    total, out = BFLOAT16(0), []
    for v in values:
        total = BFLOAT16(total + BFLOAT16(v))
        out.append(float(total))
    return out


def value(text: str) -> float:
    return float(text.replace(",", ""))


# ---------------------------------------------------------------- the running loss


@pytest.fixture(scope="module")
def loss_numbers() -> dict[str, str]:
    return {k.removeprefix("running-loss."): v
            for k, v in flatten("running-loss", running_loss.numbers(running_loss.compute(LOSS), LOSS)).items()}


def test_the_bf16_running_loss_reads_pr_8561s_numbers_and_then_stays(loss_numbers: dict[str, str]) -> None:
    """904, 1,704 and 2,960 after 100, 200 and 300 steps, then 4,096 for good: the PR's numbers, step by step."""
    sums = bf16_running([LOSS.loss] * LOSS.steps)
    for step, published in PR_8561.items():
        assert sums[step - 1] == published
        assert value(loss_numbers[f"bf16.at{step}"]) == published
    stall = sums.index(PR_8561_STALL)
    assert all(s == PR_8561_STALL for s in sums[stall:]) and value(loss_numbers["bf16.stuck"]) == PR_8561_STALL
    assert value(loss_numbers["bf16.stuck_step"]) == stall + 1
    assert np.array_equal(running_loss.compute(LOSS).bf16, np.array(sums))


def test_the_hundred_steps_command_prints_the_first_number(monkeypatch: pytest.MonkeyPatch,
                                                             loss_numbers: dict[str, str]) -> None:
    report = run_command(loss_numbers["long.command"], monkeypatch)
    assert report["result"] == PR_8561[100] == value(loss_numbers["long.part"])


def test_above_4096_bf16_values_are_32_apart_and_a_10_is_lost() -> None:
    top = float(BF16.ulps(np.array([PR_8561_STALL]))[0])
    assert top == 32 and LOSS.loss < top / 2
    assert float(BFLOAT16(PR_8561_STALL) + BFLOAT16(LOSS.loss)) == PR_8561_STALL


def test_where_the_gap_is_16_a_10_rounds_up_and_the_sum_runs_ahead() -> None:
    assert float(BF16.ulps(np.array([2048.0]))[0]) == 16
    assert float(BFLOAT16(2048.0) + BFLOAT16(LOSS.loss)) == 2048 + 16
    sums = np.array(bf16_running([LOSS.loss] * LOSS.steps))
    true = LOSS.loss * np.arange(1, LOSS.steps + 1)
    ahead = np.nonzero(sums > true)[0]
    assert ahead.size > 10 and 2048 <= sums[ahead[0]] and sums[ahead[-1]] <= PR_8561_STALL


def test_resetting_at_each_log_gives_the_fp32_sum_and_a_part_is_exact(loss_numbers: dict[str, str]) -> None:
    runs = running_loss.compute(LOSS)
    logs = np.arange(1, len(runs.logged) + 1) * LOSS.every
    true = LOSS.loss * logs
    assert np.array_equal(runs.logged, true) and np.array_equal(runs.fp32[logs - 1], true)
    assert bf16_running([LOSS.loss] * LOSS.every)[-1] == LOSS.loss * LOSS.every == value(loss_numbers["logged.part"])
    assert value(loss_numbers["logged.last"]) == value(loss_numbers["fp32.last"]) == LOSS.loss * LOSS.steps


def test_a_log_every_hundred_steps_already_rounds_exercise() -> None:
    """Exercise 1: each part of a hundred tens reads 904, not a thousand, so the reset total falls behind."""
    parts = logged_loss(np.full(LOSS.steps, LOSS.loss), BF16, running_loss.LONG_EVERY)
    assert np.all(np.diff(np.concatenate([[0.0], parts])) == PR_8561[100])


def test_256_plus_1_is_256_in_bf16(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lightning-AI/pytorch-lightning#18620's epoch metric."""
    numbers = training_cases.epoch()
    assert float(BFLOAT16(256.0) + BFLOAT16(1.0)) == 256 == value(numbers["sum"]) == value(numbers["n"])
    assert run_command(numbers["command"], monkeypatch)["result"] == 256


# ---------------------------------------------------------------- micro-batches


@pytest.fixture(scope="module")
def micro() -> dict[str, np.ndarray]:
    return microbatch_error.compute(MICRO)


def test_bf16_accumulation_is_the_scalar_loop() -> None:
    grads = microbatch_error.gradients(MICRO)[:4, :300]
    for row in grads:
        model = microbatch_error.accumulate_microbatches(row[np.newaxis].astype(BF16.dtype), BF16)
        assert float(model[0]) == bf16_running(row.tolist())[-1]


def test_bf16_micro_batch_error_climbs_then_stalls_while_fp32_stays_exact_long(micro: dict[str, np.ndarray]) -> None:
    ks = MICRO.ks()
    bf16, fp32 = micro["bf16"], micro["fp32"]
    numbers = microbatch_error.numbers(micro, MICRO)
    at = {k: int(np.nonzero(ks == k)[0][0]) for k in (16, 256)}
    assert 0 < bf16[at[16]] < bf16[at[256]] < 0.01 <= bf16[-1]
    assert bf16[-1] > 0.1  # outgrown its terms: tens of per cent
    first = int(np.argmax(bf16 >= 0.01))
    assert value(str(flatten("m", numbers)["m.bf16.percent_at"])) == ks[first] > 256
    exact_to = value(str(flatten("m", numbers)["m.fp32.exact_to"]))
    assert np.all(fp32[ks <= exact_to] == 0) and fp32[-1] > 0
    assert fp32[-1] < 1e-6 and bf16[-1] / fp32[-1] > 1e6  # millions of times smaller


def test_at_k_max_the_bf16_sum_has_outgrown_its_terms() -> None:
    """At the last k drawn, half the BF16 gap at the typical accumulated gradient exceeds a typical term."""
    grads = microbatch_error.gradients(MICRO)
    totals = microbatch_error.accumulate_microbatches(grads.astype(BF16.dtype), BF16).astype(np.float64)
    half_gap = float(BF16.ulps(np.array([np.median(totals)]))[0]) / 2
    assert half_gap > MICRO.mean


# ---------------------------------------------------------------- the vanishing small values


def test_the_ring_from_the_large_value_loses_every_small_one(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = training_cases.vanish(CASES)
    values = CASES.vanish_values()
    exact = sum(map(Fraction, values), Fraction(0))
    assert value(numbers["exact"]) == float(exact)
    assert ring_orders(CASES.n, int(numbers["first_chunk"]))[0] == 0  # its partial sum starts at rank 0
    first = run_command(numbers["ring_first_command"], monkeypatch)
    assert first["result"] == CASES.big == value(numbers["ring_first"])
    assert first["order"] == list(range(CASES.n))
    correct = float(round_exact(exact, BF16))
    last = run_command(numbers["ring_last_command"], monkeypatch)
    assert last["result"] == correct == value(numbers["ring_last"]) != first["result"]
    assert run_command(numbers["alltoall_command"], monkeypatch)["result"] == correct == value(numbers["alltoall"])


def test_the_tree_of_exercise_3_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = training_cases.vanish(CASES)

    def r(v: Fraction) -> Fraction:
        return Fraction(round_exact(v, BF16))

    level = [Fraction(v) for v in CASES.vanish_values()]
    assert r(level[0] + level[1]) == 1 and CASES.small == 2.0**-9  # a quarter of the gap above 1, lost
    while len(level) > 1:
        level = [r(a + b) for a, b in zip(level[0::2], level[1::2])]
    assert float(level[0]) == 1 + 2.0**-7 == value(numbers["tree"])
    assert r(Fraction(1) + Fraction(1, 256)) == 1  # 1 + 2**-8: a tie, to the even 1
    assert run_command(numbers["tree_command"], monkeypatch)["result"] == float(level[0])


# ---------------------------------------------------------------- the error against N


@pytest.fixture(scope="module")
def sweep() -> allreduce_error.Sweep:
    return allreduce_error.compute(REDUCE)


def test_the_rings_error_grows_as_the_square_root_of_n(sweep: allreduce_error.Sweep) -> None:
    """Megatron-LM#6199's claim, on the model: a fitted slope of 1/2, for BF16 and for FP32 on the wire."""
    assert 0.4 < allreduce_error.slope(sweep, "ring") < 0.65
    assert 0.4 < allreduce_error.slope(sweep, "ringwide") < 0.65


def test_the_growth_by_another_route_two_points_far_apart(sweep: allreduce_error.Sweep) -> None:
    """From N = 16 to 1,024 (64 times the ranks) the ring's error grows about 8-fold, √64."""
    i, j = (int(np.nonzero(sweep.ns == n)[0][0]) for n in (16, 1024))
    for line in ("ring", "ringwide"):
        growth = sweep.medians[line][j] / sweep.medians[line][i]
        assert 4 < growth < 16, (line, growth)


def test_the_tree_grows_slower_and_the_all_to_all_and_switch_stay_at_one_rounding(
        sweep: allreduce_error.Sweep) -> None:
    slopes = {line: allreduce_error.slope(sweep, line) for line in allreduce_error.LINES}
    assert 0.1 < slopes["tree"] < 0.35 < slopes["ring"]
    assert abs(slopes["alltoall"]) < 0.1 and abs(slopes["switch"]) < 0.1
    assert np.all(sweep.medians["alltoall"] <= BF16.unit_roundoff)
    assert np.all(sweep.medians["switch"] <= BF16.unit_roundoff)
    assert np.all(sweep.medians["tree"][4:] < sweep.medians["ring"][4:])  # below the ring from N = 8 on


def test_fp32_on_the_wire_starts_tens_of_thousands_of_times_lower(sweep: allreduce_error.Sweep) -> None:
    ratio = sweep.medians["ring"][1:] / sweep.medians["ringwide"][1:]
    assert np.all((ratio > 1e4) & (ratio < 1e6)), ratio


def test_fp32_accumulation_with_a_bf16_wire_gives_the_bf16_rings_bits(sweep: allreduce_error.Sweep) -> None:
    assert sweep.same == sweep.elements
    numbers = allreduce_error.numbers(sweep, REDUCE)
    assert value(str(flatten("a", numbers)["a.ringacc.same"])) == 100


def test_the_record_quotes_the_fitted_slopes(sweep: allreduce_error.Sweep) -> None:
    quoted = flatten("a", allreduce_error.numbers(sweep, REDUCE))
    for line in allreduce_error.LINES:
        assert quoted[f"a.{line}.slope"] == f"{allreduce_error.slope(sweep, line):.2f}"


def test_the_all_to_all_is_almost_always_the_switch() -> None:
    for n in (3, 64, 1024):
        results, _ = allreduce_error.reduced(n, REDUCE)
        assert np.mean(results["alltoall"] == results["switch"]) >= 0.99


def test_at_two_ranks_the_rounding_is_often_exact_exercise_2(sweep: allreduce_error.Sweep) -> None:
    """Exercise 2: the ring grows faster than √(1024/2) because the first points lie low."""
    growth = sweep.medians["ring"][-1] / sweep.medians["ring"][0]
    assert growth > math.sqrt(REDUCE.ns[-1] / REDUCE.ns[0])
    exact_share = {}
    for n in (REDUCE.ns[0], REDUCE.ns[-1]):
        results, exact = allreduce_error.reduced(n, REDUCE)
        exact_share[n] = float(np.mean(allreduce_error.relative_errors(results["ring"], exact["ring"]) == 0))
    assert exact_share[REDUCE.ns[0]] > 0.3 > exact_share[REDUCE.ns[-1]]


# ---------------------------------------------------------------- FP32 accumulation in a ring, by exhaustion of cases


@pytest.mark.parametrize("wire", [BF16, FP16])
def test_rounding_a_sum_to_fp32_first_never_changes_its_rounding_to_the_wire(wire: Format) -> None:
    """Every exponent difference from 0 to 40, both signs, subnormals too: fl_w(fl_32(a + b)) == fl_w(a + b)."""
    rng = np.random.default_rng(7)
    size = 200_000
    low = -20 if wire is BF16 else -14
    a = rng.uniform(1, 2, size) * np.exp2(rng.integers(low, 10, size)) * rng.choice([-1, 1], size)
    b = a * rng.uniform(0.5, 2, size) * np.exp2(-rng.integers(0, 41, size)) * rng.choice([-1, 1], size)
    tiny = rng.integers(-2**7, 2**7, (2, 2000)) * wire.smallest_subnormal  # subnormal sums
    a, b = np.concatenate([to_format(a, wire), tiny[0]]), np.concatenate([to_format(b, wire), tiny[1]])
    exact = a + b  # exact in float64: two significands of at most 11 bits, exponents at most 40 + 11 apart
    direct = to_format(exact, wire)
    twice = to_format(to_format(exact, FP32), wire)
    assert np.array_equal(direct, twice)


def test_a_ring_over_mixed_magnitudes_is_the_same_with_fp32_accumulation() -> None:
    rng = np.random.default_rng(11)
    for n in (3, 8, 33):
        wide = rng.standard_normal((500, n)) * np.exp2(rng.integers(-12, 13, (500, n)))
        held = to_format(wide, BF16).astype(BF16.dtype)
        chunks = np.arange(500) % n
        plain = reduce_ranks(held, "ring", BF16, chunk=chunks)
        accumulated = reduce_ranks(held, "ring", BF16, FP32, chunk=chunks)
        assert np.array_equal(plain.astype(np.float64), accumulated.astype(np.float64))
        alltoall = reduce_ranks(held, "alltoall", BF16, FP32)  # an FP32 sum kept across additions does differ
        assert not np.array_equal(plain.astype(np.float64), alltoall.astype(np.float64))


# ---------------------------------------------------------------- averaging


def test_one_over_n_is_a_bf16_value_only_for_powers_of_two() -> None:
    numbers = training_cases.average(CASES)
    exact = [n for n in range(2, CASES.average_n_max + 1)
             if Fraction(round_exact(Fraction(1, n), BF16)) == Fraction(1, n)]
    assert exact == [2**k for k in range(1, 11)] and value(numbers["exact_counts"]) == len(exact)
    worst = max(range(2, CASES.average_n_max + 1),
                key=lambda n: abs(Fraction(round_exact(Fraction(1, n), BF16)) * n - 1))
    assert value(numbers["worst_n"]) == worst
    assert value(numbers["worst"]) / 100 <= BF16.unit_roundoff * 1.01


def test_a_third_in_bf16_is_171_512ths_0195_per_cent_high(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = training_cases.average(CASES)
    third = Fraction(round_exact(Fraction(1, 3), BF16))
    assert third == Fraction(171, 512) and float(third) == 0.333984375 == value(numbers["third"])
    assert 3 * third == Fraction(513, 512)
    assert abs(value(numbers["third_high"]) - 100 / 512) < 0.001
    assert run_command(numbers["command"], monkeypatch)["result"] == 0.333984375


def test_pre_division_scales_every_average_and_post_division_does_not() -> None:
    bias = training_cases.biases(CASES)
    assert abs(bias["pre"] - 1 / 512) < 0.0005  # the factor 513/512 of fl(1/3), within the products' noise
    assert abs(bias["post"]) < 0.0002
    numbers = training_cases.average(CASES)
    assert value(numbers["pre_bias"]) > 10 * value(numbers["post_bias"])


# ---------------------------------------------------------------- gloo


@pytest.fixture(scope="module")
def gloo_numbers() -> dict[str, str]:
    built = gloo_match.build("gloo-match", gloo_match.GlooMatchParams())
    return {k.removeprefix("g."): v for k, v in flatten("g", built.numbers).items()}


def test_gloo_is_the_ring_going_down_in_every_element(gloo_numbers: dict[str, str]) -> None:
    data = json.loads(gloo.DATA.read_text(encoding="utf-8"))
    rows = gloo_match.small_runs(data)
    assert {r["ranks"] for r in rows} == {2, 3, 4, 8} and {r["op"] for r in rows} == {"SUM", "AVG"}
    assert {r["dtype"] for r in rows} == {"float32", "bfloat16", "float16"}
    assert gloo_numbers["down.runs"] == gloo_numbers["runs"] == str(len(rows))
    assert value(gloo_numbers["down.elements"]) == value(gloo_numbers["elements"]) == sum(len(r["result"])
                                                                                          for r in rows)
    assert gloo_numbers["down.misses_from"] == "none"


def test_up_and_down_add_the_same_pairs_for_two_and_three_ranks_only() -> None:
    for n in (2, 3, 4, 8):
        up, down = ring_orders(n, np.arange(n), 1), ring_orders(n, np.arange(n), -1)
        same = np.array_equal(np.sort(up[:, :2], axis=1), np.sort(down[:, :2], axis=1)) \
            and np.array_equal(up[:, 2:], down[:, 2:])
        assert same == (n <= 3), n


def test_the_other_orders_miss_where_the_page_says(gloo_numbers: dict[str, str]) -> None:
    data = json.loads(gloo.DATA.read_text(encoding="utf-8"))
    rows = gloo_match.small_runs(data)
    assert value(gloo_numbers["up.runs"]) == sum(1 for r in rows if r["ranks"] <= 3)
    assert gloo_numbers["up.misses_from"] == "4"
    for candidate in ("tree", "alltoall"):
        assert value(gloo_numbers[f"{candidate}.runs"]) == sum(1 for r in rows if r["ranks"] == 2)


# ---------------------------------------------------------------- one look per algorithm


TRAINING_LOOKS = ("ring", "tree", "alltoall", "switch", "ringwide", "logged")


def test_the_training_lines_have_looks_of_their_own() -> None:
    """Colours no other look has, WCAG 3:1 on both backgrounds, a marker each, dashes and markers that differ."""
    from figures.looks import ALLREDUCE_LOOKS

    assert set(ALLREDUCE_LOOKS.values()) <= set(TRAINING_LOOKS)
    assert_looks_of_their_own(TRAINING_LOOKS, allreduce_error.DRAWN)
