"""A sum divided by an exact count k, rounded once to an accumulation format: the mean's division, d / k.

The normalisation models (:mod:`fpsum.moments`, :mod:`fpsum.rms`) divide by
counts that are exact integers, not values of the format: ``d / k`` is the
exact quotient rounded once, to nearest with ties to even
(:func:`divide_by_count`); Welford's loop takes the same quotients with less
work a call (:func:`count_divider`); Chan's weights are exact rationals
rounded once (:func:`count_ratio`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from .array_rounding import to_format
from .exact_rounding import round_exact
from .formats import Format

MAX_COUNT = (1 << 26) - 1
"""The largest n: below 2**26, a float64 quotient d / k rounds to any format up to FP32 as the exact one does."""



def divide_by_count(values: np.ndarray, k: int, acc: Format) -> np.ndarray:
    """``values / k`` (an array of ``acc.dtype``, k a positive integer), each quotient rounded once to ``acc``.

    Three routes, each rounding once:

    * k a value of ``acc`` (at most 2**p): the dtype's own division, correctly
      rounded as its addition is (:mod:`fpsum.methods`);
    * otherwise a quotient in float32 (if p + K + 2 <= 24, K the bits of k) or
      float64 (p <= 24, k < 2**27), rounded to ``acc``.  Why that is one
      rounding: a value d of p bits over k is either a midpoint of ``acc`` or
      at least 2**-(p + K + 1) of itself away from every midpoint (d - k * mid
      is a nonzero multiple of half a quantum), and the working quotient errs
      by less (2**-24 or 2**-53 of itself; BF16's smallest quotients, below
      float32's normal range, err by at most 2**-150, under 2**-134 / k), so
      no midpoint lies between them;
    * FP64: float64's own division.

    |d / k| <= |d|, so nothing overflows: inf / k is inf, NaN stays NaN, -0.0 / k
    is -0.0; a tiny quotient underflows to a signed zero.  ``ValueError`` for
    k outside 1..:data:`MAX_COUNT`.
    """
    if not 1 <= k <= MAX_COUNT:
        raise ValueError(f"a count must lie between 1 and {MAX_COUNT}, not {k}")
    if k <= 1 << acc.precision and k <= acc.max_finite:
        return np.asarray(values / acc.dtype.type(k))
    if acc.precision + k.bit_length() + 2 <= 24:
        return np.asarray(np.divide(values, np.float32(k), dtype=np.float32).astype(acc.dtype))
    return to_format(np.divide(values, k, dtype=np.float64), acc)


def count_divider(n: int, acc: Format, reach: float = math.inf) -> Callable[[np.ndarray, int], np.ndarray]:
    """:func:`divide_by_count` for k = 1..n, bit for bit, with less work a call (Welford's hot loop).

    ``reach`` bounds the magnitude of every value it will be given (inf: no
    bound known; Welford gives its deviations' bound, :func:`fpsum.moments._deviation_bound`).
    The counts that are values of ``acc`` are made once.  Past them, FP16 and
    FP32 take the float64 quotient and round it once, as divide_by_count's
    float64 route does, without the checks of each call.  FP16 rounds the
    quotients below 2**-13 to its spacing there, 2**-24 (its subnormals and
    its first binade of normals share it), itself; from the k at which
    reach / k is below 2**-13 every quotient is such, and it skips the test
    of each.  BF16 takes the float32 quotient for
    every k: it rounds the exact quotient once, and rounding that to BF16
    rounds as the exact one would unless it landed on a BF16 midpoint (its
    low 16 bits 0x8000, in BF16's subnormal range too, which is float32's),
    where those rows go to :func:`divide_by_count`; below k = 2**14 that
    cannot happen (divide_by_count's float32 route, p + K + 2 <= 24), and
    the midpoints are not looked for.  Other formats use
    :func:`divide_by_count`.
    """
    held = [acc.dtype.type(k) for k in range(min(n, 1 << acc.precision, int(acc.max_finite)) + 1)]
    native = acc.dtype in (np.dtype(np.float16), np.dtype(np.float32))
    bf16_like = acc.emin == -126 and acc.precision == 8  # BF16: float32's exponents, 16 bits fewer
    half = acc.dtype == np.float16
    little = sys.byteorder == "little"  # a float32's low 16 bits are then the first uint16 of its two
    units = 2.0 ** (acc.precision - 1 - acc.emin) if half else 1.0  # FP16: 2**24 units of 2**-24
    # Below 2 * 2**-14 (2,048 units of 2**-24) FP16's values are the whole numbers of units: rint rounds there.
    on_grid, spacing = 2 * acc.smallest_normal * units, 1 / units
    all_on_grid = reach / (2 * acc.smallest_normal) if math.isfinite(reach) else math.inf  # past it, |d / k| < 2**-13

    one_rounding = 1 << max(24 - 2 - acc.precision, 0)  # below it divide_by_count's float32 route rounds once

    dtype, n_held = acc.dtype, len(held)  # looked up once: the call below is Welford's hot path

    def divide(values: np.ndarray, k: int) -> np.ndarray:
        if k < n_held:
            return np.asarray(values / held[k])
        if half and k <= MAX_COUNT:
            # numpy's cast of an inexact FP16 subnormal is slow (it raises underflow for each), so the float64
            # quotient, in units of FP16's subnormal spacing 2**-24 (a power of two: exact), is rounded to a
            # whole number of them below 2**-13 first (rint: nearest, ties to even, keeps -0.0; there an even
            # number of units is an even significand) and then cast exactly.
            scaled = np.divide(values, k / units, dtype=np.float64)
            if k > all_on_grid:  # every |quotient| below 2**-13 (2,048 units): rint each, skip the mask
                return np.asarray((np.rint(scaled) * spacing).astype(dtype))
            return np.asarray((np.where(np.abs(scaled) < on_grid, np.rint(scaled), scaled) * spacing)
                              .astype(dtype))
        if native and k <= MAX_COUNT:
            return np.asarray(np.divide(values, float(k), dtype=np.float64).astype(dtype))
        if bf16_like and k <= MAX_COUNT:
            quotient = np.divide(values, np.float32(k), dtype=np.float32)  # k < 2**24: exact in float32
            if k < one_rounding:  # no float32 quotient can land on a midpoint that the exact one is not
                return np.asarray(quotient.astype(dtype))
            flat = quotient.reshape(-1)  # one row gives a float32 scalar, whose reshape is an array too
            low = flat.view(np.uint16)[0::2] if little else flat.view(np.uint32) & 0xFFFF
            if not np.count_nonzero(low == 0x8000):  # a few times quicker than .any() on a short row
                return np.asarray(quotient.astype(dtype))
        return divide_by_count(values, k, acc)

    return divide


def count_ratio(numerator: int, denominator: int, acc: Format) -> float:
    """The exact rational ``numerator / denominator`` (positive integers) rounded once to ``acc``.

    Chan's weights nB / n and nA * nB / n.  A weight beyond the format's
    largest value overflows as the format does (inf, or NaN in E4M3, whose
    top weight passes 448 from n = 1873 on), and that poisons the merge;
    never NaN or -0 otherwise.
    """
    return round_exact(Fraction(numerator, denominator), acc)
