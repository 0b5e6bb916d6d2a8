"""What the rounded and the exact matrix products share: checks of the operands, and their exact products.

Shapes and dtypes (``_check``), the counts of a sweep over K
(``_counts``), groups of rows of C that keep the products within
:data:`PRODUCTS_PER_GROUP` values (``_row_groups``), a dtype that holds
every product exactly (``_exact_dtype``), the products of a group
(``_group_products``) and their one rounding to an accumulator
(``_rounded``).  Private helpers of :mod:`fpsum.matmul`,
:mod:`fpsum.matmul_walk` and :mod:`fpsum.matmul_exact`, in a module of
their own so that the walk and the exact product need not import
:mod:`fpsum.matmul`, which imports them both.
"""

from __future__ import annotations

import numpy as np

from .array_rounding import to_format
from .dot import input_format
from .formats import Format

PRODUCTS_PER_GROUP = 1 << 20  # 8 MB of float64 products: vector operations long enough, data near the cache


def _check(a: np.ndarray, b: np.ndarray, fmt: Format | None) -> tuple[int, ...]:
    """The shape of the stack (``a``'s and ``b``'s leading axes, broadcast); errors as :func:`matmul` says."""
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]:
        raise ValueError(f"a (m, K) times b (K, n) needs matching K, got {a.shape} and {b.shape}")
    if a.shape[-1] < 1:
        raise ValueError("a matrix product needs K >= 1")
    if a.dtype != b.dtype or (fmt is not None and a.dtype != fmt.dtype):
        want = fmt.dtype if fmt is not None else a.dtype
        raise TypeError(f"a is {a.dtype} and b is {b.dtype}, expected both {want}")
    try:
        return np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(f"the stacks of a {a.shape} and b {b.shape} do not broadcast") from None


def _counts(at: np.ndarray | None, k: int) -> np.ndarray:
    """``at`` as increasing counts in 1..k (``ValueError`` otherwise); ``[k]`` if it is None."""
    if at is None:
        return np.array([k])
    counts = np.asarray(at)
    if counts.ndim != 1 or counts.size == 0 or not np.issubdtype(counts.dtype, np.integer):
        raise ValueError("at must be a non-empty 1-D array of whole numbers")
    if counts[0] < 1 or counts[-1] > k or np.any(np.diff(counts) <= 0):
        raise ValueError(f"at must increase strictly, from 1 up to K = {k}")
    return counts.astype(np.int64)


def _row_groups(m: int, n: int, k: int) -> list[slice]:
    """Slices of the rows of C, each holding at most :data:`PRODUCTS_PER_GROUP` products (one row at least)."""
    rows = max(1, PRODUCTS_PER_GROUP // (n * k))
    return [slice(start, min(start + rows, m)) for start in range(0, m, rows)]


def _exact_dtype(a: np.ndarray, b: np.ndarray) -> type:
    """float32 where it holds every product of ``a`` and ``b`` exactly, else float64 (which always does).

    float32 does when the significands have at most 12 bits (products of at
    most 24) and every nonzero product lies in its normal range, 2**-126 up
    to below 2**128: bounded by the largest and smallest finite nonzero
    magnitudes of each matrix.  Half the memory traffic, and float32 casts
    to the narrow accumulators in one rounding, where float64 needs
    :func:`fpsum.array_rounding.to_format`'s two steps.  NaN and inf multiply the
    same way in both.
    """
    if 2 * input_format(a.dtype).precision > 24:
        return np.float64
    bounds = []
    for matrix in (a, b):
        magnitudes = np.abs(matrix.astype(np.float32))  # exact: at most 12 bits
        finite = np.isfinite(magnitudes)
        high = float(magnitudes.max(initial=0.0, where=finite))
        if high == 0:
            return np.float32  # every product is 0, inf or NaN, the same in any dtype
        low = float(magnitudes.min(initial=np.inf, where=finite & (magnitudes > 0)))
        bounds.append((low, high))
    (low_a, high_a), (low_b, high_b) = bounds
    fits = low_a * low_b >= 2.0**-126 and high_a * high_b < 2.0**128
    return np.float32 if fits else np.float64


def _group_products(a: np.ndarray, b_columns: np.ndarray, rows: slice) -> np.ndarray:
    """The exact products of the rows of ``a`` in ``rows`` with every column of b, shape ``(rows, n, K)``.

    In the dtype of ``b_columns``, which :func:`_exact_dtype` chose to hold them exactly.
    """
    with np.errstate(invalid="ignore"):  # inf * 0 is NaN, as in fpsum.dot.exact_products
        group: np.ndarray = a[rows, np.newaxis, :].astype(b_columns.dtype) * b_columns[np.newaxis, :, :]
    return group


def _rounded(exact: np.ndarray, acc: Format) -> np.ndarray:
    """Exact products (float32 or float64) rounded once to ``acc``: the value :func:`fpsum.dot.products` gives."""
    if exact.dtype == acc.dtype:
        return exact  # FP32 products held exactly in float32, or any product in float64: nothing to round
    with np.errstate(over="ignore", invalid="ignore"):  # beyond acc's range is +-inf; ml_dtypes warns casting NaN
        if exact.dtype == np.float32:
            return exact.astype(acc.dtype)  # one rounding of an exact value: NumPy's and ml_dtypes' casts are RNE
        return to_format(exact, acc)
