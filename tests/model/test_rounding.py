"""Exact rounding, dtype arithmetic and casts, and the formats: checked against each other bit for bit.

Two independent routes to every rounded value: ``fpsum.exact_rounding`` computes on
exact rationals and rounds once (ties to even); NumPy's float16 and
ml_dtypes' types compute in float32 and round once.  Where they agree bit for
bit on every kind of case (ties, subnormals, overflow, signed zeros,
infinities) each vouches for the other.  In the style of ml_dtypes' own
tests: compute wider, round once, compare bit patterns, all NaNs equal.

``FPSUM_PAIRS`` (default 1,000,000) sets the number of random pairs per format
for the FP16 and BF16 addition checks.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import BF16, E4M3, E5M2, FORMATS, FP16, FP32, FP64, Format, get_format
from reference import as_bits, assert_same_bits, from_floats

PAIRS = int(os.environ.get("FPSUM_PAIRS", "1000000"))
SEED = 20240607

# Casting NaN codes of ml_dtypes types, or float64 values beyond a format's
# range, sets NumPy's floating-point flags; those casts are deliberate here.
pytestmark = [
    pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning"),
]
SMALL: tuple[Format, ...] = (FP16, BF16, E4M3, E5M2)
EIGHT_BIT: tuple[Format, ...] = (E4M3, E5M2)
UINT: dict[int, type] = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def ids(fmt: Format) -> str:
    return fmt.name


# --- building values from their bit fields ---------------------------------


def exponent_bits(fmt: Format) -> int:
    """Width of the exponent field: what is left after the sign and the p - 1 stored significand bits."""
    return fmt.bits - fmt.precision


def compose(fmt: Format, sign: np.ndarray, exponent: np.ndarray, mantissa: np.ndarray) -> np.ndarray:
    """Values of ``fmt`` from their fields (sign bit, biased exponent field, stored significand bits)."""
    word = (
        (sign.astype(np.uint64) << np.uint64(fmt.bits - 1))
        | (exponent.astype(np.uint64) << np.uint64(fmt.precision - 1))
        | mantissa.astype(np.uint64)
    )
    return word.astype(UINT[fmt.bits]).view(fmt.dtype)


def all_codes(fmt: Format) -> np.ndarray:
    """Every bit pattern of an 8- or 16-bit format, as that format's values."""
    return np.arange(2**fmt.bits, dtype=np.uint64).astype(UINT[fmt.bits]).view(fmt.dtype)


def random_values(fmt: Format, size: int, rng: np.random.Generator,
                  exponents: tuple[int, int] | None = None) -> np.ndarray:
    """Random finite values of an IEEE-style format with exponent fields in ``exponents`` (inclusive).

    Default: every finite exponent field, so zeros, subnormals and the top binade all occur.
    """
    low, high = exponents if exponents is not None else (0, 2 ** exponent_bits(fmt) - 2)
    return compose(
        fmt,
        rng.integers(0, 2, size),
        rng.integers(low, high, size, endpoint=True),
        rng.integers(0, 2 ** (fmt.precision - 1), size),
    )


def step_code(values: np.ndarray, delta: np.ndarray | int) -> np.ndarray:
    """Move each value ``delta`` codes along its bit pattern (same sign: away from zero if positive)."""
    bits = as_bits(values).astype(np.int64) + delta
    return bits.astype(as_bits(values).dtype).view(values.dtype)


# --- addition: random pairs for FP16 and BF16 --------------------------------

PairMaker = Callable[[Format, int, np.random.Generator], tuple[np.ndarray, np.ndarray]]


def pairs_any(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Uniform over all bit patterns: NaNs, infinities, zeros, subnormals, everything."""
    uint = UINT[fmt.bits]
    draw = rng.integers(0, 2**fmt.bits, (2, size)).astype(uint).view(fmt.dtype)
    return draw[0], draw[1]


def pairs_near(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Exponents within p + 2 of each other, both signs: the sums that actually round (and cancel)."""
    a = random_values(fmt, size, rng)
    top = 2 ** exponent_bits(fmt) - 2
    a_exp = (as_bits(a).astype(np.int64) >> (fmt.precision - 1)) & (2 ** exponent_bits(fmt) - 1)
    b_exp = np.clip(a_exp + rng.integers(-fmt.precision - 2, fmt.precision + 2, size, endpoint=True), 0, top)
    b = compose(fmt, rng.integers(0, 2, size), b_exp, rng.integers(0, 2 ** (fmt.precision - 1), size))
    return a, b


def pairs_ties(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """a + b with b an odd multiple (1, 3, 5, 7) of half an ulp of a: an exact tie.

    A third of the b are then nudged one code up or down: near-ties on both
    sides.  The order of the operands is shuffled.
    """
    top = 2 ** exponent_bits(fmt) - 2
    # Exponent field >= 2, so half an ulp of a is representable (>= the smallest subnormal).
    a = random_values(fmt, size, rng, exponents=(2, top))
    field = (as_bits(a).astype(np.int64) >> (fmt.precision - 1)) & (2 ** exponent_bits(fmt) - 1)
    exponent = field - (1 - fmt.emin)  # a in [2**exponent, 2**(exponent + 1))
    half_ulp = np.ldexp(1.0, exponent - fmt.precision)
    odd = 2 * rng.integers(0, 4, size) + 1
    sign = np.where(rng.integers(0, 2, size) == 1, -1.0, 1.0)
    b = from_floats(sign * odd * half_ulp, fmt)
    b = step_code(b, rng.choice([-1, 0, 0, 0, 0, 1], size))
    swap = rng.integers(0, 2, size) == 1
    return np.where(swap, b, a), np.where(swap, a, b)


def pairs_overflow(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Same sign, sums beyond the largest value or just short of it.

    Half: both operands in the top two binades.  Half: ``a`` within a few
    codes of the largest value and ``b`` a few binades lower, so the sums
    straddle the largest value and the overflow threshold (max + ulp/2).
    """
    top = 2 ** exponent_bits(fmt) - 2
    mantissa_top = 2 ** (fmt.precision - 1) - 1
    half = size // 2
    a = np.concatenate([
        random_values(fmt, size - half, rng, exponents=(top - 1, top)),
        compose(fmt, rng.integers(0, 2, half), np.full(half, top),
                rng.integers(mantissa_top - 7, mantissa_top, half, endpoint=True)),
    ])
    b = np.abs(np.concatenate([
        random_values(fmt, size - half, rng, exponents=(top - 1, top)),
        random_values(fmt, half, rng, exponents=(top - fmt.precision - 1, top - 2)),
    ]))
    b = np.where(np.signbit(a), -b, b)
    return a, b


def pairs_zeros(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """x + -x for random x (subnormal to huge), and every combination of signed zeros."""
    a = random_values(fmt, size, rng)
    b = -a
    zeros = from_floats([0.0, -0.0], fmt)
    pick = rng.integers(0, 4, size) == 0
    a = np.where(pick, zeros[rng.integers(0, 2, size)], a)
    b = np.where(pick, zeros[rng.integers(0, 2, size)], b)
    return a, b


def pairs_special(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """An infinity or NaN against anything, inf + inf and inf + -inf included."""
    specials = from_floats([math.inf, -math.inf, math.nan], fmt)
    a = specials[rng.integers(0, 3, size)]
    b_any, _ = pairs_any(fmt, size, rng)
    b = np.where(rng.integers(0, 3, size) == 0, specials[rng.integers(0, 3, size)], b_any)
    swap = rng.integers(0, 2, size) == 1
    return np.where(swap, b, a), np.where(swap, a, b)


def pairs_subnormal(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Subnormals and the smallest normal binade, both signs: sums that cross the normal boundary."""
    return random_values(fmt, size, rng, exponents=(0, 1)), random_values(fmt, size, rng, exponents=(0, 1))


# name -> (generator, share of PAIRS)
PAIR_KINDS: dict[str, tuple[PairMaker, float]] = {
    "any": (pairs_any, 0.15),
    "near": (pairs_near, 0.25),
    "ties": (pairs_ties, 0.25),
    "overflow": (pairs_overflow, 0.10),
    "zeros": (pairs_zeros, 0.05),
    "special": (pairs_special, 0.05),
    "subnormal": (pairs_subnormal, 0.15),
}


def exact_sums(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    """``add_exact`` on every pair, as an array of ``fmt.dtype`` (a Python loop; the exact side)."""
    left = a.astype(np.float64).tolist()
    right = b.astype(np.float64).tolist()
    return from_floats([add_exact(x, y, fmt) for x, y in zip(left, right)], fmt)


def dtype_sums(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The dtype's own vectorised addition (NumPy float16, ml_dtypes bfloat16 / float8)."""
    with np.errstate(all="ignore"):
        total: np.ndarray = a + b
    return total


def is_tie(exact: Fraction, fmt: Format) -> bool:
    """Whether ``exact`` lies exactly halfway between two neighbours of ``fmt``.

    A tie is where an infinitesimal nudge either way changes the rounded value.
    """
    nudge = Fraction(1, 2**400)
    return round_exact(exact + nudge, fmt) != round_exact(exact - nudge, fmt)


def check_coverage(kind: str, a: np.ndarray, b: np.ndarray, want: np.ndarray, fmt: Format) -> None:
    """The generator of ``kind`` produced the cases it promises (else the test would prove little)."""
    wide = want.astype(np.float64)
    if kind == "ties":
        sample = range(0, a.size, max(1, a.size // 500))
        ties = sum(is_tie(Fraction(float(a[i])) + Fraction(float(b[i])), fmt) for i in sample)
        assert ties >= 0.4 * len(sample), f"only {ties} ties in {len(sample)}"
    elif kind == "overflow":
        assert np.isinf(wide).any() and np.isfinite(wide).any()
        assert np.any(np.abs(wide) == fmt.max_finite)
    elif kind == "zeros":
        assert np.any((wide == 0) & np.signbit(wide)) and np.any((wide == 0) & ~np.signbit(wide))
    elif kind == "special":
        assert np.isnan(wide).any() and np.isposinf(wide).any() and np.isneginf(wide).any()
    elif kind == "subnormal":
        assert np.any((wide != 0) & (np.abs(wide) < fmt.smallest_normal))
        assert np.any(np.abs(wide) >= fmt.smallest_normal)


@pytest.mark.parametrize("kind", list(PAIR_KINDS))
@pytest.mark.parametrize("fmt", [FP16, BF16, FP32], ids=ids)
def test_add_exact_matches_dtype_addition(fmt: Format, kind: str) -> None:
    """NumPy float16 and float32 / ml_dtypes bfloat16 addition == exact sum rounded once, on random pairs."""
    make, share = PAIR_KINDS[kind]
    rng = np.random.default_rng([SEED, fmt.bits, fmt.precision, list(PAIR_KINDS).index(kind)])
    a, b = make(fmt, max(1, int(PAIRS * share)), rng)
    want = exact_sums(a, b, fmt)
    assert_same_bits(dtype_sums(a, b), want, a, b)
    check_coverage(kind, a, b, want, fmt)


def edge_pairs(fmt: Format) -> list[tuple[float, float]]:
    """Hand-picked pairs at the edges: overflow threshold, stall point, ties to even, signed zeros."""
    big = fmt.max_finite
    half_top = fmt.ulp(big) / 2  # max + half_top is the overflow tie (to the even neighbour, 2**(emax+1))
    eps = 2 * fmt.unit_roundoff
    sub = fmt.smallest_subnormal
    stall = fmt.stall_point
    pairs = [
        (big, big), (big, -big), (-big, -big),
        (big, half_top), (-big, -half_top), (big, half_top / 2), (big, half_top * 1.5),
        (1.0, eps / 2),            # tie: 1 is even, stays 1
        (1.0 + eps, eps / 2),      # tie: 1 + eps is odd, goes up to 1 + 2 eps
        (1.0, -eps / 4),           # tie below a power of two, where the gap is half as wide
        (1.0, -eps / 2), (2.0, -eps),
        (stall, 1.0), (stall, -1.0), (stall - 1, 1.0), (stall, 0.5), (stall, 1.5),
        (sub, sub), (sub, -sub), (-sub, -sub), (fmt.smallest_normal, -sub), (fmt.smallest_normal - sub, sub),
        (0.0, 0.0), (0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0), (-0.0, sub), (1.0, -1.0), (-1.0, 1.0),
        (math.inf, -math.inf), (math.inf, math.inf), (-math.inf, big), (math.nan, 1.0),
    ]
    if fmt.overflow == "nan":  # no infinities to add
        pairs = [p for p in pairs if all(math.isfinite(x) for x in p)]
    # Keep only pairs whose operands are values of the format (half_top * 1.5 is not, in E5M2).
    return [(x, y) for x, y in pairs if all(math.isnan(v) or round_exact(v, fmt) == v for v in (x, y))]


@pytest.mark.parametrize("fmt", SMALL, ids=ids)
def test_add_exact_matches_dtype_addition_on_edges(fmt: Format) -> None:
    pairs = edge_pairs(fmt)
    a = from_floats([p[0] for p in pairs], fmt)
    b = from_floats([p[1] for p in pairs], fmt)
    assert_same_bits(dtype_sums(a, b), exact_sums(a, b, fmt), a, b)


def test_edge_cases_by_hand() -> None:
    """A few sums worked out on paper, so the edge cases are not only held against the dtypes."""
    assert add_exact(2048.0, 1.0, FP16) == 2048.0  # the stall: a tie, to even
    assert add_exact(2050.0, 1.0, FP16) == 2052.0  # tie, 2050 is odd: up
    assert add_exact(65504.0, 16.0, FP16) == math.inf  # FP16 max + half an ulp: tie, to 2**16, overflow
    assert add_exact(65504.0, 15.0, FP16) == 65504.0
    assert add_exact(448.0, 16.0, E4M3) == 448.0  # E4M3: 448 + half an ulp is a tie to even 448
    assert math.isnan(add_exact(448.0, 32.0, E4M3))  # 480 is the NaN code: no infinity to go to
    assert math.copysign(1.0, add_exact(-0.0, -0.0, FP16)) == -1.0
    assert math.copysign(1.0, add_exact(-0.0, 0.0, FP16)) == 1.0
    assert math.copysign(1.0, add_exact(-3.0, 3.0, FP16)) == 1.0
    assert math.isnan(add_exact(math.inf, -math.inf, FP16))
    assert add_exact(-math.inf, 1.0, BF16) == -math.inf
    assert add_exact(2.0**-24, 2.0**-24, FP16) == 2.0**-23


@pytest.mark.parametrize("fmt", EIGHT_BIT, ids=ids)
def test_add_exact_matches_dtype_addition_exhaustively(fmt: Format) -> None:
    """Every pair of 8-bit codes (finite ones and the NaN / infinity codes): 65,536 sums."""
    codes = all_codes(fmt)
    a, b = (grid.ravel() for grid in np.meshgrid(codes, codes, indexing="ij"))
    finite = np.isfinite(a.astype(np.float64)) & np.isfinite(b.astype(np.float64))
    assert finite.sum() == (256 - (2 if fmt is E4M3 else 8)) ** 2  # E4M3 has 2 NaN codes; E5M2 2 inf + 6 NaN
    assert_same_bits(dtype_sums(a, b), exact_sums(a, b, fmt), a, b)


# --- conversion from float64 -------------------------------------------------


def neighbours_up(fmt: Format, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (v, next value above v) of non-negative finite values below the largest, as float64.

    All of them for 8-bit formats, a random sample otherwise.
    """
    if fmt.bits <= 8:
        low = all_codes(fmt)
    elif fmt.bits == 16:
        low = all_codes(fmt)[rng.integers(0, 2**16, size)]
    else:
        low = random_values(fmt, size, rng)
    low = np.abs(low[np.isfinite(low.astype(np.float64))])
    low = low[low.astype(np.float64) < fmt.max_finite]
    high = step_code(low, 1)
    return low.astype(np.float64), high.astype(np.float64)


def float64_cases(fmt: Format, size: int, rng: np.random.Generator) -> np.ndarray:
    """float64 values that test a rounding to ``fmt``, both signs.

    * random significands (all 53 bits) in every binade, from below the
      smallest subnormal to beyond the largest value;
    * exact midpoints between neighbours (ties), the overflow tie
      ``max + ulp/2`` and the underflow tie ``smallest_subnormal / 2``;
    * near-ties: one float64 ulp either side of a midpoint, and relative
      offsets of 2**-25 to 2**-52 (below float32's precision, where rounding
      twice through float32 goes wrong);
    * zeros, infinities, NaN, and float64 values far outside the format.
    """
    p = fmt.precision
    exponents = rng.integers(fmt.emin - p - 3, fmt.emax + 3, size, endpoint=True)
    significands = 1.0 + rng.integers(0, 2**52, size) / 2.0**52
    spread = np.ldexp(significands, exponents)

    low, high = neighbours_up(fmt, size, rng)
    top_tie = fmt.max_finite + fmt.ulp(fmt.max_finite) / 2
    mids = np.concatenate([(low + high) / 2, [top_tie, fmt.smallest_subnormal / 2]])
    offsets = np.ldexp(1.0, -rng.integers(25, 52, mids.size, endpoint=True))
    near = np.concatenate([
        np.nextafter(mids, np.inf),
        np.nextafter(mids, -np.inf),
        mids * (1 + offsets),
        mids * (1 - offsets),
    ])
    special = np.array([0.0, math.inf, math.nan, 1e300, 1e-300, 5e-324, 2.0**-1022,
                        float(np.finfo(np.float32).max), 2.0**128 * (1 - 2.0**-25), 2.0**128])
    values = np.concatenate([spread, mids, near, special])
    return np.concatenate([values, -values])


def round_exact_array(values: np.ndarray, fmt: Format) -> np.ndarray:
    """``round_exact`` on each float64 value (a Python loop), as an array of ``fmt.dtype``."""
    return from_floats([round_exact(v, fmt) for v in values.tolist()], fmt)


def numpy_cast(values: np.ndarray, fmt: Format) -> np.ndarray:
    with np.errstate(over="ignore"):
        return values.astype(fmt.dtype)


Cast = Callable[[np.ndarray, Format], np.ndarray]
CASTS = [pytest.param(fmt, to_format, id=f"to_format-{fmt.name}") for fmt in (FP16, BF16, E4M3, E5M2, FP32)] + [
    pytest.param(FP16, numpy_cast, id="numpy_cast-fp16"),
    pytest.param(FP32, numpy_cast, id="numpy_cast-fp32"),
]


@functools.cache
def cast_cases(fmt_name: str) -> tuple[np.ndarray, np.ndarray]:
    """The float64 cases of a format and ``round_exact`` of each: computed once for every cast held to them."""
    fmt = get_format(fmt_name)
    rng = np.random.default_rng([SEED, 2, fmt.bits, fmt.precision])
    values = float64_cases(fmt, 4000, rng)
    values.setflags(write=False)  # shared: no cast may write to it
    return values, round_exact_array(values, fmt)


@pytest.mark.parametrize(("fmt", "cast"), CASTS)
def test_cast_from_float64_matches_round_exact(fmt: Format, cast: Cast) -> None:
    values, want = cast_cases(fmt.name)
    got = cast(values, fmt)
    assert got.dtype == fmt.dtype
    assert_same_bits(got, want, values)


def test_to_format_keeps_shape_and_takes_scalars() -> None:
    values = np.linspace(-3, 3, 24).reshape(2, 3, 4)
    assert to_format(values, BF16).shape == (2, 3, 4)
    scalar = to_format(1 + 2.0**-8 + 2.0**-40, BF16)
    assert scalar.dtype == BF16.dtype and float(scalar) == 1.0078125


ML_DTYPES_FORMATS = (BF16, E4M3, E5M2)


@pytest.mark.parametrize("fmt", ML_DTYPES_FORMATS, ids=ids)
def test_ml_dtypes_cast_is_right_on_float32_values(fmt: Format) -> None:
    """ml_dtypes' float64 cast is correctly rounded when the float64 value is exactly a float32."""
    rng = np.random.default_rng([SEED, 3, fmt.bits, fmt.precision])
    with np.errstate(over="ignore"):
        values = float64_cases(fmt, 2000, rng).astype(np.float32).astype(np.float64)
    assert_same_bits(numpy_cast(values, fmt), round_exact_array(values, fmt), values)


@pytest.mark.parametrize("fmt", ML_DTYPES_FORMATS, ids=ids)
def test_ml_dtypes_cast_rounds_twice_through_float32(fmt: Format) -> None:
    """ml_dtypes' float64 cast is nearest-to-float32 then nearest-to-format, which is sometimes wrong.

    Documents why ``to_format`` does not use it: on the near-ties the double
    rounding differs from rounding once, and ``to_format`` (checked above) does not.
    """
    rng = np.random.default_rng([SEED, 4, fmt.bits, fmt.precision])
    values = float64_cases(fmt, 2000, rng)
    twice = from_floats([round_exact(round_exact(v, FP32), fmt) for v in values.tolist()], fmt)
    ml = numpy_cast(values, fmt)
    assert_same_bits(ml, twice, values)
    wrong = np.count_nonzero(as_bits(ml) != as_bits(round_exact_array(values, fmt)))
    assert wrong > 0


@pytest.mark.parametrize("fmt", ML_DTYPES_FORMATS, ids=ids)
def test_double_rounding_example(fmt: Format) -> None:
    """1 + half an ulp + a little: float32 drops the little, leaving a tie that goes down to 1."""
    eps = 2 * fmt.unit_roundoff
    value = 1 + eps / 2 + 2.0**-40
    assert float(np.float32(value)) == 1 + eps / 2  # the first rounding makes a tie
    assert float(np.array(value).astype(fmt.dtype)) == 1.0  # ml_dtypes: wrong
    assert round_exact(value, fmt) == 1 + eps  # right: above the midpoint, so up
    assert float(to_format(value, fmt)) == 1 + eps
    assert float(to_format(-value, fmt)) == -(1 + eps)
    if fmt is BF16:
        assert float(to_format(1 + 2.0**-8 + 2.0**-40, BF16)) == 1.0078125


# --- round_exact itself ---------------------------------------------------------


def test_round_exact_takes_exact_numbers() -> None:
    assert round_exact(2049, FP16) == 2048.0
    assert round_exact(2051, FP16) == 2052.0
    assert round_exact(Fraction(1, 3), FP16) == 1365 / 4096
    assert round_exact(Fraction(2**100 + 1), BF16) == 2.0**100
    assert round_exact(0, FP16) == 0.0 and math.copysign(1, round_exact(0, FP16)) == 1
    assert math.copysign(1, round_exact(-0.0, FP16)) == -1
    assert math.copysign(1, round_exact(Fraction(-1, 2**30), FP16)) == -1  # underflow keeps the sign
    assert round_exact(Fraction(3, 2**26), FP16) == 2.0**-24  # 0.75 of the smallest subnormal: up
    assert round_exact(Fraction(1, 2**25), FP16) == 0.0  # half of it: tie, to even 0
    assert round_exact(Fraction(10**10), FP16) == math.inf
    assert round_exact(-(10**10), FP16) == -math.inf
    assert math.isnan(round_exact(Fraction(500), E4M3))
    assert math.isnan(round_exact(math.inf, E4M3))
    assert round_exact(Fraction(463), E4M3) == 448.0


@pytest.mark.parametrize("fmt", SMALL, ids=ids)
def test_round_exact_stochastic(fmt: Format) -> None:
    """Between neighbours d < v < u, the result is u (towards +inf) exactly when the draw is below (v - d) / (u - d).

    For either sign: for -(1 + eps/4) the neighbours are -(1 + eps) and -1, and
    the covered fraction from the lower one is 3/4.
    """
    eps = 2 * fmt.unit_roundoff
    quarter = Fraction(1) + Fraction(eps) / 4  # a quarter of the way from 1 to 1 + eps
    cases = [(quarter, 1.0, 1 + eps, Fraction(1, 4)), (-quarter, -(1 + eps), -1.0, Fraction(3, 4))]
    for value, down, up, covered in cases:
        assert (Fraction(value) - Fraction(down)) / (Fraction(up) - Fraction(down)) == covered
        for uniform in (0.0, 0.1, 0.2499, 0.25, 0.5, 0.7499, 0.75, 0.9, 0.9999):
            want = up if Fraction(uniform) < covered else down
            assert round_exact(value, fmt, "stochastic", uniform=uniform) == want, (value, uniform)
    for uniform in (0.0, 0.5, 0.999):
        for exact in (1.5, -1.5, 0.0):
            assert round_exact(exact, fmt, "stochastic", uniform=uniform) == exact  # representable: unchanged
        assert round_exact(Fraction(-3, 2), fmt, "stochastic", uniform=uniform) == -1.5


@pytest.mark.parametrize("uniform", [None, 1.0, -0.25])
def test_round_exact_stochastic_needs_a_draw_in_unit_interval(uniform: float | None) -> None:
    with pytest.raises(ValueError, match="uniform draw"):
        round_exact(Fraction(1, 3), FP16, "stochastic", uniform=uniform)


def test_round_exact_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown rounding mode"):
        round_exact(Fraction(1, 3), FP16, "upward")  # type: ignore[arg-type]


# --- the formats ----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(FORMATS.values()), ids=ids)
def test_format_matches_finfo(fmt: Format) -> None:
    info = ml_dtypes.finfo(fmt.dtype)  # type: ignore[no-untyped-call]  # NumPy's own finfo for float16/32/64
    assert fmt.bits == info.bits <= fmt.dtype.itemsize * 8  # FP4 and FP6 are stored in a byte
    assert fmt.precision == info.nmant + 1
    assert fmt.emin == info.minexp
    assert fmt.emax == info.maxexp - 1
    assert fmt.max_finite == float(info.max)
    assert fmt.smallest_normal == float(info.smallest_normal)
    assert fmt.smallest_subnormal == float(info.smallest_subnormal)
    assert 2 * fmt.unit_roundoff == float(info.eps)
    assert fmt.unit_roundoff == 2.0**-fmt.precision
    if fmt in (FP16, FP32, FP64):
        numpy_info = np.finfo(fmt.dtype)
        assert fmt.max_finite == float(numpy_info.max) and float(numpy_info.eps) == 2 * fmt.unit_roundoff


@pytest.mark.parametrize("fmt", SMALL, ids=ids)
def test_format_extremes_from_the_codes(fmt: Format) -> None:
    """Largest, smallest normal and smallest subnormal, found by scanning every code."""
    values = all_codes(fmt).astype(np.float64)
    positive = values[np.isfinite(values) & (values > 0)]
    assert positive.max() == fmt.max_finite
    assert positive.min() == fmt.smallest_subnormal
    # Normals are the values whose code has a nonzero exponent field.
    codes = as_bits(all_codes(fmt)).astype(np.int64)
    normal = (codes >> (fmt.precision - 1)) & (2 ** exponent_bits(fmt) - 1) != 0
    assert values[normal & (values > 0)].min() == fmt.smallest_normal
    assert (fmt.overflow == "nan") == (not np.isinf(values).any())


@pytest.mark.parametrize("fmt", list(FORMATS.values()), ids=ids)
def test_stall_point(fmt: Format) -> None:
    """S = 2**p (or the largest value, where that is smaller); in the dtype's own arithmetic S + x == S
    for every x in [0, 1], and S - 1 + 1 == S.
    """
    assert fmt.stall_point == min(2.0**fmt.precision, fmt.max_finite)
    s = np.array(fmt.stall_point, dtype=fmt.dtype)
    one = np.array(1.0, dtype=fmt.dtype)
    below_one = np.array(1 - fmt.unit_roundoff, dtype=fmt.dtype)  # the largest value below 1
    assert float(s + one) == fmt.stall_point  # a tie, to even (FP6 E2M3: saturated)
    assert float(s + below_one) == fmt.stall_point
    if fmt.stall_point == 2.0**fmt.precision:
        assert float(np.array(fmt.stall_point / 2, dtype=fmt.dtype) + below_one) == fmt.stall_point / 2 + 1
        assert float((s - one) + one) == fmt.stall_point


@pytest.mark.parametrize("fmt", SMALL, ids=ids)
def test_ulp_is_the_gap_to_the_next_code(fmt: Format) -> None:
    """For every positive finite value below the largest, ulp(v) == next(v) - v, and ulp(-v) == ulp(v)."""
    codes = all_codes(fmt)
    values = codes.astype(np.float64)
    keep = np.isfinite(values) & (values > 0) & (values < fmt.max_finite) & ~np.signbit(values)
    low = values[keep]
    high = step_code(codes[keep], 1).astype(np.float64)
    got = np.array([fmt.ulp(v) for v in low.tolist()])
    np.testing.assert_array_equal(got, high - low)
    np.testing.assert_array_equal(np.array([fmt.ulp(-v) for v in low.tolist()]), got)


@pytest.mark.parametrize("fmt", list(FORMATS.values()), ids=ids)
def test_ulp_edges(fmt: Format) -> None:
    eps = 2 * fmt.unit_roundoff
    big = fmt.max_finite
    below_big = float(step_code(np.array([big], dtype=fmt.dtype), -1)[0])
    assert fmt.ulp(big) == big - below_big
    assert fmt.ulp(0.0) == fmt.ulp(-0.0) == fmt.smallest_subnormal
    assert fmt.ulp(fmt.smallest_subnormal) == fmt.smallest_subnormal
    assert fmt.ulp(fmt.smallest_normal) == fmt.smallest_subnormal
    assert fmt.ulp(fmt.smallest_normal * 0.75) == fmt.smallest_subnormal
    assert fmt.ulp(1.0) == eps
    assert fmt.ulp(1.3) == eps  # values between codes take their binade's gap
    assert fmt.ulp(float(np.nextafter(2.0, 0.0))) == eps  # the largest float64 below 2
    assert fmt.ulp(2.0) == 2 * eps
    assert fmt.ulp(-2.0) == 2 * eps
    assert fmt.ulp(2.0**fmt.precision) == 2.0
    assert fmt.ulp(2.0**fmt.precision - 1) == 1.0
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="non-finite"):
            fmt.ulp(bad)


@pytest.mark.parametrize("name", list(FORMATS))
def test_get_format(name: str) -> None:
    assert get_format(name) is FORMATS[name]
    assert get_format(name.upper()) is FORMATS[name]
    assert get_format(name).name == name


def test_get_format_unknown() -> None:
    with pytest.raises(KeyError, match="unknown format 'fp12'.*fp16.*e5m2"):
        get_format("fp12")
