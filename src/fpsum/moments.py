"""Mean and population variance by four methods, every operation rounded once to an accumulation format.

The inputs (shape ``(..., n)``, already values of the input format) are
converted exactly to the accumulation format ``acc``, which must hold every
value of the input format (:func:`check_formats`); from there each
operation is rounded once to ``acc``, to nearest with ties to even, by the
dtype's own arithmetic as in the summation methods (:mod:`fpsum.methods`).
The counts k and n are exact integers: ``d / k`` is the exact quotient
rounded once (:func:`fpsum.count_division.divide_by_count`), and Chan's weights nB / n and
nA * nB / n are exact rationals rounded once (:func:`fpsum.count_division.count_ratio`).  The
variance is the population variance (divide by n), as LayerNorm's.

* ``textbook``: s1 = sum x and s2 = sum x*x in order (each square rounded,
  then added); mean = s1 / n; var = s2 / n - mean * mean.
* ``two-pass``: mean = (sum x) / n in order; var = (sum (x - mean)**2) / n in order.
* ``welford``: for k = 1..n: d = x - m; m = m + d / k; M2 = M2 + d * (x - m)
  with the new m; var = M2 / n.
* ``chan``: Chan, Golub and LeVeque's merges over the pairwise sum's tree
  (the left part the largest power of two below n), leaves (1, x, 0):
  delta = mB - mA; m = mA + delta * (nB / n);
  M2 = (M2A + M2B) + (delta * delta) * (nA * nB / n).

Leading axes are independent rows, vectorised over (Welford's loop runs over
the inputs, as Kahan's does).  The exact mean and variance of the rounded
inputs (:func:`exact_moments`) and the report of one row (:func:`moments`)
are here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

import numpy as np

from .array_rounding import to_format
from .count_division import MAX_COUNT, count_divider, count_ratio, divide_by_count
from .exact import exact_sum
from .formats import FORMATS, Format
from .pairwise import pairwise_split

MomentMethod = Literal["textbook", "two-pass", "welford", "chan"]
MOMENT_METHODS: tuple[MomentMethod, ...] = get_args(MomentMethod)

NORM_FORMATS: tuple[str, ...] = tuple(name for name, fmt in FORMATS.items() if fmt.overflow != "saturate")
"""Formats the normalisation models take, as inputs or accumulators: all but FP4 and FP6, which hold no NaN."""

def check_formats(fmt: Format, acc: Format) -> None:
    """``ValueError`` unless both are :data:`NORM_FORMATS` and ``acc`` holds every value of ``fmt``.

    ``acc`` holds ``fmt`` when it has at least its precision, its smallest
    normal exponent and its largest value (so its subnormals too): FP16 into
    FP32 or FP64, E4M3 into FP16, but not FP16 into BF16 (fewer bits) nor BF16
    into FP16 (a smaller range).  Formats, not numbers: no NaN, inf or -0 cases.
    """
    for role, which in (("an input format", fmt), ("an accumulation format", acc)):
        if which.name not in NORM_FORMATS:
            raise ValueError(f"{which.label} cannot be {role} here (allowed: {', '.join(NORM_FORMATS)})")
    if not (acc.precision >= fmt.precision and acc.emin <= fmt.emin and acc.max_finite >= fmt.max_finite):
        raise ValueError(f"{acc.label} is narrower than the input format {fmt.label}: "
                         "the accumulation format must hold every input value")


def _naive_total(values: np.ndarray) -> np.ndarray:
    """s = fl(s + x) left to right from the first input (``np.add.accumulate``; ``np.add.reduce`` is pairwise)."""
    return np.asarray(np.add.accumulate(values, axis=-1)[..., -1])


def _check(values: np.ndarray, acc: Format) -> int:
    if values.dtype != acc.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {acc.dtype} for {acc.label}")
    n = values.shape[-1]
    if not 1 <= n <= MAX_COUNT:
        raise ValueError(f"moments need between 1 and {MAX_COUNT} inputs, not {n}")
    return int(n)


# --8<-- [start:textbook]
def textbook_moments(
    values: np.ndarray, acc: Format
) -> tuple[np.ndarray, np.ndarray]:
    """E[x^2] - E[x]^2: both sums in one pass, in order, rounded to `acc`.

    Cancellation: var is the difference of two rounded numbers near mean^2,
    so it can come out negative, on a constant row too.  n = 1 gives
    x*x - x*x = 0 unless x*x overflows (inf - inf: NaN).  An inf or NaN
    input, or a sum of squares that overflows, gives inf or NaN (E4M3: NaN).
    -0.0 inputs square to +0.0; a lone -0.0 has mean -0.0.
    """
    n = _check(values, acc)
    with np.errstate(over="ignore", invalid="ignore"):
        s1 = _naive_total(values)
        s2 = _naive_total(values * values)
        mean = divide_by_count(s1, n, acc)
        var = divide_by_count(s2, n, acc) - mean * mean
    return mean, var
# --8<-- [end:textbook]


# --8<-- [start:two_pass]
def two_pass_moments(
    values: np.ndarray, acc: Format
) -> tuple[np.ndarray, np.ndarray]:
    """The mean, then the mean square of the deviations; rounded to `acc`.

    A sum of rounded squares is never negative, so neither is the variance;
    a constant row (every x equal to its rounded mean) gives exactly 0, and
    so does n = 1.  An inf input gives NaN (inf - inf), a NaN input NaN;
    squares that overflow give inf (NaN in E4M3).  -0.0 as in
    `textbook_moments()`.
    """
    n = _check(values, acc)
    with np.errstate(over="ignore", invalid="ignore"):
        mean = divide_by_count(_naive_total(values), n, acc)
        deviations = values - mean[..., np.newaxis]
        var = divide_by_count(_naive_total(deviations * deviations), n, acc)
    return mean, var
# --8<-- [end:two_pass]


def _row_extremes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's largest and smallest value, in ``values``' dtype; a row holding a NaN has NaN in one at least.

    FP16's and BF16's max and min convert every value to float32 first;
    their codes are quicker to compare.  A code is a sign and a magnitude,
    and a NaN's magnitude is above inf's, so flipping the magnitude bits of
    the negative codes (as int16) orders the codes as their values, with
    -0.0 just below +0.0 and a NaN beyond inf (sign bit clear: the largest)
    or -inf (set: the smallest).  Other dtypes take NumPy's max and min.
    """
    if values.dtype.itemsize != 2:  # FP16 and BF16 are the 16-bit formats the models take
        return values.max(axis=-1), values.min(axis=-1)
    magnitude = np.int16(0x7FFF)

    def flip(codes: np.ndarray) -> np.ndarray:  # its own inverse: the sign bit stays
        keys: np.ndarray = codes ^ ((codes >> 15) & magnitude)  # a negative code's magnitude bits flipped
        return keys

    keys = flip(values.view(np.int16))
    return flip(keys.max(axis=-1)).view(values.dtype), flip(keys.min(axis=-1)).view(values.dtype)


def _deviation_bound(values: np.ndarray, acc: Format) -> float:
    """A bound on every |d| = |fl(x - m)| of Welford's loop over these rows (inf where a row holds inf or NaN).

    The running mean m never leaves the range of its row's values (each step
    moves it towards x and never past it, :func:`welford_moments`), so
    |x - m| is at most the row's width w, and its rounding at most w(1 + 2u).
    """
    if values.size == 0:
        return 0.0
    top, bottom = _row_extremes(values)
    with np.errstate(invalid="ignore", over="ignore"):
        widths = top.astype(np.float64) - bottom.astype(np.float64)  # exact
    widest = float(np.max(widths))
    return widest * (1 + 2 * acc.unit_roundoff) if math.isfinite(widest) else math.inf


# --8<-- [start:welford]
def welford_moments(
    values: np.ndarray, acc: Format
) -> tuple[np.ndarray, np.ndarray]:
    """Welford's update, one input at a time; (mean, M2 / n) rounded to `acc`.

    Each term d * (x - m) has factors of one sign (m moves towards x by a
    fraction of d), so M2 never decreases and the variance is never negative;
    a constant row gives exactly 0 (d is 0 after the first input), and so
    does n = 1, but a lone -0.0 has mean +0.0 (m starts at +0).  An inf input
    makes the mean inf and M2 NaN (inf - inf); a NaN gives NaN; an M2 that
    overflows gives inf (NaN in E4M3).
    """
    n = _check(values, acc)
    columns = np.moveaxis(values, -1, 0)  # x: the k-th input of each row
    m = np.zeros(values.shape[:-1], dtype=values.dtype)
    m2 = np.zeros_like(m)
    reach = _deviation_bound(values, acc)  # no |d| passes it
    divide = count_divider(n, acc, reach)  # d / k rounded once
    with np.errstate(over="ignore", invalid="ignore"):
        for k, x in enumerate(columns, start=1):
            d = x - m
            m = m + divide(d, k)
            m2 = m2 + d * (x - m)
        return m, divide_by_count(m2, n, acc)
# --8<-- [end:welford]


# --8<-- [start:chan]
def _merge(
    a: tuple[int, np.ndarray, np.ndarray],
    b: tuple[int, np.ndarray, np.ndarray],
    acc: Format,
) -> tuple[int, np.ndarray, np.ndarray]:
    """Chan, Golub and LeVeque's merge of two (count, mean, M2), in `acc`."""
    na, ma, m2a = a
    nb, mb, m2b = b
    n = na + nb
    delta = mb - ma
    mean = ma + delta * acc.dtype.type(count_ratio(nb, n, acc))
    m2 = (m2a + m2b) + (delta * delta) * acc.dtype.type(
        count_ratio(na * nb, n, acc)
    )
    return n, mean, m2


def _chan(
    values: np.ndarray, acc: Format
) -> tuple[int, np.ndarray, np.ndarray]:
    """(n, mean, M2) of the last axis by the pairwise tree, level by level."""
    n = values.shape[-1]
    if n & (n - 1) == 0:
        part: tuple[int, np.ndarray, np.ndarray] = (
            1,
            values,
            np.zeros_like(values),
        )
        while part[1].shape[-1] > 1:
            count, mean, m2 = part
            part = _merge(
                (count, mean[..., 0::2], m2[..., 0::2]),
                (count, mean[..., 1::2], m2[..., 1::2]),
                acc,
            )
        return part[0], part[1][..., 0], part[2][..., 0]
    left = pairwise_split(n)
    return _merge(
        _chan(values[..., :left], acc), _chan(values[..., left:], acc), acc
    )


def chan_moments(
    values: np.ndarray, acc: Format
) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise merges of (count, mean, M2), as warp and block reductions do.

    Returns (mean, M2 / n), rounded to `acc`.

    M2 is a sum of rounded squares times positive weights, never negative; a
    constant row gives exactly 0 (every delta is 0), and so does n = 1 (one
    leaf).  An inf input gives a NaN or inf mean and a NaN M2; a NaN gives
    NaN; a weight or M2 that overflows gives inf (NaN in E4M3, whose top
    weight nA * nB / n passes 448 from n = 1873 on).
    """
    n = _check(values, acc)
    with np.errstate(over="ignore", invalid="ignore"):
        _, mean, m2 = _chan(values, acc)
        return mean, divide_by_count(m2, n, acc)
# --8<-- [end:chan]


MOMENTS: dict[MomentMethod, Callable[[np.ndarray, Format], tuple[np.ndarray, np.ndarray]]] = {
    "textbook": textbook_moments,
    "two-pass": two_pass_moments,
    "welford": welford_moments,
    "chan": chan_moments,
}


def mean_variance(values: np.ndarray, acc: Format, method: MomentMethod) -> tuple[np.ndarray, np.ndarray]:
    """(mean, variance) of each row of ``values`` (``acc.dtype``) by ``method``.

    ``ValueError`` for an unknown method; NaN, inf and -0.0 as each method's
    function says; n = 1 gives the input and a variance of 0 (textbook: NaN
    if x*x overflows).
    """
    try:
        run = MOMENTS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(MOMENT_METHODS)})") from None
    return run(values, acc)


def _squares_exact(row: np.ndarray, squares: np.ndarray) -> bool:
    """Whether every float64 square is exact: significands of at most 26 bits, squares in the normal range."""
    significands, _ = np.frexp(row)
    short = np.all(np.ldexp(significands, 26) % 1 == 0)
    with np.errstate(over="ignore"):
        inside = np.all(np.isfinite(squares) & ((squares >= 2.0**-1022) | (row == 0)))
    return bool(short and inside)


def exact_moments(values: np.ndarray) -> tuple[Fraction, Fraction]:
    """The exact mean and population variance of a row of finite values (any float dtype), as Fractions.

    var = (n * sum x^2 - (sum x)^2) / n^2: no rounding anywhere.  ``ValueError``
    for an empty row or one with NaN or inf; -0.0 counts as 0.
    """
    row = np.asarray(values, dtype=np.float64).ravel()
    if row.size == 0:
        raise ValueError("moments need at least one input")
    if not np.all(np.isfinite(row)):
        raise ValueError("exact moments need finite inputs")
    n = row.size
    s1 = exact_sum(row)
    with np.errstate(over="ignore", under="ignore"):
        squares = row * row
    if _squares_exact(row, squares):
        s2 = exact_sum(squares)
    else:
        s2 = sum((Fraction(x) ** 2 for x in row.tolist()), Fraction(0))
    return s1 / n, (n * s2 - s1 * s1) / (n * n)


def relative_error(computed: float, exact: Fraction) -> float:
    """|computed - exact| / |exact| as a float: NaN for a NaN result, inf for an infinite one.

    An exact 0 gives 0.0 if ``computed`` is 0 (either sign) and inf otherwise.
    """
    if math.isnan(computed):
        return math.nan
    if math.isinf(computed):
        return math.inf
    error = abs(Fraction(computed) - exact)
    if exact == 0:
        return 0.0 if error == 0 else math.inf
    return float(error / abs(exact))


@dataclass(frozen=True)
class Moments:
    """One row's mean and variance by a method, and the exact ones of its rounded inputs.

    ``mean`` and ``variance`` are values of the accumulation format (floats;
    NaN or inf where the method overflowed); ``exact_mean`` and
    ``exact_variance`` are exact rationals; the relative errors are floats
    (see :func:`relative_error`).
    """

    method: MomentMethod
    fmt: Format
    acc: Format
    n: int
    mean: float
    variance: float
    exact_mean: Fraction
    exact_variance: Fraction
    mean_rel_error: float
    variance_rel_error: float


def moments(values: np.ndarray, fmt: Format, acc: Format, method: MomentMethod) -> Moments:
    """The :class:`Moments` of one row of values of ``fmt`` (any float dtype holding them), accumulated in ``acc``.

    ``ValueError`` for formats :func:`check_formats` refuses, a value not in
    ``fmt``, an empty row, NaN or inf among the inputs (their exact moments
    do not exist), or an unknown method.  -0.0 inputs count as 0.  n = 1
    gives the input as the mean and a variance of 0 (textbook: NaN if its
    square overflows).
    """
    check_formats(fmt, acc)
    row = np.asarray(values).ravel()
    exact_mean, exact_variance = exact_moments(row)
    wide = row.astype(np.float64)
    if not np.array_equal(to_format(wide, fmt).astype(np.float64), wide):
        raise ValueError(f"the inputs are not all values of {fmt.label}")
    mean, variance = mean_variance(wide.astype(acc.dtype), acc, method)  # exact: acc holds fmt
    mean_f, variance_f = float(mean), float(variance)
    return Moments(method, fmt, acc, int(row.size), mean_f, variance_f, exact_mean, exact_variance,
                   relative_error(mean_f, exact_mean), relative_error(variance_f, exact_variance))
