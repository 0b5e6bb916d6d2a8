"""Neumaier, blocked summation and stochastic rounding, against slow exact references."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import reference
from fpsum.array_rounding import to_format
from fpsum.blocked import blocked_running
from fpsum.compensated import neumaier_running
from fpsum.exact import exact_sum
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, Format
from fpsum.inputs import make_inputs
from fpsum.methods import running_totals, total
from fpsum.names import METHODS
from fpsum.stochastic_rounding import stochastic_round
from fpsum.stochastic_sum import stochastic_running
from fpsum.textbook import neumaier
from reference import NEW_FORMATS

FORMATS = [FP16, BF16, E4M3, E5M2, *NEW_FORMATS]


def mixed_inputs(fmt: Format, n: int, seed: int) -> np.ndarray:
    """Mixed signs, cancellation, tiny and huge values, all finite and safely below overflow."""
    rng = np.random.default_rng(seed)
    scale = 2.0 ** rng.integers(fmt.emin - 2, max(min(fmt.emax, 12) - 4, fmt.emin - 1), size=n)
    values = rng.standard_normal(n) * scale
    values[::7] = -values[::7 - 1][: len(values[::7])]  # some exact cancellations
    return to_format(values, fmt)


def bits(values: np.ndarray) -> np.ndarray:
    return np.asarray(values).view(np.uint8 if values.dtype.itemsize == 1 else np.uint16)


def same(model: np.ndarray, expected: list[float], fmt: Format) -> None:
    want = np.array(expected, dtype=np.float64).astype(fmt.dtype)
    nan = np.isnan(model.astype(np.float64)) & np.isnan(want.astype(np.float64))
    assert np.array_equal(bits(model)[~nan], bits(want)[~nan])


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_neumaier_matches_the_scalar_reference(fmt: Format, seed: int) -> None:
    values = mixed_inputs(fmt, 300, seed)
    same(neumaier_running(values, fmt), neumaier(values.astype(float).tolist(), fmt), fmt)


@pytest.mark.parametrize("fmt", [FP16, BF16], ids=lambda f: f.name)
@pytest.mark.parametrize("block", [1, 3, 16, 128, 500])
def test_blocked_matches_the_scalar_reference(fmt: Format, block: int) -> None:
    values = mixed_inputs(fmt, 257, block)
    same(blocked_running(values, fmt, block), reference.blocked(values.astype(float).tolist(), fmt, block), fmt)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("n", [1, 5, 64, 257])
@pytest.mark.parametrize("block", [1, 3, 64, 500])
def test_blocked_total_is_the_last_running_total(fmt: Format, n: int, block: int) -> None:
    """``total("blocked")`` adds the block sums alone: the running version's last entry, bit for bit, on more
    leading axes, with -0.0, inf and NaN among the inputs, and the scalar reference's last total.
    """
    values = np.stack([mixed_inputs(fmt, n, seed) for seed in range(6)]).reshape(2, 3, n)
    values[0, 1, ::4] = np.array(-0.0).astype(fmt.dtype)
    if n > 2:
        values[1, 0, n // 2] = np.array(np.nan).astype(fmt.dtype)
        values[1, 2, 1] = np.array(fmt.max_finite).astype(fmt.dtype)
        values[1, 2, 2] = np.array(fmt.max_finite).astype(fmt.dtype)  # overflow: inf, or NaN in E4M3
    got = total("blocked", values, fmt, block=block)
    assert got.shape == (2, 3)
    same(got.ravel(), blocked_running(values, fmt, block)[..., -1].astype(np.float64).ravel().tolist(), fmt)
    same(got[0, 0:1], reference.blocked(values[0, 0].astype(float).tolist(), fmt, block)[-1:], fmt)
    with pytest.raises(ValueError, match="block size"):
        total("blocked", values, fmt, block=0)


def test_blocked_is_vectorised_over_trials() -> None:
    values = make_inputs("uniform", 1000, FP16, seed=4, trials=3)
    together = blocked_running(values, FP16, 64)
    for t in range(3):
        assert np.array_equal(bits(together[t]), bits(blocked_running(values[t], FP16, 64)))


def test_neumaier_fixes_kahan_when_an_input_dwarfs_the_sum() -> None:
    """The textbook case: 1 + big - big; Kahan loses the 1, Neumaier keeps it."""
    big = FP16.max_finite / 2
    values = np.array([1.0, big, 1.0, -big], dtype=np.float16)
    assert float(total("neumaier", values, FP16)) == 2.0
    assert float(total("kahan", values, FP16)) != 2.0


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2, FP32], ids=lambda f: f.name)
def test_stochastic_round_matches_the_exact_rule_bit_for_bit(fmt: Format) -> None:
    """Same draws, same result: the vectorised rounding against round_exact's stochastic mode."""
    rng = np.random.default_rng(11)
    a = to_format(rng.standard_normal(3000) * 2.0 ** rng.integers(-6, 6, 3000), fmt).astype(np.float64)
    b = to_format(rng.standard_normal(3000) * 2.0 ** rng.integers(-12, 6, 3000), fmt).astype(np.float64)
    draws = rng.random(3000)
    got = stochastic_round(a, b, fmt, draws).astype(np.float64)
    for i in range(3000):
        want = round_exact(Fraction(a[i]) + Fraction(b[i]), fmt, mode="stochastic", uniform=float(draws[i]))
        if math.isnan(want):
            assert math.isnan(got[i])
        else:
            assert got[i] == want, (a[i], b[i], draws[i])


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3], ids=lambda f: f.name)
def test_stochastic_rounding_is_unbiased(fmt: Format) -> None:
    """The mean of many roundings of one sum approaches the exact sum within 5 standard errors."""
    trials = 200_000
    a = np.full(trials, fmt.stall_point)
    x = float(to_format(0.3, fmt))
    rounded = stochastic_round(a, np.full(trials, x), fmt, np.random.default_rng(5).random(trials)).astype(float)
    exact = fmt.stall_point + x
    low, high = fmt.stall_point, fmt.stall_point + fmt.ulp(fmt.stall_point)
    assert set(np.unique(rounded)) <= {low, high}
    p = (exact - low) / (high - low)
    standard_error = (high - low) * math.sqrt(p * (1 - p) / trials)
    assert abs(rounded.mean() - exact) < 5 * standard_error


def test_representable_sums_are_not_perturbed() -> None:
    a = np.array([1.0, 2048.0, -3.0, 0.5])
    b = np.array([1.0, 2.0, 3.0, 0.25])
    for draw in (0.0, 0.999):
        got = stochastic_round(a, b, FP16, np.full(4, draw)).astype(float)
        assert got.tolist() == [2.0, 2050.0, 0.0, 0.75]


@pytest.mark.parametrize("fmt", [FP16, BF16], ids=lambda f: f.name)
def test_stochastic_rounding_does_not_stall_in_the_race(fmt: Format) -> None:
    values = make_inputs("uniform", 8192, fmt, seed=0)
    exact = float(exact_sum(values))
    result = float(stochastic_running(values, fmt)[-1])
    naive_result = float(total("naive", values, fmt))
    assert naive_result == fmt.stall_point
    assert result > 1.5 * fmt.stall_point, "stochastic rounding went past the stall point"
    # Unbiased steps: the error is a random walk of about sqrt(n) half-ulps at the top binade.
    assert abs(result - exact) < 4 * math.sqrt(8192) * fmt.ulp(exact) / 2


def test_stochastic_rounding_is_reproducible_and_seeded() -> None:
    values = make_inputs("uniform", 5000, BF16, seed=1)
    one = running_totals("stochastic", values, BF16, seed=7)
    assert np.array_equal(bits(one), bits(running_totals("stochastic", values, BF16, seed=7)))
    assert not np.array_equal(bits(one), bits(running_totals("stochastic", values, BF16, seed=8)))


def test_overflow_follows_the_format() -> None:
    big16 = np.full(4, 40000.0, dtype=np.float16)
    for method in METHODS:
        if method != "wide":  # its FP32 accumulator holds 160,000 with ease
            assert not np.isfinite(float(total(method, big16, FP16))), method
    big8 = np.full(4, 256.0, dtype=ml_dtypes.float8_e4m3fn)
    assert math.isnan(float(total("naive", big8, E4M3)))
    assert float(total("naive", np.full(4, 40000.0, dtype=np.float16), FP16)) == math.inf


def test_blocked_rejects_a_block_below_one() -> None:
    with pytest.raises(ValueError, match="block size"):
        running_totals("blocked", np.ones(4, dtype=np.float16), FP16, block=0)
