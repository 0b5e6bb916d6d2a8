"""The generator of sums with a chosen condition number: values of the format, exact sums, the kappa it claims."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from fpsum import conditioned
from fpsum.array_rounding import to_format
from fpsum.conditioned import (
    condition_number,
    conditioned_sums,
    kappa_limit,
    log_targets,
    top_exponent,
)
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format
from fpsum.inputs import make_inputs
from reference import NEW_FORMATS, as_bits

# FP4 and FP6 have room for a handful of terms only (test_too_little_range_is_refused).
FORMATS: tuple[Format, ...] = (FP16, BF16, E4M3, E5M2, FP32, FP64,
                               *(f for f in NEW_FORMATS if f.overflow != "saturate"))
N = 32


def ids(fmt: Format) -> str:
    return fmt.name


def targets(fmt: Format, n: int = N, per_decade: int = 2, repeat: int = 8) -> np.ndarray:
    return np.repeat(log_targets(1.0, min(kappa_limit(fmt, n), 1e60), per_decade), repeat)


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_values_are_of_the_format_and_sums_never_overflow(fmt: Format) -> None:
    sums = conditioned_sums(targets(fmt), N, fmt, seed=1)
    values = sums.values
    assert values.dtype == fmt.dtype and values.shape == (sums.target.size, N)
    wide = values.astype(np.float64)
    assert np.isfinite(wide).all()
    assert not (np.signbit(wide) & (wide == 0)).any(), "no -0.0"
    assert np.array_equal(to_format(wide, fmt).astype(np.float64), wide)  # already in the format
    # No partial sum of any order, and no sum of magnitudes, leaves the format's range.
    assert (np.cumsum(np.abs(wide), axis=-1)[:, -1] < 2.0**fmt.emax).all()


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_exact_sums_and_kappa_are_the_exact_ones(fmt: Format) -> None:
    sums = conditioned_sums(targets(fmt, repeat=1), N, fmt, seed=2)
    for row, exact, absolute, kappa in zip(sums.values.astype(np.float64).tolist(), sums.exact.tolist(),
                                           sums.absolute.tolist(), sums.kappa.tolist()):
        s = sum(map(Fraction, row), Fraction(0))
        a = sum((abs(Fraction(v)) for v in row), Fraction(0))
        assert exact == float(s) and absolute == float(a)
        if s == 0:
            assert kappa == math.inf
        else:
            assert abs(Fraction(kappa) - a / abs(s)) <= abs(a / s) * Fraction(4, 2**53)


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_the_achieved_kappa_follows_the_target(fmt: Format) -> None:
    """Near the target, not on it: within a factor of 100 either way for 90 % of rows, rising with it.

    Some sums come out exactly 0 (kappa inf): few (at most 1 % of the rows) away from the limit,
    more near it, where a sum falls to about two quanta.  (E4M3, with 4 bits and a limit of 2**15,
    is the noisiest: its correlation is the lowest, its share of zeros the highest.)
    """
    sums = conditioned_sums(targets(fmt), N, fmt, seed=3)
    finite = np.isfinite(sums.kappa)
    assert (1 - finite.mean()) < 0.15
    far = sums.target < min(kappa_limit(fmt, N), 1e60) / 1000
    assert np.count_nonzero(~finite & far) <= 0.01 * finite.size
    ratio = sums.kappa[finite] / sums.target[finite]
    within = (ratio > 1e-2) & (ratio < 1e2)
    assert within.mean() > 0.9, np.quantile(ratio, [0.05, 0.5, 0.95])
    assert np.corrcoef(np.log(sums.target[finite]), np.log(sums.kappa[finite]))[0, 1] > 0.85


def test_fp64_reaches_kappa_far_beyond_one_over_u_cubed() -> None:
    sums = conditioned_sums(np.full(20, 1e50), N, FP64, seed=4)
    assert np.median(sums.kappa) > 1e49
    assert (sums.kappa > FP64.unit_roundoff ** -3).mean() > 0.5


@pytest.mark.parametrize("fmt", [FP16, BF16], ids=ids)
def test_sixteen_bit_formats_reach_their_limit(fmt: Format) -> None:
    limit = kappa_limit(fmt, N)
    sums = conditioned_sums(np.full(20, limit), N, fmt, seed=5)
    assert np.median(sums.kappa[np.isfinite(sums.kappa)]) > limit / 100


def test_fp16_reaches_beyond_one_over_u_cubed_to_near_its_ceiling() -> None:
    """32 FP16 terms, magnitudes below 2**15, a sum of a few quanta 2**-24: kappa near 2**39, past u**-3 = 2**33.

    The old generator kept the largest terms below 2**10 and stopped at 2**31; kappa is checked here
    against the exact rational sums, and no sum reaches the ceiling 2**15 / 2**-24.
    """
    sums = conditioned_sums(np.full(64, kappa_limit(FP16, N)), N, FP16, seed=6)
    kappa = []
    for row in sums.values.astype(np.float64).tolist():
        s = sum(map(Fraction, row), Fraction(0))
        a = sum((abs(Fraction(v)) for v in row), Fraction(0))
        assert a < 2**15 and s.denominator <= 2**24
        if s:
            kappa.append(a / abs(s))
    assert max(kappa) < Fraction(2) ** 39
    assert sorted(kappa)[len(kappa) // 2] > 2 * FP16.unit_roundoff ** -3 and max(kappa) > Fraction(2) ** 37


def test_only_the_rows_that_need_room_below_are_moved_up() -> None:
    """Below the old limit a row is never moved; above it, the moved row is deeper, not a scaled copy."""
    early = conditioned_sums(np.array([1e3, 1e6, 1e9]), N, FP16, seed=7)
    assert np.abs(early.values.astype(np.float64)).max() < 2.0 ** (top_exponent(FP16, N) + 1)
    late = conditioned_sums(np.full(8, kappa_limit(FP16, N)), N, FP16, seed=7)
    assert np.abs(late.values.astype(np.float64)).max() >= 2.0 ** (top_exponent(FP16, N) + 1)
    # "Rows that need no room are the first build, bit for bit": the first build, redone by hand
    rng = np.random.default_rng([conditioned.CONDITIONED_STREAM, 7])
    rows, half = 3, N // 2
    draws = conditioned._Draws(uniform=rng.random((rows, half)), first=conditioned._steps(rng, rows, half),
                               later=conditioned._steps(rng, rows, N - half))
    spread = np.log2(early.target)[:, np.newaxis]
    first = conditioned._rows(draws, np.minimum(np.ceil(spread), top_exponent(FP16, N)), spread, FP16)
    assert np.array_equal(np.sort(first.astype(np.float64) + 0.0, axis=-1),
                          np.sort(early.values.astype(np.float64), axis=-1))


def test_the_limits() -> None:
    """A sum of magnitudes below 2**(emax - 1) over two quanta: 2**37 in FP16, 2**15 in E4M3; FP64 capped."""
    assert top_exponent(FP16, N) == 15 - 5 - 1
    assert kappa_limit(FP16, N) == 2.0 ** (15 - 1 + 24 - 1) == kappa_limit(FP16, 4)
    assert kappa_limit(E4M3, N) == 2.0 ** (8 - 1 + 9 - 1)
    assert kappa_limit(FP64, N) == 2.0**1000
    assert FP16.unit_roundoff ** -3 < kappa_limit(FP16, N) < FP16.unit_roundoff ** -4


def test_seeded_and_reproducible() -> None:
    one = conditioned_sums(np.array([10.0, 1e8]), 16, FP32, seed=7)
    two = conditioned_sums(np.array([10.0, 1e8]), 16, FP32, seed=7)
    other = conditioned_sums(np.array([10.0, 1e8]), 16, FP32, seed=8)
    assert np.array_equal(as_bits(one.values), as_bits(two.values))
    assert not np.array_equal(as_bits(one.values), as_bits(other.values))
    scalar = conditioned_sums(10.0, 16, FP32, seed=7)
    assert scalar.values.shape == (1, 16)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 100])
def test_any_length_from_two(n: int) -> None:
    sums = conditioned_sums(np.array([1.0, 1e3, 1e6]), n, FP32, seed=0)
    assert sums.values.shape == (3, n)
    assert np.isfinite(sums.values.astype(np.float64)).all()


def test_condition_number_of_one_sign_is_one() -> None:
    values = make_inputs("uniform", 100, FP16, seed=0, trials=4)
    _, _, kappa = condition_number(values)
    assert np.array_equal(kappa, np.ones(4))
    _, _, kappa = condition_number(np.array([[1.0, -1.0], [0.0, 0.0]]))
    assert (kappa == math.inf).all()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least 2 terms"):
        conditioned_sums(10.0, 1, FP16)
    with pytest.raises(ValueError, match="in \\[1,"):
        conditioned_sums(0.5, 10, FP16)
    with pytest.raises(ValueError, match="in \\[1,"):
        conditioned_sums(kappa_limit(E5M2, 10) * 2, 10, E5M2)
    with pytest.raises(ValueError, match="in \\[1,"):
        conditioned_sums(np.ones((2, 2)), 10, FP16)
    with pytest.raises(ValueError):
        log_targets(10.0, 1.0, 2)


def test_log_targets_cover_the_range() -> None:
    t = log_targets(1.0, 1e6, 2)
    assert t[0] == 1.0 and t[-1] == pytest.approx(1e6) and t.size == 13
    assert np.allclose(np.diff(np.log10(t)), 0.5)


@pytest.mark.parametrize("fmt", [f for f in NEW_FORMATS if f.overflow == "saturate"], ids=ids)
def test_too_little_range_is_refused(fmt: Format) -> None:
    """In FP4 and FP6, 100 terms that can never overflow would all lie below the normal range."""
    with pytest.raises(ValueError, match=f"{fmt.label} has too little range for a conditioned sum of 100 terms"):
        conditioned.conditioned_sums(10.0, 100, fmt)
