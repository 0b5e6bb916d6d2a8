"""RMSNorm's statistics: the mean of squares and the scale 1 / sqrt(mean + eps), every operation rounded once.

As in :mod:`fpsum.moments`: inputs are values of the input format converted
exactly to the accumulation format ``acc``, and every operation is rounded
once to ``acc``.  Each square is rounded, the squares are added in order,
the sum is divided by the exact count n (:func:`~fpsum.count_division.divide_by_count`),
``eps`` (rounded to ``acc``) is added, and the scale is the correctly rounded
reciprocal square root of that (:func:`rsqrt_rounded`).  In FP16 a sum of
squares passes 65,504 soon (a single input of 256 squares to inf): the mean
square is then inf and the scale 0, so the layer outputs zeros.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .count_division import divide_by_count
from .exact_rounding import round_exact
from .formats import FP64, Format
from .moments import check_formats, exact_moments, relative_error

DEFAULT_EPS = 1e-6
"""RMSNorm's epsilon when none is given (PyTorch's ``rms_norm`` takes the dtype's own; 1e-6 is the common choice)."""


def _sqrt_rounded(value: Fraction, fmt: Format) -> float:
    """sqrt(value) (a positive rational) rounded once to ``fmt``, nearest, ties to even.

    An integer square root with p + 3 bits or more, and a sticky half for a
    remainder: the interval between two such integers holds no midpoint of
    ``fmt``, so the stand-in rounds as the square root does (which is a
    midpoint only if it is rational, and then the stand-in is exact).
    """
    top = value.numerator.bit_length() - value.denominator.bit_length()
    shift = max(fmt.precision + 4 - top // 2, 0)
    while True:
        scaled = value * (1 << (2 * shift))
        root = math.isqrt(scaled.numerator // scaled.denominator)
        if root.bit_length() >= fmt.precision + 3:
            break
        shift += fmt.precision
    sticky = 0 if root * root == scaled else 1
    return round_exact(Fraction(2 * root + sticky, 1 << (shift + 1)), fmt)


def rsqrt_rounded(value: float | Fraction, fmt: Format) -> float:
    """1 / sqrt(value), the exact value rounded once to ``fmt`` (nearest, ties to even): correctly rounded.

    IEEE's rSqrt for the special cases: +0 gives +inf and -0 gives -inf (NaN
    in E4M3 and the fnuz formats, which have no infinity); +inf gives +0; a
    negative value or NaN gives NaN.  A result beyond the largest value
    overflows as the format does.
    """
    if isinstance(value, float):
        if math.isnan(value) or value < 0:
            return math.nan
        if value == 0:
            return round_exact(math.copysign(math.inf, value), fmt)
        if math.isinf(value):
            return 0.0
    exact = Fraction(value)
    if exact < 0:
        return math.nan
    if exact == 0:
        return round_exact(math.inf, fmt)
    return _sqrt_rounded(1 / exact, fmt)


def _check_prescale(prescale: float, acc: Format) -> None:
    """``ValueError`` unless ``prescale`` is a power of two that ``acc`` holds as a normal number."""
    fraction, _ = math.frexp(prescale)
    if not (fraction == 0.5 and acc.smallest_normal <= prescale <= acc.max_finite):
        raise ValueError(f"prescale must be a power of two within {acc.label}'s normal range, not {prescale}")


def rms_statistics(values: np.ndarray, acc: Format, eps: float = DEFAULT_EPS,
                   prescale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Each row's (mean square, scale) in ``acc``: sum of rounded squares in order, / n, + eps, 1 / sqrt.

    ``values`` are of ``acc.dtype``, shape ``(..., n)`` with n >= 1 (``ValueError``
    otherwise; ``TypeError`` for another dtype).  ``prescale``, a power of two c,
    is what a kernel does to keep the sum of squares finite: each input is
    multiplied by c (rounded: exact unless it underflows) and eps by c**2
    (rounded once), so the scale returned is for the scaled inputs, 1 / (c * rms).
    A sum of squares that overflows makes the mean square inf and the scale +0
    (NaN in E4M3); an inf input does the same, a NaN gives NaN; -0.0 squares
    to +0.0, and a row of zeros with eps = 0 gives the scale +inf.
    """
    if values.dtype != acc.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {acc.dtype} for {acc.label}")
    _check_prescale(prescale, acc)
    n = values.shape[-1]
    if n < 1:
        raise ValueError("a mean square needs at least one input")
    shift = acc.dtype.type(round_exact(Fraction(eps) * Fraction(prescale) ** 2, acc))
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        scaled = values * acc.dtype.type(prescale) if prescale != 1 else values
        squares_sum = np.add.accumulate(scaled * scaled, axis=-1)[..., -1]
        mean_square = divide_by_count(np.asarray(squares_sum), n, acc)
        shifted = (mean_square + shift).astype(np.float64)
    unique, where = np.unique(shifted, return_inverse=True)
    scales = np.array([rsqrt_rounded(t, acc) for t in unique.tolist()], dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return mean_square, scales[where].reshape(shifted.shape).astype(acc.dtype)


@dataclass(frozen=True)
class RmsNorm:
    """One row's RMSNorm statistics and the exact ones of its rounded inputs.

    ``mean_square`` and ``scale`` are values of the accumulation format
    (inf, 0 or NaN where the sum of squares overflowed); ``exact_mean_square``
    is an exact rational and ``exact_scale`` 1 / sqrt(exact mean square +
    eps) correctly rounded to FP64, both of the inputs times ``prescale``
    (and eps times its square); the relative errors are floats
    (:func:`~fpsum.moments.relative_error`, against the FP64 scale for ``scale``).
    """

    fmt: Format
    acc: Format
    n: int
    eps: float
    prescale: float
    mean_square: float
    scale: float
    exact_mean_square: Fraction
    exact_scale: float
    mean_square_rel_error: float
    scale_rel_error: float


def rms(values: np.ndarray, fmt: Format, acc: Format, eps: float = DEFAULT_EPS, prescale: float = 1.0) -> RmsNorm:
    """The :class:`RmsNorm` of one row of values of ``fmt`` accumulated in ``acc``, scaled by ``prescale`` first.

    ``ValueError`` for formats :func:`~fpsum.moments.check_formats` refuses,
    an empty row, NaN or inf among the inputs (no exact value), a negative or
    non-finite ``eps``, or a ``prescale`` that is not a power of two in
    ``acc``'s normal range.  -0.0 counts as 0; n = 1 gives x*x as the mean square.
    """
    check_formats(fmt, acc)
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be finite and not negative, not {eps}")
    row = np.asarray(values, dtype=np.float64).ravel()
    exact_mean, exact_variance = exact_moments(row)
    square = Fraction(prescale) ** 2
    exact_mean_square = (exact_variance + exact_mean * exact_mean) * square
    mean_square, scale = rms_statistics(row.astype(acc.dtype), acc, eps, prescale)
    ms, sc = float(mean_square), float(scale)
    exact_scale = rsqrt_rounded(exact_mean_square + Fraction(eps) * square, FP64)
    if math.isinf(exact_scale):  # a row of zeros and eps = 0
        scale_error = 0.0 if sc == exact_scale else math.inf
    else:
        scale_error = relative_error(sc, Fraction(exact_scale))
    return RmsNorm(fmt, acc, int(row.size), eps, prescale, ms, sc, exact_mean_square, exact_scale,
                   relative_error(ms, exact_mean_square), scale_error)
