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
:data:`PRODUCTS_PER_GROUP` values.  With ``at``, one pass gives the product
of every leading block ``a[..., :k] @ b[..., :k, :]`` for the k in ``at``:
how a figure sweeps K without redoing the short sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .dot import DOT_METHODS, check_formats, input_format, sum_products
from .exact import exact_running
from .formats import Format
from .methods import Method
from .rounding import to_format

PRODUCTS_PER_GROUP = 1 << 20  # 8 MB of float64 products: vector operations long enough, data near the cache
PRODUCTS_PER_STEP = 1 << 18  # the naive walk's rows of products at a time: 1 MB of float32, in the cache
SPAN = 256  # rows of the naive walk between two looks for matrices whose sums have stalled


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
    :func:`fpsum.rounding.to_format`'s two steps.  NaN and inf multiply the
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
    :func:`fpsum.methods.naive_running` starts from its first input, so a
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


MAX_SLICES = 4  # per matrix: slices of 17 bits or more cover the significands of every input format
SPARSE = 1 / 16  # slices nonzero in fewer than this share of entries are multiplied term by term


@dataclass(frozen=True)
class _Slices:
    """A matrix in ``count`` integer slices: ``sum(slice(j) * 2**(shift + (count - 1 - j) * width))``.

    Every slice holds whole numbers below ``2**width`` in magnitude.  The
    first is kept whole (``first``, float64); the others whole too
    (``low``, ``(count - 1, *shape)``), or, where only a few entries can be
    nonzero in them (``where``, their rows and columns), as those entries'
    digits (``digits``, ``(count - 1, entries)``).
    """

    first: np.ndarray
    low: np.ndarray | None
    where: tuple[np.ndarray, np.ndarray] | None
    digits: np.ndarray | None
    count: int
    shift: int

    def whole(self, j: int) -> np.ndarray:
        """Slice j as a float64 matrix (made from the digits where they are kept few)."""
        if j == 0:
            return self.first
        if self.low is not None:
            low: np.ndarray = self.low[j - 1]
            return low
        assert self.where is not None and self.digits is not None
        made = np.zeros(self.first.shape)
        made[self.where] = self.digits[j - 1]
        return made

    def terms(self, j: int, transposed: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Slice j's (rows, columns, values) where it is kept as a few digits, else None (of the transpose if asked)."""
        if j == 0 or self.where is None or self.digits is None:
            return None
        rows, columns = self.where
        return (columns, rows, self.digits[j - 1]) if transposed else (rows, columns, self.digits[j - 1])


def _slices(matrix: np.ndarray, width: int) -> _Slices | None:
    """``matrix`` (finite values of an input format) cut into integer slices of ``width`` bits, or None.

    The top ``width`` bits below the largest binade first; as many slices as
    the binades from the largest value down to the last bit of the smallest
    one need, worked out from those two.  None if that is more than
    :data:`MAX_SLICES` (values spread over too many binades) or would leave
    float64's exponent range; an all-zero matrix is no slices at all.  The
    cutting is exact: power-of-two scalings, dropping fractions, and
    subtracting them, in float32 where every scaling stays in its range.
    Only values below ``2**(top - width + precision - 1)`` have bits below
    the first slice's; where they are fewer than :data:`SPARSE` of all,
    only their digits are kept for the other slices.
    """
    precision = input_format(matrix.dtype).precision
    work: np.ndarray = matrix.astype(np.float32)  # exact: input formats are at most FP32
    largest = max(float(work.max()), -float(work.min()))
    if largest == 0:
        return _Slices(first=np.zeros(matrix.shape), low=None, where=None, digits=None, count=0, shift=0)
    magnitudes = np.abs(work)
    smallest = float(magnitudes.min(initial=np.inf, where=work != 0))
    top = math.frexp(largest)[1]  # every |value| < 2**top
    lowest = math.frexp(smallest)[1] - precision  # every value is a whole multiple of 2**lowest
    count = -(-(top - lowest) // width)
    shift = top - count * width  # the last slice's scale
    if count > MAX_SLICES or shift < -1000:
        return None
    small = magnitudes < 2.0 ** (top - width + precision - 1)  # the rest are whole multiples of 2**(top - width)
    few = count > 1 and np.count_nonzero(small) < SPARSE * small.size
    where = np.nonzero(small) if few else None
    if not 0 <= width - top <= 127:
        work = work.astype(np.float64)  # a scaling down could underflow float32, one by over 2**127 is not in it
    rest: np.ndarray = (work[where] if where is not None else work) * 2.0 ** (width - top)  # exact; below 2**width
    first = np.trunc(work * 2.0 ** (width - top)).astype(np.float64) if where is not None else None
    cut = np.empty((count,) + rest.shape)
    for j in range(count):
        whole = np.trunc(rest)
        cut[j] = whole
        if j + 1 < count:
            rest -= whole  # exact: the fraction, below 1 in magnitude
            rest *= 2.0**width  # exact: the next width bits move above the point
    if where is None:
        return _Slices(first=cut[0], low=cut[1:], where=None, digits=None, count=count, shift=shift)
    assert first is not None
    return _Slices(first=first, low=None, where=(where[0], where[1]), digits=cut[1:], count=count, shift=shift)


def _correctly_rounded(levels: list[np.ndarray], width: int, shift: int) -> np.ndarray:
    """``sum(levels[l] * 2**((L - l) * width)) * 2**shift`` correctly rounded to float64, ``L = len(levels) - 1``.

    Each level holds whole numbers below 2**52 in magnitude.  Carries go up
    from the last level so that every level below the first keeps a digit
    in [0, 2**width): each step is exact, and the first level stays below
    2**53.  Digits that fit in 53 bits together make one float64, so the
    first level plus that is one rounding of the exact sum; more digits than
    that go to :func:`fpsum.exact.exact_running`.  An exact zero is +0.0.
    """
    digits = [level.copy() for level in levels]
    for low in range(len(digits) - 1, 0, -1):
        carry = np.floor(digits[low] * 2.0**-width)  # exact: a power-of-two scaling, then whole numbers
        digits[low] -= carry * 2.0**width  # exact: the digit left, 0 <= digit < 2**width
        digits[low - 1] += carry  # exact: |carry| < 2**(52 - width), the sum stays below 2**53
    last = len(digits) - 1
    if last * width <= 53:
        below = np.zeros_like(digits[0])
        for place, digit in enumerate(digits[1:], 1):
            below += digit * 2.0 ** ((last - place) * width)  # exact: digits that do not overlap, below 2**53
        rounded: np.ndarray = np.ldexp(digits[0] * 2.0 ** (last * width) + below + 0.0, shift)  # one rounding
        return rounded
    terms = np.stack([np.ldexp(digit, shift + (last - place) * width) for place, digit in enumerate(digits)], axis=-1)
    return exact_running(terms.reshape(-1, len(digits)), np.array([len(digits)])).reshape(terms.shape[:-1])


def _exact_by_slices(a: np.ndarray, b: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """The exact product at every count in ``counts``, correctly rounded to float64; None if not to be had this way.

    Cut ``a`` and ``b`` into integer slices (:func:`_slices`) narrow enough
    that every product of two slice entries, and every sum of 4K of them, is
    an integer below 2**52: then a float64 matrix product, summed in any
    order, is exact for every pair of slices, block by block of K between
    the counts, and so is adding up the pairs of one scale.  A pair with a
    slice of few nonzeros goes term by term (:func:`_term_by_term`), the
    others through einsum's own loop, not the BLAS: its threads, on a busy
    machine, can take longer to meet than to multiply.  The exact entry is
    the sum of those scaled levels, correctly rounded by
    :func:`_correctly_rounded`.  A fraction of a second where the
    product-by-product route takes seconds; finite inputs only.
    """
    (m, k), n = a.shape, b.shape[1]
    width = (50 - max(k, 1).bit_length()) // 2  # 4 * K * 2**(2 * width) <= 2**52
    if width < 12:
        return None
    left, right = _slices(a, width), _slices(b, width)
    if left is None or right is None:
        return None
    if left.count == 0 or right.count == 0:
        return np.zeros((counts.size, m, n))
    if left.shift + right.shift < -1000:
        return None
    edges = np.concatenate([[0], counts])
    levels = [np.zeros((counts.size, m, n)) for _ in range(left.count + right.count - 1)]
    for p in range(left.count):
        for q in range(right.count):
            left_terms, right_terms = left.terms(p), right.terms(q, transposed=True)
            if left_terms is not None:
                blocks = _term_by_term(left_terms, m, right.whole(q), edges)
            elif right_terms is not None:
                blocks = np.swapaxes(_term_by_term(right_terms, n, left.whole(p).T, edges), 1, 2)
            else:
                bounds = edges.tolist()
                blocks = np.stack([np.einsum("ik,kj->ij", left.whole(p)[:, lo:hi], right.whole(q)[lo:hi])
                                   for lo, hi in zip(bounds[:-1], bounds[1:])])
            levels[p + q] += np.cumsum(blocks, axis=0)  # exact: whole numbers below 2**52
    return _correctly_rounded(levels, width, left.shift + right.shift)


def _term_by_term(terms: tuple[np.ndarray, np.ndarray, np.ndarray], m: int, right: np.ndarray,
                  edges: np.ndarray) -> np.ndarray:
    """``left[:, lo:hi] @ right[lo:hi]`` for each block of K between ``edges``, from ``left``'s nonzero ``terms``.

    ``left`` has ``m`` rows; the result is ``(blocks, m, right's columns)``.

    Each term ``left[i, k]`` times row k of ``right`` is added to row i of its
    block: whole numbers, so in any order the sums are exact, as the BLAS's are.
    """
    rows, ks, values = terms
    blocks = np.searchsorted(edges, ks, side="right") - 1  # the block of K each term falls in
    out = np.zeros((edges.size - 1, m, right.shape[1]))
    np.add.at(out, (blocks, rows), values[:, np.newaxis] * right[ks])
    return out


def exact_matmul(a: np.ndarray, b: np.ndarray, *, at: np.ndarray | None = None) -> np.ndarray:
    """The exact ``a @ b``, every entry correctly rounded to float64; ``(..., m, n)``, or ``(len(at), ..., m, n)``.

    ``a`` and ``b`` hold values of one input format (up to FP32, so the
    float64 products are exact), shapes ``(..., m, K)`` and ``(..., K, n)``
    with leading axes that broadcast, as in :func:`matmul`.  Exact float64
    matrix products of integer slices where they can be had
    (:func:`_exact_by_slices`), else :func:`fpsum.exact.exact_running` of each
    entry's exact products, a group of rows at a time.  ``ValueError`` for
    NaN or inf values (no exact value), mismatched shapes or a bad ``at``;
    -0.0 counts as zero and an exact zero is +0.0.
    """
    lead = _check(a, b, None)
    input_format(a.dtype)  # TypeError for a dtype that is not an input format's
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("an exact matrix product needs finite inputs")
    (m, k), n = a.shape[-2:], b.shape[-1]
    counts = _counts(at, k)
    a, b = np.broadcast_to(a, lead + (m, k)), np.broadcast_to(b, lead + (k, n))
    out = np.empty((counts.size,) + lead + (m, n))
    for index in np.ndindex(*lead):
        out[(slice(None),) + index] = _exact_one(a[index], b[index], counts)
    return out[0] if at is None else out


def _exact_one(a: np.ndarray, b: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """:func:`exact_matmul` of one pair of matrices (finite, checked), ``(counts, m, n)``."""
    sliced = _exact_by_slices(a, b, counts)
    if sliced is not None:
        return sliced
    (m, k), n = a.shape, b.shape[1]
    out = np.empty((counts.size, m, n))
    b_columns: np.ndarray = np.ascontiguousarray(b.T).astype(_exact_dtype(a, b))  # float32 if exact: fewer digits
    for rows in _row_groups(m, n, k):
        group = _group_products(a, b_columns, rows)
        sums = exact_running(group.reshape(-1, k), counts).reshape(group.shape[:2] + (counts.size,))
        out[:, rows] = np.moveaxis(sums, -1, 0)
    return out


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
