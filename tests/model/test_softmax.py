"""The softmax denominator and RMSNorm's statistics against scalar references on exact rationals.

The exponential's reference is written here: ``decimal`` at 40 digits, whose
``exp`` is correctly rounded to those digits, and the two ends of its error
interval rounded to the format by :func:`fpsum.exact_rounding.round_exact`,
which must agree (they do for every argument tried).  The denominators' and
probabilities' references do one operation at a time on Fractions, the online
one from Milakov and Gimelshein's own start (m = -inf, d = 0).
"""

from __future__ import annotations

import math
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E4M3FNUZ, E5M2, E5M2FNUZ, FP16, FP32, FP64, Format
from fpsum.rms import rms, rms_statistics, rsqrt_rounded
from fpsum.softmax import SOFTMAX_ORDERS, denominator, exp_rounded, softmax
from reference import assert_same_bits, from_floats

DIGITS = 40


def exp_reference(y: float, fmt: Format) -> float:
    """exp(y) rounded once to ``fmt``: both ends of a 40-digit decimal's error interval round alike."""
    if math.isinf(y):
        return 0.0 if y < 0 else round_exact(math.inf, fmt)
    value = Context(prec=DIGITS, Emin=-10**8, Emax=10**8).exp(Decimal(y))
    unit = Decimal((0, (1,), value.adjusted() - DIGITS + 1))
    low, high = round_exact(Fraction(value - unit), fmt), round_exact(Fraction(value + unit), fmt)
    assert low == high or (math.isnan(low) and math.isnan(high)), y
    return low


def negative_values(fmt: Format) -> np.ndarray:
    """Every finite value of a 16- or 8-bit format below zero, as float64."""
    storage = np.uint16 if fmt.bits == 16 else np.uint8
    codes = np.arange(1 << fmt.bits, dtype=np.uint64).astype(storage).view(fmt.dtype)
    with np.errstate(invalid="ignore"):
        values = codes.astype(np.float64)
    return np.unique(values[np.isfinite(values) & (values < 0)])


@pytest.mark.parametrize("fmt", (FP16, BF16, E4M3, E5M2, E4M3FNUZ, E5M2FNUZ), ids=lambda f: f.name)
def test_exp_of_every_negative_value_is_correctly_rounded(fmt: Format) -> None:
    """Exhaustive: every argument a softmax can meet in the format (x - max <= 0), against the reference."""
    ys = negative_values(fmt)
    ys = ys[ys > (fmt.emin - fmt.precision - 2) * math.log(2)]  # below, both give 0: checked once below
    got = exp_rounded(ys.astype(fmt.dtype), fmt).astype(np.float64)
    want = np.array([exp_reference(y, fmt) for y in ys.tolist()])
    assert np.array_equal(got, want), ys[got != want][:5]
    deep = negative_values(fmt)[:3]
    assert np.all(exp_rounded(deep.astype(fmt.dtype), fmt).astype(np.float64) == 0)


@pytest.mark.parametrize("fmt", (FP32, FP64), ids=lambda f: f.name)
def test_exp_of_wide_formats_is_correctly_rounded(fmt: Format) -> None:
    """A sample: logit gaps of every size, tiny ones near 0 and huge ones that underflow or overflow."""
    rng = np.random.default_rng(fmt.precision)
    ys = np.concatenate([-np.abs(rng.standard_normal(300)) * 2.0 ** rng.integers(-30, 7, 300),
                         rng.uniform(-110, 90, 100), [0.0, -0.0, 1e-30, -1e-30, 89.0, -104.0, -1000.0, 1000.0]])
    ys = to_format(ys, fmt)
    with np.errstate(over="ignore"):
        got = exp_rounded(ys, fmt).astype(np.float64)
    want = np.array([exp_reference(y, fmt) for y in ys.astype(np.float64).tolist()])
    assert np.array_equal(got, want)


def test_exp_special_values() -> None:
    got = exp_rounded(np.array([-np.inf, np.inf, np.nan, -0.0], np.float16), FP16).astype(np.float64)
    assert got[0] == 0 and got[1] == math.inf and math.isnan(got[2]) and got[3] == 1
    assert math.isnan(float(exp_rounded(np.array([10.0], E4M3.dtype), E4M3)[0]))  # e**10 is beyond 448: NaN


class Ops:
    """Each operation's exact result rounded once to ``acc`` (finite operands, no zero-sign questions here)."""

    def __init__(self, acc: Format) -> None:
        self.acc = acc

    def r(self, value: Fraction) -> float:
        return round_exact(value, self.acc)

    def exp(self, y: float) -> float:
        return exp_reference(y, self.acc)

    def naive(self, xs: list[float]) -> float:
        total = xs[0]
        for x in xs[1:]:
            total = self.r(Fraction(total) + Fraction(x))
        return total

    def pairwise(self, xs: list[float]) -> float:
        if len(xs) == 1:
            return xs[0]
        left = 1
        while 2 * left < len(xs):
            left *= 2
        return self.r(Fraction(self.pairwise(xs[:left])) + Fraction(self.pairwise(xs[left:])))

    def online(self, xs: list[float]) -> float:
        m, d = -math.inf, 0.0
        for x in xs:
            new = max(m, x)
            rescale = 0.0 if math.isinf(m) else self.exp(self.r(Fraction(m) - Fraction(new)))
            d = self.r(Fraction(self.r(Fraction(d) * Fraction(rescale))) + Fraction(self.exp(self.r(Fraction(x) -
                                                                                                 Fraction(new)))))
            m = new
        return d


def reference_softmax(xs: list[float], acc: Format, order: str) -> tuple[float, list[float], float]:
    ops = Ops(acc)
    top = max(xs)
    terms = [ops.exp(ops.r(Fraction(x) - Fraction(top))) for x in xs]
    d = ops.online(xs) if order == "online" else getattr(ops, order)(terms)
    probs = [ops.r(Fraction(e) / Fraction(d)) for e in terms]
    return d, probs, ops.pairwise(probs) if order == "pairwise" else ops.naive(probs)


@pytest.mark.parametrize("order", SOFTMAX_ORDERS)
@pytest.mark.parametrize(("fmt", "acc"), ((FP16, FP16), (BF16, BF16), (FP32, FP32), (E4M3, E4M3), (E5M2, E5M2),
                                          (FP16, FP32), (E4M3, FP16)), ids=lambda f: f.name)
def test_softmax_matches_its_reference(fmt: Format, acc: Format, order: str) -> None:
    """Rows of several lengths and spreads (up to logits far apart, whose terms underflow): bit for bit."""
    rng = np.random.default_rng([fmt.bits, acc.bits, len(order)])
    for n, spread in ((1, 1.0), (2, 3.0), (7, 0.5), (33, 4.0), (100, 10.0), (129, 2.0)):
        logits = to_format(rng.standard_normal((2, n)) * spread, fmt).astype(np.float64)
        for row in logits:
            xs = row.tolist()
            want_d, want_p, want_sum = reference_softmax(xs, acc, order)
            got = softmax(row, fmt, acc, order)  # type: ignore[arg-type]
            assert got.denominator == want_d, (n, spread)
            assert got.probability_sum == want_sum, (n, spread)
            assert got.exact_probability_sum == sum(map(Fraction, want_p), Fraction(0))
    rows = to_format(rng.standard_normal((3, 50)) * 3, fmt).astype(acc.dtype)
    want = from_floats([reference_softmax(r.astype(np.float64).tolist(), acc, order)[0] for r in rows], acc)
    assert_same_bits(denominator(rows, acc, order), want)  # type: ignore[arg-type]


def test_fp16_equal_logits_sum_to_two_in_naive_order() -> None:
    """4,096 equal logits in FP16: every term is 1, the naive sum stalls at 2048 (numpy's float16 says the same),
    so every probability is 1/2048 and they add up to 2 exactly; the FP16 sum of those stalls at 1.
    Pairwise order and FP32 accumulation give 4096 and probabilities summing to 1.
    """
    logits = np.zeros(4096)
    naive = softmax(logits, FP16, FP16, "naive")
    ones = np.add.accumulate(np.ones(4096, np.float16))
    assert naive.denominator == float(ones[-1]) == 2048
    assert naive.exact_probability_sum == 2
    assert naive.probability_sum == float(np.add.accumulate(np.full(4096, 2.0**-11, np.float16))[-1]) == 1
    assert softmax(logits, FP16, FP16, "online").denominator == 2048
    for order, acc in (("pairwise", FP16), ("naive", FP32), ("online", FP32)):
        result = softmax(logits, FP16, acc, order)  # type: ignore[arg-type]
        assert (result.denominator, result.exact_probability_sum) == (4096, 1)


def test_naive_denominator_is_numpy_float16_accumulate_of_the_terms() -> None:
    rng = np.random.default_rng(3)
    logits = to_format(rng.standard_normal((4, 3000)) * 2, FP16)
    terms = exp_rounded(logits - logits.max(axis=-1, keepdims=True), FP16)
    assert_same_bits(denominator(logits, FP16, "naive"), np.add.accumulate(terms, axis=-1)[:, -1])


def test_online_equals_naive_while_the_max_comes_first() -> None:
    """With the row's max in front, every rescale is exp(0) = 1 and the online sum is the naive one."""
    rng = np.random.default_rng(4)
    logits = to_format(rng.standard_normal((5, 2000)), FP16)
    logits[:, 0] = 8
    assert_same_bits(denominator(logits, FP16, "online"), denominator(logits, FP16, "naive"))


def test_softmax_edge_cases() -> None:
    one = softmax(np.array([3.5]), FP16, FP16, "online")
    assert (one.denominator, one.probability_sum, one.exact_denominator) == (1.0, 1.0, 1)
    with pytest.raises(ValueError, match="finite"):
        softmax(np.array([1.0, -np.inf]), FP16, FP16, "naive")
    with pytest.raises(ValueError, match="narrower"):
        softmax(np.array([1.0]), FP16, BF16, "naive")
    with pytest.raises(ValueError, match="unknown order"):
        softmax(np.array([1.0]), FP16, FP16, "sorted")  # type: ignore[arg-type]


# --- RMSNorm ---------------------------------------------------------------------------------------------------


def rsqrt_reference(t: Fraction, fmt: Format) -> float:
    """1 / sqrt(t) rounded to ``fmt``: 40-digit decimals, both ends of the error interval rounding alike."""
    context = Context(prec=DIGITS, Emin=-10**8, Emax=10**8)
    value = context.divide(1, context.sqrt(Decimal(t.numerator) / Decimal(t.denominator)))
    unit = Decimal((0, (1,), value.adjusted() - DIGITS + 4))  # three divisions' worth of error, generously
    low, high = round_exact(Fraction(value - unit), fmt), round_exact(Fraction(value + unit), fmt)
    assert low == high
    return low


@pytest.mark.parametrize("fmt", (FP16, BF16, FP32, E4M3, FP64), ids=lambda f: f.name)
def test_rsqrt_is_correctly_rounded(fmt: Format) -> None:
    rng = np.random.default_rng(fmt.bits)
    with np.errstate(over="ignore"):
        values = [float(v) for v in to_format(np.exp(rng.uniform(-20, 20, 300)), fmt).tolist() if 0 < v < math.inf]
    values += [fmt.smallest_subnormal, fmt.max_finite, 4.0, 0.25, 2.0]
    for t in values:
        assert rsqrt_rounded(t, fmt) == rsqrt_reference(Fraction(t), fmt), t
    assert rsqrt_rounded(4.0, fmt) == 0.5 and rsqrt_rounded(math.inf, fmt) == 0
    assert math.isnan(rsqrt_rounded(-1.0, fmt)) and math.isnan(rsqrt_rounded(math.nan, fmt))
    assert rsqrt_rounded(-0.0, FP16) == -math.inf and rsqrt_rounded(0.0, FP16) == math.inf


def test_rms_statistics_match_a_reference() -> None:
    rng = np.random.default_rng(9)
    for fmt, acc in ((FP16, FP16), (BF16, BF16), (FP16, FP32), (E4M3, FP16)):
        rows = to_format(rng.standard_normal((3, 77)) * 4, fmt).astype(np.float64)
        ms, scale = rms_statistics(rows.astype(acc.dtype), acc, 1e-5)
        for row, got_ms, got_scale in zip(rows.tolist(), ms.tolist(), scale.tolist()):
            ops = Ops(acc)
            total = ops.naive([ops.r(Fraction(x) ** 2) for x in row])
            want_ms = ops.r(Fraction(total) / len(row))
            shifted = ops.r(Fraction(want_ms) + Fraction(round_exact(Fraction(1e-5), acc)))
            assert (got_ms, got_scale) == (want_ms, rsqrt_reference(Fraction(shifted), acc))


def test_fp16_sum_of_squares_overflows_and_the_scale_is_zero() -> None:
    """onnxruntime#29034: 64 values of 40 square to 1,600 each, their FP16 sum passes 65,504 (at the 41st),
    the mean square is inf and the scale 0, so the layer outputs zeros; in FP32 the scale is 1/40.
    """
    row = np.full(64, 40.0)
    with np.errstate(over="ignore"):
        squares = np.add.accumulate(np.full(64, 1600, np.float16))
    assert math.isinf(float(squares[-1])) and np.isfinite(squares[39])
    narrow = rms(row, FP16, FP16)
    assert narrow.mean_square == math.inf and narrow.scale == 0 and narrow.scale_rel_error == 1
    wide = rms(row, FP16, FP32, eps=0.0)
    assert wide.mean_square == 1600 and wide.exact_mean_square == 1600
    assert wide.scale == round_exact(Fraction(1, 40), FP32) and wide.exact_scale == round_exact(Fraction(1, 40), FP64)
    assert rms(np.zeros(3), FP16, FP16, eps=0.0).scale == math.inf


def test_a_power_of_two_prescale_keeps_the_fp16_sum_of_squares_finite() -> None:
    """The same 64 values of 40, times 2**-4 first: squares of 2.5 (6.25) add up to 400, the mean square is
    6.25 and the scale (for the scaled inputs) 1 / sqrt(6.25 + eps / 256), which times 2**-4 is about 1/40.
    """
    result = rms(np.full(64, 40.0), FP16, FP16, prescale=2.0**-4)
    shift = round_exact(Fraction(1e-6) / 256, FP16)
    assert result.mean_square == 6.25 and result.exact_mean_square == Fraction(25, 4)
    assert result.scale == rsqrt_reference(Fraction(6.25) + Fraction(shift), FP16)
    assert abs(result.scale * 2.0**-4 - 1 / 40) < 1 / 40 * 2.0**-10
    for bad in (0.3, 0.0, 2.0**-20, 2.0**20):
        with pytest.raises(ValueError, match="power of two"):
            rms(np.ones(2), FP16, FP16, prescale=bad)


def test_a_pairwise_denominator_can_overflow_where_naive_stalls() -> None:
    """65,536 equal logits in FP16: the pairwise tree adds 32,768 + 32,768, beyond 65,504: inf, and every
    probability 1 / inf = 0; the naive sum stalls at 2048.  In E4M3, 256 + 256 is beyond 448: NaN.
    """
    pairwise = softmax(np.zeros(65536), FP16, FP16, "pairwise")
    assert pairwise.denominator == math.inf and pairwise.probability_sum == 0 and pairwise.exact_probability_sum == 0
    assert softmax(np.zeros(65536), FP16, FP16, "naive").denominator == 2048
    e4m3 = softmax(np.zeros(512), E4M3, E4M3, "pairwise")
    assert math.isnan(e4m3.denominator) and math.isnan(e4m3.exact_probability_sum)
    assert softmax(np.zeros(512), E4M3, E4M3, "naive").denominator == 16  # 16 + 1 is a tie: stays at 16
