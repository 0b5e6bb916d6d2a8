"""The naive method's matrix product: one walk along K for the whole stack, leaving out the sums that have stalled.

Row k of the walk is every entry's product k, formed exactly once and
rounded to each accumulator, then added to every running total by one
vector addition in the accumulator's own arithmetic, the addition
``numpy.add.accumulate`` does.  Every :data:`SPAN` rows, a matrix whose
totals no product of the next span can move (``_moving``) is left out.
Apart from :mod:`fpsum.matmul` because the walk is the naive method's
alone: the other methods go through :func:`fpsum.dot.sum_products`.
"""

from __future__ import annotations

import math

import numpy as np

from .formats import Format
from .matmul_operands import _exact_dtype, _rounded

PRODUCTS_PER_STEP = 1 << 18  # the naive walk's rows of products at a time: 1 MB of float32, in the cache
SPAN = 256  # rows of the naive walk between two looks for matrices whose sums have stalled


def _product_bounds(columns: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The largest and the smallest product of each row of the walk, for each matrix of the stack: ``(K, stack)`` each.

    ``columns`` is ``(K, stack, m)`` and ``rows`` ``(K, stack, n)``, in a dtype
    that holds every product exactly.  The extreme products of a row are
    products of the extreme values of a's column and b's row.  NaN where a
    NaN, or inf times 0, can be among the products: no bound.
    """
    a_high, a_low = columns.max(axis=-1), columns.min(axis=-1)  # NaN in, NaN out
    b_high, b_low = rows.max(axis=-1), rows.min(axis=-1)
    with np.errstate(invalid="ignore"):
        corners = np.stack([a_high * b_high, a_high * b_low, a_low * b_high, a_low * b_low])
    return corners.max(axis=0), corners.min(axis=0)


def _row_products(columns: np.ndarray, rows: np.ndarray, zeros: bool) -> np.ndarray:
    """``columns[..., :, None] * rows[..., None, :]``: rows of the walk's exact products, ``(rows, stack, m, n)``.

    ``numpy.einsum`` forms them twice as fast as the broadcast product, but it
    adds each product to a zero, which turns a product of -0.0 into +0.0;
    it is taken only where no factor is zero (``zeros`` False), so that no
    product is.  Exact products otherwise: NaN and inf are the same either way.
    """
    if zeros:
        product: np.ndarray = columns[..., :, np.newaxis] * rows[..., np.newaxis, :]
        return product
    summed: np.ndarray = np.einsum("...i,...j->...ij", columns, rows)
    return summed


def _moving(total: np.ndarray, high: np.ndarray, low: np.ndarray, acc: Format) -> np.ndarray:
    """Which matrices of the stack hold a running total that a product between ``low`` and ``high`` could change.

    ``total`` is ``(stack, m, n)`` in ``acc``'s dtype; ``high`` and ``low`` are
    ``(rows, stack)`` bounds of the exact products to come.  Rounded to
    ``acc`` they bound the rounded products (rounding is monotone), and a
    total s stays put under every product p with ``-gap_below / 2 <= p <=
    gap_above / 2`` (a tie goes to s if its last bit is even, the neighbours'
    being odd).  Counted as moving: a total of 0 (-0.0 + +0.0 is +0.0),
    inf, NaN or next to inf (it may overflow), and any bound that is NaN.
    First a look at the largest total alone: no half-gap of a total exceeds
    |total| 2**-p, or half the smallest subnormal, so bounds beyond twice that move some sum.
    """
    top = _rounded(high.max(axis=0), acc).astype(np.float64)  # NaN stays NaN
    bottom = _rounded(low.min(axis=0), acc).astype(np.float64)
    values = total.astype(np.float64)
    reach = np.maximum(np.abs(values).max(axis=(1, 2)) * 2.0 ** (1 - acc.precision), acc.smallest_subnormal)
    if not np.any((top <= reach) & (-bottom <= reach)):  # NaN compares false: moving
        return np.ones(total.shape[0], dtype=bool)
    top, bottom = top[:, np.newaxis, np.newaxis], bottom[:, np.newaxis, np.newaxis]
    above = np.nextafter(total, np.array(np.inf, dtype=total.dtype)).astype(np.float64)
    below = np.nextafter(total, np.array(-np.inf, dtype=total.dtype)).astype(np.float64)
    even = (total.view(np.dtype(f"u{total.itemsize}")) & 1) == 0
    room_up, room_down = (above - values) / 2, (values - below) / 2  # exact: neighbours, then halved
    stays = (np.isfinite(above) & np.isfinite(below) & (values != 0)
             & ((top < room_up) | ((top == room_up) & even))
             & ((-bottom < room_down) | ((-bottom == room_down) & even)))
    moving: np.ndarray = ~stays.all(axis=(1, 2))
    return moving


def _add_rows(total: np.ndarray, rows: np.ndarray, first: bool) -> None:
    """Add each row of ``rows`` to ``total`` in turn, in place; with ``first``, the first row starts it.

    ``numpy.add`` in the total's dtype: entry by entry the addition
    ``numpy.add.accumulate`` makes.
    """
    for index, row in enumerate(rows):
        if first and index == 0:
            total[...] = row
        else:
            np.add(total, row, out=total)


def _naive_walk(a: np.ndarray, b: np.ndarray, accs: list[Format], counts: np.ndarray) -> list[np.ndarray]:
    """The naive sums over the first ``counts[t]`` terms of every entry, ``(counts, ..., m, n)`` for each of ``accs``.

    ``a`` is ``(..., m, K)`` and ``b`` ``(..., K, n)``, one stack shape.  Row k of
    the walk is every entry's product k, exact in the dtype of
    :func:`_exact_dtype` and shared by the accumulators, then rounded once
    to each; the running totals start from row 0 (as
    :func:`fpsum.naive.naive_running` starts from its first input, so a
    lone -0.0 stays -0.0) and add each next row (:func:`_add_rows`).  NaN and
    inf as in that sum.  Every :data:`SPAN` rows, a matrix whose totals no
    product of the next span can move (:func:`_moving`: a stalled sum) is
    left out of them, products and additions; nothing after the last count
    is computed.
    """
    lead, (m, k), n = a.shape[:-2], a.shape[-2:], b.shape[-1]
    stack = math.prod(lead)
    dtype = _exact_dtype(a, b)
    columns: np.ndarray = np.moveaxis(a.reshape(stack, m, k), -1, 0).astype(dtype, order="C")  # (K, stack, m)
    rows: np.ndarray = np.moveaxis(b.reshape(stack, k, n), -2, 0).astype(dtype, order="C")  # (K, stack, n)
    high, low = _product_bounds(columns, rows)
    zeros = np.concatenate([[0], np.cumsum((columns == 0).any(axis=(1, 2)) | (rows == 0).any(axis=(1, 2)))]).tolist()
    outs = [np.empty((counts.size, stack, m, n), dtype=acc.dtype) for acc in accs]
    totals = [np.empty((stack, m, n), dtype=acc.dtype) for acc in accs]
    step = max(1, PRODUCTS_PER_STEP // (stack * m * n))
    wanted, last = counts.tolist(), int(counts[-1])
    kept = 0  # counts reached so far
    with np.errstate(over="ignore", invalid="ignore"):  # IEEE's inf and NaN, as in the naive sum
        for span in range(0, last, SPAN):
            end = min(span + SPAN, last)
            moving = [np.ones(stack, dtype=bool) if span == 0 else _moving(total, high[span:end], low[span:end], acc)
                      for total, acc in zip(totals, accs)]
            needed = np.logical_or.reduce(moving)
            every = [bool(which.all()) for which in moving]
            chosen = [None if which[needed].all() else which[needed] for which in moving]  # of the products formed
            parts = [total if all_of else total[which] for total, which, all_of in zip(totals, moving, every)]
            start = span
            while start < end:
                stop = min(start + step, end, wanted[kept])
                exact = _row_products(columns[start:stop, needed], rows[start:stop, needed], zeros[stop] > zeros[start])
                for part, acc, pick in zip(parts, accs, chosen):
                    _add_rows(part, _rounded(exact if pick is None else exact[:, pick], acc), start == 0)
                if stop == wanted[kept] or stop == end:
                    for total, which, part, all_of in zip(totals, moving, parts, every):
                        if not all_of:
                            total[which] = part  # the matrices left out have not moved
                if stop == wanted[kept]:
                    for out, total in zip(outs, totals):
                        out[kept] = total
                    kept += 1
                start = stop
    return [out.reshape((counts.size,) + lead + (m, n)) for out in outs]
