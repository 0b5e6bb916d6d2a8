"""Sums and quotients of float64 arrays rounded once to a format, where rounding the float64 result would round twice.

The float64 sum of a BF16 weight and an FP32 update, or the float64
quotient of two values, is itself rounded, and rounding it again to the
format can differ from rounding the exact value once.  :func:`add_rounded`
rounds the float64 sum to odd first, which makes the second rounding the
only one; :func:`round_quotient` finds the few quotients that land on a
midpoint of the format (:func:`on_midpoint`, the test for a double
rounding) and redoes them in exact rationals.  Apart from
:mod:`fpsum.array_rounding` because each is arithmetic on top of its casts,
with its own argument for why one rounding comes out.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .array_rounding import to_format
from .exact_rounding import round_exact
from .formats import Format
from .stochastic_rounding import _two_sum


def on_midpoint(doubles: np.ndarray, rounded: np.ndarray, fmt: Format) -> np.ndarray:
    """Where each double lies exactly halfway between two neighbours of ``fmt``; ``rounded`` is
    ``to_format(doubles, fmt)`` as float64 (one of the two).

    The test for a double rounding: a value first rounded to the nearest
    double ``d`` and then to ``fmt`` is rounded as if once, unless ``d`` is a
    midpoint of ``fmt`` (every midpoint of a format narrower than a double is
    itself a double, so none can lie strictly between the value and ``d``).
    Finite ``doubles`` below ``fmt.max_finite`` in magnitude; elsewhere the
    answer means nothing (NaN, inf and -0 give False: none of them moved).
    """
    moved: np.ndarray = rounded != doubles
    if not np.any(moved):
        return moved
    in_format = rounded.astype(fmt.dtype)
    toward = np.where(doubles > rounded, fmt.max_finite, -fmt.max_finite).astype(fmt.dtype)
    other = np.nextafter(in_format, toward).astype(np.float64)
    # Exact: two neighbours of a format narrower than a double add up within a double's 53 bits.
    return np.asarray(moved & (rounded + other == 2 * doubles))


def round_quotient(numerators: np.ndarray, denominators: np.ndarray, fmt: Format) -> np.ndarray:
    """Each ``n / d`` rounded once to ``fmt`` (nearest, ties to even), saturating at +-max_finite, as float64.

    Finite operands, ``d`` nonzero.  The float64 quotient is correctly
    rounded, so rounding it to ``fmt`` is the single rounding of the exact
    quotient except where it lands on a midpoint of ``fmt``
    (:func:`on_midpoint`); those few are redone in exact rationals.  A
    quotient at or beyond the largest value gives +-max_finite whatever the
    format does on overflow (the block scalings clamp: :mod:`fpsum.blocks`).
    A zero quotient keeps its sign (-0 where the format has one); an inf
    operand or a zero ``d`` gives +-max_finite, NaN gives NaN (``ValueError``
    for a format without NaN).
    """
    n = np.asarray(numerators, dtype=np.float64)
    d = np.asarray(denominators, dtype=np.float64)
    n, d = np.broadcast_arrays(n, d)
    with np.errstate(over="ignore"):
        quotient = n / d
    top = fmt.max_finite
    rounded = to_format(np.clip(quotient, -top, top), fmt).astype(np.float64)
    inside = np.abs(quotient) < top
    redo = np.flatnonzero(inside & on_midpoint(np.where(inside, quotient, 0.0), rounded, fmt))
    for index in redo.tolist():
        exact = Fraction(float(n.flat[index])) / Fraction(float(d.flat[index]))
        rounded.flat[index] = round_exact(exact, fmt)
    return rounded


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
