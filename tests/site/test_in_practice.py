"""The "In practice" page: its claims on the model's output, the libraries it runs, and the built page.

Each claim test names the sentence it holds (page section in brackets). The
parameters come from the records that compute the page's numbers
(``figures.weight_updates``, ``figures.sum_order``, ``figures.numbers``), so a
test follows the page when a parameter changes; the expected behaviour is the
sentence's, never a number copied from the program.
"""

from __future__ import annotations

import csv
import html as html_lib
import io
import json
import math
import re
import sys
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from figures import numbers, snippets, sum_order, weight_updates
from figures.contract import FigureFiles
from figures.looks import LOOKS
from fpsum.array_rounding import to_format
from fpsum.exact import exact_sum, exact_total
from fpsum.formats import BF16, E4M3, FP16, FP32, Format
from fpsum.methods import running_totals, total
from fpsum.names import UPDATE_LABELS, UPDATE_METHODS, UpdateMethod
from fpsum.order import random_orders, shuffled_totals
from fpsum.pairwise import pairwise_sum
from fpsum.updates import bytes_per_weight, constant_updates, lost_below, update_trajectory
from htmlscan import Page
from look_checks import assert_looks_of_their_own

REPO = Path(__file__).resolve().parents[2]
WEIGHTS = weight_updates.WeightUpdatesParams()
ORDERS = sum_order.OrderParams()
LIBRARY = numbers.LibraryParams()


def value(text: str) -> float:
    """A number as the site writes it (thousands separators, a true minus sign) as a float."""
    return float(text.replace(",", "").replace("−", "-"))


@cache
def trajectories() -> weight_updates.Trajectories:
    return weight_updates.compute(WEIGHTS)


@cache
def weight_numbers() -> dict[str, object]:
    return weight_updates.quoted(trajectories(), WEIGHTS)


def per_start(start: float) -> dict[str, str]:
    per = weight_numbers()[WEIGHTS.key(start)]
    assert isinstance(per, dict)
    return per


@cache
def orders() -> dict[str, sum_order.Orders]:
    return {sum_order.key(r.fmt, r.kind): r for r in sum_order.compute_orders(ORDERS)}


@cache
def trees() -> dict[str, sum_order.Tree]:
    return {sum_order.key(t.fmt, t.kind): t for t in sum_order.compute_tree(ORDERS)}


def after_one(w: np.ndarray, update: np.ndarray, fmt: Format) -> np.ndarray:
    """Each weight after one round-to-nearest update (``update`` float32, one per weight)."""
    return update_trajectory(w, update[np.newaxis], fmt, "nearest")[0]


def normal_weights(fmt: Format, count: int, seed: int) -> np.ndarray:
    """Normal values of ``fmt`` over many binades, both signs, powers of two among them; float64."""
    rng = np.random.default_rng([seed, fmt.precision])
    low, high = max(fmt.emin, -60), min(fmt.emax - 1, 60)
    drawn = np.ldexp(1.0 + rng.random(count), rng.integers(low, high, count))
    drawn[: count // 4] = np.ldexp(1.0, rng.integers(low, high, count // 4))  # powers of two: the narrow gap below
    signed = np.where(rng.integers(0, 2, count) == 1, -drawn, drawn)
    return np.asarray(to_format(signed, fmt), dtype=np.float64)


def toward_zero_fp32(values: np.ndarray) -> np.ndarray:
    """The largest-magnitude FP32 values strictly smaller in magnitude than ``values`` (FP32 themselves)."""
    f = values.astype(np.float32)
    assert np.all(f.astype(np.float64) == values)
    return np.nextafter(f, np.float32(0))


def away_fp32(values: np.ndarray) -> np.ndarray:
    f = values.astype(np.float32)
    assert np.all(f.astype(np.float64) == values)
    return np.nextafter(f, np.copysign(np.float32(np.inf), f))


# ---------------------------------------------------------------- weight updates that vanish


@pytest.mark.parametrize("fmt", [BF16, FP16, FP32], ids=lambda f: f.name)
def test_every_update_below_half_u_times_the_weight_is_lost_and_every_one_above_u_moves_it(fmt: Format) -> None:
    """"Every update smaller in magnitude than 2^-(p+1) times the weight is lost, whatever its sign, and every
    update larger than 2^-p times the weight changes it" [Concept; Maths, for every normal weight].
    """
    w = normal_weights(fmt, 4000, seed=1)
    below = toward_zero_fp32(w * 2.0 ** -(fmt.precision + 1))
    above = away_fp32(w * 2.0 ** -fmt.precision)
    for sign in (1.0, -1.0):
        assert np.all(after_one(w, (sign * below).astype(np.float32), fmt) == w)
        assert np.all(after_one(w, (sign * above).astype(np.float32), fmt) != w)
    # Both thresholds are tight: at a power of two half the gap below is exactly 2^-(p+1) |w| (a tie, lost
    # towards the even w), and elsewhere the gap is wider, so updates between the thresholds do either.
    between = (w * 1.5 * 2.0 ** -(fmt.precision + 1)).astype(np.float32)
    moved = after_one(w, between, fmt) != w
    assert moved.any() and not moved.all()


def test_a_bf16_weight_of_one_has_the_half_gaps_the_page_gives() -> None:
    """"For a weight of 1, half the gap to the next value up is 2^-8 and half the gap down is 2^-9"."""
    one = per_start(1.0)
    assert lost_below(1.0, BF16, 1.0) == 2.0 ** -int(one["up_exp"])
    assert lost_below(1.0, BF16, -1.0) == 2.0 ** -int(one["down_exp"])
    assert int(one["down_exp"]) == int(one["up_exp"]) + 1  # "at a power of two the gap below is half as wide"


@pytest.mark.parametrize(("fmt", "key"), [(BF16, "lost_beyond_exp"), (FP32, "master_lost_beyond")],
                         ids=["bf16", "fp32-master"])
def test_an_update_is_lost_both_ways_by_every_weight_beyond_the_quoted_magnitude(fmt: Format, key: str) -> None:
    """"A BF16 weight loses every update of that size, in either direction, once its magnitude exceeds 2^-5";
    "FP32 loses an update of 0.0001, up or down, once the weight's magnitude exceeds 2,048" [Concept].
    """
    quoted = weight_numbers()[key]
    assert isinstance(quoted, str)
    beyond = 2.0 ** -int(quoted) if key.endswith("_exp") else value(quoted)
    update = np.float32(WEIGHTS.update)
    # Every value of the format in the first binades beyond (exhaustive for BF16), and random larger ones.
    first = np.unique(np.asarray(to_format(np.linspace(beyond, 8 * beyond, 20_000), fmt), dtype=np.float64))
    rng = np.random.default_rng(3)
    larger = np.asarray(to_format(beyond * 2.0 ** rng.uniform(0, 30, 5000), fmt), dtype=np.float64)
    w = np.concatenate([first[first > beyond], larger[larger > beyond]])
    for sign in (1.0, -1.0):
        assert np.all(after_one(w, np.full(w.size, sign * update, dtype=np.float32), fmt) == w)
    # Tight: at the threshold itself the update moves the weight down.
    assert after_one(np.array([beyond]), np.array([-update]), fmt)[0] != beyond


def test_the_weight_figure_as_the_page_tells_it() -> None:
    """Round to nearest stays at its start in both columns from first step to last; the Kahan-compensated weight
    stays at 8; every way's largest error is at most the quoted one; the exact weights end where quoted [Concept].
    """
    t = trajectories()
    for j, start in enumerate(WEIGHTS.starts):
        quoted = per_start(start)
        assert np.all(t.stored["nearest"][:, j] == start)
        assert abs(t.exact[-1, j] - value(quoted["exact"])) < 1e-3
        for method in UPDATE_METHODS:
            worst = float(t.worst_so_far(method)[-1, j])
            assert worst <= value(quoted[f"{method}_ulps"]) < worst * 1.01  # "never more than", and close
            assert t.stored[method][-1, j] == value(quoted[method])
    eight = list(WEIGHTS.starts).index(8.0)
    assert np.all(t.stored["kahan"][:, eight] == 8.0)
    one = list(WEIGHTS.starts).index(1.0)
    assert np.all(np.abs(t.error_ulps("kahan")[:, one]) < 5)  # from 1 the compensation works
    # "Never more than ... ulp from the exact weight: half an ulp from the final rounding, plus the copy's own error"
    assert 0.5 < float(t.worst_so_far("master")[-1].max()) < 0.6


def test_the_weight_figure_draws_every_way_and_the_threshold_it_annotates() -> None:
    t = trajectories()
    steps = weight_updates.drawn_steps(WEIGHTS)
    assert steps[0] == 0 and steps[-1] == WEIGHTS.steps and steps.size == WEIGHTS.samples + 1
    assert weight_updates.with_start(t.exact[:, 0], 1.0)[0] == 1.0
    for start in WEIGHTS.starts:
        assert float(lost_below(start, BF16, 1.0)) > WEIGHTS.update  # "half the gap above ...: 2^-k > 0.0001"


def kahan_never_moves(w0: np.ndarray, update: np.ndarray, steps: int) -> np.ndarray:
    """Whether each Kahan-compensated BF16 weight stays at its start through ``steps`` identical updates."""
    ups = np.broadcast_to(update.astype(np.float32), (steps, w0.size)).copy()
    return np.asarray(np.all(update_trajectory(w0, ups, BF16, "kahan") == w0, axis=0))


def test_kahan_compensated_updates_at_most_two_to_the_e_minus_2p_never_move_a_weight_with_an_even_last_bit() -> None:
    """"For 0 < Δ <= 2^(e-2p) ... the weight never moves" (2^e <= w < 2^(e+1), even last bit) [Maths], and just
    above the limit it moves again; the limits quoted for the figure's starts are these [Maths].
    """
    rng = np.random.default_rng(5)
    e = rng.integers(-20, 20, 60)
    significands = 1.0 + 2.0 * rng.integers(0, 64, 60) * 2.0 ** -(BF16.precision - 1)  # an even last bit
    w0 = np.ldexp(significands, e)
    assert np.all(np.asarray(to_format(w0, BF16), dtype=np.float64) == w0)
    limit = np.ldexp(1.0, e - 2 * BF16.precision)
    steps = 2 ** (BF16.precision + 2)  # the compensation reaches the tie after 2^p updates of the limit
    assert np.all(kahan_never_moves(w0, limit, steps))
    assert np.all(kahan_never_moves(w0, limit / 3, steps))
    assert not np.any(kahan_never_moves(w0, 1.25 * limit, steps))
    for start in WEIGHTS.starts:
        quoted = per_start(start)
        assert weight_updates.kahan_limit(start, BF16) == 2.0 ** -int(quoted["kahan_limit_exp"])
        ratio = WEIGHTS.update / weight_updates.kahan_limit(start, BF16)
        assert (ratio < 1) == (start == 8.0)  # from 8 "the update is ... of it and is lost"; from 1 it works


def test_stochastic_updates_spread_like_the_square_root_of_k_delta_g() -> None:
    """"The weight's standard deviation is about sqrt(k Δ g) when Δ << g" [Maths]: within a fifth, over many weights."""
    k, delta, weights = 2000, WEIGHTS.update, 400
    ups = constant_updates(k, delta, weights=weights)
    finals = update_trajectory(1.0, ups, BF16, "stochastic", seed=2)[-1]
    assert finals.max() < 2.0  # one binade: the gap is g throughout
    g = BF16.ulp(1.0)
    assert finals.std(ddof=1) == pytest.approx(math.sqrt(k * float(np.float32(delta)) * g), rel=0.2)


def test_memory_per_weight_is_the_models() -> None:
    quoted = weight_numbers()["bytes"]
    assert isinstance(quoted, dict)
    assert {m: int(b) for m, b in quoted.items()} == {m: bytes_per_weight(m, BF16) for m in UPDATE_METHODS}
    assert quoted["kahan"] == str(2 * int(quoted["nearest"])) and int(quoted["master"]) == int(quoted["nearest"]) + 4


def test_bounds_are_rounded_up() -> None:
    assert weight_updates.up_to(0.5200031) == "0.521"
    assert weight_updates.up_to(128.0) == "128"
    assert all(value(weight_updates.up_to(x)) >= x for x in np.random.default_rng(0).random(200) * 300)


# ---------------------------------------------------------------- the order of a sum


def test_bf16_uniform_inputs_give_the_stall_point_in_every_order_tried() -> None:
    """"Every order, random or sorted, gives 256" [Concept]."""
    r = orders()["bf16_uniform"]
    assert np.all(r.random == BF16.stall_point)
    assert set(r.sorted.values()) == {BF16.stall_point}


def test_bf16_uniform_inputs_give_the_stall_point_in_every_order_there_is() -> None:
    """The argument of [Maths, Why the order matters], on every partial sum any order of the figure's inputs can reach.

    Those are 0 and the BF16 values from the smallest nonzero input up to S* = 256: adding any of the inputs (all
    between 0 and 1) to one of them below S* gives one of them again, never smaller, at most S* (so, step by step,
    no order leaves them); from S* every input is lost.  Exhaustively over BF16 inputs above one half: below S*
    each raises a partial sum by at least one half.  And the inputs hold more than 2 S* inputs above one half.
    """
    with np.errstate(invalid="ignore"):  # the NaN codes
        codes = np.arange(2**16, dtype=np.uint16).view(ml_dtypes.bfloat16).astype(np.float64)
    finite = codes[np.isfinite(codes)]
    values = ORDERS.inputs(BF16, "uniform").astype(np.float64)
    assert values.min() >= 0 and values.max() <= 1
    inputs = np.unique(values)
    smallest = inputs[inputs > 0].min()
    below = finite[((finite >= smallest) | (finite == 0)) & (finite < BF16.stall_point)]

    def added(s: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Each partial sum (rows) plus each input (columns): the float64 sum is exact, so one rounding."""
        return np.asarray(to_format(s[:, np.newaxis] + x, BF16), dtype=np.float64)

    after = added(below, inputs)
    outside = np.argwhere(~(np.isin(after, below) | (after == BF16.stall_point)))
    assert outside.size == 0, f"{below[outside[0][0]]} + {inputs[outside[0][1]]} is no partial sum of the list"
    assert np.all(after >= below[:, np.newaxis]) and np.all(after <= BF16.stall_point)
    assert np.all(added(np.array([BF16.stall_point]), inputs) == BF16.stall_point)
    every_below = finite[(finite >= 0) & (finite < BF16.stall_point)]
    above_half = finite[(finite > 0.5) & (finite <= 1)]
    assert np.all(added(every_below, above_half) - every_below[:, np.newaxis] >= 0.5)
    # "Inputs between 0 and 1 never make a partial sum smaller", for every BF16 input too: rounding is monotone,
    # so RN(s + x) >= RN(s + tiniest) >= RN(s) = s for x >= tiniest; checked at the tiniest input and at 1.
    tiniest = finite[finite > 0].min()
    assert np.all(added(every_below, np.array([0.0, tiniest, 1.0])) >= every_below[:, np.newaxis])
    assert np.all(added(np.array([BF16.stall_point]), finite[(finite >= 0) & (finite <= 1)]) == BF16.stall_point)
    assert (values > 0.5).sum() > 2 * BF16.stall_point
    assert (values > 0.5).sum() == orders()["bf16_uniform"].above_half


def test_fp16_orders_give_many_totals() -> None:
    """"The 500 orders give 51 different totals" and the ± normal ones too [Concept]."""
    for case in ("fp16_uniform", "fp16_normal", "bf16_normal"):
        assert np.unique(orders()[case].random).size > 10, case


def test_sorted_bf16_normal_inputs_turn_where_the_page_says_and_end_far_off() -> None:
    """Ascending "gives ..., the wrong sign"; the sum "runs down to -512, where the next BF16 value beyond is 4
    further on, so every further negative input smaller than 2 in magnitude is lost"; sorted by magnitude it lands
    "inside the spread of the random orders" [Concept].
    """
    r = orders()["bf16_normal"]
    assert np.sign(r.sorted["ascending"]) != np.sign(r.exact)
    assert abs(r.sorted["descending"] - r.exact) > 5 * (r.random.max() - r.random.min())  # "far worse"
    lowest = r.extremes["ascending_lowest"]
    assert BF16.ulp(abs(lowest)) == 4 and float(lost_below(lowest, BF16, -1.0)) == 2
    for name in ("ascending_magnitude", "descending_magnitude"):
        assert r.random.min() <= r.sorted[name] <= r.random.max(), name


def test_the_order_figure_is_the_model() -> None:
    for r in orders().values():
        values = ORDERS.inputs(r.fmt, r.kind)
        np.testing.assert_array_equal(r.random, shuffled_totals(values, r.fmt, ORDERS.orders, ORDERS.seed))
        assert r.exact == float(exact_sum(values))


def test_the_tree_reduction_as_the_page_tells_it() -> None:
    """One worker is the naive sum, one per input the pairwise sum (caption); in BF16 one worker stalls and every
    count from correct_from on gives the exact sum rounded; in FP16 the counts give several totals [Concept].
    """
    for t in trees().values():
        values = ORDERS.inputs(t.fmt, t.kind)
        assert t.totals[0] == float(total("naive", values, t.fmt))
        assert t.totals[-1] == float(pairwise_sum(values, t.fmt))
    bf16 = trees()["bf16_uniform"]
    assert bf16.totals[0] == BF16.stall_point
    first = value(sum_order.correct_from(bf16))
    rounded = float(to_format(bf16.exact, BF16))
    assert np.all(bf16.totals[bf16.workers >= first] == rounded)
    assert np.all(bf16.totals[bf16.workers < first] != rounded)
    for case in ("fp16_uniform", "fp16_normal"):
        assert np.unique(trees()[case].totals).size > 1


def test_a_sum_of_cancelling_inputs_has_no_reproducible_answer_but_reproducible_summation_would() -> None:
    """The split of [Maths, Reproducible summation]: with σ large enough, the q_i add up exactly in every order."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal(4096).astype(np.float32).astype(np.float64)
    sigma = 2.0 ** (math.ceil(math.log2(np.abs(x).max() * x.size)) + 1)
    q = ((np.float32(sigma) + x.astype(np.float32)) - np.float32(sigma)).astype(np.float64)  # float32 arithmetic
    r = x - q
    assert np.all(r.astype(np.float32).astype(np.float64) == r)  # the remainders are exact too
    for order in random_orders(x.size, 20, seed=1):
        running = np.add.accumulate(q[order].astype(np.float32))
        exact = np.cumsum(q[order])  # float64 holds these partial sums exactly
        assert np.all(running.astype(np.float64) == exact)


# ---------------------------------------------------------------- what your library really does


@cache
def library_numbers() -> dict[str, object]:
    record = next(r for r in numbers.records() if r.id == "library")
    return dict(record.build(record.id, record.params).numbers)


def run(name: str) -> dict[str, str]:
    got = library_numbers()[name]
    assert isinstance(got, dict)
    return got


def test_the_table_quotes_what_the_snippets_print() -> None:
    for name, path in zip(LIBRARY.runs, LIBRARY.files):
        printed = snippets.run_snippet(path)
        assert run(name)["printed"] == printed
        assert numbers.read_run(name, printed) == run(name)


def test_numpy_float16_sums_down_the_columns_stall_in_every_column_and_the_same_call_column_major_does_not() -> None:
    """"Every column stalls at 2,048 (numpy#15785) ... the same call on the same values, stored column by column,
    gives the accurate sums" (as `x.sum()` of each column) [Concept].
    """
    x = np.random.default_rng(LIBRARY.seed).random((LIBRARY.n, LIBRARY.columns)).astype(np.float16)
    assert np.all(x.sum(axis=0) == FP16.stall_point)
    assert [value(v) for v in run("numpy_fp16_axis_trap")["axis0"].split(" / ")] == [FP16.stall_point] * LIBRARY.columns
    column_major = np.asfortranarray(x).sum(axis=0)
    assert np.array_equal(column_major, [x[:, j].copy().sum() for j in range(LIBRARY.columns)])
    exact = np.array([float(exact_sum(x[:, j])) for j in range(LIBRARY.columns)])
    assert np.all(np.abs(column_major.astype(np.float64) - exact) <= FP16.ulps(exact) / 2)  # correctly rounded here


def test_numpy_float16_scans_are_the_naive_sum_and_mean_and_sum_accumulate_in_float32() -> None:
    """cumsum and add.accumulate round every partial sum to float16; `x.sum()` and `x.mean()` are float32 inside,
    rounded once (the table's "how it adds").
    """
    x = np.random.default_rng(LIBRARY.seed).random(LIBRARY.n).astype(np.float16)
    naive = running_totals("naive", x, FP16)
    np.testing.assert_array_equal(np.cumsum(x), naive)
    np.testing.assert_array_equal(np.add.accumulate(x), naive)
    assert x.sum() == np.float16(x.astype(np.float32).sum())
    assert x.mean() == np.float16(x.astype(np.float32).mean())
    assert value(run("numpy_fp16_scans_mean")["cumsum"]) == FP16.stall_point


@pytest.mark.parametrize(("dtype", "fmt", "prefix"), [(ml_dtypes.bfloat16, BF16, "bf16"),
                                                      (ml_dtypes.float8_e4m3fn, E4M3, "e4m3")])
def test_ml_dtypes_sums_are_naive_in_the_type_and_the_mean_is_that_sum_divided(dtype: type, fmt: Format,
                                                                               prefix: str) -> None:
    x = np.random.default_rng(LIBRARY.seed).random(LIBRARY.n).astype(dtype)
    naive = float(total("naive", x, fmt))
    assert float(x.sum()) == naive == fmt.stall_point
    assert float(x.mean()) == float(to_format(naive / LIBRARY.n, fmt))
    printed = run("ml_dtypes_sum_mean")
    assert value(printed[f"{prefix}_sum"]) == naive
    assert value(printed[f"{prefix}_sum_fp32"]) == pytest.approx(float(exact_sum(x)), rel=1e-6)


def test_numpy_float16_sums_are_accurate_exactly_when_the_reduced_axis_has_the_smallest_stride() -> None:
    """"Taken only when the reduced axis is that loop: the axis with the smallest stride in memory, axes of length 1
    aside. A 1-D array or view is its own innermost loop, whatever its stride" [Concept, NumPy's axis trap]: over
    every order of the axes of a 3-D array, C and Fortran, and strided slices, the sum along the long axis is
    accurate (within an ulp of the exact sum) if and only if that axis has the smallest stride.
    """
    base = np.random.default_rng(LIBRARY.seed).random((LIBRARY.n, 4, 3)).astype(np.float16)
    cases = [np.transpose(np.asarray(base, order=order), perm) for order in "CF"
             for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))]
    cases += [np.asarray(base, order=order)[cut] for order in "CF"
              for cut in (np.s_[:, ::2, :], np.s_[::3, :, :], np.s_[:, :, ::2], np.s_[:, 0, :], np.s_[::5, 1, 2])]
    outcomes = set()
    for a in cases:
        axis = int(np.argmax(a.shape))
        smallest = abs(a.strides[axis]) == min(abs(st) for st, size in zip(a.strides, a.shape) if size > 1)
        got = np.asarray(a.sum(axis=axis), dtype=np.float64).ravel()
        lines = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
        exact = np.array([exact_total(line) for line in lines])
        accurate = bool(np.all(np.abs(got - exact) <= FP16.ulps(exact)))
        assert accurate == smallest, (a.shape, a.strides, axis)
        outcomes.add(accurate)
        # "A float16 `mean` takes float32 on every axis": never the stalled sum divided, whatever the layout.
        means = np.asarray(a.mean(axis=axis), dtype=np.float64).ravel()
        assert np.all(np.abs(means - exact / a.shape[axis]) <= FP16.ulps(exact / a.shape[axis])), (a.strides, axis)
    assert outcomes == {True, False}


def test_numpy_float16_strided_views_transposes_means_and_the_issues_case_as_the_page_says() -> None:
    """`x[:, 0].sum()` is as `x.sum()` of that column; `x.T.sum(axis=1)` stalls like `x.sum(axis=0)`; the float16
    mean is the exact mean rounded once on every axis; numpy#15785's pair gives the exact count and the stall point.
    """
    x = np.random.default_rng(LIBRARY.seed).random((LIBRARY.n, LIBRARY.columns)).astype(np.float16)
    column = x[:, 0]
    assert column.strides[0] == LIBRARY.columns * column.itemsize and column.sum() == column.copy().sum()
    exact = float(exact_sum(column))
    assert abs(float(column.sum()) - exact) <= FP16.ulps(np.array([exact]))[0] / 2
    assert np.all(x.T.sum(axis=1) == FP16.stall_point) and np.array_equal(x.T.sum(axis=1), x.sum(axis=0))
    for layout in (x, np.asfortranarray(x)):
        means = [float(to_format(np.array([exact_total(x[:, j]) / LIBRARY.n]), FP16)[0])
                 for j in range(LIBRARY.columns)]
        assert layout.mean(axis=0).tolist() == means
    quoted = run("numpy_fp16_inner_loop")
    assert value(quoted["column_view"]) == float(column.sum())
    assert [value(v) for v in quoted["transposed"].split(" / ")] == [FP16.stall_point] * LIBRARY.columns
    ones = np.ones((3, 3000, 115), dtype=np.float16)
    assert ones[0, :, 110].sum(0) == 3000 == value(quoted["issue_view"])
    assert ones[0].sum(0)[110] == FP16.stall_point == value(quoted["issue_axis0"])


def test_fsum_is_correctly_rounded_unless_a_partial_sum_overflows_and_then_the_order_decides() -> None:
    """"For finite values it returns the correctly rounded sum, however much they cancel, as long as no partial sum
    overflows: `math.fsum([1e308, 1e308, -1e308])` raises OverflowError, while the same values in another order
    give 1e+308" [accumulation-error, in-practice]; the oracle is the exact Fraction sum, rounded once by float().
    """
    from fractions import Fraction

    with pytest.raises(OverflowError):
        math.fsum([1e308, 1e308, -1e308])
    assert math.fsum([1e308, -1e308, 1e308]) == 1e308 == value(run("python_fsum_order")["fsum_reordered"])
    assert run("python_fsum_order")["printed"].splitlines()[0].startswith("OverflowError")
    rng = np.random.default_rng(11)
    for _ in range(300):
        size = int(rng.integers(2, 40))
        values = (rng.standard_normal(size) * 2.0 ** rng.integers(-60, 60, size)).tolist()
        values += [-v for v in values[: size // 2]]  # heavy cancellation
        rng.shuffle(values)
        assert math.fsum(values) == float(sum(Fraction(v) for v in values))


def test_python_sum_is_what_this_python_does() -> None:
    """The table's Python rows: compensated from 3.12, a plain running sum before; fsum correctly rounded."""
    quoted = library_numbers()
    printed = run("python_sum")
    compensated = sys.version_info >= (3, 12)
    assert value(printed["sum"]) == (1.0 if compensated else 0.0)
    assert value(printed["fsum"]) == 1.0
    assert quoted["python_sum_adds"] == ("a compensated (Neumaier) sum" if compensated else "a plain running sum")


# ---------------------------------------------------------------- the built page

FIGURES = ("weight-updates", "sum-order", "tree-reduction")
CSV_HEADERS = {
    "weight-updates": ["format", "start", "update", "step", "exact", *UPDATE_METHODS],
    "sum-order": ["format", "kind", "n", "order", "total", "exact"],
    "tree-reduction": ["format", "kind", "n", "workers", "total", "exact"],
}


def built(site_dir: Path) -> tuple[str, Page]:
    html = (site_dir / "in-practice.html").read_text(encoding="utf-8")
    return html, Page(html)


def code_blocks(html: str) -> list[str]:
    return [html_lib.unescape(re.sub(r"<[^>]+>", "", b)) for b in re.findall(r"<code>(.*?)</code>", html, re.S)]


def test_the_page_has_its_sections_references_and_place_in_the_site(site_dir: Path) -> None:
    _, page = built(site_dir)
    headings = {attrs.get("id") for attrs in page.find("h2")}
    assert {"concept", "maths", "code", "references", "where-next"} <= headings, headings
    links = [a.get("href", "") for a in page.find("a")]
    for wanted in ("https://doi.org/10.1109/TC.2014.2345391", "https://arxiv.org/abs/1710.03740",
                   "https://arxiv.org/abs/2010.06192", "https://github.com/numpy/numpy/issues/15785",
                   "https://github.com/numpy/numpy/issues/24443", "https://github.com/python/cpython/issues/100425",
                   "https://github.com/ml-explore/mlx/pull/3909", "https://github.com/ml-explore/mlx/pull/3907"):
        assert wanted in links, wanted
    for other in ("index.html", "formats.html", "accumulation-error.html"):
        assert 'href="in-practice.html' in (site_dir / other).read_text(encoding="utf-8"), other
    assert "in-practice.md" in (REPO / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_figure_is_numbered_captioned_and_downloadable_with_its_data(site_dir: Path) -> None:
    html, page = built(site_dir)
    anchors = [fig["id"] for fig in page.find("figure", class_="fpsum-figure")]
    assert anchors == [f"fig-{f}" for f in FIGURES]
    for n, figure_id in enumerate(FIGURES, start=1):
        start = html.index(f'id="fig-{figure_id}"')
        chunk = html[start:html.index("</figure>", start)]
        assert f">Figure {n}.</a>" in chunk
        assert len(re.sub(r"<[^>]+>", "", chunk[chunk.index("<figcaption>"):]).split()) >= 25
        alt = re.search(r'alt="([^"]+)"', chunk)
        assert alt and len(alt.group(1).split()) >= 25
        files = FigureFiles.of(figure_id)
        for path in (files.svg, files.dark_svg, files.png, files.csv):
            assert f'href="{path}"' in chunk and (site_dir / path).is_file(), path
        rows = list(csv.reader(io.StringIO((site_dir / files.csv).read_text())))
        assert rows[0] == CSV_HEADERS[figure_id] and len(rows) > 20


def test_the_csvs_are_the_models(site_dir: Path) -> None:
    rows = list(csv.DictReader(io.StringIO((site_dir / "figures" / "weight-updates.csv").read_text())))
    t = trajectories()
    for j, start in enumerate(WEIGHTS.starts):
        last = [r for r in rows if float(r["start"]) == start and int(r["step"]) == WEIGHTS.steps]
        assert len(last) == 1
        for method in UPDATE_METHODS:
            assert float(last[0][method]) == t.stored[method][-1, j]
    rows = list(csv.DictReader(io.StringIO((site_dir / "figures" / "sum-order.csv").read_text())))
    for case, r in orders().items():
        fmt, kind = case.split("_")
        mine = [float(x["total"]) for x in rows if x["format"] == fmt and x["kind"] == kind
                and x["order"].startswith("random_")]
        np.testing.assert_array_equal(mine, r.random)
    rows = list(csv.DictReader(io.StringIO((site_dir / "figures" / "tree-reduction.csv").read_text())))
    for case, tree in trees().items():
        fmt, kind = case.split("_")
        mine = [float(x["total"]) for x in rows if x["format"] == fmt and x["kind"] == kind]
        np.testing.assert_array_equal(mine, tree.totals)


def test_the_library_table_says_what_ran_and_cites_what_did_not(site_dir: Path) -> None:
    html, _ = built(site_dir)
    # Cells may carry attributes (a phone's card labels: hooks/content/table_cards.py).
    table = next(t for t in re.findall(r"<table[\s>].*?</table>", html, re.S) if "ml_dtypes" in t)
    head, *rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    columns = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", head, re.S)]
    assert len(rows) >= 15
    for row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        result = re.sub(r"<[^>]+>", "", cells[columns.index("result")])
        assert result.endswith("run here"), row
        if result == "not run here":
            assert "<a href=" in cells[columns.index("source")], f"a cited row without its source: {row}"
    cited = [row for row in rows if "not run here" in row]
    assert len(cited) >= 3 and any("CUDA" in r for r in cited) and any("MLX" in r for r in cited)
    # Every CPU row of PyTorch, JAX and MLX ran here (make libraries); only GPUs and other versions are cited.
    for row in rows:
        if any(name in row for name in ("PyTorch", "JAX", "MLX")) and "not run here" not in row:
            assert "on the CPU" in row or "on this CPU" in row, row


def test_the_snippets_are_shown_as_they_are_with_what_they_printed(site_dir: Path) -> None:
    blocks = code_blocks(built(site_dir)[0])
    for path in LIBRARY.files:
        source = path.read_text().strip()
        shown = [i for i, b in enumerate(blocks) if b.strip() == source]
        assert shown, f"the page does not show {path.name} as it is"
        assert blocks[shown[0] + 1].strip() == snippets.run_snippet(path), path.name
    committed = json.loads(numbers.LIBRARIES_DATA.read_text())["runs"]
    for name in numbers.CPU_LIBRARY_RUNS:  # run by make libraries: the output committed with them
        source = (snippets.SNIPPETS_DIR / f"{name}.py").read_text().strip()
        shown = [i for i, b in enumerate(blocks) if b.strip() == source]
        assert shown, f"the page does not show {name}.py as it is"
        assert blocks[shown[0] + 1].strip() == committed[name]["printed"], name
    numbers_json = json.loads((site_dir / "data" / "numbers.json").read_text())
    assert numbers_json["library.python_sum.fsum"] == "1"


def test_the_weight_figure_draws_every_way_in_its_look_in_both_palettes(site_dir: Path) -> None:
    for name in ("weight-updates.svg", "weight-updates-dark.svg"):
        root = ET.parse(site_dir / "figures" / name).getroot()
        ids = {g.get("id", "") for g in root.iter("{http://www.w3.org/2000/svg}g")}
        for method in UPDATE_METHODS:
            assert any(i.startswith(f"look-{weight_updates.look(method)}-") for i in ids), (name, method)
        assert any(i.startswith("look-exact-") for i in ids)


def test_the_four_ways_have_looks_of_their_own() -> None:
    """Distinct colours from every other look, WCAG 3:1 on both backgrounds, a dash pattern and a marker each."""
    mine = [weight_updates.look(m) for m in UPDATE_METHODS]
    methods: list[UpdateMethod] = list(UPDATE_METHODS)
    for method, key in zip(methods, mine):
        assert LOOKS[key].label == UPDATE_LABELS[method]
    assert_looks_of_their_own(mine, mine)
