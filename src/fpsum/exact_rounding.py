"""Rounding an exact value to a format, in exact arithmetic: the reference the fast routes are held to.

:func:`round_exact` works on exact rationals and is slow and obviously
right; it is the oracle the tests hold NumPy's and ml_dtypes' arithmetic
to.  :func:`add_exact` rounds the sum of two floats once, in integers
(``_round_dyadic``, which the playground page shows).  Apart from the
roundings of arrays (:mod:`fpsum.array_rounding` and the modules built on
it) because nothing here goes through a dtype cast: the two routes stay
independent, so that holding one to the other tests something.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

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
    """What a result beyond ``fmt.max_finite`` becomes: +-inf, NaN, or +-max_finite (saturation)."""
    if fmt.overflow == "nan":
        return math.nan
    if fmt.overflow == "saturate":
        return -fmt.max_finite if negative else fmt.max_finite
    return -math.inf if negative else math.inf


def _zero(fmt: Format, negative: bool) -> float:
    """A zero result: -0.0 for a negative one, where the format has -0 (the fnuz formats do not)."""
    return -0.0 if negative and fmt.signed_zero else 0.0


def _no_nan(fmt: Format) -> ValueError:
    return ValueError(f"{fmt.label} has no NaN: NaN cannot be rounded to it")


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
    becomes NaN in E4M3 and the fnuz formats, and +-max_finite in the
    saturating FP4 and FP6 formats, which have no NaN either: rounding NaN
    to them is a ``ValueError``).  A result that rounds to zero keeps the
    sign of ``value``: -0.0 for a negative underflow; ``-0.0`` itself stays
    -0.0; in the fnuz formats, which have no -0, every zero is +0.0.
    """
    if mode == "stochastic" and (uniform is None or not 0.0 <= uniform < 1.0):
        raise ValueError("stochastic rounding needs a uniform draw in [0, 1)")
    if isinstance(value, float):
        if math.isnan(value):
            if fmt.overflow == "saturate":
                raise _no_nan(fmt)
            return math.nan
        if math.isinf(value):
            return _overflowed(fmt, value < 0)
        if value == 0:
            return _zero(fmt, math.copysign(1.0, value) < 0)
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
        return _zero(fmt, negative)
    return -result if negative else result


def add_exact(a: float, b: float, fmt: Format) -> float:
    """``a + b`` rounded once to ``fmt`` (nearest, ties to even), computed exactly.

    IEEE rules for the special cases: NaN in, NaN out; inf + -inf is NaN;
    an infinite operand passes through (NaN in E4M3); an exact zero sum is
    +0.0 unless both operands are -0.0 (and always +0.0 in the fnuz formats).
    The saturating formats hold neither NaN nor inf, so ``a`` and ``b`` from
    them are finite and so is their rounded sum.
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
        return _zero(fmt, math.copysign(1.0, a) < 0 and math.copysign(1.0, b) < 0)
    return _round_dyadic(total, den.bit_length() - 1, fmt)


# --8<-- [start:round_dyadic]
def _round_dyadic(numerator: int, scale: int, fmt: Format) -> float:
    """numerator / 2**scale (nonzero), rounded to nearest, ties to even, in
    integers only.

    The same rule as round_exact(), without Fractions: the fast path for sums
    of floats, whose denominators are powers of two.
    """
    negative = numerator < 0
    magnitude = -numerator if negative else numerator
    # The binade, clamped to the subnormals' own.
    exponent = max(magnitude.bit_length() - 1 - scale, fmt.emin)
    # magnitude / 2**shift counts quanta of that binade.
    shift = scale + exponent - fmt.precision + 1
    if shift > 0:
        count, rest = divmod(magnitude, 1 << shift)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and count % 2 == 1):
            count += 1
    else:
        count = magnitude << -shift
    # Exact: count has at most p + 1 bits.
    result = math.ldexp(count, exponent - fmt.precision + 1)
    if result > fmt.max_finite:
        return _overflowed(fmt, negative)
    if result == 0:
        return _zero(fmt, negative)
    return -result if negative else result
# --8<-- [end:round_dyadic]
