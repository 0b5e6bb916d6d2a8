"""Mean and variance by the four methods against scalar references on exact rationals, bit for bit.

The references below do one operation at a time, straight from each
method's definition in issue 41: the exact rational result of the operation
rounded once by :func:`fpsum.exact_rounding.round_exact` (tested on its own
in ``test_rounding.py``), with IEEE's signs of zero and its rules for inf
and NaN.  The model (:mod:`fpsum.moments`) vectorises over rows with the
dtypes' own arithmetic and a float64 division by the count; nothing of it is
called here but the function under test.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.count_division import MAX_COUNT, count_divider, divide_by_count
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E4M3FNUZ, E5M2, E5M2FNUZ, FP16, FP32, FP64, Format
from fpsum.moments import (
    MOMENT_METHODS,
    check_formats,
    exact_moments,
    mean_variance,
    moments,
    relative_error,
)
from reference import assert_every_case, assert_same_bits, from_floats, make_values

Pair = tuple[float, float]


class Exact:
    """Each operation's exact result rounded once to ``acc``; IEEE's zeros, infinities and NaN."""

    def __init__(self, acc: Format) -> None:
        self.acc = acc

    def _zero(self, negative: bool) -> float:
        return -0.0 if negative and self.acc.signed_zero else 0.0

    def add(self, a: float, b: float) -> float:
        if not (math.isfinite(a) and math.isfinite(b)):
            return round_exact(a + b, self.acc)
        total = Fraction(a) + Fraction(b)
        if total == 0:
            return self._zero(math.copysign(1, a) < 0 and math.copysign(1, b) < 0)
        return round_exact(total, self.acc)

    def sub(self, a: float, b: float) -> float:
        return self.add(a, -b)

    def mul(self, a: float, b: float) -> float:
        if not (math.isfinite(a) and math.isfinite(b)):
            return round_exact(a * b, self.acc)
        product = Fraction(a) * Fraction(b)
        if product == 0:
            return self._zero((math.copysign(1, a) < 0) != (math.copysign(1, b) < 0))
        return round_exact(product, self.acc)

    def div(self, a: float, k: int) -> float:
        if not math.isfinite(a):
            return round_exact(a / k, self.acc)
        if a == 0:
            return self._zero(math.copysign(1, a) < 0)
        return round_exact(Fraction(a) / k, self.acc)

    def in_order(self, xs: list[float]) -> float:
        total = xs[0]
        for x in xs[1:]:
            total = self.add(total, x)
        return total


def textbook_ref(xs: list[float], op: Exact) -> Pair:
    n = len(xs)
    mean = op.div(op.in_order(xs), n)
    mean_square = op.div(op.in_order([op.mul(x, x) for x in xs]), n)
    return mean, op.sub(mean_square, op.mul(mean, mean))


def two_pass_ref(xs: list[float], op: Exact) -> Pair:
    n = len(xs)
    mean = op.div(op.in_order(xs), n)
    squares = [op.mul(op.sub(x, mean), op.sub(x, mean)) for x in xs]
    return mean, op.div(op.in_order(squares), n)


def welford_ref(xs: list[float], op: Exact) -> Pair:
    m, m2 = 0.0, 0.0
    for k, x in enumerate(xs, start=1):
        d = op.sub(x, m)
        m = op.add(m, op.div(d, k))
        m2 = op.add(m2, op.mul(d, op.sub(x, m)))
    return m, op.div(m2, len(xs))


def chan_ref(xs: list[float], op: Exact) -> Pair:
    def node(part: list[float]) -> tuple[int, float, float]:
        if len(part) == 1:
            return 1, part[0], 0.0
        left = 1
        while 2 * left < len(part):  # the largest power of two below the length
            left *= 2
        na, ma, m2a = node(part[:left])
        nb, mb, m2b = node(part[left:])
        n = na + nb
        delta = op.sub(mb, ma)
        mean = op.add(ma, op.mul(delta, round_exact(Fraction(nb, n), op.acc)))
        weight = round_exact(Fraction(na * nb, n), op.acc)
        return n, mean, op.add(op.add(m2a, m2b), op.mul(op.mul(delta, delta), weight))

    n, mean, m2 = node(xs)
    return mean, op.div(m2, n)


REFERENCES: dict[str, Callable[[list[float], Exact], Pair]] = {
    "textbook": textbook_ref, "two-pass": two_pass_ref, "welford": welford_ref, "chan": chan_ref,
}
PAIRS = ((FP16, FP16), (BF16, BF16), (FP32, FP32), (E4M3, E4M3), (E5M2, E5M2), (E4M3, FP16), (FP16, FP32),
         (BF16, FP32), (E4M3FNUZ, E4M3FNUZ), (E5M2FNUZ, BF16))
KINDS = ("mixed", "cancel", "wide_range", "codes", "specials")
LENGTHS = (1, 2, 3, 5, 8, 13, 40)

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")


def check_against_reference(fmt: Format, acc: Format, kind: str, n: int, method: str) -> None:
    values = make_values(fmt, kind, (3, n), seed=n).astype(np.float64)
    if acc.overflow == "nan":  # make_values puts no inf into E4M3, but FP16 inputs may hold one
        values = np.where(np.isinf(values), np.nan, values)
    mean, var = mean_variance(values.astype(acc.dtype), acc, method)  # type: ignore[arg-type]
    op = Exact(acc)
    want = [REFERENCES[method](row, op) for row in values.tolist()]
    assert_same_bits(mean, from_floats([w[0] for w in want], acc), values[:, 0])
    assert_same_bits(var, from_floats([w[1] for w in want], acc), values[:, 0])


@pytest.mark.parametrize("method", MOMENT_METHODS)
@pytest.mark.parametrize(("fmt", "acc"), PAIRS, ids=lambda f: f.name)
def test_each_method_matches_its_exact_reference(fmt: Format, acc: Format, method: str) -> None:
    """Every kind of input (subnormals, the largest values, overflow, NaN, inf, -0), n = 1 up: bit for bit."""
    assert_every_case(lambda kind, n: check_against_reference(fmt, acc, kind, n, method), KINDS, LENGTHS)


def test_chan_on_longer_rows_matches_its_reference() -> None:
    """Lengths whose trees mix balanced and unbalanced parts, in FP16 and BF16."""
    for fmt, n in ((FP16, 100), (BF16, 257), (FP16, 255)):
        check_against_reference(fmt, fmt, "mixed", n, "chan")


def test_fp64_accumulation_matches_the_reference() -> None:
    """FP64 divides natively; the reference rounds to FP64 exactly."""
    for method in MOMENT_METHODS:
        check_against_reference(FP32, FP64, "mixed", 13, method)


@pytest.mark.parametrize("fmt", (FP16, BF16, FP32, E4M3, E5M2), ids=lambda f: f.name)
def test_divide_by_count_is_the_exact_quotient_rounded_once(fmt: Format) -> None:
    """Random values (subnormals and the largest included) over counts up to 2**26 - 1, those around each
    route's edge (2**p, float32's 2**(22 - p)) among them, against Fractions.
    """
    rng = np.random.default_rng(fmt.bits + fmt.precision)
    values = make_values(fmt, "codes", (60,), seed=3)
    edges = [(1 << b) + step for b in (3, 4, 7, 8, 11, 12, 14, 15, 18, 22, 24) for step in (-1, 0, 1)]
    counts = np.concatenate([np.arange(1, 41), edges, rng.integers(40, 1 << 26, 40)])
    for k in counts.tolist():
        got = divide_by_count(values, k, fmt).astype(np.float64)
        want = [round_exact(Fraction(v) / k, fmt) if v != 0 else v for v in values.astype(np.float64).tolist()]
        assert np.array_equal(got, np.array(want)), k
    with pytest.raises(ValueError, match="count"):
        divide_by_count(values, 0, fmt)


@pytest.mark.parametrize("fmt", (FP16, BF16, FP32, E4M3), ids=lambda f: f.name)
def test_welfords_divider_is_the_exact_quotient_rounded_once(fmt: Format) -> None:
    """Welford's divider (its own routes for FP16, FP32 and BF16) against Fractions, as divide_by_count is, and
    on BF16 quotients whose float32 value is a BF16 midpoint the exact one is not (1.0078125 / 65,791 rounds to
    1.5378e-05, not the float32 quotient's 1.5259e-05).
    """
    rng = np.random.default_rng(fmt.bits + 2 * fmt.precision)
    values = make_values(fmt, "codes", (60,), seed=4)
    edges = [(1 << b) + step for b in (3, 8, 11, 12, 14, 15, 18, 24) for step in (-1, 0, 1)]
    counts = np.concatenate([np.arange(1, 41), edges, rng.integers(40, 1 << 26, 40)])
    divide = count_divider(MAX_COUNT, fmt)
    cases = [(values, k) for k in counts.tolist()]
    if fmt is BF16:
        cases += [(np.array([v, 1.0], dtype=BF16.dtype), k) for v, k in ((1.0078125, 65791), (1.65625, 66003),
                                                                         (1.21875, 67931))]
    if fmt is FP16:  # quotients halfway between FP16 subnormals (ties to even), and ones that round to -0.0
        cases += [(np.array([3 * 2.0**-13, 5 * 2.0**-13, -3 * 2.0**-13, -(2.0**-24)], dtype=np.float16), 4096),
                  (np.array([3 * 2.0**-12, -(2.0**-14)], dtype=np.float16), 3 * 4096)]
    for row, k in cases:
        got = divide(row, k).astype(np.float64)
        want = [round_exact(Fraction(v) / k, fmt) if v != 0 else v for v in row.astype(np.float64).tolist()]
        assert np.array_equal(got, np.array(want)), k
        # one row's running mean is 0-d, several rows' may be 2-d: the same quotients
        assert np.array_equal(np.asarray(divide(row[0], k), dtype=np.float64), want[0]), k
        table = row[: len(row) // 2 * 2].reshape(2, -1)
        assert np.array_equal(divide(table, k).astype(np.float64).ravel(), want[: table.size]), k


def test_fp16_divider_past_its_reach_is_the_exact_quotient_rounded_once() -> None:
    """Given a bound on its values (Welford's deviations), FP16's divider rounds every quotient to the subnormal
    spacing once k passes bound / 2**-14, without testing each: the same bits as the exact quotient rounded once,
    ties to even and -0.0 included.
    """
    rows = [make_values(FP16, "codes", (60,), seed=5), np.array([3 * 2.0**-13, 5 * 2.0**-13, -3 * 2.0**-13,
                                                                   -(2.0**-24), 0.0, -0.0], dtype=np.float16)]
    for row in rows:
        row = row[np.abs(row.astype(np.float64)) < 0.5]  # subnormals, tiny and small normals, zeros
        reach = float(np.max(np.abs(row.astype(np.float64))))
        divide = count_divider(MAX_COUNT, FP16, reach)
        first = int(reach * 2**14) + 1  # the first count past the reach
        near = range(2049, first + 2000, 3)  # before the reach, where only some quotients are subnormal, and past it
        counts = [k for k in (*near, 3 * 4096, 65_536, 1 << 20, MAX_COUNT) if k > 2048]
        for k in counts:
            want = [round_exact(Fraction(v) / k, FP16) if v != 0 else v for v in row.astype(np.float64).tolist()]
            assert_same_bits(divide(row, k), from_floats(want, FP16), row)


def test_welford_on_long_narrow_rows_matches_its_exact_reference() -> None:
    """Rows of a few thousand FP16 values within a narrow range, so that the divider's bound lets it skip its
    test from k = 2,049 on: bit for bit against the exact reference, mean and variance.
    """
    rng = np.random.default_rng(41)
    values = np.vstack([to_format(1 + 2.0**-6 * rng.standard_normal(2500), FP16),
                        to_format(-3 + 2.0**-9 * rng.random(2500), FP16)]).astype(np.float16)
    mean, var = mean_variance(values, FP16, "welford")
    op = Exact(FP16)
    want = [welford_ref(row, op) for row in values.astype(np.float64).tolist()]
    assert_same_bits(mean, from_floats([w[0] for w in want], FP16))
    assert_same_bits(var, from_floats([w[1] for w in want], FP16))


def test_numpy_float16_does_the_same_loops() -> None:
    """For n <= 2048 each count is an FP16 value and FP16 division is numpy's own: the same bits."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((50, 300)) * 3 + 40).astype(np.float16)
    n = np.float16(x.shape[-1])
    s1 = np.add.accumulate(x, axis=-1)[:, -1]
    with np.errstate(over="ignore"):
        s2 = np.add.accumulate(x * x, axis=-1)[:, -1]
    mean = s1 / n
    textbook = s2 / n - mean * mean
    deviations = x - mean[:, None]
    two_pass = np.add.accumulate(deviations * deviations, axis=-1)[:, -1] / n
    m = np.zeros(50, np.float16)
    m2 = np.zeros(50, np.float16)
    for k in range(1, x.shape[-1] + 1):
        d = x[:, k - 1] - m
        m = m + d / np.float16(k)
        m2 = m2 + d * (x[:, k - 1] - m)
    for method, want_mean, want_var in (("textbook", mean, textbook), ("two-pass", mean, two_pass),
                                        ("welford", m, m2 / n)):
        got_mean, got_var = mean_variance(x, FP16, method)  # type: ignore[arg-type]
        assert_same_bits(got_mean, want_mean)
        assert_same_bits(got_var, want_var)


def test_exact_moments_are_the_definition() -> None:
    """(sum x) / n and sum (x - mean)^2 / n in Fractions, for FP32 rows and for FP64 rows (squares inexact)."""
    rng = np.random.default_rng(11)
    for row in (rng.standard_normal(37).astype(np.float32), rng.standard_normal(20) * 1e200, np.array([-0.0, 5e-324])):
        xs = [Fraction(v) for v in np.asarray(row, dtype=np.float64).tolist()]
        mean = sum(xs, Fraction(0)) / len(xs)
        assert exact_moments(row) == (mean, sum(((x - mean) ** 2 for x in xs), Fraction(0)) / len(xs))
    with pytest.raises(ValueError, match="finite"):
        exact_moments(np.array([1.0, math.inf]))


def test_constant_rows_give_zero_from_welford_and_chan_and_never_negative_from_two_pass() -> None:
    """Many random constant rows: Welford and Chan exactly +0; two-pass 0 wherever its rounded mean is the value,
    and never negative where it is not; textbook is negative on some of them.
    """
    rng = np.random.default_rng(5)
    negative_textbook = {}
    positive_two_pass = {}
    for fmt in (FP16, BF16, FP32, E5M2, E4M3):
        for n in (1, 2, 3, 5, 7, 10, 33, 100, 1000):
            value = make_values(fmt, "mixed", (300, 1), seed=n)
            value = np.where(np.isfinite(value.astype(np.float64)), value, np.ones_like(value))
            rows = np.repeat(value, n, axis=1)
            for method in ("welford", "chan"):
                _, var = mean_variance(rows, fmt, method)  # type: ignore[arg-type]
                assert np.all(var.astype(np.float64) == 0), (fmt.name, n, method)
            mean, var = mean_variance(rows, fmt, "two-pass")
            var64 = var.astype(np.float64)
            assert np.all((var64 >= 0) | np.isnan(var64)), (fmt.name, n)
            exact_mean = mean.astype(np.float64) == value[:, 0].astype(np.float64)
            assert np.all(var64[exact_mean] == 0)
            positive_two_pass[fmt.name, n] = int((var64 > 0).sum())
            _, var = mean_variance(rows, fmt, "textbook")
            negative_textbook[fmt.name, n] = int((var.astype(np.float64) < 0).sum())
    assert rng is not None
    assert sum(negative_textbook.values()) > 0
    assert negative_textbook["fp32", 3] > 0 and negative_textbook["fp16", 3] > 0
    assert positive_two_pass["fp16", 1000] > 0  # the sum of 1000 copies rounds, and so does the mean


def test_fp16_two_pass_on_a_constant_row_of_ones_is_not_zero_past_the_stall() -> None:
    """4096 ones in FP16: the sum stalls at 2048 (2048 + 1 is a tie), so the mean is 0.5 and every deviation
    0.5; their squares, 0.25, stall at 512 (half its gap of 0.5, a tie again): variance 512 / 4096 = 0.125.
    """
    mean, var = mean_variance(np.ones(4096, np.float16), FP16, "two-pass")
    assert (float(mean), float(var)) == (0.5, 0.125)
    for method in ("welford", "chan"):
        assert tuple(map(float, mean_variance(np.ones(4096, np.float16), FP16, method))) == (1.0, 0.0)  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", (FP16, BF16, FP32, E5M2), ids=lambda f: f.name)
def test_two_pass_welford_and_chan_variances_are_never_negative(fmt: Format) -> None:
    """Random rows near a large offset (where textbook cancels), many lengths: >= 0 or NaN from overflow."""
    rng = np.random.default_rng(fmt.precision)
    for n in (2, 3, 4, 9, 64, 200):
        offset = np.ldexp(1.0, rng.integers(0, fmt.emax // 2, (400, 1)))
        rows = to_format(offset * (1 + rng.standard_normal((400, n)) * 2.0 ** -rng.integers(1, 30, (400, 1))), fmt)
        for method in ("two-pass", "welford", "chan"):
            var = mean_variance(rows, fmt, method)[1].astype(np.float64)  # type: ignore[arg-type]
            assert np.all((var >= 0) | np.isnan(var)), (n, method, var.min())


def test_fp32_textbook_on_four_values_near_2000_ranges_from_negative_to_several() -> None:
    """pytorch#51102's formula, E[x^2] - E[x]^2 in FP32, on 100,000 rows of four randn + 2000 (seed 0):
    variances from -0.75 to 7.75 where the exact ones average about 0.75, errors beyond 0.8 either way, a
    negative variance where the exact one is 0.017; two-pass, Welford and Chan stay within 1 %.
    """
    rows = to_format(np.random.default_rng(0).standard_normal((100_000, 4)) + 2000, FP32)
    _, textbook = mean_variance(rows, FP32, "textbook")
    assert (float(textbook.min()), float(textbook.max())) == (-0.75, 7.75)
    lowest = int(np.argmin(textbook))
    assert 0 < exact_moments(rows[lowest])[1] < Fraction(2, 100)
    exact = np.array([float(exact_moments(row)[1]) for row in rows[:5000]])
    assert 0.7 < exact.mean() < 0.8
    errors = textbook[:5000] - exact
    assert errors.min() < -0.8 and errors.max() > 0.8
    # numpy's float32, the same operations in the same order (dividing by 4 is exact): the same bits.
    s1 = np.add.accumulate(rows, axis=-1)[:, -1]
    s2 = np.add.accumulate(rows * rows, axis=-1)[:, -1]
    mean = s1 / np.float32(4)
    assert_same_bits(textbook, s2 / np.float32(4) - mean * mean)
    for method in ("two-pass", "welford", "chan"):
        var = mean_variance(rows[:5000], FP32, method)[1].astype(np.float64)  # type: ignore[arg-type]
        assert np.max(np.abs(var - exact) / exact) < 1e-2, method


def test_fp16_sum_of_squares_overflows_to_inf() -> None:
    """Eight 200s: each square (40,000) fits FP16, their sum passes 65,504: textbook gives inf - 40,000 = inf,
    two-pass 0 (no deviation); one 300 squares to inf itself: inf - inf is NaN; +-200 overflow every method's sum.
    """
    row = np.full(8, 200, np.float16)
    mean, var = mean_variance(row, FP16, "textbook")
    assert float(mean) == 200 and float(var) == math.inf
    assert tuple(map(float, mean_variance(row, FP16, "two-pass"))) == (200.0, 0.0)
    one = np.array([300.0], np.float16)
    assert math.isnan(float(mean_variance(one, FP16, "textbook")[1]))
    wide = np.array([-200, 200] * 4, np.float16)
    for method in MOMENT_METHODS:
        assert float(mean_variance(wide, FP16, method)[1]) == math.inf, method  # type: ignore[arg-type]


def test_n_equal_one_gives_the_input_and_zero() -> None:
    for fmt in (FP16, BF16, FP32, E4M3, E5M2):
        for value in (1.5, -0.0, fmt.smallest_subnormal, -1.5 * 2.0 ** (fmt.emax // 2 - 1)):  # squares fit
            row = from_floats([value], fmt)
            for method in MOMENT_METHODS:
                mean, var = mean_variance(row, fmt, method)  # type: ignore[arg-type]
                assert float(mean) == value and float(var) == 0, (fmt.name, value, method)
                # Welford's m starts at +0 and +0 + -0 is +0; the others keep the input's sign.
                sign = 1.0 if method == "welford" and value == 0 else math.copysign(1, value)
                assert math.copysign(1, float(mean)) == sign


def test_chan_weights_overflow_e4m3_from_1873() -> None:
    """The top merge's weight nA * nB / n passes E4M3's 448 (and rounds to NaN) first at n = 1873 (1024 * 849 /
    1873 = 464.2): the variance is NaN even on a constant row, 0 just below.
    """
    assert math.isnan(float(mean_variance(np.ones(1873, E4M3.dtype), E4M3, "chan")[1]))
    assert float(mean_variance(np.ones(1872, E4M3.dtype), E4M3, "chan")[1]) == 0


def test_report_of_a_row() -> None:
    row = np.array([1.0, 2.0, 4.0])
    result = moments(row, FP16, FP32, "two-pass")
    assert (result.exact_mean, result.exact_variance) == (Fraction(7, 3), Fraction(14, 9))
    assert result.mean == round_exact(Fraction(7, 3), FP32)
    assert result.mean_rel_error == float(abs(Fraction(result.mean) - Fraction(7, 3)) / Fraction(7, 3))
    assert relative_error(0.0, Fraction(0)) == 0 and relative_error(1e-3, Fraction(0)) == math.inf
    assert math.isnan(relative_error(math.nan, Fraction(1)))
    with pytest.raises(ValueError, match="not all values"):
        moments(np.array([0.1]), FP16, FP16, "welford")
    with pytest.raises(ValueError, match="unknown method"):
        moments(row, FP16, FP16, "sorted")  # type: ignore[arg-type]


def test_accumulation_format_must_hold_the_inputs() -> None:
    for fmt, acc in ((FP16, BF16), (BF16, FP16), (E4M3, E5M2), (FP32, FP16)):
        with pytest.raises(ValueError, match="narrower"):
            check_formats(fmt, acc)
    for fmt, acc in ((E4M3, FP16), (E5M2, BF16), (FP16, FP32), (BF16, FP64), (FP16, FP16)):
        check_formats(fmt, acc)


def test_textbook_variance_of_three_equal_fp16_values_is_negative() -> None:
    """Three copies of 1.171875 (1 + 11/64) in FP16: the mean comes out exact, but the rounded square
    (1.373291015625 needs 14 bits) and the rounded sum of three of them do not cancel with the rounded
    square of the mean: the exact reference and the model agree on a negative variance.
    """
    row = [1.171875] * 3
    want_mean, want_var = textbook_ref(row, Exact(FP16))
    assert want_mean == 1.171875 and want_var < 0
    mean, var = mean_variance(from_floats(row, FP16), FP16, "textbook")
    assert (float(mean), float(var)) == (want_mean, want_var)
    for method in ("two-pass", "welford", "chan"):
        assert float(mean_variance(from_floats(row, FP16), FP16, method)[1]) == 0  # type: ignore[arg-type]
