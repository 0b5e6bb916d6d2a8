"""Exact sums, the reference every method is measured against."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np

LIMB = 26
"""Bits of the low limb of a double's 53-bit integer significand in :func:`exact_sum`."""


def exact_sum(values: np.ndarray) -> Fraction:
    """The exact sum of an array of finite values (any float dtype, any shape), as a Fraction.

    Each double is an integer of at most 53 bits times a power of two.  The
    integers are split into a high and a low limb (at most 27 and 26 bits),
    and the limbs of the values that share a power of two are added in
    int64 (exact for fewer than 2**36 values); the few hundred group sums
    are then added as Python integers.  -0.0 adds nothing.  ``ValueError``
    if any value is NaN or infinite: such a sum has no exact value.
    """
    flat = np.asarray(values, dtype=np.float64).ravel()
    if not np.all(np.isfinite(flat)):
        raise ValueError("an exact sum needs finite inputs")
    flat = flat[flat != 0]
    if flat.size == 0:
        return Fraction(0)
    fractions, exponents = np.frexp(flat)  # flat = fractions * 2**exponents, 1/2 <= |fractions| < 1
    integers = np.ldexp(fractions, 53).astype(np.int64)  # exact: at most 53 bits
    high = integers >> LIMB  # floor division, for either sign
    low = integers - (high << LIMB)  # in [0, 2**LIMB)
    order = np.argsort(exponents, kind="stable")
    exponents = exponents[order]
    starts = np.flatnonzero(np.r_[True, exponents[1:] != exponents[:-1]])
    highs = np.add.reduceat(high[order], starts).tolist()
    lows = np.add.reduceat(low[order], starts).tolist()
    bottom = int(exponents[0])
    numerator = sum(((high_sum << LIMB) + low_sum) << (int(e) - bottom)
                    for high_sum, low_sum, e in zip(highs, lows, exponents[starts].tolist()))
    return Fraction(numerator, 1 << (53 - bottom)) if bottom <= 53 else Fraction(numerator << (bottom - 53))


def _significand_bits(dtype: np.dtype) -> int:
    """Significand precision of a float dtype, hidden bit included (53 if unknown)."""
    try:
        info: Any = ml_dtypes.finfo(dtype)  # type: ignore[no-untyped-call]
    except (TypeError, ValueError):
        return 53
    return int(info.nmant) + 1


EXACT_BLOCK = 1 << 14
"""Values converted to float64 at a time by :func:`exact_running`: a block that stays in cache."""


def _column_blocks(rows: np.ndarray) -> Iterator[tuple[int, int]]:
    """``(begin, end)`` of consecutive column blocks of ``rows`` (2-D), about :data:`EXACT_BLOCK` values each."""
    width = max(1, EXACT_BLOCK // max(rows.shape[0], 1))
    for begin in range(0, rows.shape[-1], width):
        yield begin, min(begin + width, rows.shape[-1])


def _magnitude_range(rows: np.ndarray) -> tuple[float, float]:
    """The smallest nonzero and the largest magnitude in ``rows`` (2-D, any float dtype), as float64.

    ``(inf, 0.0)`` if every value is zero (-0.0 included).  ``ValueError`` for
    NaN or inf: such a sum has no exact value.  One block at a time, so no
    float64 copy of the whole array is made.
    """
    smallest, largest = math.inf, 0.0
    native = rows.dtype in (np.float32, np.float64)  # NumPy's own vector min and max; other dtypes' are slow
    for begin, end in _column_blocks(rows):
        block = rows[:, begin:end]
        magnitudes = np.abs(block if native else block.astype(np.float64))
        block_largest = float(magnitudes.max(initial=0.0))  # NaN if there is one
        if not math.isfinite(block_largest):
            raise ValueError("an exact sum needs finite inputs")
        largest = max(largest, block_largest)
        smallest = min(smallest, float(magnitudes.min(where=magnitudes > 0, initial=math.inf)))
    return smallest, largest


LIMB_BITS = 31  # int64 cumulative sums of up to 2**32 limbs of 31 bits cannot overflow


def _limb(mantissas: np.ndarray, shifts: np.ndarray, index: int) -> np.ndarray:
    """Bits [31 * index, 31 * (index + 1)) of ``mantissas << shifts``, as int64 (shifts >= 0)."""
    mask = np.int64((1 << LIMB_BITS) - 1)
    start = LIMB_BITS * index
    up = shifts - start  # > 0: the mantissa moves up into this limb
    down = np.clip(-up, 0, 63)
    left = np.clip(up, 0, LIMB_BITS)
    from_below = np.left_shift(np.bitwise_and(mantissas, np.right_shift(mask, left)), left)
    from_above = np.bitwise_and(np.right_shift(mantissas, down), mask)
    limb = np.where(up >= 0, from_below, from_above)
    return np.where((up >= LIMB_BITS) | (-up >= 63), 0, limb)


def _multi_limb_prefixes(row: np.ndarray, counts: np.ndarray, low: int) -> list[float]:
    """Exact prefix sums of one row, in units of 2**low, as int64 sums of 31-bit limbs.

    Every value is an integer multiple of 2**low, split into 31-bit limbs
    (with its sign); each limb sums exactly in int64, and the limbs are put
    together in Python integers only at the requested counts, then rounded
    once to float64.  Any magnitude range works, in O(n) vector operations
    per limb.
    """
    mantissa, exponent = np.frexp(np.abs(row))
    integers = (mantissa * 2.0**53).astype(np.int64)  # exact: 53-bit significands; 0 stays 0
    shifts = np.where(integers != 0, exponent.astype(np.int64) - 53 - low, 0)
    signs = np.sign(row).astype(np.int64)
    limbs = -(-(int(shifts.max()) + 53) // LIMB_BITS)
    totals = [0] * counts.size
    for index in range(limbs):
        prefix = np.cumsum(signs * _limb(integers, shifts, index))[counts - 1]
        for j, value in enumerate(prefix.tolist()):
            totals[j] += value << (LIMB_BITS * index)
    unit = Fraction(2) ** low
    return [float(total * unit) for total in totals]  # Fraction -> float rounds once, to nearest


def _float_level_prefixes(rows: np.ndarray, counts: np.ndarray, low: int, top: int) -> np.ndarray:
    """Exact prefix sums of each row by splitting every value into float64 "digits".

    Level k keeps the part of each value that is a multiple of its quantum
    2**(top - k*B) and at most half the previous quantum; with B = 52 - log2(n)
    bits per level, every sum of one level's parts, in any order, is exact in
    float64.  The rows (any float dtype) are walked in column blocks that stay
    in cache, converted to float64 a block at a time; each level's parts are
    summed between the wanted counts only (a prefix sum per count, not per
    input) and carried from block to block.  The levels are then added with a
    single rounding (fsum for three or more).
    """
    n = rows.shape[-1]
    bits = 52 - max(int(n - 1).bit_length(), 1)
    exponents = []
    quantum_exponent = top
    while quantum_exponent > low:
        quantum_exponent = max(quantum_exponent - bits, low)
        exponents.append(quantum_exponent)
    if not exponents:  # every value is zero
        return np.zeros((rows.shape[0], counts.size))
    wanted, position = np.unique(counts, return_inverse=True)
    levels = np.zeros((len(exponents), rows.shape[0], wanted.size))
    carried = np.zeros((len(exponents), rows.shape[0]))
    for begin, end in _column_blocks(rows):
        first, last = np.searchsorted(wanted, (begin + 1, end + 1))  # the wanted counts in (begin, end]
        ends = wanted[first:last] - begin
        # Segments [0, e0), [e0, e1), ..., up to the block's end: their running sums are the
        # prefix sums at the wanted counts and, last, the block's total.
        starts = np.concatenate(([0], ends[ends < end - begin]))
        residual = rows[:, begin:end].astype(np.float64)  # a copy: it is consumed level by level
        for k, exponent in enumerate(exponents):
            if exponent == low:
                part = residual  # the last level keeps all that is left
            else:
                part = np.rint(residual * 2.0**-exponent) * 2.0**exponent  # exact: powers of two, rint
                residual -= part  # exact: what is left lies below half a quantum, on the old grid
            running = np.cumsum(np.add.reduceat(part, starts, axis=-1), axis=-1)  # exact: at most 52 bits per level
            levels[k][:, first:last] = carried[k][:, None] + running[:, :last - first]
            carried[k] += running[:, -1]
    levels = levels[:, :, position]
    if len(exponents) == 1:
        single: np.ndarray = levels[0]
        return single
    if len(exponents) == 2:
        both: np.ndarray = levels[0] + levels[1]  # one rounding of the exact sum
        return both
    stacked = np.moveaxis(levels, 0, -1)
    return np.array([[math.fsum(v) for v in row] for row in stacked.tolist()])  # exact, then one rounding


def exact_running(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The exact sum of the first ``at[j]`` inputs, correctly rounded to float64, for each j.

    ``values`` has shape ``(..., n)`` (finite values, any float dtype);
    ``at`` holds counts from 1 to n.  Each value is split into float64
    "digits" whose cumulative sums are exact (one digit for FP16 inputs of
    any practical length, two or three for FP32); values near the limits of
    FP64 go through 31-bit integer limbs instead.  ``ValueError`` for
    NaN or inf values (an exact sum needs finite inputs) or counts outside
    1..n; -0.0 counts as zero, and an exact zero sum is +0.0.
    """
    counts = np.asarray(at, dtype=np.int64)
    array = np.asarray(values)
    if array.dtype.kind in "biu":  # booleans and integers: as float64, like every other value
        array = array.astype(np.float64)
    n = array.shape[-1]
    if counts.size and (counts.min() < 1 or counts.max() > n):
        raise ValueError("prefix lengths must lie between 1 and n")
    rows = array.reshape(-1, n)
    smallest, largest = _magnitude_range(rows)
    precision = _significand_bits(array.dtype)
    low = math.frexp(smallest)[1] - precision if math.isfinite(smallest) else 0  # every value a multiple of 2**low
    top = math.frexp(largest)[1] if largest else low  # every magnitude below 2**top
    if low > -1000 and top < 1000:
        out = _float_level_prefixes(rows, counts, low, top)
    else:  # FP64 values near its limits: integer limbs, slower but unlimited
        out = np.array([_multi_limb_prefixes(row, counts, low) for row in rows.astype(np.float64)])
    return out.reshape(array.shape[:-1] + (counts.size,))


def exact_total(values: np.ndarray) -> float:
    """The exact sum of every value of ``values`` (any shape, any float dtype), rounded once to float64.

    :func:`exact_sum` as a float, without a Fraction per value: the same
    rounding, to nearest with ties to even.  An empty array sums to 0.0;
    ``ValueError`` for NaN or inf values, as :func:`exact_running`.
    """
    flat = np.asarray(values).ravel()
    if flat.size == 0:
        return 0.0
    return float(exact_running(flat, np.array([flat.size]))[0])
