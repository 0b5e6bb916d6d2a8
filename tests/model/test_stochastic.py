"""Stochastic rounding's running totals, computed a run of inputs at a time, against one rounding per input.

``stochastic_running`` rounds whole runs of inputs at once
(``fpsum.stochastic_rounding.stochastic_run``) wherever the sums stay in one binade.
Here its totals are held, bit for bit, to what they stand for:
``stochastic_round`` applied once per input with the same draw for the same
step, and the textbook loop on exact rationals.  The inputs are the cases
where a run has to stop or must not stop: totals crossing binades either
way, negative totals, zeros and -0.0, subnormals, overflow to inf (NaN in
E4M3), a total pinned at the largest value, NaN and inf inputs, and BF16 and
FP32 sums that float64 rounds.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, Format
from fpsum.inputs import InputKind, make_inputs
from fpsum.stochastic_rounding import stochastic_round, stochastic_run
from fpsum.stochastic_sum import ROUNDING_STREAM, stochastic_running
from fpsum.textbook import stochastic as textbook_stochastic
from reference import NEW_FORMATS

FORMATS = [FP16, BF16, FP32, E4M3, E5M2, *NEW_FORMATS]
Maker = Callable[[Format, tuple[int, int], np.random.Generator], np.ndarray]


def bits(values: np.ndarray) -> np.ndarray:
    """The stored bits, NaN payloads and signs included."""
    return np.ascontiguousarray(values).view(f"u{values.dtype.itemsize}")


def stored(values: np.ndarray, fmt: Format) -> np.ndarray:
    with np.errstate(over="ignore"):
        return to_format(values, fmt)


def assert_one_rounding_per_input(totals: np.ndarray, values: np.ndarray, fmt: Format, seed: int) -> None:
    """``totals`` are ``s = stochastic_round(s, x)`` input after input from ``s = +0``, the same draws, bit for bit.

    The draws: one per addition from the ``(ROUNDING_STREAM, seed)`` stream,
    step after step, the trials of a step together.  Every step is checked at
    once: each total must be ``stochastic_round`` of the total before it (``+0``
    before the first) and its input, with its draw (``stochastic_round`` is
    elementwise).  Where that holds at every step, the totals are, by
    induction on the step, the ones the loop of one rounding per input gives.
    """
    assert totals.shape == values.shape and totals.dtype == fmt.dtype
    rows, got = values.reshape(-1, values.shape[-1]), totals.reshape(-1, values.shape[-1])
    draws = np.random.default_rng([ROUNDING_STREAM, seed]).random((rows.shape[1], rows.shape[0])).T
    before = np.concatenate([np.zeros((rows.shape[0], 1), dtype=fmt.dtype), got[:, :-1]], axis=1)
    want = stochastic_round(before.astype(np.float64), rows.astype(np.float64), fmt, draws)
    wrong = np.argwhere(bits(got) != bits(want))
    if wrong.size:
        trial, step = wrong[0]
        raise AssertionError(f"trial {trial}, step {step}: {got[trial, step]!r} after {before[trial, step]!r} + "
                             f"{rows[trial, step]!r} (draw {draws[trial, step]!r}); one rounding gives "
                             f"{want[trial, step]!r} ({wrong.shape[0]} steps differ)")


def across_binades(fmt: Format, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Both signs over many binades, with +0.0 and -0.0: in BF16 and FP32, sums that float64 rounds."""
    exponents = rng.uniform(fmt.emin - fmt.precision, min(fmt.emax, 40), shape)
    values = rng.choice([-1.0, 1.0], shape) * 2.0**exponents
    values[rng.random(shape) < 0.05] = 0.0
    values[rng.random(shape) < 0.05] = -0.0
    return stored(values, fmt)


def near_zero(fmt: Format, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Small multiples of the smallest subnormal, both signs, and -0.0: totals that change sign and hit zero."""
    multiples = rng.integers(-20, 21, shape) * rng.choice([1.0, 2.0**fmt.precision], shape)
    values = multiples * fmt.smallest_subnormal
    values[rng.random(shape) < 0.05] = -0.0
    return stored(values, fmt)


def random_walk(fmt: Format, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Uniform on [-1, 1): a total that wanders up and down across the binades around 1."""
    return stored(rng.uniform(-1.0, 1.0, shape), fmt)


def towards_overflow(fmt: Format, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Mostly positive inputs whose totals pass the largest value part way: inf, or NaN in E4M3."""
    values = rng.random(shape) * 4.0 * fmt.max_finite / shape[1]
    values[:, ::5] *= -0.5
    return stored(values, fmt)


def pinned(fmt: Format, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """The largest value, then inputs near half the top gap, mostly outward: pinned there, leaving, overflowing."""
    half_gap = fmt.ulp(fmt.max_finite) / 2
    steps = np.array([0.0, -0.0, half_gap / 4, half_gap / 2, half_gap, 2 * half_gap, -2 * half_gap])
    values = rng.choice(steps, shape, p=[0.1, 0.1, 0.3, 0.38, 0.04, 0.04, 0.04])
    values[:, 0] = fmt.max_finite
    values[1::2] *= -1  # and the same at -max_finite
    return stored(values, fmt)


def with_nan_and_inf(fmt: Format, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Uniform inputs with a NaN, a +inf and a -inf here and there (E4M3 stores an infinity as NaN; FP4 and FP6
    have neither: an infinity saturates, and they hold no NaN).
    """
    values = rng.random(shape)
    for special in (math.nan, math.inf, -math.inf)[1 if fmt.overflow == "saturate" else 0:]:
        values[rng.integers(0, shape[0]), rng.integers(0, shape[1])] = special
    return stored(values, fmt)


MAKERS: list[Maker] = [across_binades, near_zero, random_walk, towards_overflow, pinned, with_nan_and_inf]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("make", MAKERS, ids=lambda m: m.__name__)
def test_runs_give_the_bits_of_one_rounding_per_input(fmt: Format, make: Maker) -> None:
    values = make(fmt, (8, 1500), np.random.default_rng(3))
    for seed in (0, 5):
        assert_one_rounding_per_input(stochastic_running(values, fmt, seed), values, fmt, seed)


@pytest.mark.parametrize("fmt", [FP16, BF16], ids=lambda f: f.name)
@pytest.mark.parametrize("kind", ["uniform", "ones", "exp", "symmetric"])
def test_long_sums_give_the_bits_of_one_rounding_per_input(fmt: Format, kind: InputKind) -> None:
    """Long enough for FP16's totals to reach the top binade (ones: and stay pinned at 65,504)."""
    values = make_inputs(kind, 70_000, fmt, seed=2, trials=3)
    assert_one_rounding_per_input(stochastic_running(values, fmt, 1), values, fmt, 1)


@pytest.mark.parametrize("shape", [(1,), (2,), (700,), (2, 3, 40), (0, 5)])
def test_any_leading_axes_draw_trial_after_trial(shape: tuple[int, ...]) -> None:
    values = random_walk(FP16, (math.prod(shape[:-1]), shape[-1]), np.random.default_rng(4)).reshape(shape)
    got = stochastic_running(values, FP16, 9)
    assert got.shape == shape and got.dtype == FP16.dtype
    assert_one_rounding_per_input(got, values, FP16, 9)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_runs_match_the_textbook_loop_on_exact_rationals(fmt: Format) -> None:
    """The definition itself: each exact sum rounded once (stochastic mode), beyond the largest value to nearest."""
    rng = np.random.default_rng(6)
    values = np.concatenate([make(fmt, (2, 200), rng) for make in MAKERS], axis=0)
    draws = np.random.default_rng([ROUNDING_STREAM, 2]).random((values.shape[1], values.shape[0]))
    got = stochastic_running(values, fmt, 2).astype(np.float64)
    for trial, row in enumerate(values.astype(np.float64)):
        want = textbook_stochastic(row.tolist(), draws[:, trial].tolist(), fmt)
        assert np.array_equal(got[trial], want, equal_nan=True), trial


def run_reference(start: np.ndarray, x: np.ndarray, draws: np.ndarray, fmt: Format) -> np.ndarray:
    """The totals of a run from ``start``, one ``stochastic_round`` at a time (float64)."""
    totals = np.empty_like(x)
    s = start
    for i in range(x.shape[1]):
        s = stochastic_round(s, x[:, i], fmt, draws[:, i]).astype(np.float64)
        totals[:, i] = s
    return totals


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_a_run_holds_exactly_up_to_its_first_sum_outside_the_binade(fmt: Format) -> None:
    """From 1.5 (binade [1, 2)), inputs of 1/16: the sums stay below 2 for 7 steps; the 8th reaches 2."""
    width = 20
    rng = np.random.default_rng(8)
    start = np.full(6, 1.5)
    x = np.full((6, width), 1 / 16)
    x[:, 7:] = rng.uniform(-1, 1, (6, width - 7))
    draws = rng.random((6, width))
    totals, held = stochastic_run(start, x, draws, fmt)
    # Whether 1.5 + k/16 stays in [1, 2) depends on the roundings before it; the run stops at the first that does not.
    want = run_reference(start, x, draws, fmt)
    sums = np.concatenate([start[:, None], want[:, :-1]], axis=1) + x
    # Where [1, 2) is the lowest normal binade (FP4, FP6 E2M3), the subnormals below it share its gap.
    outside = (np.abs(sums) < (1 if fmt.emin < 0 else 0)) | (np.abs(sums) >= 2)
    first_outside = np.where(outside.any(axis=1), np.argmax(outside, axis=1), width)
    assert np.array_equal(held, first_outside)
    assert (held >= 2).all()  # the first steps cannot leave [1, 2): whole-gap totals below 2
    for row in range(6):
        assert np.array_equal(totals[row, :held[row]], want[row, :held[row]])


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_what_a_run_holds_is_right_from_any_start(fmt: Format) -> None:
    """Random starts and inputs of every size: the totals a run says it holds are the step-by-step ones."""
    rng = np.random.default_rng(10)
    shape = (400, 12)
    x = across_binades(fmt, shape, rng).astype(np.float64)
    x[::3] = random_walk(fmt, shape, rng)[::3]
    start = across_binades(fmt, (shape[0], 1), rng).astype(np.float64)[:, 0]
    specials = [fmt.max_finite, -fmt.max_finite, math.inf, -math.inf, 0.0, -0.0, 1.0]
    if fmt.overflow != "saturate":  # FP4 and FP6 hold no NaN
        specials.append(math.nan)
    start[::7] = np.resize(specials, start[::7].size)
    start = stored(start, fmt).astype(np.float64)
    draws = rng.random(shape)
    totals, held = stochastic_run(start, x, draws, fmt)
    want = run_reference(start, x, draws, fmt)
    for row in range(shape[0]):
        assert np.array_equal(bits(totals[row, :held[row]]), bits(want[row, :held[row]])), row
    # A run holds its first step unless that sum needs the reference (overflow, -0.0 + -0.0, float64 rounding);
    # from inf or NaN it holds everything.
    first = start + x[:, 0]
    plain = np.isfinite(first) & (np.abs(first) <= fmt.max_finite) & (first != 0)
    if fmt in (FP16, E4M3, E5M2):
        assert (held[plain] >= 1).all()
    assert (held[~np.isfinite(start)] == shape[1]).all()


def test_first_sums_left_to_the_reference() -> None:
    """Overflow, NaN and -0.0 + -0.0 hold nothing; a total pinned at the largest value or infinite holds on.

    In FP16, 65,504 + 16 is a tie between 65,504 and 65,536, so it rounds to
    inf; 65,504 + 8 rounds back to 65,504, and so does everything up to the
    first input that is not outward by less than 16.
    """
    start = np.array([65504.0, 65504.0, math.inf, -math.inf, -0.0, 1.0])
    x = np.array([[16.0, 1.0], [8.0, -2048.0], [1.0, -math.inf], [5.0, 6.0], [-0.0, 1.0], [math.nan, 1.0]])
    totals, held = stochastic_run(start, x, np.full((6, 2), 0.5), FP16)
    assert held.tolist() == [0, 1, 2, 2, 0, 0]
    assert totals[1, 0] == 65504.0
    assert totals[2, 0] == math.inf and math.isnan(totals[2, 1]) and totals[3].tolist() == [-math.inf, -math.inf]


@pytest.mark.parametrize("fmt", [BF16, FP32], ids=lambda f: f.name)
def test_a_sum_float64_rounds_is_left_to_the_reference(fmt: Format) -> None:
    """1 - 2**-60 is 1.0 in float64, but the exact sum lies below 1, in the binade of half the gap.

    With the largest draw, stochastic_round's covered fraction (1 - 2**-52 of
    that gap) is above the draw only just not: it rounds down, to the value
    below 1.  Rounding float64's 1.0 would give 1.0.  First step and later step.
    """
    below_one = 1.0 - fmt.ulp(0.5)
    largest_draw = 1.0 - 2.0**-53
    start = np.array([1.0, 0.5])
    x = np.array([[-(2.0**-60), 0.5], [0.5, -(2.0**-60)]])
    draws = np.array([[largest_draw, 0.5], [0.5, largest_draw]])
    want = run_reference(start, x, draws, fmt)
    assert want[0, 0] == below_one and want[1, 1] == below_one
    totals, held = stochastic_run(start, x, draws, fmt)
    assert held.tolist() == [0, 1]
    assert totals[1, 0] == want[1, 0]
    values = np.array([[1.0, -(2.0**-60)] * 50, [0.5, 0.5, -(2.0**-60)] * 33 + [0.5]], dtype=fmt.dtype)
    assert_one_rounding_per_input(stochastic_running(values, fmt, 4), values, fmt, 4)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_a_draw_equal_to_the_fraction_covered_rounds_down(fmt: Format) -> None:
    """Up only when the draw is below the fraction: from 1, a quarter gap then half gaps, with draws of exactly that."""
    gap = fmt.ulp(1.0)
    x = np.array([[gap / 4, gap / 2, gap / 2, gap / 4]])
    draws = np.array([[0.25, 0.5, 0.5, 0.25]])
    totals, held = stochastic_run(np.array([1.0]), x, draws, fmt)
    assert held.tolist() == [4]
    assert totals.tolist() == run_reference(np.array([1.0]), x, draws, fmt).tolist() == [[1.0] * 4]


def test_nan_after_inf_keeps_the_sign_ieee_addition_gives_it() -> None:
    """From +inf: + -inf is the default NaN, and adding an input NaN to it keeps the first operand's NaN."""
    start = np.array([math.inf, math.inf, math.nan])
    x = np.array([[1.0, -math.inf, math.nan, 1.0], [math.nan, -math.inf, 2.0, math.inf], [-math.inf, 1.0, 2.0, 3.0]])
    draws = np.full(x.shape, 0.5)
    totals, held = stochastic_run(start, x, draws, FP16)
    assert held.tolist() == [4, 4, 4]
    assert np.array_equal(bits(totals), bits(run_reference(start, x, draws, FP16)))
