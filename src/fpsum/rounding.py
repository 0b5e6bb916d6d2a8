"""Rounding to a format: exactly (the reference) and fast (the dtype casts).

Two routes to the same answer.  :func:`round_exact` works on exact rationals
and is slow and obviously right; it is the oracle the tests hold NumPy's and
ml_dtypes' arithmetic to.  :func:`to_format` rounds float64 arrays with dtype
casts and is what the model uses at speed; :func:`add_rounded` and
:func:`stochastic_round` add two float64 arrays and round the exact sum once.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

import numpy as np

from .formats import Format

Mode = Literal["nearest", "stochastic"]


def _round_half_even(q: Fraction) -> int:
    """Nearest integer to ``q``; an exact half goes to the even neighbour."""
    floor = q.numerator // q.denominator
    rest = q - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1):
        return floor + 1
    return floor


def _quantum(magnitude: Fraction, fmt: Format) -> Fraction:
    """Spacing of ``fmt`` in the binade of ``magnitude`` (> 0), subnormals included."""
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    # bit_length difference is floor(log2) or one more; correct it exactly.
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    exponent = max(exponent, fmt.emin)
    return Fraction(2) ** (exponent - fmt.precision + 1)


def _overflowed(fmt: Format, negative: bool) -> float:
    if fmt.overflow == "nan":
        return math.nan
    return -math.inf if negative else math.inf


def round_exact(
    value: Fraction | int | float,
    fmt: Format,
    mode: Mode = "nearest",
    uniform: float | None = None,
) -> float:
    """Round an exact value to ``fmt`` and return it as a Python float.

    ``mode="nearest"`` rounds to nearest with ties to even, then overflows
    as the format does: a result beyond ``fmt.max_finite`` becomes +-inf, or
    NaN for E4M3.  (The IEEE threshold falls out of that: values from
    ``max_finite + ulp/2`` up round to the next power of two, which is beyond
    the format.)  ``mode="stochastic"`` rounds up with probability equal to the
    fraction of the gap that ``value`` has covered from its lower neighbour
    ("up" is towards +inf, for either sign); ``uniform`` is the draw in
    [0, 1) that decides it (required in that mode), so the caller owns the
    random stream.  Values already in the format are returned unchanged.

    A float argument may be +-inf or NaN, which pass through (an infinity
    becomes NaN in E4M3).  A result that rounds to zero keeps the sign of
    ``value``: -0.0 for a negative underflow; ``-0.0`` itself stays -0.0.
    """
    if mode == "stochastic" and (uniform is None or not 0.0 <= uniform < 1.0):
        raise ValueError("stochastic rounding needs a uniform draw in [0, 1)")
    if isinstance(value, float):
        if math.isnan(value):
            return math.nan
        if math.isinf(value):
            return _overflowed(fmt, value < 0)
        if value == 0:
            return value
    exact = Fraction(value)
    if exact == 0:
        return 0.0
    negative = exact < 0
    magnitude = -exact if negative else exact
    quantum = _quantum(magnitude, fmt)
    steps = magnitude / quantum
    if mode == "nearest":
        count = _round_half_even(steps)
    elif mode == "stochastic":
        assert uniform is not None  # checked on entry
        low = steps.numerator // steps.denominator
        # Up means towards +inf: with probability (v - down) / gap.  For a
        # negative value that is the smaller magnitude.
        towards_plus = (steps - low) if not negative else 1 - (steps - low)
        go_up = Fraction(uniform) < towards_plus
        count = (low + 1 if go_up else low) if not negative else (low if go_up else low + 1)
        if steps == low:
            count = low
    else:
        raise ValueError(f"unknown rounding mode {mode!r}")
    rounded = count * quantum
    if rounded > Fraction(fmt.max_finite):
        return _overflowed(fmt, negative)
    result = float(rounded)
    if result == 0:
        return -0.0 if negative else 0.0
    return -result if negative else result


def add_exact(a: float, b: float, fmt: Format) -> float:
    """``a + b`` rounded once to ``fmt`` (nearest, ties to even), computed exactly.

    IEEE rules for the special cases: NaN in, NaN out; inf + -inf is NaN;
    an infinite operand passes through (NaN in E4M3); an exact zero sum is
    +0.0 unless both operands are -0.0.
    """
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and (a > 0) != (b > 0):
            return math.nan
        return _overflowed(fmt, (a if math.isinf(a) else b) < 0)
    # Exact integer arithmetic: a float is an integer over a power of two.
    num_a, den_a = a.as_integer_ratio()
    num_b, den_b = b.as_integer_ratio()
    den = max(den_a, den_b)
    total = num_a * (den // den_a) + num_b * (den // den_b)
    if total == 0:
        both_negative_zero = math.copysign(1.0, a) < 0 and math.copysign(1.0, b) < 0
        return -0.0 if both_negative_zero else 0.0
    return _round_dyadic(total, den.bit_length() - 1, fmt)


def _round_dyadic(numerator: int, scale: int, fmt: Format) -> float:
    """``numerator / 2**scale`` (nonzero) rounded to nearest, ties to even, in integers only.

    The same rule as :func:`round_exact`, without Fractions: the fast path
    for sums of floats, whose denominators are powers of two.
    """
    negative = numerator < 0
    magnitude = -numerator if negative else numerator
    exponent = max(magnitude.bit_length() - 1 - scale, fmt.emin)  # binade, clamped to the subnormals
    shift = scale + exponent - fmt.precision + 1  # magnitude / 2**shift counts quanta
    if shift > 0:
        count, rest = divmod(magnitude, 1 << shift)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and count % 2 == 1):
            count += 1
    else:
        count = magnitude << -shift
    result = math.ldexp(count, exponent - fmt.precision + 1)  # exact: count has at most p + 1 bits
    if result > fmt.max_finite:
        return _overflowed(fmt, negative)
    if result == 0:
        return -0.0 if negative else 0.0
    return -result if negative else result


def _float32_round_to_odd(values: np.ndarray) -> np.ndarray:
    """float64 -> float32, rounding any inexact result to the neighbour with an odd last bit.

    Rounding to odd and then to nearest in a format at least two bits
    narrower is the same as rounding to nearest once, which is why ml_dtypes'
    own float64 path (nearest to float32, then nearest again) is not used.
    """
    nearest = values.astype(np.float32)
    inexact = np.isfinite(nearest) & (nearest.astype(np.float64) != values)
    bits = nearest.view(np.uint32)
    even = (bits & 1) == 0
    fix = inexact & even
    if np.any(fix):
        # Step towards the exact value: the neighbour on the other side is odd.
        toward = np.where(values > nearest.astype(np.float64), np.inf, -np.inf).astype(np.float32)
        nearest = np.where(fix, np.nextafter(nearest, toward), nearest)
    return nearest


def to_format(values: np.ndarray | float, fmt: Format) -> np.ndarray:
    """Round float64 values to ``fmt``, nearest with ties to even, as an array of ``fmt.dtype``.

    Correctly rounded for every format, including the ml_dtypes ones whose
    own float64 cast rounds twice (through float32).  NaN stays NaN, +-inf and
    overflow become +-inf (NaN in E4M3), -0.0 stays -0.0.
    """
    array = np.asarray(values, dtype=np.float64)
    if fmt.dtype in (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)):
        return array.astype(fmt.dtype)
    # The round-to-odd trick needs float32 finite where float64 is: beyond
    # float32's range every such format has overflowed anyway.
    with np.errstate(over="ignore"):
        return _float32_round_to_odd(array).astype(fmt.dtype)


def _neighbour(values: np.ndarray, fmt: Format, upward: bool) -> np.ndarray:
    """The next value of ``fmt`` from ``values`` (arrays of ``fmt.dtype``), up or down.

    Aims at the largest finite value rather than infinity, which E4M3 lacks
    (its infinity converts to NaN); from the largest value itself it stays put.
    """
    limit = fmt.max_finite if upward else -fmt.max_finite
    toward = np.full(np.shape(values), limit).astype(fmt.dtype)
    return np.asarray(np.nextafter(values, toward))


# --8<-- [start:stochastic]
def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``hi = fl64(a + b)`` and the error ``lo``, with ``hi + lo == a + b`` exactly (Knuth's TwoSum).

    Exact for finite float64 operands whose sum does not overflow; where
    ``hi`` is +-inf or NaN, ``lo`` is 0.  Call inside ``np.errstate``.
    """
    hi = a + b
    b_virtual = hi - a
    lo = (a - (hi - b_virtual)) + (b - b_virtual)
    return hi, np.where(np.isfinite(hi), lo, 0.0)


def stochastic_round(a: np.ndarray, b: np.ndarray, fmt: Format, draws: np.ndarray) -> np.ndarray:
    """``a + b`` rounded stochastically to ``fmt``, elementwise; an array of ``fmt.dtype``.

    ``a`` and ``b`` are float64 arrays holding values of ``fmt`` (any format
    up to FP32, whose sums float64 plus one error term hold exactly), or of
    any other format up to FP32, such as an FP32 update to a BF16 weight;
    ``draws`` are uniform in [0, 1).  The exact sum v lies between two
    neighbours d <= v <= u of the format; the result is u when
    ``draw < (v - d) / (u - d)`` and d otherwise, so its mean is v.  A sum
    that is representable comes back unchanged.  Beyond the largest finite
    value the format overflows as with rounding to nearest (inf, or NaN in
    E4M3); NaN in gives NaN; an exact zero sum is +0.0 (-0.0 if both are -0.0).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        hi, lo = _two_sum(a, b)
        nearest = to_format(hi, fmt)
        near64 = nearest.astype(np.float64)
        # Where does the exact sum hi + lo sit relative to the candidate?
        above = np.where(np.isfinite(near64), (near64 - hi) - lo, 0.0)
        down = np.where(above > 0, _neighbour(nearest, fmt, upward=False), nearest)
        up = np.where(above < 0, _neighbour(nearest, fmt, upward=True), nearest)
        down64 = down.astype(np.float64)
        gap = up.astype(np.float64) - down64
        covered = np.where(gap > 0, ((hi - down64) + lo) / np.where(gap > 0, gap, 1.0), 0.0)
        result = np.where(draws < covered, up, down)
        # Overflow follows the format, whatever the draw.
        overflowed = np.abs(hi) > fmt.max_finite
        if np.any(overflowed):
            result = np.where(overflowed, nearest, result)
    return np.asarray(result, dtype=fmt.dtype)
# --8<-- [end:stochastic]


def add_rounded(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    """``a + b`` rounded once to ``fmt`` (nearest, ties to even), elementwise; an array of ``fmt.dtype``.

    ``a`` and ``b`` are float64 arrays (or anything that broadcasts) whose
    values need not be in ``fmt``: a BF16 weight plus an FP32 update, say.
    Their exact sum may need more bits than float32, or even float64, holds,
    so rounding either one's sum to ``fmt`` would round twice.  This is
    :func:`add_exact`, vectorised, for any format up to FP32 (precision at
    most 51, else ``ValueError``).
    The special cases are IEEE's, as in :func:`add_exact`: NaN in, NaN out;
    inf + -inf is NaN; an infinity passes through (NaN in E4M3); overflow
    gives +-inf (NaN in E4M3); an exact zero sum is +0.0 unless both operands
    are -0.0; a nonzero sum that underflows keeps its sign (-0.0).
    """
    if fmt.precision > 51:
        raise ValueError(f"add_rounded rounds to formats of at most 51 bits of precision, not {fmt.label}")
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        hi, lo = _two_sum(a, b)
        # Round hi + lo to odd in float64: where lo is not 0 and hi's last bit
        # is even, step one float64 ulp towards lo; the neighbour there is odd.
        # Rounding to odd at 53 bits, then to nearest at p <= 51 bits, is
        # rounding to nearest once (the odd bit breaks every false tie).
        even = (np.asarray(hi).view(np.uint64) & np.uint64(1)) == 0
        toward = np.where(lo > 0, np.inf, -np.inf)
        odd = np.where((lo != 0) & even, np.nextafter(hi, toward), hi)
        return to_format(odd, fmt)
