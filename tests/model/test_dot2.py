"""TwoProduct and Dot2 against exact rationals and a scalar loop of correctly rounded operations; TF32 rounding.

The oracle multiplies and subtracts Fractions and rounds once with
``round_exact``; it shares no code with the model's float64 and Dekker
routes.  Dot2's loop adds with ``add_exact``, one operation at a time, as
Ogita, Rump and Oishi write it.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

import fpsum
from fpsum.array_rounding import to_format
from fpsum.conditioned import conditioned_sums
from fpsum.dot import exact_dot, products
from fpsum.dot2 import dot2, dot2_running, two_product
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import BF16, E4M3, FORMATS, FP16, FP32, FP64, Format
from fpsum.inputs import make_inputs
from fpsum.tf32 import TF32_PRECISION, tf32_dot, to_tf32
from reference import assert_same_bits, from_floats, random_values

ALL = list(FORMATS.values())
NARROW = [f for f in ALL if f.bits <= 32]


def fp64_values(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """FP64 values over the whole range: normal draws times 2**-1074 .. 2**1000, both signs, zeros, subnormals."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) * np.ldexp(1.0, rng.integers(-1074, 1000, shape))
    values.flat[::17] = 0.0
    values.flat[5::23] = -0.0
    return values


def values_of(fmt: Format, shape: tuple[int, ...], seed: int, kind: str) -> np.ndarray:
    if fmt is FP64:
        return fp64_values(shape, seed) if kind == "codes" else np.random.default_rng(seed).standard_normal(shape)
    return random_values(fmt, shape, seed, kind)


def exact_two_product(a: float, b: float, fmt: Format) -> tuple[float, float]:
    """``fl(ab)`` and ``fl(ab - fl(ab))`` from Fractions, for finite a and b: the FMA's result, IEEE's zeros."""
    exact = Fraction(a) * Fraction(b)
    negative = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
    h = round_exact(-0.0 if negative else 0.0, fmt) if exact == 0 else round_exact(exact, fmt)  # fnuz: no -0
    if not math.isfinite(h):
        return h, (-h if fmt.overflow == "inf" else math.nan)
    rest = exact - Fraction(h)
    return h, 0.0 if rest == 0 else round_exact(rest, fmt)


@pytest.mark.parametrize("kind", ("mixed", "codes"))
@pytest.mark.parametrize("fmt", ALL, ids=lambda f: f.name)
def test_two_product_is_the_fma_correctly_rounded(fmt: Format, kind: str) -> None:
    if kind == "mixed" and fmt is FP64:
        kind = "normal"
    x = values_of(fmt, (2000,), 0, kind)
    y = values_of(fmt, (2000,), 1, kind)
    h, r = two_product(x, y, fmt)
    want = [exact_two_product(a, b, fmt) for a, b in zip(x.astype(float).tolist(), y.astype(float).tolist())]
    assert_same_bits(h, from_floats([w[0] for w in want], fmt), x, y)
    assert_same_bits(r, from_floats([w[1] for w in want], fmt), x, y)


def test_two_product_in_fp64_takes_the_exact_route_outside_dekkers_window() -> None:
    """Huge, tiny and overflowing FP64 products: the split would overflow or its pieces underflow."""
    big, tiny = 2.0**600 * (1 + 2.0**-52), 2.0**-600 * (1 + 2.0**-30)
    x = np.array([big, tiny, 1e300, 3 * 2.0**-1074, tiny, 2.0**1023])
    y = np.array([big, tiny, 1e-300, 0.7, -big, 3.0])
    h, r = two_product(x, y, FP64)
    want = [exact_two_product(a, b, FP64) for a, b in zip(x.tolist(), y.tolist())]
    assert_same_bits(h, np.array([w[0] for w in want]), x, y)
    assert_same_bits(r, np.array([w[1] for w in want]), x, y)
    assert r[5] == -math.inf and h[5] == math.inf  # overflow: the FMA's fl(ab - inf) is -inf


@pytest.mark.parametrize("fmt", [f for f in ALL if f.overflow == "inf"], ids=lambda f: f.name)
def test_two_product_is_error_free_where_the_exponents_allow(fmt: Format) -> None:
    """h + r == ab exactly when nothing overflows and e_a + e_b >= emin + p - 1."""
    x = values_of(fmt, (4000,), 2, "codes")
    y = values_of(fmt, (4000,), 3, "codes")
    h, r = two_product(x, y, fmt)
    a, b = x.astype(float), y.astype(float)
    with np.errstate(divide="ignore", over="ignore"):
        exponents = np.floor(np.log2(np.abs(a))) + np.floor(np.log2(np.abs(b)))
        safe = (exponents >= fmt.emin + fmt.precision - 1) & np.isfinite(h.astype(float))
        safe &= np.abs(a * b) <= fmt.max_finite  # a filter only: the check below is exact
    assert safe.sum() > 100
    for i in np.flatnonzero(safe):
        assert Fraction(float(h[i])) + Fraction(float(r[i])) == Fraction(float(a[i])) * Fraction(float(b[i]))


def reference_dot2(xs: list[float], ys: list[float], fmt: Format) -> float:
    """Ogita, Rump and Oishi's Algorithm 5.3, one correctly rounded scalar operation at a time."""
    p, s = exact_two_product(xs[0], ys[0], fmt)
    for x, y in zip(xs[1:], ys[1:]):
        h, r = exact_two_product(x, y, fmt)
        total = add_exact(p, h, fmt)
        if all(map(math.isfinite, (p, h, total))):
            q = float(Fraction(p) + Fraction(h) - Fraction(total))  # TwoSum's error: a value of fmt
        else:
            q = math.nan  # TwoSum's inf - inf
        p = total
        s = add_exact(s, add_exact(q, r, fmt), fmt)
    return add_exact(p, s, fmt)


@pytest.mark.parametrize("fmt", ALL, ids=lambda f: f.name)
def test_dot2_running_matches_the_scalar_loop(fmt: Format) -> None:
    kind = "normal" if fmt is FP64 else "mixed"
    x = values_of(fmt, (3, 40), 4, kind)
    y = values_of(fmt, (3, 40), 5, kind)
    got = dot2_running(x, y, fmt)
    want = [[reference_dot2(xr[:k], yr[:k], fmt) for k in range(1, 41)]
            for xr, yr in zip(x.astype(float).tolist(), y.astype(float).tolist())]
    assert_same_bits(got, from_floats(want, fmt), x, y)
    assert_same_bits(dot2(x, y, fmt), got[:, -1])


@pytest.mark.parametrize(("fmt", "targets"), [(BF16, (1e1, 1e2)), (FP32, (1e3, 1e6, 1e9, 1e12)),
                                              (FP64, (1e5, 1e10, 1e15, 1e20, 1e25))], ids=lambda v: str(v))
def test_dot2_obeys_its_bound_on_ill_conditioned_inputs(fmt: Format, targets: tuple[float, ...]) -> None:
    """|Dot2 - s| <= u|s| + γ_K² |x|ᵀ|y| (Ogita, Rump and Oishi, Prop. 5.5) where no product's error underflows."""
    n = 16
    for seed in range(4):
        x = conditioned_sums(np.array(targets), n, fmt, seed=seed).values
        y = to_format(make_inputs("uniform", n, FP64, seed, trials=len(targets)) + 1, fmt)
        h, r = two_product(x, y, fmt)
        u = Fraction(fmt.unit_roundoff)
        gamma = n * u / (1 - n * u)
        for xr, yr, hr, rr in zip(x, y, h, r):
            exact_products = [Fraction(float(a)) * Fraction(float(b)) for a, b in zip(xr, yr)]
            assert all(Fraction(float(c)) + Fraction(float(d)) == e for c, d, e in zip(hr, rr, exact_products))
            s = exact_dot(xr, yr)
            bound = u * abs(s) + gamma**2 * sum(abs(e) for e in exact_products)
            assert abs(Fraction(float(dot2(xr, yr, fmt))) - s) <= bound


def test_dot2_refuses_what_it_cannot_take() -> None:
    x = np.ones(3, dtype=np.float16)
    with pytest.raises(TypeError):
        dot2(x, x.astype(np.float32), FP16)
    with pytest.raises(ValueError):
        dot2(x, np.ones(4, dtype=np.float16), FP16)
    with pytest.raises(ValueError):
        dot2(x[:0], x[:0], FP16)


def test_dot2_special_values() -> None:
    x = np.array([1.0, np.inf], dtype=np.float16)
    assert np.isnan(dot2(x, np.array([1.0, 2.0], dtype=np.float16), FP16))  # inf - inf in the errors
    big = np.array([448.0, 448.0], dtype=E4M3.dtype)
    assert np.isnan(float(dot2(big, big, E4M3)))  # E4M3 overflows to NaN


# --- TF32 -----------------------------------------------------------------------------------------

TF32_ORACLE = dataclasses.replace(FP32, name="tf32", label="TF32", precision=TF32_PRECISION,
                                  max_finite=(2 - 2.0 ** (1 - TF32_PRECISION)) * 2.0**127)
"""TF32 for round_exact only: FP32's exponents, 11 bits; its dtype (float32) is only where the values are kept."""


@pytest.mark.parametrize("kind", ("mixed", "codes"))
def test_to_tf32_rounds_once_to_nearest_even(kind: str) -> None:
    x = random_values(FP32, (20000,), 6, kind)
    got = to_tf32(x)
    want = [round_exact(v, TF32_ORACLE) for v in x.astype(float).tolist()]
    assert_same_bits(got, np.array(want, dtype=np.float32), x)


def test_to_tf32_ties_carries_overflow_and_specials() -> None:
    one = 1.0
    half_ulp = 2.0**-11  # half of TF32's spacing at 1
    x = np.array([one + half_ulp, one + 3 * half_ulp, 2 - 2.0**-24, FP32.max_finite, np.inf, -0.0, np.nan, 2.0**-140],
                 dtype=np.float32)
    got = to_tf32(x).astype(float)
    assert got[0] == 1.0 and got[1] == 1 + 4 * half_ulp  # ties to even
    assert got[2] == 2.0  # a carry into the exponent
    assert got[3] == math.inf and got[4] == math.inf
    assert got[5] == 0 and math.copysign(1, got[5]) < 0 and np.isnan(got[6])
    assert got[7] == 2.0**-136 * round(2.0**-140 / 2.0**-136)  # TF32's subnormal grid
    with pytest.raises(TypeError):
        to_tf32(np.ones(2))


def test_products_of_tf32_values_are_exact_in_fp32_in_its_normal_range() -> None:
    x = to_tf32(random_values(FP32, (20000,), 7, "mixed"))
    y = to_tf32(random_values(FP32, (20000,), 8, "mixed"))
    exact = x.astype(np.float64) * y.astype(np.float64)
    normal = (np.abs(exact) >= FP32.smallest_normal) & (np.abs(exact) <= FP32.max_finite)
    assert normal.all()
    assert np.array_equal(products(x, y, FP32).astype(np.float64), exact)


def test_tf32_dot_is_the_fp32_dot_of_the_rounded_inputs() -> None:
    x = random_values(FP32, (4, 100), 9, "mixed")
    y = random_values(FP32, (4, 100), 10, "mixed")
    assert np.array_equal(tf32_dot(x, y), fpsum.dot.dot(to_tf32(x), to_tf32(y), FP32, FP32))
