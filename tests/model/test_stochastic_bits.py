"""Stochastic rounding with a few random bits, held bit for bit to exact rationals, and what it loses.

``stochastic_round_bits`` models hardware that adds r random bits to the
first r discarded bits of the magnitude and truncates.  The oracle here
does that rule on Fractions: the magnitude of the exact sum, its neighbour
towards zero, the fraction of the gap it covered cut to r bits, and the
draw.  The cases are sums across binades of both signs, zeros and -0.0,
subnormals, overflow, a BF16 weight plus an FP32 update, and the two
extreme draws.  Then the two properties the in-practice page states: below
2^-r of the gap nothing moves, whatever the draw; ideal draws move it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, Format
from fpsum.inputs import make_inputs
from fpsum.stochastic_rounding import stochastic_round, stochastic_round_bits
from reference import NEW_FORMATS

FORMATS = [FP16, BF16, FP32, E4M3, E5M2, *NEW_FORMATS]


def bits_of(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values).view(f"u{values.dtype.itemsize}")


def gap_at(magnitude: Fraction, fmt: Format) -> Fraction:
    """The spacing of ``fmt`` in the binade of ``magnitude`` (> 0), the subnormals sharing the lowest one's."""
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** e > magnitude:
        e -= 1
    return Fraction(2) ** (max(e, fmt.emin) - fmt.precision + 1)


def oracle(a: float, b: float, fmt: Format, r: int, draw: int) -> float:
    """The r-bit rule on exact rationals, one sum at a time."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return add_exact(a, b, fmt)
    exact = Fraction(a) + Fraction(b)
    if exact == 0:
        return add_exact(a, b, fmt)  # the sign of an exact zero, as IEEE addition gives it
    if abs(exact) > Fraction(fmt.max_finite):
        return round_exact(exact, fmt)  # beyond the range: to nearest, and overflow as the format does
    magnitude = abs(exact)
    gap = gap_at(magnitude, fmt)
    z = (magnitude // gap) * gap
    cut = math.floor((magnitude - z) / gap * 2**r)
    result = float(z + gap if cut + draw >= 2**r else z)
    return -result if exact < 0 else result


def pairs(fmt: Format, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Operands of ``fmt`` across binades and signs, near zero, near the largest value, and zeros of both signs."""
    exponents = rng.uniform(fmt.emin - fmt.precision, fmt.emax + 1, (2, n))
    values = rng.choice([-1.0, 1.0], (2, n)) * 2.0**exponents
    close = rng.random(n) < 0.3  # operands a few binades apart: sums that cover a fraction of a gap
    values[1, close] = values[0, close] * 2.0 ** rng.uniform(-fmt.precision - 12, 0, close.sum())
    values[:, rng.random(n) < 0.03] = 0.0
    values[1, rng.random(n) < 0.03] = -0.0
    with np.errstate(over="ignore"):
        stored = to_format(values, fmt).astype(np.float64)
    return stored[0], stored[1]


def check(a: np.ndarray, b: np.ndarray, fmt: Format, r: int, draws: np.ndarray) -> None:
    got = stochastic_round_bits(a, b, fmt, r, draws)
    want = np.array([oracle(x, y, fmt, r, int(d)) for x, y, d in zip(a.tolist(), b.tolist(), draws.tolist())])
    want_bits = bits_of(to_format(want, fmt))
    both_nan = np.isnan(got.astype(np.float64)) & np.isnan(want)  # a NaN's sign and payload are not the rule's
    wrong = np.flatnonzero((bits_of(got) != want_bits) & ~both_nan)
    assert not wrong.size, [(a[i], b[i], int(draws[i]), got[i], want[i]) for i in wrong[:5]]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("r", [1, 4, 8])
def test_r_bit_rounding_is_the_rule_on_exact_rationals(fmt: Format, r: int) -> None:
    rng = np.random.default_rng([fmt.bits, fmt.precision, r])
    a, b = pairs(fmt, 600, rng)
    draws = rng.integers(0, 2**r, a.size)
    draws[::7] = 0
    draws[1::7] = 2**r - 1  # the extreme draws: the most and the fewest sums go away from zero
    check(a, b, fmt, r, draws)


@pytest.mark.parametrize("r", [8, 16])
def test_a_bf16_weight_and_an_fp32_update(r: int) -> None:
    """The weight-update case: an FP32 update far below the BF16 weight's gap, cut to r bits."""
    rng = np.random.default_rng(r)
    weights = to_format(rng.choice([-1.0, 1.0], 500) * 2.0 ** rng.uniform(-4, 4, 500), BF16)
    updates = (rng.choice([-1.0, 1.0], 500) * 2.0 ** rng.uniform(-30, -4, 500)).astype(np.float32)
    draws = rng.integers(0, 2**r, 500)
    check(weights.astype(np.float64), updates.astype(np.float64), BF16, r, draws)


def test_special_values_and_the_widest_cut() -> None:
    a = np.array([math.nan, math.inf, math.inf, -0.0, 0.0, FP16.max_finite, 1.0])
    b = np.array([1.0, -math.inf, 1.0, -0.0, -0.0, 16.0, 2.0**-30])
    r = 52 - FP16.precision
    draws = np.full(a.size, 2**r - 1)
    check(a, b, FP16, r, draws)
    with pytest.raises(ValueError):
        stochastic_round_bits(a, b, FP16, r + 1, draws)
    with pytest.raises(ValueError):
        stochastic_round_bits(a, b, FP16, 0, draws)


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3], ids=lambda f: f.name)
@pytest.mark.parametrize("r", [4, 8])
def test_below_two_to_the_minus_r_of_the_gap_nothing_moves_whatever_the_draw(fmt: Format, r: int) -> None:
    """"Loses every update below 2^-r of the gap": every draw, both signs; ideal draws move the same sums."""
    w = np.array([1.0, 8.0, -3.0, 100.0, 0.75])
    w = to_format(w, fmt).astype(np.float64)
    gap = fmt.ulps(w)  # the gap away from zero
    update = np.sign(w) * gap * (2.0**-r) * (1 - 2.0**-10)  # just under 2^-r of the gap, away from zero
    every = np.arange(2**r)
    moved = stochastic_round_bits(np.repeat(w, every.size), np.repeat(update, every.size), fmt, r,
                                  np.tile(every, w.size)).astype(np.float64)
    assert (moved == np.repeat(w, every.size)).all()
    # At 2^-r of the gap exactly, one draw in 2^r moves it: the cut is exact, not an approximation.
    exact = stochastic_round_bits(np.repeat(w, every.size), np.repeat(np.sign(w) * gap * 2.0**-r, every.size),
                                  fmt, r, np.tile(every, w.size)).astype(np.float64)
    assert ((exact != np.repeat(w, every.size)).reshape(w.size, -1).sum(axis=1) == 1).all()
    # Ideal draws (53 random bits) move the weights below the cut in their share of 2^-r draws.
    rng = np.random.default_rng(1)
    trials = 200_000
    ideal = stochastic_round(np.full(trials, w[0]), np.full(trials, update[0]), fmt, rng.random(trials))
    share = float((ideal.astype(np.float64) != w[0]).mean())
    assert share == pytest.approx(2.0**-r * (1 - 2.0**-10), rel=0.1)


@pytest.mark.parametrize("fmt", [FP16, BF16], ids=lambda f: f.name)
def test_an_update_towards_zero_moves_the_weight_at_least_once_in_two_to_the_r(fmt: Format) -> None:
    """"Biased towards zero": a tiny update towards zero moves the weight in exactly one draw of 2^r."""
    r = 8
    w = to_format(np.array([1.5, -3.0, 8.0, 0.75]), fmt).astype(np.float64)
    tiny = -np.sign(w) * fmt.ulps(w) * 2.0**-20  # far below 2^-r of any gap
    every = np.arange(2**r)
    moved = stochastic_round_bits(np.repeat(w, every.size), np.repeat(tiny, every.size), fmt, r,
                                  np.tile(every, w.size)).astype(np.float64)
    changed = (moved != np.repeat(w, every.size)).reshape(w.size, -1)
    assert (changed.sum(axis=1) == 1).all()  # ideal draws would move it once in 2^20


@pytest.mark.parametrize("fmt", [E5M2, E4M3], ids=lambda f: f.name)
def test_with_r_bits_a_sum_of_inputs_below_one_stalls_at_two_to_the_p_plus_r_minus_one(fmt: Format) -> None:
    """Beyond Kahan: "for inputs below 1 its stall comes at 2^(p+r-1)"; ideal draws carry the same sums past it."""
    r, trials, n = 3, 32, 400
    rng = np.random.default_rng(7)
    values = make_inputs("uniform", n, fmt, seed=3, trials=trials).astype(np.float64)
    values = np.minimum(values, float(np.nextafter(fmt.dtype.type(1), fmt.dtype.type(0))))  # strictly below 1
    few = np.zeros(trials, dtype=fmt.dtype)
    ideal = np.zeros(trials, dtype=fmt.dtype)
    for k in range(n):
        few = stochastic_round_bits(few.astype(np.float64), values[:, k], fmt, r, rng.integers(0, 2**r, trials))
        ideal = stochastic_round(ideal.astype(np.float64), values[:, k], fmt, rng.random(trials))
    stall = 2.0 ** (fmt.precision + r - 1)
    assert (few.astype(np.float64) == stall).all()  # reached, and never passed
    assert (ideal.astype(np.float64) > stall).all()
