"""The generator of sums with a chosen condition number: values of the format, exact sums, the kappa it claims."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import fpsum
from fpsum.conditioned import (
    condition_number,
    conditioned_sums,
    kappa_limit,
    log_targets,
    top_exponent,
)
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format
from reference import as_bits

FORMATS: tuple[Format, ...] = (FP16, BF16, E4M3, E5M2, FP32, FP64)
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
    assert np.array_equal(fpsum.to_format(wide, fmt).astype(np.float64), wide)  # already in the format
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

    (E4M3, with 4 bits and kappa at most 512, is the noisiest: its correlation is the lowest.)
    """
    sums = conditioned_sums(targets(fmt), N, fmt, seed=3)
    ratio = sums.kappa / sums.target
    within = (ratio > 1e-2) & (ratio < 1e2)
    assert within.mean() > 0.9, np.quantile(ratio, [0.05, 0.5, 0.95])
    finite = np.isfinite(sums.kappa)
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


def test_the_limits() -> None:
    """FP16 stops at about 2**(top + 24 - 2); FP64 at the float64 cap; E4M3 a few hundred."""
    assert top_exponent(FP16, N) == 15 - 5 - 1
    assert kappa_limit(FP16, N) == 2.0 ** (9 + 24 - 2)
    assert kappa_limit(FP64, N) == 2.0**1000
    assert 100 < kappa_limit(E4M3, N) < 10_000
    assert kappa_limit(FP16, N) < FP16.unit_roundoff ** -3 < kappa_limit(BF16, N)


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
    values = fpsum.make_inputs("uniform", 100, FP16, seed=0, trials=4)
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
