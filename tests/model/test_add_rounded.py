"""``add_rounded`` against the exact sum rounded once, bit for bit, on pairs that need more than float64.

The operands are values of different formats: a weight of the target format
(or any FP32 value) plus an FP32 update.  Their sum may not fit in float32,
nor, when the exponents are far apart, in float64; the reference adds the
two as Fractions and rounds once with :func:`fpsum.exact_rounding.round_exact`
(the special cases, which have no exact value, by IEEE's rules).
:func:`fpsum.exact_rounding.add_exact`, a second exact route, must agree too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format
from fpsum.rounded_once import add_rounded
from reference import assert_same_bits, from_floats

TARGETS: tuple[Format, ...] = (FP16, BF16, E4M3, E5M2, FP32)
PAIRS = 3000  # per kind and target
SEED = 20240901
UINT: dict[int, type] = {8: np.uint8, 16: np.uint16, 32: np.uint32}

pytestmark = [
    pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning"),
]


def ids(fmt: Format) -> str:
    return fmt.name


def reference_sum(a: float, b: float, fmt: Format) -> float:
    """``round_exact(Fraction(a) + Fraction(b), fmt)``; NaN, inf and zero sums by IEEE's rules."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and (a > 0) != (b > 0):
            return math.nan
        infinite = a if math.isinf(a) else b
        return round_exact(infinite, fmt)  # +-inf, or NaN in E4M3
    exact = Fraction(a) + Fraction(b)
    if exact == 0:
        return -0.0 if math.copysign(1, a) < 0 and math.copysign(1, b) < 0 else 0.0
    return round_exact(exact, fmt)


def reference_array(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    return from_floats([reference_sum(x, y, fmt) for x, y in zip(a.tolist(), b.tolist())], fmt)


# --- operands -------------------------------------------------------------------------


def codes(fmt: Format, size: int, rng: np.random.Generator) -> np.ndarray:
    """Random finite values of ``fmt`` (up to 32 bits), uniform over bit patterns, as float64.

    Every binade is equally likely: zeros, subnormals and the largest values all occur.
    """
    drawn = rng.integers(0, 2**fmt.bits, size * 2).astype(UINT[fmt.bits]).view(fmt.dtype).astype(np.float64)
    finite = drawn[np.isfinite(drawn)]
    assert finite.size >= size
    return finite[:size]


def fp32(values: np.ndarray) -> np.ndarray:
    """Round float64 values to FP32 (the update's format), back as float64."""
    rounded: np.ndarray = to_format(values, FP32).astype(np.float64)
    return rounded


def sign(size: int, rng: np.random.Generator) -> np.ndarray:
    return np.where(rng.integers(0, 2, size) == 1, -1.0, 1.0)


def half_gaps(a: np.ndarray, fmt: Format) -> np.ndarray:
    """Half the gap above |a| in ``fmt`` (its ulp over 2)."""
    return fmt.ulps(a) / 2


def pairs_gaps(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A weight of ``fmt`` plus an FP32 update 0 to 60 binades below it, either sign: wide exponent gaps."""
    a = codes(fmt, size, rng)
    scale = np.ldexp(1.0 + rng.random(size), -rng.integers(0, 61, size))
    return a, fp32(sign(size, rng) * np.abs(a) * scale)


def pairs_fp32(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two random FP32 values, any binade, neither of them in ``fmt`` in general."""
    return codes(FP32, size, rng), codes(FP32, size, rng)


def pairs_ties(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A weight plus an odd number of half-gaps, exactly or nudged by a relative 2**-k (k = 1 .. 21).

    The nudged ones are near-ties that float32 cannot hold when the weight is
    much larger than the nudge; operands swapped half of the time.
    """
    a = codes(fmt, size, rng)
    a = a[(np.abs(a) >= 2 * fmt.smallest_normal) & (np.abs(a) < fmt.max_finite / 4)]
    n = a.size
    odd = 2 * rng.integers(0, 4, n) + 1
    nudge = np.where(rng.integers(0, 3, n) == 0, 0.0, sign(n, rng) * np.ldexp(1.0, -rng.integers(1, 22, n)))
    b = fp32(sign(n, rng) * half_gaps(a, fmt) * (odd + nudge))
    swap = rng.integers(0, 2, n) == 1
    return np.where(swap, b, a), np.where(swap, a, b)


def pairs_tie_broken_by_tiny(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """An FP32 value exactly halfway between two values of ``fmt``, plus a value 30 to 120 binades smaller.

    The float64 sum drops the tiny one and leaves a tie, which goes to the
    even neighbour whichever way the tiny one points: where rounding the
    float64 sum goes wrong.  (For an FP32 target the midpoint is no FP32
    value: the big operand is then a plain FP32 value.)
    """
    a = codes(fmt, size, rng)
    a = a[(np.abs(a) >= 2 * fmt.smallest_normal) & (np.abs(a) < fmt.max_finite / 4)]
    n = a.size
    mid = a if fmt is FP32 else fp32(a + np.sign(a) * half_gaps(a, fmt))
    tiny = fp32(sign(n, rng) * np.abs(mid) * np.ldexp(1.0 + rng.random(n), -rng.integers(30, 121, n)))
    return mid, tiny


def pairs_subnormal(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Around the format's smallest normal: subnormal weights plus FP32 updates of similar or smaller size."""
    a = sign(size, rng) * rng.integers(0, 2 ** (fmt.precision + 1), size) * fmt.smallest_subnormal
    a = to_format(a, fmt).astype(np.float64)
    b = fp32(sign(size, rng) * fmt.smallest_normal * np.ldexp(rng.random(size), -rng.integers(0, 12, size)))
    return a, b


def pairs_overflow(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The top few values of ``fmt`` plus a few half-gaps of the top binade, exactly or nudged: the overflow tie."""
    top = fmt.max_finite
    half = fmt.ulp(top) / 2
    a = sign(size, rng) * (top - rng.integers(0, 4, size) * 2 * half)
    nudge = np.where(rng.integers(0, 2, size) == 0, 0.0, sign(size, rng) * np.ldexp(1.0, -rng.integers(1, 22, size)))
    b = np.sign(a) * np.where(rng.integers(0, 4, size) == 0, -1.0, 1.0) * half * (rng.integers(0, 4, size) + nudge)
    if fmt is FP32:  # beyond FP32's largest value the update itself is not an FP32 value
        b = np.where(np.abs(b) <= top, b, np.sign(b) * top)
    return a, fp32(b)


def pairs_zeros(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Signed zeros against each other, x + -x, and tiny updates to a zero weight (underflow keeps the sign)."""
    zeros = np.array([0.0, -0.0])
    x = codes(FP32, size, rng)
    tiny = fp32(sign(size, rng) * fmt.smallest_subnormal * rng.random(size))
    pick = rng.integers(0, 3, size)
    a = np.where(pick == 0, zeros[rng.integers(0, 2, size)], np.where(pick == 1, x, zeros[rng.integers(0, 2, size)]))
    b = np.where(pick == 0, zeros[rng.integers(0, 2, size)], np.where(pick == 1, -x, tiny))
    return a, b


def pairs_special(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """+-inf and NaN against anything, inf + -inf included."""
    specials = np.array([math.inf, -math.inf, math.nan])
    a = specials[rng.integers(0, 3, size)]
    b = np.where(rng.integers(0, 3, size) == 0, specials[rng.integers(0, 3, size)], codes(FP32, size, rng))
    swap = rng.integers(0, 2, size) == 1
    return np.where(swap, b, a), np.where(swap, a, b)


PairMaker = Callable[[Format, int, np.random.Generator], tuple[np.ndarray, np.ndarray]]
KINDS: dict[str, PairMaker] = {
    "gaps": pairs_gaps,
    "fp32": pairs_fp32,
    "ties": pairs_ties,
    "tie_broken_by_tiny": pairs_tie_broken_by_tiny,
    "subnormal": pairs_subnormal,
    "overflow": pairs_overflow,
    "zeros": pairs_zeros,
    "special": pairs_special,
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("fmt", TARGETS, ids=ids)
def test_add_rounded_is_the_exact_sum_rounded_once(fmt: Format, kind: str) -> None:
    rng = np.random.default_rng([SEED, fmt.bits, fmt.precision, list(KINDS).index(kind)])
    a, b = KINDS[kind](fmt, PAIRS, rng)
    assert np.array_equal(fp32(a), a, equal_nan=True) and np.array_equal(fp32(b), b, equal_nan=True)
    got = add_rounded(a, b, fmt)
    assert got.dtype == fmt.dtype and got.shape == a.shape
    want = reference_array(a, b, fmt)
    assert_same_bits(got, want, a, b)
    assert_same_bits(got, from_floats([add_exact(x, y, fmt) for x, y in zip(a.tolist(), b.tolist())], fmt), a, b)


def is_tie(a: float, b: float, fmt: Format) -> bool:
    exact = Fraction(a) + Fraction(b)
    nudge = Fraction(1, 2**400)
    return round_exact(exact + nudge, fmt) != round_exact(exact - nudge, fmt)


@pytest.mark.parametrize("fmt", TARGETS, ids=ids)
def test_the_cases_occur(fmt: Format) -> None:
    """The generators make what they promise: ties, overflow, underflow to -0.0, subnormal results."""
    def made(kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rng = np.random.default_rng([SEED, fmt.bits, fmt.precision, list(KINDS).index(kind)])
        a, b = KINDS[kind](fmt, PAIRS, rng)
        return a, b, add_rounded(a, b, fmt).astype(np.float64)

    a, b, got = made("ties")
    assert sum(is_tie(x, y, fmt) for x, y in zip(a[:300].tolist(), b[:300].tolist())) >= 40
    if fmt is not FP32:  # near-ties that the float32 sum turns into ties
        with np.errstate(over="ignore"):
            through_float32 = to_format((a.astype(np.float32) + b.astype(np.float32)).astype(np.float64), fmt)
        assert (through_float32.astype(np.float64) != got).sum() >= 10
        a, b, got = made("tie_broken_by_tiny")
        assert (to_format(a + b, fmt).astype(np.float64) != got).sum() >= PAIRS // 4
    a, b, got = made("overflow")
    assert (~np.isfinite(got)).any() and (np.abs(got) == fmt.max_finite).any()
    _, _, got = made("zeros")
    assert ((got == 0) & np.signbit(got)).any() and ((got == 0) & ~np.signbit(got)).any()
    _, _, got = made("subnormal")
    assert ((got != 0) & (np.abs(got) < fmt.smallest_normal)).any()
    a, b, _ = made("gaps")
    assert ((b != 0) & (np.abs(b) < np.abs(a) * 2.0**-40)).sum() >= PAIRS // 10


def test_by_hand() -> None:
    """BF16 weight 1.0: half an ulp up is 2**-8, a tie that stays at even 1.0; a hair more goes up."""
    assert float(add_rounded(1.0, 2.0**-8, BF16)) == 1.0
    assert float(add_rounded(1.0, 2.0**-8 + 2.0**-31, BF16)) == 1.0 + 2.0**-7
    assert float(add_rounded(1.0, -(2.0**-9), BF16)) == 1.0  # below 1 the gap is 2**-8: a tie again
    assert float(add_rounded(1.0, -(2.0**-9) - 2.0**-32, BF16)) == 1.0 - 2.0**-8
    assert float(add_rounded(1.0 + 2.0**-7, 2.0**-8, BF16)) == 1.0 + 2.0**-6  # odd: the tie goes up
    assert float(add_rounded(65504.0, 16.0, FP16)) == math.inf  # the overflow tie
    assert float(add_rounded(65504.0, 16.0 - 2.0**-10, FP16)) == 65504.0
    assert math.isnan(float(add_rounded(448.0, 16.0 + 2.0**-10, E4M3)))
    assert float(add_rounded(448.0, 16.0, E4M3)) == 448.0
    assert math.copysign(1, float(add_rounded(-0.0, -0.0, BF16))) == -1
    assert math.copysign(1, float(add_rounded(-0.0, 0.0, BF16))) == 1
    assert math.copysign(1, float(add_rounded(0.0, -(2.0**-140), FP16))) == -1  # underflow keeps the sign
    assert math.isnan(float(add_rounded(math.inf, -math.inf, FP16)))
    assert float(add_rounded(-math.inf, 1.0, BF16)) == -math.inf
    assert math.isnan(float(add_rounded(math.inf, 1.0, E4M3)))


def test_neither_plain_sum_rounds_right() -> None:
    """The float32 sum loses the nudge that breaks a tie; so does the float64 sum, for a far smaller nudge.

    ``add_rounded`` sees both: both sums are above the midpoint 1 + 2**-8.
    """
    weight, update = 1.0, 2.0**-8 + 2.0**-31  # an FP32 update
    assert float(to_format(float(np.float32(weight) + np.float32(update)), BF16)) == 1.0  # float32: wrong
    assert float(add_rounded(weight, update, BF16)) == 1.0 + 2.0**-7
    midpoint, tiny = 1.0 + 2.0**-8, 2.0**-100  # an FP32 value halfway between two BF16 values, and a BF16 value
    assert float(to_format(midpoint + tiny, BF16)) == 1.0  # float64: wrong
    assert float(add_rounded(midpoint, tiny, BF16)) == 1.0 + 2.0**-7
    assert float(add_rounded(-midpoint, -tiny, BF16)) == -(1.0 + 2.0**-7)


def test_shapes_broadcast() -> None:
    got = add_rounded(np.ones((2, 3)), np.array([2.0**-9, 2.0**-7, -(2.0**-7)]), BF16)
    assert got.shape == (2, 3) and got.dtype == BF16.dtype
    assert got[1].astype(np.float64).tolist() == [1.0, 1.0 + 2.0**-7, 1.0 - 2.0**-7]
    assert add_rounded(1.0, 2.0, FP16).shape == ()


def test_wider_than_51_bits_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 51 bits"):
        add_rounded(np.ones(2), np.ones(2), FP64)
