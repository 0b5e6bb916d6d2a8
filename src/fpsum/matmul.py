"""Matrix products whose every entry is a dot product of :mod:`fpsum.dot`.

``C[i, j]`` is the dot product of row i of ``a`` and column j of ``b``,
products rounded once to the accumulator and summed there by a method,
bit for bit as :func:`fpsum.dot.dot` computes it.  Leading axes are a stack
of independent products, as in ``numpy.matmul``.  The naive method walks K
once for every entry of the whole stack together: a few rows of products at
a time, each row added to every running total by one vector addition in the
accumulator's own arithmetic, the addition ``numpy.add.accumulate`` does.
The other methods go through :func:`fpsum.dot.sum_products`, a group of rows
of ``C`` at a time so that the ``(rows, n, K)`` products stay within
:data:`fpsum.matmul_operands.PRODUCTS_PER_GROUP` values.  With ``at``, one
pass gives the product of every leading block ``a[..., :k] @ b[..., :k, :]``
for the k in ``at``: how a figure sweeps K without redoing the short sums.

The parts, one concern each: :mod:`fpsum.matmul_operands` checks the
operands and forms their exact products, :mod:`fpsum.matmul_walk` is the
naive method's walk along K, :mod:`fpsum.matmul_exact` the exact product
(:func:`fpsum.matmul_exact.exact_matmul`).  This module runs a
product by method, and measures its error against the exact one.
"""

from __future__ import annotations

import numpy as np

from .dot import DOT_METHODS, check_formats, sum_products
from .formats import Format
from .matmul_operands import _check, _counts, _exact_dtype, _group_products, _rounded, _row_groups
from .matmul_walk import _naive_walk
from .names import Method

__all__ = ["matmul", "naive_matmuls", "relative_frobenius_error"]


def _grouped(a: np.ndarray, b: np.ndarray, acc: Format, method: Method, counts: np.ndarray,
             running: bool) -> np.ndarray:
    """One product ``(m, K) @ (K, n)`` by :func:`fpsum.dot.sum_products`, a group of rows at a time; ``(counts, m, n)``.

    ``running=False`` sums straight to the end (``counts`` is then ``[K]``).
    """
    (m, k), n = a.shape, b.shape[1]
    out = np.empty((counts.size, m, n), dtype=acc.dtype)
    b_columns: np.ndarray = np.ascontiguousarray(b.T).astype(_exact_dtype(a, b))
    for rows in _row_groups(m, n, k):
        rounded = _rounded(_group_products(a, b_columns, rows), acc)
        if not running:
            out[0, rows] = sum_products(rounded, acc, method, running=False)
        else:
            sums = sum_products(rounded, acc, method)
            out[:, rows] = np.moveaxis(sums[..., counts - 1], -1, 0)
    return out


def matmul(
    a: np.ndarray, b: np.ndarray, fmt: Format, acc: Format, method: Method = "naive", *, at: np.ndarray | None = None
) -> np.ndarray:
    """``a @ b`` with every entry a dot product in ``acc`` by ``method``; ``(..., m, n)``, or ``(len(at), ..., m, n)``.

    ``a`` is ``(..., m, K)`` and ``b`` is ``(..., K, n)``, both of ``fmt.dtype``;
    leading axes are a stack of products and broadcast, as in ``numpy.matmul``.
    Entry ``[..., i, j]`` is bit for bit ``fpsum.dot.dot(a[..., i, :], b[..., :, j],
    fmt, acc, method)``: each product rounded once to ``acc``, the products
    summed in ``acc`` by ``method`` (one of :data:`fpsum.dot.DOT_METHODS`).
    With ``at`` (strictly increasing counts from 1 to K), entry ``[t, ..., i, j]``
    is that dot product over the first ``at[t]`` terms only, all from one
    pass.  NaN, inf and -0.0 as in :func:`fpsum.dot.dot`.  ``ValueError`` for
    formats outside the dot product's lists, an unknown method, shapes that
    do not match or a bad ``at``; ``TypeError`` for other dtypes.
    """
    check_formats(fmt, acc)
    lead = _check(a, b, fmt)
    if method not in DOT_METHODS:
        raise ValueError(f"unknown dot product method {method!r} (known: {', '.join(DOT_METHODS)})")
    (m, k), n = a.shape[-2:], b.shape[-1]
    counts = _counts(at, k)
    a, b = np.broadcast_to(a, lead + (m, k)), np.broadcast_to(b, lead + (k, n))
    if method == "naive":
        out = _naive_walk(a, b, [acc], counts)[0]
    else:
        out = np.empty((counts.size,) + lead + (m, n), dtype=acc.dtype)
        for index in np.ndindex(*lead):
            out[(slice(None),) + index] = _grouped(a[index], b[index], acc, method, counts, at is not None)
    return out[0] if at is None else out


def naive_matmuls(
    a: np.ndarray, b: np.ndarray, fmt: Format, accs: tuple[Format, ...], *, at: np.ndarray | None = None
) -> list[np.ndarray]:
    """``[matmul(a, b, fmt, acc, "naive", at=at) for acc in accs]``, bit for bit, from one walk over the products.

    Each exact product is formed once and rounded to every accumulator, for
    figures that set accumulators side by side on the same matrices.  The
    same shapes, rules for NaN, inf and -0.0, and errors as :func:`matmul`
    (and ``ValueError`` for no accumulator at all).
    """
    if not accs:
        raise ValueError("naive_matmuls needs at least one accumulator")
    for acc in accs:
        check_formats(fmt, acc)
    lead = _check(a, b, fmt)
    (m, k), n = a.shape[-2:], b.shape[-1]
    counts = _counts(at, k)
    sums = _naive_walk(np.broadcast_to(a, lead + (m, k)), np.broadcast_to(b, lead + (k, n)), list(accs), counts)
    return [out[0] if at is None else out for out in sums]


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
