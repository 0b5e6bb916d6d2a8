"""Matrix products whose every entry is a dot product of :mod:`fpsum.dot`.

``C[i, j]`` is the dot product of row i of ``a`` and column j of ``b``,
products rounded once to the accumulator and summed there by a method,
bit for bit as :func:`fpsum.dot.dot` computes it: the products and sums go
through the same functions.  The ``m * n`` entries are vectorised over, a
group of rows of ``C`` at a time so that the ``(rows, n, K)`` products stay
within :data:`PRODUCTS_PER_GROUP` values.  With ``at``, one pass of running
totals gives the product of every leading block ``a[:, :k] @ b[:k, :]``
for the k in ``at``: how a figure sweeps K without redoing the short sums.
"""

from __future__ import annotations

import math

import numpy as np

from .dot import check_formats, input_format, sum_products
from .exact import exact_running
from .formats import Format
from .methods import Method
from .rounding import to_format

PRODUCTS_PER_GROUP = 1 << 20  # 8 MB of float64 products: vector operations long enough, data near the cache


def _check(a: np.ndarray, b: np.ndarray, fmt: Format | None) -> None:
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"a (m, K) times b (K, n) needs matching K, got {a.shape} and {b.shape}")
    if a.shape[1] < 1:
        raise ValueError("a matrix product needs K >= 1")
    if a.dtype != b.dtype or (fmt is not None and a.dtype != fmt.dtype):
        want = fmt.dtype if fmt is not None else a.dtype
        raise TypeError(f"a is {a.dtype} and b is {b.dtype}, expected both {want}")


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
    :func:`fpsum.rounding.to_format`'s two steps.  NaN and inf multiply the
    same way in both.
    """
    if 2 * input_format(a.dtype).precision > 24:
        return np.float64
    bounds = []
    for matrix in (a, b):
        magnitudes = np.abs(matrix.astype(np.float32))
        nonzero = magnitudes[np.isfinite(magnitudes) & (magnitudes > 0)]
        if nonzero.size == 0:
            return np.float32  # every product is 0, inf or NaN, the same in any dtype
        bounds.append((float(nonzero.min()), float(nonzero.max())))
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
    with np.errstate(over="ignore"):  # a product beyond acc's range is +-inf, as it should be
        if exact.dtype == np.float32:
            return exact.astype(acc.dtype)  # one rounding of an exact value: NumPy's and ml_dtypes' casts are RNE
        return to_format(exact, acc)


def matmul(
    a: np.ndarray, b: np.ndarray, fmt: Format, acc: Format, method: Method = "naive", *, at: np.ndarray | None = None
) -> np.ndarray:
    """``a @ b`` with every entry a dot product in ``acc`` by ``method``; ``(m, n)``, or ``(len(at), m, n)``.

    ``a`` is ``(m, K)`` and ``b`` is ``(K, n)``, both of ``fmt.dtype``.
    Entry ``[i, j]`` is bit for bit ``fpsum.dot.dot(a[i], b[:, j], fmt, acc,
    method)``: each product rounded once to ``acc``, the products summed in
    ``acc`` by ``method`` (one of :data:`fpsum.dot.DOT_METHODS`).  With
    ``at`` (strictly increasing counts from 1 to K), entry ``[t, i, j]`` is
    that dot product over the first ``at[t]`` terms only, all from one pass.
    NaN, inf and -0.0 as in :func:`fpsum.dot.dot`.  ``ValueError`` for
    formats outside the dot product's lists, an unknown method, shapes that
    do not match or a bad ``at``; ``TypeError`` for other dtypes.
    """
    check_formats(fmt, acc)
    _check(a, b, fmt)
    (m, k), n = a.shape, b.shape[1]
    counts = _counts(at, k)
    out = np.empty((counts.size, m, n), dtype=acc.dtype)
    b_columns: np.ndarray = np.ascontiguousarray(b.T).astype(_exact_dtype(a, b))
    for rows in _row_groups(m, n, k):
        rounded = _rounded(_group_products(a, b_columns, rows), acc)
        if at is None:
            out[0, rows] = sum_products(rounded, acc, method, running=False)
        else:
            running = sum_products(rounded, acc, method)
            out[:, rows] = np.moveaxis(running[..., counts - 1], -1, 0)
    return out[0] if at is None else out


MAX_SLICES = 4  # per matrix: slices of 17 bits or more cover the significands of every input format


def _slices(matrix: np.ndarray, width: int) -> list[tuple[np.ndarray, int]] | None:
    """``matrix`` (finite float64) as a sum of integer matrices times powers of two, or None.

    Each slice holds integers of magnitude below ``2**width``, scaled by
    ``2**shift``: the top ``width`` bits below the largest binade first, then
    the next, until nothing is left.  None if that takes more than
    :data:`MAX_SLICES` slices (values spread over too many binades) or would
    leave float64's exponent range; an all-zero matrix is no slices at all.
    """
    largest = float(np.abs(matrix).max())
    if largest == 0:
        return []
    top = math.frexp(largest)[1]  # every |value| < 2**top
    rest = matrix.copy()
    slices = []
    for j in range(1, MAX_SLICES + 1):
        shift = top - j * width
        if shift < -1000:
            return None
        whole = np.trunc(np.ldexp(rest, -shift))  # exact: a power-of-two scaling, then dropping the fraction
        rest -= np.ldexp(whole, shift)  # exact: the low bits of each value
        slices.append((whole, shift))
        if not rest.any():
            return slices
    return None


def _exact_by_slices(a: np.ndarray, b: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """The exact product at every count in ``counts``, correctly rounded to float64; None if not to be had this way.

    Cut ``a`` and ``b`` into integer slices (:func:`_slices`) narrow enough
    that every product of two slice entries, and every sum of K of them, is an
    integer below 2**53: then float64 matrix multiplication (any order, any
    blocking the BLAS likes) is exact for every pair of slices, block by block
    of K between the counts.  The exact entry is the sum of the scaled slice
    products, correctly rounded by :func:`fpsum.exact.exact_running`.  Milliseconds
    where the product-by-product route takes a second; finite inputs only.
    """
    k = a.shape[1]
    width = (53 - max(k, 1).bit_length()) // 2  # K * 2**(2 * width) <= 2**53
    if width < 12:
        return None
    left, right = _slices(a.astype(np.float64), width), _slices(b.astype(np.float64), width)
    if left is None or right is None:
        return None
    if not left or not right:
        return np.zeros((counts.size, a.shape[0], b.shape[1]))
    edges = np.concatenate([[0], counts])
    terms = []
    for whole_a, shift_a in left:
        for whole_b, shift_b in right:
            if shift_a + shift_b < -1000:
                return None
            blocks = np.stack([whole_a[:, lo:hi] @ whole_b[lo:hi, :] for lo, hi in zip(edges[:-1], edges[1:])])
            terms.append(np.ldexp(np.cumsum(blocks, axis=0), shift_a + shift_b))  # exact integers, then exact scaling
    stacked = np.stack(terms, axis=-1)  # (counts, m, n, pairs of slices)
    summed = exact_running(stacked.reshape(-1, len(terms)), np.array([len(terms)]))
    return summed.reshape(stacked.shape[:-1])


def exact_matmul(a: np.ndarray, b: np.ndarray, *, at: np.ndarray | None = None) -> np.ndarray:
    """The exact ``a @ b``, every entry correctly rounded to float64; ``(m, n)``, or ``(len(at), m, n)``.

    ``a`` and ``b`` hold values of one input format (up to FP32, so the
    float64 products are exact), shapes ``(m, K)`` and ``(K, n)``.  Exact float64
    matrix products of integer slices where they can be had (:func:`_exact_by_slices`),
    else :func:`fpsum.exact.exact_running` of each entry's exact products, a group of
    rows at a time.  ``ValueError`` for NaN or inf values (no exact value),
    mismatched shapes or a bad ``at``; -0.0 counts as zero and an exact zero
    is +0.0.
    """
    _check(a, b, None)
    input_format(a.dtype)  # TypeError for a dtype that is not an input format's
    if not (np.all(np.isfinite(a.astype(np.float64))) and np.all(np.isfinite(b.astype(np.float64)))):
        raise ValueError("an exact matrix product needs finite inputs")
    (m, k), n = a.shape, b.shape[1]
    counts = _counts(at, k)
    sliced = _exact_by_slices(a, b, counts)
    if sliced is not None:
        return sliced[0] if at is None else sliced
    out = np.empty((counts.size, m, n))
    b_columns: np.ndarray = np.ascontiguousarray(b.T).astype(_exact_dtype(a, b))  # float32 if exact: fewer digits
    for rows in _row_groups(m, n, k):
        group = _group_products(a, b_columns, rows)
        sums = exact_running(group.reshape(-1, k), counts).reshape(group.shape[:2] + (counts.size,))
        out[:, rows] = np.moveaxis(sums, -1, 0)
    return out[0] if at is None else out


def relative_frobenius_error(c_hat: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``||C^ - C||_F / ||C||_F`` over the last two axes, in float64, shape ``c_hat.shape[:-2]``.

    ``c_hat`` (any float dtype) is compared with ``c`` as float64; both
    broadcast.  An infinite or NaN entry of ``c_hat`` makes the error inf or
    NaN (inf - inf is NaN); -0.0 and +0.0 are equal.  Where ``C`` is all
    zeros the error is 0 if ``C^`` is too, else inf.
    """
    approx = np.asarray(c_hat, dtype=np.float64)
    exact = np.asarray(c, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        error = np.linalg.norm(approx - exact, axis=(-2, -1))
        size = np.linalg.norm(np.broadcast_to(exact, np.broadcast_shapes(approx.shape, exact.shape)), axis=(-2, -1))
        no_size = np.where(error == 0, 0.0, np.where(np.isnan(error), np.nan, np.inf))
        ratio: np.ndarray = np.where(size > 0, error / np.where(size > 0, size, 1.0), no_size)
    return ratio
