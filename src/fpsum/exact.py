"""Exact sums, the reference every method is measured against."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def exact_sum(values: np.ndarray) -> Fraction:
    """The exact sum of a 1-D array of finite values, as a Fraction.

    Slow (one Fraction addition per value); for tests and single sums.
    ``ValueError`` if any value is NaN or infinite: such a sum has no exact value.
    """
    flat = np.asarray(values, dtype=np.float64).ravel()
    if not np.all(np.isfinite(flat)):
        raise ValueError("an exact sum needs finite inputs")
    return sum((Fraction(float(v)) for v in flat), Fraction(0))


def _lowest_bit_exponent(values: np.ndarray) -> int:
    """Exponent of the least significant set bit over all nonzero values (0 if all are zero)."""
    nonzero = values[values != 0]
    if nonzero.size == 0:
        return 0
    mantissa, exponent = np.frexp(np.abs(nonzero))
    integer = (mantissa * 2.0**53).astype(np.int64)  # exact: 53-bit significands
    trailing = np.log2((integer & -integer).astype(np.float64)).astype(np.int64)
    return int((exponent - 53 + trailing).min())


def _big_integer_prefixes(row: np.ndarray, counts: np.ndarray, low: int) -> list[float]:
    """Prefix sums of one row as Python integers in units of 2**low, rounded once to float64.

    The general path: O(n) integer additions of any size, so no magnitude
    range is too wide.
    """
    mantissa, exponent = np.frexp(row)
    integers = (mantissa * 2.0**53).astype(np.int64).tolist()
    shifts = (exponent.astype(np.int64) - 53 - low).tolist()
    wanted = set(counts.tolist())
    found: dict[int, float] = {}
    unit = Fraction(2) ** low
    total = 0
    for index, (m, shift) in enumerate(zip(integers, shifts), start=1):
        total += m << shift
        if index in wanted:
            found[index] = float(total * unit)  # Fraction -> float rounds once, to nearest
    return [found[int(c)] for c in counts]


def exact_running(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The exact sum of the first ``at[j]`` inputs, correctly rounded to float64, for each j.

    ``values`` has shape ``(..., n)`` (finite values, any float dtype);
    ``at`` holds counts from 1 to n.  When every value is an integer multiple
    of a common power of two and the scaled sums fit 62 bits (always for FP16
    and FP8 inputs of moderate length), the running sum is an exact int64
    cumulative sum; otherwise it is a sum of Python integers, exact at any
    range, in O(n).  ``ValueError`` for non-finite
    values or counts outside 1..n.
    """
    counts = np.asarray(at, dtype=np.int64)
    wide = np.asarray(values, dtype=np.float64)
    n = wide.shape[-1]
    if counts.size and (counts.min() < 1 or counts.max() > n):
        raise ValueError("prefix lengths must lie between 1 and n")
    if not np.all(np.isfinite(wide)):
        raise ValueError("an exact sum needs finite inputs")
    rows = wide.reshape(-1, n)
    out = np.empty((rows.shape[0], counts.size))
    low = _lowest_bit_exponent(rows)
    largest = float(np.abs(rows).max()) if rows.size else 0.0
    if largest * 2.0 ** -low * n < 2.0**62:
        scaled = np.ldexp(rows, -low).astype(np.int64)  # exact by the choice of low
        prefix = np.cumsum(scaled, axis=-1)[:, counts - 1]
        # int -> float64 rounds once, to nearest: correctly rounded.
        out[:] = np.ldexp(prefix.astype(np.float64), low)
    else:
        for r, row in enumerate(rows):
            out[r] = _big_integer_prefixes(row, counts, low)
    return out.reshape(wide.shape[:-1] + (counts.size,))
