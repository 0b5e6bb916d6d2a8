"""The correctly rounded sum: the exact sum of the inputs, rounded once to the format.

This is what Python's ``math.fsum`` returns for float64 values (Shewchuk
1997), and the best any method can do: an error of at most half an ulp of
the result, u relative, however much the sum cancels.  For a narrow format
it is *not* ``fsum`` followed by a cast: the exact sum rounded to float64
and then to the format is rounded twice, and where the first rounding lands
on a tie of the second (2**24 + 1 + 2**-40 in FP32, say) the second goes the
wrong way.

The route here rounds once.  Each value is split into float64 "digits",
pieces on grids far enough apart that the running sums of each digit are
exact in float64 (as :mod:`fpsum.exact` does); the digits of every prefix
are then carried into non-overlapping form and added from the smallest up
with rounding to odd, which keeps the information rounding to nearest
needs (Boldo and Melquiond's round-to-odd), and the result is rounded once
to the format.  For FP64, whose values need every bit of float64, the exact
prefix sums of :func:`fpsum.exact.exact_running` are already the answer.
Vectorised over trials and prefixes; no Python loop runs per input.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .array_rounding import to_format
from .exact import exact_running
from .exact_rounding import round_exact
from .formats import FP64, Format
from .stochastic_rounding import _two_sum


def _check(values: np.ndarray, fmt: Format) -> None:
    if values.dtype != fmt.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {fmt.dtype} for {fmt.label}")
    if values.shape[-1] < 1:
        raise ValueError("a sum needs at least one input")


def _digits(rows: np.ndarray, precision: int) -> tuple[list[int], list[np.ndarray]]:
    """Split finite values of ``precision`` bits into float64 digits: the grids' exponents and the digits.

    Digit k is a multiple of ``2**exponents[k]`` of at most half the grid
    step of digit k - 1 (the first: at most the largest value), and the
    digits of a value add up to it exactly.  With ``52 - log2(n)`` bits
    between grids, any sum of n digits of one level is exact in float64.
    No digits at all if every value is zero.
    """
    n = rows.shape[-1]
    magnitudes = np.abs(rows)
    if not magnitudes.any():
        return [], []
    smallest = float(np.where(magnitudes > 0, magnitudes, np.inf).min())
    low = math.frexp(smallest)[1] - precision  # every value is a multiple of 2**low
    top = math.frexp(float(magnitudes.max()))[1]  # every value is below 2**top
    step = 52 - max((n - 1).bit_length(), 1)
    exponents, digits = [], []
    residual = rows.copy()
    exponent = top
    while exponent > low:
        exponent = max(exponent - step, low)
        if exponent == low:
            digit = residual  # the last digit keeps what is left, a multiple of 2**low
        else:
            digit = np.rint(residual * 2.0**-exponent) * 2.0**exponent  # exact: powers of two, rint
            residual = residual - digit  # exact: at most half a grid step, on the finer grid
        exponents.append(exponent)
        digits.append(digit)
    return exponents, digits


def _carry(levels: list[np.ndarray], exponents: list[int]) -> list[np.ndarray]:
    """The same exact total, with every level below the first in [0, 2**exponents[k - 1]): carries moved up.

    Levels are float64 multiples of ``2**exponents[k]`` below 2**53 of
    those units, so every step is exact.  Afterwards the levels are
    non-overlapping, and the total has the sign of the first level (0 if
    that is 0).
    """
    levels = [level.copy() for level in levels]
    for k in range(len(levels) - 1, 0, -1):
        unit = 2.0 ** exponents[k - 1]
        carry = np.floor(levels[k] / unit) * unit
        levels[k] -= carry
        levels[k - 1] += carry
    return levels


def _add_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` rounded to odd in float64: exact if it fits, else the neighbour whose last bit is 1."""
    s, e = _two_sum(a, b)
    even = (s.view(np.uint64) & np.uint64(1)) == 0
    return np.where((e != 0) & even, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


def _odd_sums(rows: np.ndarray, precision: int, running: bool) -> np.ndarray:
    """The exact sum of each prefix (or of each whole row), rounded to odd in float64.

    ``rows`` holds finite float64 values of ``precision`` bits.  The
    digits' running sums are exact; carried into non-overlapping form (for
    a negative total, of the negated digits) they add from the smallest up,
    each addition rounded to odd: a level is a multiple of a grid step that
    the sum of all levels below it does not reach, so rounding that sum to
    odd first changes nothing the final rounding to odd can see.
    """
    exponents, digits = _digits(rows, precision)
    shape = rows.shape if running else rows.shape[:-1] + (1,)
    if not digits:
        return np.zeros(shape)
    levels = [np.cumsum(d, axis=-1) if running else d.sum(axis=-1, keepdims=True) for d in digits]  # exact
    sign = np.where(_carry(levels, exponents)[0] < 0, -1.0, 1.0)
    levels = _carry([sign * level for level in levels], exponents)  # every level >= 0 now
    total = levels[-1]
    with np.errstate(over="ignore", invalid="ignore"):
        for level in reversed(levels[:-1]):
            total = _add_to_odd(level, total)
    result: np.ndarray = sign * total
    return result


def _fp64_sums(rows: np.ndarray, running: bool) -> np.ndarray:
    """The exact sum of each prefix (or row) of finite float64 values, rounded once to float64 (nearest).

    :func:`fpsum.exact.exact_running`, unless a sum could leave float64's
    range: then exact integers and :func:`fpsum.exact_rounding.round_exact`,
    which overflows to +-inf (slow, and only for values near the limit).
    """
    n = rows.shape[-1]
    at = np.arange(1, n + 1) if running else np.array([n])
    if n * float(np.abs(rows).max(initial=0.0)) < 2.0**1023:
        return exact_running(rows, at)
    flat = rows.reshape(-1, n)
    out = np.empty((flat.shape[0], at.size))
    for r, row in enumerate(flat.tolist()):
        ratios = [v.as_integer_ratio() for v in row]
        denominator = max(d for _, d in ratios)  # powers of two
        sums = np.cumsum(np.array([num * (denominator // d) for num, d in ratios], dtype=object))
        out[r] = [round_exact(Fraction(int(sums[i - 1]), denominator), FP64) for i in at.tolist()]
    return out.reshape(rows.shape[:-1] + (at.size,))


def _so_far(mask: np.ndarray, running: bool, combine: np.ufunc) -> np.ndarray:
    """``combine`` (logical or / and) of ``mask`` over every prefix, or over each row (keeping a last axis of 1)."""
    if running:
        return np.asarray(combine.accumulate(mask, axis=-1))
    return np.asarray(combine.reduce(mask, axis=-1, keepdims=True))


def _sums(values: np.ndarray, fmt: Format, running: bool) -> np.ndarray:
    """Correctly rounded sums of every prefix, or of each row (then with a last axis of 1)."""
    _check(values, fmt)
    with np.errstate(invalid="ignore", over="ignore"):
        wide = values.astype(np.float64)
    nan, plus, minus = (_so_far(m, running, np.logical_or) for m in (np.isnan(wide), wide == np.inf, wide == -np.inf))
    negative_zero = _so_far((wide == 0) & np.signbit(wide), running, np.logical_and)
    finite = np.where(np.isfinite(wide), wide, 0.0)
    exact = _fp64_sums(finite, running) if fmt.precision > 51 else _odd_sums(finite, fmt.precision, running)
    exact = np.where(negative_zero, -0.0, exact)
    exact = np.where(plus, np.inf, np.where(minus, -np.inf, exact))
    exact = np.where(nan | (plus & minus), np.nan, exact)
    with np.errstate(over="ignore"):
        return to_format(exact, fmt)  # rounding to odd at 53 bits, then to nearest at p <= 51: one rounding


def correct_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """The correctly rounded sum of the first i inputs, for every i (shape of ``values``, ``fmt.dtype``).

    Entry i - 1 is the exact sum of ``values[..., :i]`` rounded once to
    ``fmt``, nearest with ties to even.  IEEE's special cases: NaN in the
    prefix gives NaN, and so do +inf and -inf together; one kind of infinity
    gives itself (NaN in E4M3).  An exact sum beyond the largest value
    overflows as the format does (inf, or NaN in E4M3), whatever the
    partial sums did; an exact zero is -0.0 if every input so far is -0.0,
    else +0.0.
    """
    return _sums(values, fmt, running=True)


def correct_sum(values: np.ndarray, fmt: Format) -> np.ndarray:
    """The correctly rounded sum along the last axis (shape ``values.shape[:-1]``): the last running total.

    NaN, inf and -0.0 as in :func:`correct_running`; cheaper, since it sums
    each row's digits once instead of every prefix.
    """
    total: np.ndarray = _sums(values, fmt, running=False)[..., 0]
    return total

