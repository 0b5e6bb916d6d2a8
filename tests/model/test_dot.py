"""Dot products against slow scalar references (Fractions, one rounding at a time), NumPy's own arithmetic, and claims.

The model multiplies in float64 and rounds with ``to_format``, sums with the
vectorised methods, and fuses with TwoSum and rounding to odd; the
references multiply exact rationals, round with ``round_exact`` and add with
``add_exact``, one operation at a time.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import reference
from fpsum.dot import (
    ACCUMULATORS,
    DOT_METHODS,
    INPUT_FORMATS,
    check_formats,
    dot,
    dot_running,
    exact_dot,
    exact_dot_running,
    products,
)
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format, get_format
from fpsum.methods import running_totals
from fpsum.names import Method
from reference import assert_every_case, assert_same_bits, from_floats, random_values

INPUTS = [get_format(name) for name in INPUT_FORMATS]
ACCS = [get_format(name) for name in ACCUMULATORS]
PAIRS = list(itertools.product(INPUTS, ACCS))
LENGTHS = (1, 2, 3, 5, 8, 13, 21, 40)
KINDS = ("mixed", "codes")
SEEDS = (0, 1)


def pair_id(pair: tuple[Format, Format]) -> str:
    return f"{pair[0].name}-{pair[1].name}"


@functools.cache
def pairs(fmt_name: str, kind: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    fmt = get_format(fmt_name)
    x = random_values(fmt, (3, n), seed, kind)
    y = random_values(fmt, (3, n), seed + 100, kind)
    x.setflags(write=False)  # the model must not write to its inputs
    y.setflags(write=False)
    return x, y


def rows(values: np.ndarray) -> list[list[float]]:
    return [list(map(float, row)) for row in values.astype(np.float64).reshape(-1, values.shape[-1])]


@functools.cache
def rounded_products(fmt_name: str, acc_name: str, kind: str, n: int, seed: int) -> tuple[tuple[float, ...], ...]:
    """The reference's products of ``pairs(...)``, each rounded once to the accumulator: shared by every method."""
    x, y = pairs(fmt_name, kind, n, seed)
    acc = get_format(acc_name)
    return tuple(tuple(reference.product(a, b, acc) for a, b in zip(xr, yr)) for xr, yr in zip(rows(x), rows(y)))


# --- bit for bit against the references -------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_products_are_rounded_once(pair: tuple[Format, Format], kind: str) -> None:
    fmt, acc = pair
    x, y = pairs(fmt.name, kind, 64, 0)
    want = [[reference.product(a, b, acc) for a, b in zip(xr, yr)] for xr, yr in zip(rows(x), rows(y))]
    assert_same_bits(products(x, y, acc), from_floats(want, acc), x, y)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_dot_running_matches_reference(pair: tuple[Format, Format]) -> None:
    """Every method, kind, length and seed: the running dot products and the dot product, bit for bit."""
    fmt, acc = pair
    block = 4  # small enough that the blocked method has several blocks

    def check(method: Method, kind: str, n: int, seed: int) -> None:
        x, y = pairs(fmt.name, kind, n, seed)
        got = dot_running(x, y, fmt, acc, method, block=block)
        rounded = rounded_products(fmt.name, acc.name, kind, n, seed)
        want = [reference.summed(row, acc, method, block) for row in rounded]
        assert got.dtype == acc.dtype and got.shape == x.shape
        assert_same_bits(got, from_floats(want, acc), x, y)
        assert_same_bits(dot(x, y, fmt, acc, method, block=block), got[..., -1])

    assert_every_case(check, DOT_METHODS, KINDS, LENGTHS, SEEDS)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_fused_matches_reference(pair: tuple[Format, Format]) -> None:
    fmt, acc = pair
    for kind, n, seed in itertools.product(("mixed", "codes", "uniform"), LENGTHS, SEEDS):
        x, y = pairs(fmt.name, kind, n, seed)
        got = dot_running(x, y, fmt, acc, fused=True)
        want = [reference.dot_fused(xr, yr, acc) for xr, yr in zip(rows(x), rows(y))]
        assert_same_bits(got, from_floats(want, acc), x, y)
        assert_same_bits(dot(x, y, fmt, acc, fused=True), got[..., -1])


@pytest.mark.parametrize("acc", (FP16, BF16, FP32), ids=lambda f: f.name)
def test_fused_rounds_near_ties_correctly(acc: Format) -> None:
    """s = +-1 plus a product of half an ulp of 1 in ``acc``, give or take a little: ties and near-ties.

    Just above a tie rounds away from 1, just below rounds to 1, exactly on
    it goes to the even neighbour; the "little" is below FP32's precision
    relative to 1, so only a single rounding of the exact sum gets all three right.
    """
    half = 2.0 ** -acc.precision
    cases = [(start, half * (1 + sign * 2.0**-k)) for start in (1.0, -1.0) for sign in (1, -1) for k in (10, 16, 22)]
    cases += [(1.0, half), (1.0 + 2 * half, half), (-1.0, -half)]
    x = from_floats([[start, 1.0] for start, _ in cases], FP32)
    y = from_floats([[1.0, p] for _, p in cases], FP32)
    want = [reference.dot_fused(xr, yr, acc) for xr, yr in zip(rows(x), rows(y))]
    assert_same_bits(dot_running(x, y, FP32, acc, fused=True), from_floats(want, acc), x, y)


def test_fused_differs_from_unfused_by_hand() -> None:
    """FP16: 1 + 0.75 * (683 * 2**-20), where the product is 2**-11 + 2**-22 exactly (3 * 683 = 2049).

    Unfused: the product is a tie between 2**-11 and 2**-11 + 2**-21 and goes
    to the even one, 2**-11; then 1 + 2**-11 is a tie between 1 and
    1 + 2**-10 and goes to 1.  Fused: 1 + 2**-11 + 2**-22 is above that tie,
    so it rounds up to 1 + 2**-10.
    """
    x = from_floats([1.0, 0.75], FP16)
    y = from_floats([1.0, 683 * 2.0**-20], FP16)
    assert float(dot(x, y, FP16, FP16)) == 1.0
    assert float(dot(x, y, FP16, FP16, fused=True)) == 1.0 + 2.0**-10


@pytest.mark.parametrize("fmt", INPUTS, ids=lambda f: f.name)
def test_fused_with_fp64_is_the_naive_sum_of_exact_products(fmt: Format) -> None:
    """Products up to FP32 are exact in FP64, so rounding s + x*y once is rounding s + p: unfused naive."""
    x, y = pairs(fmt.name, "codes", 40, 1)
    assert_same_bits(dot_running(x, y, fmt, FP64, fused=True), dot_running(x, y, fmt, FP64))


def test_fused_is_unfused_when_products_are_exact_in_the_accumulator() -> None:
    """FP16 products have at most 22 bits and lie within FP32's normal range: nothing for fusing to save."""
    x, y = pairs("fp16", "codes", 40, 0)
    assert_same_bits(dot_running(x, y, FP16, FP32, fused=True), dot_running(x, y, FP16, FP32))


@pytest.mark.parametrize(("fmt", "acc"), [(E4M3, FP16), (E4M3, BF16), (E5M2, FP16), (E5M2, BF16)],
                         ids=lambda f: f.name)
def test_every_fp8_product_is_rounded_once(fmt: Format, acc: Format) -> None:
    """All 256 x 256 pairs of codes, NaN and inf included, against ``round_exact`` of the exact product.

    The reference's answer depends on a pair only through its exact product
    (value, sign, NaN or infinity), which float64 holds exactly (two FP8
    significands of at most four bits): it is computed once for each
    distinct float64 product (its bits, so -0.0 apart), on a pair that gives it.
    """
    codes = np.arange(256, dtype=np.uint8).view(fmt.dtype)
    x = np.repeat(codes, 256)
    y = np.tile(codes, 256)
    with np.errstate(invalid="ignore"):  # inf * 0
        exact = x.astype(np.float64) * y.astype(np.float64)
    _, first, which = np.unique(exact.view(np.uint64), return_index=True, return_inverse=True)
    xs, ys = x[first].astype(np.float64).tolist(), y[first].astype(np.float64).tolist()
    want = from_floats([reference.product(a, b, acc) for a, b in zip(xs, ys)], acc)[which.ravel()]
    assert_same_bits(products(x, y, acc), want, x, y)


# --- against NumPy's and ml_dtypes' own arithmetic -----------------------------------


@pytest.mark.parametrize(("fmt", "acc", "dtype"), [
    (FP16, FP16, np.float16),             # float16 * float16 is computed in float32 (exact) and rounded once
    (BF16, BF16, ml_dtypes.bfloat16),     # likewise in ml_dtypes
    (FP32, FP32, np.float32),             # IEEE single multiply
    (FP16, FP32, np.float32),             # FP16 values are exact in float32, and so are their products
    (E4M3, FP16, np.float16),             # E4M3 values are FP16 values
], ids=lambda v: getattr(v, "name", str(v)))
def test_unfused_naive_is_numpys_multiply_then_accumulate(fmt: Format, acc: Format, dtype: type) -> None:
    x, y = pairs(fmt.name, "mixed", 300, 2)
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.add.accumulate(x.astype(dtype) * y.astype(dtype), axis=-1)
    assert_same_bits(dot_running(x, y, fmt, acc), want, x, y)


def test_pairwise_is_the_summation_methods_pairwise() -> None:
    """The dot product sums rounded products exactly as ``running_totals`` does, for every prefix length."""
    for n in (*range(1, 70), 127, 128, 129, 1000):
        x, y = pairs("bf16", "codes", n, 3)
        want = running_totals("pairwise", products(x, y, BF16), BF16)
        assert_same_bits(dot_running(x, y, BF16, BF16, "pairwise"), want, x, y)


def test_leading_axes_are_independent() -> None:
    x = random_values(FP16, (2, 3, 17), 5, "mixed")
    y = random_values(FP16, (2, 3, 17), 6, "mixed")
    for method in DOT_METHODS:
        together = dot_running(x, y, FP16, BF16, method, block=4)
        for index in np.ndindex(2, 3):
            assert_same_bits(dot_running(x[index], y[index], FP16, BF16, method, block=4), together[index])
    fused = dot_running(x, y, FP16, FP16, fused=True)
    for index in np.ndindex(2, 3):
        assert_same_bits(dot_running(x[index], y[index], FP16, FP16, fused=True), fused[index])


# --- special values by hand -------------------------------------------------------------


@pytest.mark.parametrize("fused", (False, True))
def test_special_values(fused: bool) -> None:
    def run(xs: list[float], ys: list[float]) -> list[float]:
        values = dot_running(from_floats(xs, FP16), from_floats(ys, FP16), FP16, FP16, fused=fused)
        return values.astype(np.float64).tolist()

    assert np.isnan(run([np.inf, 1.0], [0.0, 1.0])).all()                      # inf * 0 is NaN, and stays
    assert run([np.inf, 1.0], [2.0, 1.0]) == [np.inf, np.inf]
    assert np.isnan(run([np.inf, -np.inf], [1.0, 1.0])[1])                      # inf + -inf
    assert run([300.0, 1.0], [300.0, 1.0]) == [np.inf, np.inf]                  # 90000 overflows FP16
    first = run([-0.0], [1.0])[0]
    assert first == 0 and np.signbit(first)                                    # a lone -0.0 product stays -0.0
    last = run([-0.0, 0.0], [1.0, 1.0])[1]
    assert last == 0 and not np.signbit(last)                                   # -0 + +0 is +0


def test_e4m3_inputs_with_nan_give_nan() -> None:
    x = np.array([1.0, np.nan, 1.0]).astype(E4M3.dtype)
    y = np.ones(3).astype(E4M3.dtype)
    assert np.isnan(dot_running(x, y, E4M3, FP32).astype(np.float64)[1:]).all()


# --- exact dot products -------------------------------------------------------------


@pytest.mark.parametrize("fmt", INPUTS, ids=lambda f: f.name)
def test_exact_dot_running_against_fractions(fmt: Format) -> None:
    x, y = pairs(fmt.name, "codes", 40, 4)
    at = np.array([1, 2, 7, 39, 40])
    got = exact_dot_running(x, y, at)
    assert got.shape == (3, 5)
    for row, (xr, yr) in enumerate(zip(rows(x), rows(y))):
        for j, count in enumerate(at.tolist()):
            exact = sum((Fraction(a) * Fraction(b) for a, b in zip(xr[:count], yr[:count])), Fraction(0))
            assert got[row, j] == float(exact), (row, count)


def test_exact_dot_is_the_sum_of_fraction_products() -> None:
    x = random_values(FP32, (200,), 8, "codes")
    y = random_values(FP32, (200,), 9, "codes")
    want = sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(x, y)), Fraction(0))
    assert exact_dot(x, y) == want
    assert exact_dot(np.array([1e300, -1e300, 1e-300]), np.array([1e10, 1e10, 1.0])) == Fraction(1e-300)


def test_exact_dot_refuses_what_has_no_exact_value() -> None:
    with pytest.raises(ValueError, match="finite"):
        exact_dot(np.array([1.0, np.inf]), np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="1-D"):
        exact_dot(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="finite"):
        exact_dot_running(from_floats([np.nan], FP16), from_floats([1.0], FP16), np.array([1]))
    with pytest.raises(ValueError, match="between 1 and n"):
        exact_dot_running(from_floats([1.0], FP16), from_floats([1.0], FP16), np.array([2]))


# --- errors ---------------------------------------------------------------------------


def test_formats_outside_the_lists_are_refused() -> None:
    with pytest.raises(ValueError, match="not an input format.*fp16, bf16, e4m3, e5m2, fp32"):
        check_formats(FP64, FP32)
    with pytest.raises(ValueError, match="not an accumulator format.*fp16, bf16, fp32, fp64"):
        check_formats(FP16, E4M3)
    x = np.ones(3, dtype=np.float16)
    with pytest.raises(ValueError, match="accumulator"):
        dot_running(x, x, FP16, E5M2)


def test_bad_arguments_are_refused() -> None:
    x = np.ones(4, dtype=np.float16)
    with pytest.raises(ValueError, match="naive loop only"):
        dot_running(x, x, FP16, FP32, "pairwise", fused=True)
    with pytest.raises(ValueError, match="unknown dot product method 'wide'"):
        dot_running(x, x, FP16, FP32, "wide")
    with pytest.raises(ValueError, match="unknown dot product method 'stochastic'"):
        dot(x, x, FP16, FP32, "stochastic")
    with pytest.raises(ValueError, match="shape"):
        dot_running(x, x[:3], FP16, FP32)
    with pytest.raises(ValueError, match="at least one pair"):
        dot_running(x[:0], x[:0], FP16, FP32)
    with pytest.raises(TypeError, match="expected bfloat16"):
        dot_running(x, x, BF16, FP32)
    with pytest.raises(TypeError, match="one format"):
        dot_running(x, x.astype(np.float32), FP16, FP32)
    with pytest.raises(TypeError, match="not one of the input formats"):
        products(x.astype(np.float64), x.astype(np.float64), FP32)


# --- claims -----------------------------------------------------------------------------


def test_fp16_accumulation_of_long_dot_products_fails_where_fp32_does_not() -> None:
    """FP16 inputs uniform in [0, 1), K = 2**14: the FP16 sum stalls (error above 40 %), FP32's is below 1e-5.

    The exact sum is about K / 4 = 4096; from 2048 up the gap between FP16
    neighbours is 2, so every product (below 1) is less than half a gap and
    the sum stops there: about half the exact value.
    """
    k = 2**14
    x = random_values(FP16, (4, k), 10, "uniform")
    y = random_values(FP16, (4, k), 11, "uniform")
    exact = exact_dot_running(x, y, np.array([k]))[:, 0]
    narrow = np.abs(dot(x, y, FP16, FP16).astype(np.float64) - exact) / exact
    wide = np.abs(dot(x, y, FP16, FP32).astype(np.float64) - exact) / exact
    pairwise = np.abs(dot(x, y, FP16, FP16, "pairwise").astype(np.float64) - exact) / exact
    assert narrow.min() > 0.4
    assert wide.max() < 1e-5
    assert pairwise.max() < 1e-3  # pairwise in FP16: a few units of FP16 roundoff (2**-11 is 4.9e-4)
