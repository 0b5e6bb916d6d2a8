"""TwoProduct and Dot2 (Ogita, Rump and Oishi 2005): the dot product's compensated sum, every operation in one format.

TwoProduct turns one multiplication into two numbers of the format: the
rounded product ``h = fl(a * b)`` and its error ``r = a * b - h``.  With a
fused multiply-add the error is one operation, ``r = fl(a * b - h)``, and
it is exact whenever it is representable: when nothing overflows and the
error does not fall below the format's subnormal grid.  Dot2 sums the
``h`` by TwoSum, keeping every addition's error ``q``, sums the ``q + r``
naively beside them, and adds the two sums at the end: a dot product about
as accurate as one computed in twice the precision and rounded back.

How the fused multiply-add is emulated, and why that way.  Neither NumPy
nor Python 3.11 has an FMA, so it is built from arithmetic that is exact:

- every format up to FP32 (24 bits): the float64 product of two inputs is
  exact (48 bits, exponents far inside float64's range), and so is the
  float64 difference of that product and ``h``, a number of at most 48
  bits on the product's grid.  Rounding it once to the format
  (:func:`fpsum.array_rounding.to_format`) is the FMA's single rounding.
- FP64: the product needs 106 bits, more than float64 holds, so the error
  comes from Dekker's TwoProduct with Veltkamp's splitting, which uses no
  FMA and is exact while no split overflows and no partial product falls
  below the subnormals.  For inputs outside a window that keeps all of that
  true (magnitudes in [2**-480, 2**480]) the error is computed from exact
  rationals instead, one element at a time, so it is the FMA's correctly
  rounded result there too.

Everything else is the format's own arithmetic (NumPy's float16 and
ml_dtypes' types round every operation once).  The tests hold TwoProduct
to exact rationals bit for bit and Dot2 to a scalar loop of correctly
rounded operations.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .array_rounding import to_format
from .cascaded import two_sum_error
from .exact_rounding import round_exact
from .formats import FORMATS, FP64, Format

_SPLIT = 2.0**27 + 1.0
"""Veltkamp's constant for float64: splits a double into two halves of at most 26 significant bits."""
_SAFE_LOW, _SAFE_HIGH = 2.0**-480, 2.0**480
"""FP64 inputs whose magnitudes lie here (or are zero) give an exact Dekker error: no split overflows
(that needs |a| < 2**996), the product stays below 2**960, and the smallest partial product, on a grid
of 2**(e_a + e_b - 104) >= 2**-1064, stays on float64's subnormal grid of 2**-1074."""


def _check(x: np.ndarray, y: np.ndarray, fmt: Format) -> None:
    if fmt.name not in FORMATS:
        raise ValueError(f"{fmt.label} is not a format of the model")
    if x.dtype != fmt.dtype or y.dtype != fmt.dtype:
        raise TypeError(f"inputs are {x.dtype} and {y.dtype}, expected {fmt.dtype} for {fmt.label}")
    if x.shape != y.shape:
        raise ValueError(f"x has shape {x.shape} but y has shape {y.shape}")


def _fma_exact(a: float, b: float, c: float, fmt: Format) -> float:
    """``a * b + c`` rounded once to ``fmt`` from exact rationals; IEEE's special cases, as an FMA gives them.

    NaN anywhere, inf * 0 and inf - inf give NaN; an infinite product or
    addend passes through (NaN in E4M3); an exact zero is +0.0 unless the
    product and ``c`` are both zeros of the negative sign (and +0.0 always in the fnuz formats).
    """
    values = np.array([a, b, c])
    if np.isnan(values).any():
        return float("nan")
    if np.isfinite(values[:2]).all() and not np.isfinite(c):
        return round_exact(c, fmt)  # the exact product is finite, however large: the infinity wins
    if not np.isfinite(values).all():
        product = a * b  # inf * 0 is NaN, inf * finite is an infinity: exact as IEEE defines it
        return round_exact(product + c, fmt)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        negative = np.signbit(a) != np.signbit(b) and np.signbit(c)
        return round_exact(-0.0 if negative else 0.0, fmt)  # +0.0 in the fnuz formats, which have no -0
    return round_exact(exact, fmt)


def _in_window(values: np.ndarray) -> np.ndarray:
    """Where a float64 magnitude lies in [2**-480, 2**480]: Dekker's TwoProduct is exact for two such inputs."""
    size = np.abs(values)
    inside: np.ndarray = (size >= _SAFE_LOW) & (size <= _SAFE_HIGH)
    return inside


def _fp64_errors(a: np.ndarray, b: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``fl(a * b - h)`` in float64, elementwise: Dekker's exact error in the safe window, exact rationals outside."""
    with np.errstate(over="ignore", invalid="ignore"):
        a_big = _SPLIT * a
        a_hi = a_big - (a_big - a)
        a_lo = a - a_hi
        b_big = _SPLIT * b
        b_hi = b_big - (b_big - b)
        b_lo = b - b_hi
        error = ((a_hi * b_hi - h) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    finite = np.isfinite(a) & np.isfinite(b)
    zero = finite & ((a == 0) | (b == 0))
    error = np.where(zero, 0.0, error)  # the product is exact: fl(0 - h), h a zero of the other sign, is +0
    outside = ~(zero | (_in_window(a) & _in_window(b) & finite))
    for index in zip(*np.nonzero(outside)):
        error[index] = _fma_exact(float(a[index]), float(b[index]), -float(h[index]), FP64)
    return error


# --8<-- [start:two_product]
def two_product(
    a: np.ndarray, b: np.ndarray, fmt: Format
) -> tuple[np.ndarray, np.ndarray]:
    """`h = fl(a * b)` and `r = fl(a * b - h)`, elementwise, as arrays of
    `fmt.dtype`: TwoProduct with an FMA.

    `r` is the product's rounding error, exactly, when nothing overflows and
    the exponents of `a` and `b` add up to at least emin + p - 1 (FP16: -4, so
    a product from 2**-2 up); below that the error can fall off the subnormal
    grid.  Either way `r` is the FMA's correctly rounded value.  NaN in gives
    NaN; overflow gives `h` = +-inf (NaN in E4M3) and `r` its opposite (NaN in
    E4M3); inf * 0 gives NaN for both.  A zero product gives `r` = +0.0.
    """
    _check(a, b, fmt)
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt.precision == 53:
            h = a64 * b64
            return h, _fp64_errors(a64, b64, h)
        # exact: 48 bits at most, in float64's range
        exact = a64 * b64
        h = to_format(exact, fmt)
        # exact too: at most 48 bits on the same grid
        error = exact - h.astype(np.float64)
        return h, to_format(error, fmt)
# --8<-- [end:two_product]


# --8<-- [start:dot2]
def dot2_running(x: np.ndarray, y: np.ndarray, fmt: Format) -> np.ndarray:
    """Dot2 of every prefix along the last axis, in `fmt.dtype`: entry k is
    Dot2 of the first k + 1 pairs.

    Every operation is rounded to `fmt`.  The products' errors `r` come from
    `two_product()`; the rounded products `h` are summed naively, and each
    addition's error `q` comes from TwoSum; the `q + r` are summed naively
    beside them, and the two sums are added last. NaN and inf propagate (the
    errors of a step that meets one are NaN).  `ValueError` for no pairs.
    """
    if x.shape[-1] < 1:
        raise ValueError("a dot product needs a pair")
    h, r = two_product(x, y, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        # the rounded products, summed in fmt
        p = np.add.accumulate(h, axis=-1)
        # what each addition of a product lost
        q = two_sum_error(p[..., :-1], h[..., 1:], p[..., 1:])
        # every error of the dot product, summed naively
        errors = np.concatenate([r[..., :1], q + r[..., 1:]], axis=-1)
        s = np.add.accumulate(errors, axis=-1)
        result: np.ndarray = p + s
    return result
# --8<-- [end:dot2]


def dot2(x: np.ndarray, y: np.ndarray, fmt: Format) -> np.ndarray:
    """Dot2 over the last axis, shape ``x.shape[:-1]`` in ``fmt.dtype``: the last entry of :func:`dot2_running`.

    Inputs of any format of the model (FP8 to FP64), both of ``fmt.dtype``
    and one shape (``TypeError``, ``ValueError`` otherwise).  Its error is
    at most ``u |s| + gamma_K**2 |x|^T |y|`` (Ogita, Rump and Oishi 2005,
    Proposition 5.5) when nothing overflows or underflows; NaN and inf as in
    :func:`dot2_running`.
    """
    return dot2_running(x, y, fmt)[..., -1]
