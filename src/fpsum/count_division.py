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


Divider = Callable[[np.ndarray, int], np.ndarray]


def count_divider(n: int, acc: Format, reach: float = math.inf) -> Divider:
    """:func:`divide_by_count` for k = 1..n, bit for bit, with less work a call (Welford's hot loop).

    ``reach`` bounds the magnitude of every value it will be given (inf: no
    bound known; Welford gives its deviations' bound, :func:`fpsum.moments._deviation_bound`).
    The counts that are values of ``acc`` divide in ``acc``, as in
    divide_by_count.  Past them, FP16 and FP32 take the float64 quotient
    and round it once, as divide_by_count's float64 route does, without the
    checks of each call.  FP16 rounds the quotients below 2**-13 to its
    spacing there, 2**-24 (its subnormals and its first binade of normals
    share it), itself; from the k at which reach / k is below 2**-13 every
    quotient is such, and it skips the test of each.  BF16 takes the float32
    quotient for every k: it rounds the exact quotient once, and rounding
    that to BF16 rounds as the exact one would unless it landed on a BF16
    midpoint (its low 16 bits 0x8000, in BF16's subnormal range too, which
    is float32's), where the call goes to :func:`divide_by_count`; below
    k = 2**14 that cannot happen (divide_by_count's float32 route,
    p + K + 2 <= 24), and the midpoints are not looked for.  Other formats
    use :func:`divide_by_count`, and so does a k past :data:`MAX_COUNT` (its
    ``ValueError``).

    NumPy makes a 0-d array of a scalar operand at each call (about 0.2 us,
    a tenth of a call here), so each route keeps its constants as 0-d arrays
    and writes k into one of its own: a divider serves one call at a time.
    A scalar ``values`` (one row's deviation) gives a NumPy scalar.
    """
    n_held = min(n, 1 << acc.precision, int(acc.max_finite)) + 1  # below it k is a value of acc
    held = np.zeros((), dtype=acc.dtype)  # k, written at each call below n_held

    def in_acc(values: np.ndarray, k: int) -> np.ndarray:
        held[()] = k
        quotient: np.ndarray = values / held  # acc's own division, as divide_by_count's
        return quotient

    if acc.dtype == np.float16:
        return _fp16_divider(in_acc, n_held, acc, reach)
    if acc.dtype == np.float32:
        return _working_divider(in_acc, n_held, acc, np.float64)
    if acc.emin == -126 and acc.precision == 8:  # BF16: float32's exponents, 16 bits fewer
        return _working_divider(in_acc, n_held, acc, np.float32)

    def divide(values: np.ndarray, k: int) -> np.ndarray:
        if k < n_held:
            return in_acc(values, k)
        return divide_by_count(values, k, acc)

    return divide


def _fp16_divider(in_acc: Divider, n_held: int, acc: Format, reach: float) -> Divider:
    """FP16's route (see :func:`count_divider`).

    numpy's cast of an inexact FP16 subnormal is slow (it raises underflow
    for each), so the float64 quotient, in units of FP16's subnormal spacing
    2**-24 (a power of two: exact), is rounded to a whole number of them
    below 2**-13 first (rint: nearest, ties to even, keeps -0.0; there an
    even number of units is an even significand) and then cast exactly.
    Why that rounds once: the exact quotient s = d * 2**24 / k is a half
    unit, which float64 holds, or at least 1 / (2k) unit from every half
    unit (2 * d * 2**24 - (2j + 1) * k is a nonzero integer), and float64
    errs by at most 2**-53 * |s| < 2**-42 unit, less than 1 / (2k) for any
    k up to MAX_COUNT; so rint of the float64 quotient is rint of s.  Quotients of 2**-13 and
    more are cast from float64 as divide_by_count's float64 route does.
    A float32 quotient would not do (test_count_division.py).
    """
    units = 2.0 ** (acc.precision - 1 - acc.emin)  # 2**24 units of 2**-24
    scale = np.zeros(())  # k / 2**24 (float64, exact), written at each call
    spacing = np.array(1 / units)
    # Below 2 * 2**-14 (2,048 units of 2**-24) FP16's values are the whole numbers of units: rint rounds there.
    on_grid = np.array(2 * acc.smallest_normal * units)
    all_on_grid = reach / (2 * acc.smallest_normal) if math.isfinite(reach) else math.inf  # past it, |d / k| < 2**-13
    fast_from = max(all_on_grid, n_held - 1)  # past it no count is held and no quotient tested
    rint, half = np.rint, acc.dtype  # looked up once: the call below is Welford's hot path

    def divide(values: np.ndarray, k: int) -> np.ndarray:
        if fast_from < k <= MAX_COUNT:  # every |quotient| below 2**-13 (2,048 units): rint each, none tested
            scale[()] = k / units
            quotient: np.ndarray = rint(values / scale) * spacing  # float64 (a 0-d array's dtype counts)
            return quotient.astype(half)
        if k < n_held:
            return in_acc(values, k)
        if k > MAX_COUNT:
            return divide_by_count(values, k, acc)
        scale[()] = k / units
        scaled: np.ndarray = values / scale  # d * 2**24 / k rounded once
        above = np.abs(scaled) >= on_grid  # normal FP16 quotients, spaced 2**-23 or more: the cast rounds them
        if np.count_nonzero(above):  # a few times quicker than .any() on a short row
            quotient = np.where(above, scaled, rint(scaled)) * spacing
        else:
            quotient = rint(scaled) * spacing
        return quotient.astype(half)

    return divide


def _working_divider(in_acc: Divider, n_held: int, acc: Format, working: type[np.floating]) -> Divider:
    """FP32's route (``working`` float64) and BF16's (float32) past the held counts (see :func:`count_divider`).

    The working quotient rounds the exact one once; rounding it to ``acc``
    rounds as the exact one would below k = 2**(W - 2 - p) (W the working
    bits, divide_by_count's p + K + 2 <= W), which for FP32 in float64 is
    past :data:`MAX_COUNT`.  From there (BF16 from k = 2**14) a quotient
    that landed on a midpoint sends the call to :func:`divide_by_count`.
    Both 16-bit halves of each float32 quotient are compared with 0x8000, so
    the byte order does not matter: a low half 0x8000 is a BF16 midpoint; a
    high half 0x8000 (-0.0, or a negative quotient below 2**-133) only sends
    the call to :func:`divide_by_count`, which is exact too.
    """
    count = np.zeros((), dtype=working)  # k (exact: k < 2**24), written at each call
    midpoint = np.array(0x8000, dtype=np.uint16)
    one_rounding = 1 << max(np.finfo(working).nmant + 1 - 2 - acc.precision, 0)
    target, halves_of = acc.dtype, np.dtype(np.uint16)  # looked up once: the call below is Welford's hot path

    def divide(values: np.ndarray, k: int) -> np.ndarray:
        if k < n_held:
            return in_acc(values, k)
        if k > MAX_COUNT:
            return divide_by_count(values, k, acc)
        count[()] = k
        quotient: np.ndarray = values / count  # in the working format (acc promotes to it)
        if k < one_rounding:  # no working quotient can land on a midpoint that the exact one is not
            return quotient.astype(target)
        halves = quotient.ravel().view(halves_of)  # a scalar's ravel is an array too
        if not np.count_nonzero(halves == midpoint):  # a few times quicker than .any() on a short row
            return quotient.astype(target)
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
