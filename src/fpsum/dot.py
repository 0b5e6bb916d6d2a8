"""Dot products: inputs in one format, products rounded once, sums in an accumulator format.

A dot product of ``x`` and ``y`` (arrays of ``fmt.dtype``, shape ``(..., K)``)
is the sum of the products ``x_i * y_i``.  Here every product is formed
exactly and rounded once to the accumulator format ``acc`` (an IEEE
multiplication in ``acc`` of the two inputs), and the rounded products are
summed in ``acc`` by one of the summation methods of :mod:`fpsum.methods`,
exactly as ``fpsum sum`` sums values of ``acc``.
With ``fused=True`` each step is a fused multiply-add instead: the exact
``s + x * y``, rounded once.

Why float64 is enough: a product of two values of at most 24 significant
bits (FP32 and every narrower input format) has at most 48, and its
exponent lies between 2**-298 and 2**256, far inside float64's normal
range.  So ``x * y`` in float64 is the exact product, and rounding that
float64 value to ``acc`` with :func:`fpsum.array_rounding.to_format` rounds the
exact product once, correctly.

Leading axes are independent dot products and are vectorised over; the
running versions give the dot product of every prefix at once, as the
summation methods do.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .array_rounding import to_format
from .blocked import DEFAULT_BLOCK
from .exact import exact_running
from .formats import FORMATS, Format
from .methods import running_totals, total
from .names import Method
from .rounded_once import add_rounded

INPUT_FORMATS: tuple[str, ...] = ("fp16", "bf16", "e4m3", "e5m2", "fp32")
ACCUMULATORS: tuple[str, ...] = ("fp16", "bf16", "fp32", "fp64")
DOT_METHODS: tuple[Method, ...] = ("naive", "pairwise", "kahan", "neumaier", "blocked")

_BY_DTYPE = {FORMATS[name].dtype: FORMATS[name] for name in INPUT_FORMATS}


def check_formats(fmt: Format, acc: Format) -> None:
    """``ValueError`` unless ``fmt`` is an input format and ``acc`` an accumulator format of the model.

    Inputs go up to FP32, so that every product is exact in float64 (see the
    module docstring); accumulators are the formats that sums are kept in on
    hardware (FP8 is not one).  Formats, not numbers: no NaN, inf or -0 cases.
    """
    if fmt.name not in INPUT_FORMATS:
        raise ValueError(f"{fmt.label} is not an input format of a dot product (allowed: {', '.join(INPUT_FORMATS)})")
    if acc.name not in ACCUMULATORS:
        raise ValueError(f"{acc.label} is not an accumulator format (allowed: {', '.join(ACCUMULATORS)})")


def input_format(dtype: np.dtype) -> Format:
    """The input format whose dtype is ``dtype``; ``TypeError`` if none of :data:`INPUT_FORMATS` has it.

    A dtype, not values: NaN, inf and -0.0 are allowed in the arrays.
    """
    try:
        return _BY_DTYPE[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"inputs are {dtype}, not one of the input formats ({', '.join(INPUT_FORMATS)})") from None


def check_pair(x: np.ndarray, y: np.ndarray) -> None:
    """``TypeError`` unless ``x`` and ``y`` share an input format's dtype; ``ValueError`` unless one shape, K >= 1.

    Shapes and dtypes only: NaN, inf and -0.0 values are allowed here.
    """
    if x.dtype != y.dtype:
        raise TypeError(f"x is {x.dtype} but y is {y.dtype}: a dot product takes two vectors of one format")
    input_format(x.dtype)
    if x.shape != y.shape:
        raise ValueError(f"x has shape {x.shape} but y has shape {y.shape}")
    if x.ndim == 0 or x.shape[-1] < 1:
        raise ValueError("a dot product needs at least one pair")


def _check(x: np.ndarray, y: np.ndarray, fmt: Format, acc: Format) -> None:
    check_formats(fmt, acc)
    check_pair(x, y)
    if x.dtype != fmt.dtype:
        raise TypeError(f"inputs are {x.dtype}, expected {fmt.dtype} for {fmt.label}")


def exact_products(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x * y`` in float64, elementwise: exact for inputs up to FP32 (see the module docstring).

    No checks.  NaN, inf and signs of zero are IEEE's: inf * 0 is NaN, ``-0.0 * 2`` is -0.0.
    """
    with np.errstate(invalid="ignore"):  # inf * 0 is NaN, as it should be (and ml_dtypes warns casting NaN)
        exact: np.ndarray = x.astype(np.float64) * y.astype(np.float64)
    return exact


def products(x: np.ndarray, y: np.ndarray, acc: Format) -> np.ndarray:
    """Every product ``x_i * y_i`` rounded once (nearest, ties to even) to ``acc``, as ``acc.dtype``.

    ``x`` and ``y`` have one input format's dtype and one shape.  The float64
    product is exact (see the module docstring), so rounding it with
    :func:`fpsum.array_rounding.to_format` is the correctly rounded product, the
    result of IEEE multiplication in ``acc`` of the two values.  Special
    values are IEEE's: NaN times anything and inf * 0 are NaN, inf times a
    nonzero value is +-inf, a product beyond ``acc``'s range overflows to
    +-inf, and the sign of a zero product is the exclusive or of the signs
    (``-0.0 * 3`` is -0.0, and so is a tiny negative product that underflows).
    """
    check_pair(x, y)
    with np.errstate(over="ignore"):  # a product beyond acc's range is +-inf, as it should be
        return to_format(exact_products(x, y), acc)


def _fused_running(x: np.ndarray, y: np.ndarray, acc: Format) -> np.ndarray:
    """``s <- round_acc(s + x_k * y_k)`` from ``s = -0.0``, every prefix; see :func:`dot_running`."""
    exact = exact_products(x, y)
    if acc.precision == 53:
        # The product is exact, so fl64(s + p) is one rounding of s + x*y: the
        # fused loop is the naive sum of the exact products (and -0.0 + p is p).
        with np.errstate(over="ignore", invalid="ignore"):
            return np.add.accumulate(exact, axis=-1)
    columns = np.ascontiguousarray(np.moveaxis(exact, -1, 0))  # loop over k, vectorised over the dot products
    totals = np.empty(columns.shape, dtype=acc.dtype)
    s = np.full(columns.shape[1:], -0.0)  # adds nothing, not even a sign: entry 0 is the first product, rounded
    for k, p in enumerate(columns):
        rounded = add_rounded(s, p, acc)  # TwoSum, then round to odd in float64, then to acc: one rounding
        totals[k] = rounded
        s = rounded.astype(np.float64)
    return np.moveaxis(totals, 0, -1)


def sum_products(
    rounded: np.ndarray, acc: Format, method: Method = "naive", *, block: int = DEFAULT_BLOCK, running: bool = True
) -> np.ndarray:
    """Sum products already rounded to ``acc`` (an array of ``acc.dtype``, shape ``(..., K)``) by ``method``.

    The running totals, shape ``(..., K)``, or with ``running=False`` only the
    final sums, shape ``(...)``: the summation step of :func:`dot_running`
    and :func:`dot`, shared with :mod:`fpsum.matmul` so that a matrix product
    sums exactly as a dot product does.  ``ValueError`` for a method outside
    :data:`DOT_METHODS`.  NaN, inf and -0.0 as in the method's summation.
    """
    if method not in DOT_METHODS:
        raise ValueError(f"unknown dot product method {method!r} (known: {', '.join(DOT_METHODS)})")
    if not running:
        if method == "pairwise":
            return total("pairwise", rounded, acc)  # straight down the tree, cheaper than every prefix
        return sum_products(rounded, acc, method, block=block)[..., -1]
    return running_totals(method, rounded, acc, block=block)


# --8<-- [start:dot]
def dot_running(
    x: np.ndarray,
    y: np.ndarray,
    fmt: Format,
    acc: Format,
    method: Method = "naive",
    *,
    fused: bool = False,
    block: int = DEFAULT_BLOCK,
) -> np.ndarray:
    """Running dot products, shape `(..., K)` in `acc.dtype`: entry k is the
    dot product of the first k + 1 pairs.

    Unfused (the default), the products are rounded to `acc` by `products()`
    and summed by `method` (one of `DOT_METHODS`; `block` is the blocked
    method's block size), bit for bit as `fpsum.methods.running_totals()` sums
    them.  `fused=True` is the naive loop with a fused multiply-add,
    `s <- round_acc(s + x_k * y_k)`, the exact value rounded once; it starts
    from `s = -0.0`, which adds nothing, so entry 0 is the first product
    rounded once, as unfused.  For an FP64 accumulator the fused and unfused
    loops coincide, since the products are exact. `ValueError` for a method
    outside `DOT_METHODS`, `fused` with a method other than naive, formats
    outside `INPUT_FORMATS` / `ACCUMULATORS`, mismatched shapes or no pairs;
    `TypeError` for inputs not of `fmt.dtype`. NaN, inf and -0.0 follow IEEE
    rules through `products()` and the method (an inf * 0 product is NaN,
    overflow in `acc` gives +-inf).
    """
    _check(x, y, fmt, acc)
    if fused:
        if method != "naive":
            raise ValueError(
                "a fused multiply-add goes with the naive"
                f" loop only, not {method!r}"
            )
        return _fused_running(x, y, acc)
    return sum_products(products(x, y, acc), acc, method, block=block)
# --8<-- [end:dot]


def dot(
    x: np.ndarray,
    y: np.ndarray,
    fmt: Format,
    acc: Format,
    method: Method = "naive",
    *,
    fused: bool = False,
    block: int = DEFAULT_BLOCK,
) -> np.ndarray:
    """The dot product over the last axis, shape ``x.shape[:-1]`` in ``acc.dtype``.

    The last entry of :func:`dot_running`, bit for bit (the same checks,
    errors and NaN, inf and -0.0 rules); see :func:`sum_products`.
    """
    if fused:
        return dot_running(x, y, fmt, acc, method, fused=True, block=block)[..., -1]
    _check(x, y, fmt, acc)
    return sum_products(products(x, y, acc), acc, method, block=block, running=False)


def exact_dot_running(x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The exact dot product of the first ``at[j]`` pairs, correctly rounded to float64, shape ``(..., len(at))``.

    ``x`` and ``y`` hold values of one input format (up to FP32), one shape
    ``(..., K)``; ``at`` holds counts from 1 to K.  The float64 products are
    exact, so this is :func:`fpsum.exact.exact_running` of the products.
    ``ValueError`` for NaN or inf inputs (no exact value) or counts outside
    1..K; -0.0 counts as zero, and an exact zero is +0.0.
    """
    check_pair(x, y)
    exact = exact_products(x, y)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns when it casts a NaN
        finite = np.all(np.isfinite(x.astype(np.float64))) and np.all(np.isfinite(y.astype(np.float64)))
    if not finite:
        raise ValueError("an exact dot product needs finite inputs")
    return exact_running(exact, at)


def exact_dot(x: np.ndarray, y: np.ndarray) -> Fraction:
    """The exact dot product of two 1-D arrays of finite values (any float dtype), as a Fraction.

    Slow and plain, for tests and single dot products: each value is an
    integer over a power of two, so each product is too, and the sum is
    taken in integers over the largest denominator (no gcd at every step).
    ``ValueError`` for NaN or inf values, or arrays that are not 1-D and of
    one length; -0.0 is zero.
    """
    left = np.asarray(x, dtype=np.float64)
    right = np.asarray(y, dtype=np.float64)
    if left.ndim != 1 or left.shape != right.shape:
        raise ValueError(f"exact_dot takes two 1-D arrays of one length, got {left.shape} and {right.shape}")
    if not (np.all(np.isfinite(left)) and np.all(np.isfinite(right))):
        raise ValueError("an exact dot product needs finite inputs")
    ratios = []
    for a, b in zip(left.tolist(), right.tolist()):
        (na, da), (nb, db) = a.as_integer_ratio(), b.as_integer_ratio()
        ratios.append((na * nb, da * db))
    denominator = max((d for _, d in ratios), default=1)  # every d is a power of two
    return Fraction(sum(n * (denominator // d) for n, d in ratios), denominator)
